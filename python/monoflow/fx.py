"""monoflow.fx: torch.fx's ``wrap``, which libraries call when they are imported to mark a function as a leaf of
symbolic tracing.

monoflow has no torch.fx symbolic tracer (its graph capture is ``nn.Graph``),
so ``wrap`` only records the name and returns its argument; ``symbolic_trace``,
``Tracer`` and ``GraphModule`` are not provided."""

import inspect

__all__ = ["wrap"]

_wrapped = set()  # the names wrap() was given


def wrap(fn_or_name):
    """Marks a module-level function (or its name) as a leaf for symbolic tracing and returns it unchanged.

    Args:
        fn_or_name (Callable or str): the function or its name in the calling module.

    Raises:
        NotImplementedError: when it is not called at the top level of a module (as torch).

    Example::

        >>> def clip(x):
        ...     return x.clamp(0, 1)
        >>> flow.fx.wrap(clip) is clip
        True
    """
    if isinstance(fn_or_name, str):
        name = fn_or_name
    elif callable(fn_or_name) and hasattr(fn_or_name, "__name__"):
        name = fn_or_name.__name__
    else:
        raise TypeError(f"fx.wrap(): expected a function or a function's name, got {type(fn_or_name).__name__}")
    caller = inspect.currentframe().f_back
    if caller is None or caller.f_code.co_name != "<module>":
        raise NotImplementedError("fx.wrap(): wrap must be called at the top level of a module")
    _wrapped.add(name)
    return fn_or_name
