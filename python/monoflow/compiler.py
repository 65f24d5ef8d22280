"""monoflow.compiler: torch.compiler's switches, for code around torch.compile (which runs eagerly in monoflow,
see monoflow.compile): nothing is ever being compiled, so ``disable`` and ``allow_in_graph`` return the function
and ``is_compiling()`` is False."""

__all__ = ["disable", "is_compiling", "is_dynamo_compiling", "allow_in_graph", "assume_constant_result", "reset"]


def disable(fn=None, recursive=True, *, reason=None):
    """``@torch.compiler.disable`` (with or without arguments): the function is returned unchanged."""
    if fn is None:
        return lambda f: f
    return fn


def is_compiling():
    return False


def is_dynamo_compiling():
    return False


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def reset():
    """Nothing to reset: monoflow.compile keeps no compiled caches."""
