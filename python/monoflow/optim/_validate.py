"""Range checks of optimizer options, worded as torch's messages."""


def check_nonneg(**options):
    """ValueError for any negative option (``lr``, ``eps``, ``weight_decay``...)."""
    names = {"lr": "learning rate", "eps": "epsilon value", "weight_decay": "weight_decay value",
             "rho": "rho value", "lambd": "lambd value", "momentum_decay": "momentum_decay value"}
    for key, value in options.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {names.get(key, key)}: {value}")


def check_betas(betas):
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")
