"""`compile`: PyTorch's `model = torch.compile(model)` runs unchanged, eagerly.

monoflow has no tracing JIT behind this name (its compiled mode is `nn.Graph`),
so compiling returns the callable itself and says so once.  A pass-through
keeps the program's results identical to eager mode, which is what
torch.compile promises too; raising instead would stop every script that
compiles when `hasattr(torch, "compile")` is true.
"""

import warnings

_warned = False


def compile(model=None, **options):
    """Returns ``model`` unchanged: torch's ``compile``, run eagerly.

    monoflow has no tracing JIT behind this name (its compiled mode is
    :class:`monoflow.nn.Graph`), so ``model = flow.compile(model)`` keeps
    the model as it is and the results identical to eager mode; a
    ``UserWarning`` says so once (not when ``disable=True`` is given).
    Called without ``model`` it returns a decorator.

    Args:
        model (callable, optional): a module or function. Default: ``None``.
        options: torch's keyword arguments (``fullgraph``, ``dynamic``,
            ``backend``, ``mode``, ``options``, ``disable``), accepted and
            ignored.

    Raises:
        TypeError: if ``model`` is not callable.

    Example::

        >>> m = nn.Linear(2, 2)
        >>> flow.compile(m, disable=True) is m
        True
        >>> @flow.compile(disable=True)
        ... def f(x):
        ...     return x + 1
        >>> f(flow.tensor([1]))
        tensor([2])
    """
    if model is None:
        return lambda fn: compile(fn, **options)
    if not callable(model):
        raise TypeError(f"compile(): argument 'model' must be callable, not {type(model).__name__}")
    global _warned
    if not _warned and not options.get("disable", False):
        _warned = True
        warnings.warn("monoflow.compile() runs the model eagerly (no compilation); "
                      "use monoflow.nn.Graph for a compiled static graph", UserWarning, stacklevel=2)
    return model
