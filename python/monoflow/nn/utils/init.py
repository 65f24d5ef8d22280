"""skip_init (torch.nn.utils.skip_init): builds a module without running its
initialisation. Here the module is built normally (its parameters hold
initial values, which the caller overwrites anyway); the point of the call,
construction arguments and all, stays valid."""

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError(f"Module must support a 'device' arg to skip initialization: {module_cls.__name__}")
    return module_cls(*args, **kwargs)
