"""torch.cuda.nvtx: named ranges for profilers. monoflow records them in its own profiler
(:class:`monoflow.autograd.profiler.record_function`) on any machine, where torch needs a CUDA
build; outside a profile they cost nothing."""
import contextlib
import threading

from monoflow.autograd.profiler import record_function

__all__ = ["mark", "range", "range_pop", "range_push"]

_local = threading.local()


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


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
    stack = _stack()
    stack.append(rf)
    return len(stack) - 1


def range_pop():
    """Closes the innermost range opened by :func:`range_push`; returns its depth, or -1 when none is open.

    Example::

        >>> flow.cuda.nvtx.range_pop()
        -1
    """
    stack = _stack()
    if not stack:
        return -1
    stack.pop().__exit__(None, None, None)
    return len(stack)


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
