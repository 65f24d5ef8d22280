"""Callbacks run when a backward pass ends (torch's ``Variable._execution_engine.queue_callback``).

Code running inside a backward pass (a custom Function's backward, a tensor hook) may need to
act on what the whole pass produced, such as the accumulated ``.grad`` of a leaf, which is
complete only once the engine returns. Each ``backward()`` / ``autograd.grad()`` call opens a
frame; callbacks queued during it run, in order, when a ``backward()`` frame ends without
error. An ``autograd.grad()`` frame drops them: it writes no ``.grad``.
"""
import threading
from contextlib import contextmanager

__all__ = ["queue_callback"]

class _Frames(threading.local):
    """This thread's open engine calls, innermost last: each the list of callbacks queued in it."""

    def __init__(self):
        self.stack = []


_frames = _Frames()


@contextmanager
def backward_frame(run_callbacks):
    """One engine call: collects the callbacks queued during it and runs them at its end
    (``run_callbacks``, and only if the pass succeeded)."""
    queued = []
    _frames.stack.append(queued)
    try:
        yield
    finally:
        _frames.stack.pop()
    if run_callbacks:
        for fn in queued:
            fn()


def try_queue_callback(fn):
    """Queues ``fn`` for the end of the backward pass running now; returns False (and queues
    nothing) outside a pass."""
    if not _frames.stack:
        return False
    _frames.stack[-1].append(fn)
    return True


def current_pass_id():
    """An id of the backward pass running now (None outside one), for state kept across its nodes."""
    return id(_frames.stack[-1]) if _frames.stack else None


def queue_callback(fn):
    """Runs ``fn()`` once the backward pass that is running now has finished.

    Args:
        fn (callable): called with no arguments.

    Example::

        >>> from monoflow.autograd.engine_callbacks import queue_callback
        >>> w = flow.ones(2, requires_grad=True)
        >>> seen = []
        >>> _ = w.register_hook(lambda g: queue_callback(lambda: seen.append(w.grad.tolist())))
        >>> (w * 3).sum().backward()
        >>> seen
        [[3.0, 3.0]]
    """
    if not callable(fn):
        raise TypeError(f"queue_callback(): callback must be callable, not {type(fn).__name__}")
    if not try_queue_callback(fn):
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
