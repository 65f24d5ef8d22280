"""monoflow._dynamo: the few ``torch._dynamo`` names training scripts touch around ``torch.compile``
(which runs eagerly in monoflow, see monoflow.compile). ``config`` takes any setting
(``torch._dynamo.config.suppress_errors = True``, ``cache_size_limit = 64``) and keeps it; the
decorators return the function unchanged, as :mod:`monoflow.compiler`'s do."""
from monoflow.compiler import allow_in_graph, disable, is_compiling, reset  # noqa: F401

__all__ = ["config", "reset", "disable", "allow_in_graph", "is_compiling", "mark_dynamic", "mark_static",
           "optimize"]


class _Config:
    """Settings a script writes and may read back; nothing compiles, so none changes behaviour."""

    def __init__(self):
        self.suppress_errors = False
        self.cache_size_limit = 8
        self.verbose = False

    def __repr__(self):
        return f"monoflow._dynamo.config({vars(self)})"


config = _Config()


def mark_dynamic(tensor, dim, *args, **kwargs):
    """Marks ``dim`` of ``tensor`` dynamic for the compiler: nothing to do (nothing is compiled)."""


def mark_static(tensor, dim=None):
    """Marks ``tensor`` static for the compiler: nothing to do (nothing is compiled)."""


def optimize(backend="inductor", *args, **kwargs):
    """``torch._dynamo.optimize(...)``: a decorator returning the function unchanged (it runs eagerly)."""
    return lambda fn: fn
