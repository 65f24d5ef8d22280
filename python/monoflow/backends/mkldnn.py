"""torch.backends.mkldnn: monoflow's CPU kernels do not use oneDNN."""
enabled = True


def is_available():
    return False
