"""OneFlow's global mode (``flow.utils.global_view.global_mode``): inside an
enabled region, creation functions called without ``placement=`` make global
tensors on the region's placement and SBP, so that code written for local
tensors (``flow.randn(shape)`` in a model's forward) produces global ones
when the model runs globally. A stack per thread: regions nest, and an inner
disabled region turns the mode off."""
import threading

class _State(threading.local):
    stack = None  # (a class default: reading a missing thread-local attribute raises inside getattr, ~1 us
    #             on every creation call)


_state = _State()


def stack():
    s = _state.stack
    if s is None:
        s = _state.stack = []
    return s


def current():
    """(placement, sbp) of the innermost enabled region, or None (none, or an inner disabled one)."""
    s = _state.stack
    return s[-1] if s else None


class suspended:
    """The mode off while the global layer itself creates local tensors (a creation function's
    logical value, an op's shards): only the user's own calls are made global."""

    def __enter__(self):
        stack().append(None)

    def __exit__(self, *exc):
        stack().pop()
        return False
