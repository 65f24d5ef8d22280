"""torch.backends.opt_einsum: monoflow's einsum contracts left to right and does not consult
the opt_einsum package, so it reports unavailable and the switches change nothing."""
enabled = False
strategy = None


def is_available():
    return False


def get_opt_einsum():
    return None
