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


def check_impl_options(name, differentiable):
    """torch's implementation switches (foreach, fused, capturable) choose
    between kernels of the same update; monoflow has one fused update, so
    they are accepted and change nothing. differentiable=True (autograd
    through the step) is not supported."""
    if differentiable:
        raise NotImplementedError(f"{name}: differentiable=True (autograd through the optimizer step) is not "
                                  "supported")
