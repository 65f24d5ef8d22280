"""skip_init (torch.nn.utils.skip_init): builds a module without running its
initialisation. Here the module is built normally (its parameters hold
initial values, which the caller overwrites anyway); the point of the call,
construction arguments and all, stays valid."""

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Builds ``module_cls(*args, **kwargs)``, meant to skip its initialisation (torch's ``skip_init``).

    In monoflow the module is initialised as usual (the caller overwrites the values anyway); the call
    stays valid. A module class without a ``device`` argument raises ``RuntimeError``, as in torch.

    Args:
        module_cls (type): the module class.
        args: its positional arguments.
        kwargs: its keyword arguments.

    Example::

        >>> m = nn.utils.skip_init(nn.Linear, 5, 1)
        >>> m.weight.shape
        monoflow.Size([1, 5])
    """
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError(f"Module must support a 'device' arg to skip initialization: {module_cls.__name__}")
    return module_cls(*args, **kwargs)
