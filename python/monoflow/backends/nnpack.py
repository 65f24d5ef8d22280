"""torch.backends.nnpack: monoflow's convolutions do not use NNPACK."""


def is_available():
    return False
