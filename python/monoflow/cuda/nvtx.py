"""torch.cuda.nvtx: named ranges for profilers. monoflow records them in its own profiler
(:class:`monoflow.autograd.profiler.record_function`) on any machine, where torch needs a CUDA
build; outside a profile they cost nothing."""
import contextlib
import threading

from monoflow.autograd.profiler import record_function

__all__ = ["mark", "range", "range_pop", "range_push"]

class _Ranges(threading.local):
    """This thread's open ranges, innermost last."""

    def __init__(self):
        self.stack = []


_ranges = _Ranges()


def range_push(msg):
    """Opens a nested range named `msg`; returns its depth (0 for the outermost), as NVTX does.

    Args:
        msg (str): the range's name.

    Example::

        >>> flow.cuda.nvtx.range_push("forward")
        0
        >>> flow.cuda.nvtx.range_pop()
        0
    """
    rf = record_function(msg)
    rf.__enter__()
    _ranges.stack.append(rf)
    return len(_ranges.stack) - 1


def range_pop():
    """Closes the innermost range opened by :func:`range_push`; returns its depth, or -1 when none is open.

    Example::

        >>> flow.cuda.nvtx.range_pop()
        -1
    """
    if not _ranges.stack:
        return -1
    _ranges.stack.pop().__exit__(None, None, None)
    return len(_ranges.stack)


def mark(msg):
    """Marks an instant named `msg` (recorded as an empty range).

    Args:
        msg (str): the mark's name.

    Example::

        >>> flow.cuda.nvtx.mark("step")
    """
    with record_function(msg):
        pass


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """A range around a ``with`` block; `msg` is formatted with ``args`` and ``kwargs`` as torch does.

    Args:
        msg (str): the range's name (a format string when arguments follow).
        *args: positional arguments of ``msg.format``.
        **kwargs: keyword arguments of ``msg.format``.

    Example::

        >>> with flow.cuda.nvtx.range("step {}", 3):
        ...     pass
    """
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
