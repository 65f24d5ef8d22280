"""set_num_threads / get_num_threads and their inter-op counterparts.

The intra-op count is the CPU plugin's kernel thread team (Note [Kernel
threads] in devices/cpu/threads.h), reached through the plugin ABI 1.1 entries
set_num_threads/get_num_threads. Without a call the team is sized by
MONOFLOW_NUM_THREADS / OMP_NUM_THREADS, or else uses all cores.

monoflow has no inter-op thread pool: each device stream runs its ops in order
on one worker thread. get_num_interop_threads therefore reports 1 until a
script sets a value; set_num_interop_threads keeps torch's checks (a positive
int, settable once) and records the value for scripts that read it back, but
changes how nothing runs.
"""
import operator
import os

from monoflow import _C

_interop_threads = None  # set once by set_num_interop_threads, as torch allows

# The largest team accepted. The count becomes an OpenMP team at the next
# kernel, and libgomp starts that many threads at once: 10**5 already ends the
# process ("Thread creation failed"), 10**6 crashes it. More than a few threads
# per core only adds barrier waits, so the cap is 1024 (room for deliberate
# oversubscription on small machines) or 4 per core on larger ones.
_MAX_THREADS = max(1024, 4 * (os.cpu_count() or 1))


def _thread_count(n, op):
    if isinstance(n, bool):
        raise RuntimeError(f"{op} expects an int, but got bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise RuntimeError(f"{op} expects an int, but got {type(n).__name__}") from None
    if n <= 0:
        raise RuntimeError(f"{op} expects a positive integer")
    if n > _MAX_THREADS:
        raise ValueError(f"{op}: {n} threads is more than this machine can usefully run "
                         f"(at most {_MAX_THREADS}: the larger of 1024 and 4 per core)")
    return n


def set_num_threads(int):  # noqa: A002 (torch's parameter name)
    """Sets the number of threads the CPU kernels use (intra-op parallelism).

    The team is fixed at that size for every kernel enqueued after the call,
    also when the machine is busy (the default team shrinks with the load).

    Args:
        int: the thread count, a positive integer.

    Raises:
        RuntimeError: the count is not a positive integer, as torch raises.
        ValueError: the count is above max(1024, 4 per core); each kernel
            would start that many threads.

    Example::

        >>> import monoflow as flow
        >>> before = flow.get_num_threads()
        >>> flow.set_num_threads(1)
        >>> flow.get_num_threads()
        1
        >>> flow.set_num_threads(before)
    """
    _C.set_device_num_threads("cpu", _thread_count(int, "set_num_threads"))


def get_num_threads():
    """Returns the number of threads the CPU kernels use (intra-op parallelism).

    Returns:
        int: the value of the last ``set_num_threads``, else
        ``MONOFLOW_NUM_THREADS`` / ``OMP_NUM_THREADS``, else the core count.

    Example::

        >>> import monoflow as flow
        >>> flow.get_num_threads() >= 1
        True
    """
    return _C.device_num_threads("cpu")


def set_num_interop_threads(int):  # noqa: A002
    """Records the inter-op thread count; allowed once, as in torch.

    monoflow runs each stream's ops in order on one worker thread and has no
    inter-op pool, so the value changes nothing; it is kept for
    :func:`get_num_interop_threads`.

    Args:
        int: the thread count, a positive integer.

    Raises:
        RuntimeError: not a positive integer, or set before.
        ValueError: above max(1024, 4 per core), as for :func:`set_num_threads`.

    Example::

        >>> import monoflow as flow
        >>> flow.get_num_interop_threads() >= 1
        True
    """
    global _interop_threads
    n = _thread_count(int, "set_num_interop_threads")
    if _interop_threads is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started "
                           "or set_num_interop_threads called")
    _interop_threads = n


def get_num_interop_threads():
    """Returns the inter-op thread count: 1 (see :func:`set_num_interop_threads`) unless set.

    Returns:
        int: the recorded count.

    Example::

        >>> import monoflow as flow
        >>> flow.get_num_interop_threads() >= 1
        True
    """
    return 1 if _interop_threads is None else _interop_threads
