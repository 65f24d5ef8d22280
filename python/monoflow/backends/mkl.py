"""torch.backends.mkl: monoflow's CPU kernels use OpenBLAS, not Intel MKL."""


def is_available():
    return False
