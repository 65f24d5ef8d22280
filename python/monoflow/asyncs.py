"""OneFlow's ``oneflow.asyncs``: pick the worker thread that launches ops.

OneFlow launches every op kernel on worker thread 0 unless a
``with flow.asyncs.thread(flow.asyncs.Thread()):`` block names another one.
monoflow runs each device stream's ops in order on that stream's one worker
thread, so a chosen worker changes no result: ``Thread`` hands out worker ids
and ``thread`` records the choice (thread-local, nestable, usable as a
decorator) for code that reads it back with ``current_thread``.
"""
import functools
import itertools
import threading

__all__ = ["Thread", "thread", "current_thread"]

_ids = itertools.count(1)  # 0 is the default worker, as in OneFlow
_local = threading.local()


class Thread:
    """A worker thread to launch ops on, for use with ``flow.asyncs.thread``.

    Each instance gets a new worker id (1, 2, ...; id 0 is the default worker).
    The object takes no arguments.

    Example::

        >>> import monoflow as flow
        >>> worker = flow.asyncs.Thread()
        >>> worker.thread_global_id > 0
        True
    """

    def __init__(self):
        self.thread_global_id = next(_ids)

    def __repr__(self):
        return f"oneflow.asyncs.Thread(thread_global_id={self.thread_global_id})"


def current_thread():
    """The ``Thread`` chosen by the innermost active ``flow.asyncs.thread`` block, or None.

    Takes no arguments. The choice is thread-local: other Python threads keep
    their own.

    Example::

        >>> import monoflow as flow
        >>> worker = flow.asyncs.Thread()
        >>> with flow.asyncs.thread(worker):
        ...     flow.asyncs.current_thread() is worker
        True
        >>> flow.asyncs.current_thread() is None
        True
    """
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


class thread:
    """Context manager (and decorator) that launches the ops in its block on a worker thread.

    Args:
        worker_thread: a ``flow.asyncs.Thread``. The choice is thread-local and
            nests; results are the same as on the default worker (monoflow runs
            a device's ops in order on one stream).

    Example::

        >>> import monoflow as flow
        >>> with flow.asyncs.thread(flow.asyncs.Thread()):
        ...     print(flow.ones(2, 2))
        tensor([[1., 1.],
                [1., 1.]])
    """

    def __init__(self, worker_thread):
        if not isinstance(worker_thread, Thread):
            raise TypeError(
                "oneflow.asyncs.thread: worker_thread must be a oneflow.asyncs.Thread, "
                f"got {type(worker_thread).__name__}")
        self.worker_thread = worker_thread

    def __enter__(self):
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self.worker_thread)
        return self.worker_thread

    def __exit__(self, exc_type, exc, tb):
        _local.stack.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper
