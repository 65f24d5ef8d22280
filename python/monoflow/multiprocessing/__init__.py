"""monoflow.multiprocessing: Python's multiprocessing, with tensors that
travel as shared memory (torch.multiprocessing).

Everything of the standard module is here unchanged (Process, Queue, Pipe,
get_context, set_start_method, ...); importing monoflow registers the tensor
reducer (reductions.py), so a tensor put on a Queue or passed to a spawned
Process arrives as a view of the same memory, and ``Module.share_memory()``
before starting the processes makes them train one model (Hogwild)."""
import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403

from monoflow.multiprocessing.reductions import init_reductions
from monoflow.multiprocessing.spawn import (  # noqa: F401
    ProcessContext, ProcessExitedException, ProcessRaisedException, spawn, start_processes,
)

__all__ = list(_mp.__all__) + ["spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
                               "ProcessExitedException", "set_sharing_strategy", "get_sharing_strategy",
                               "get_all_sharing_strategies"]

# Segments are anonymous memory files passed by descriptor; torch's other
# strategy ("file_system", named files) is not needed on Linux.
_STRATEGIES = {"file_descriptor"}


def get_all_sharing_strategies():
    """Returns the set of supported tensor sharing strategies: ``{"file_descriptor"}`` (segments pass by descriptor).

    torch's other strategy, ``"file_system"`` (named files), is not needed on Linux.

    Example::

        >>> flow.multiprocessing.get_all_sharing_strategies()
        {'file_descriptor'}
    """
    return set(_STRATEGIES)


def get_sharing_strategy():
    """Returns the strategy by which tensors are shared between processes: always ``"file_descriptor"``.

    Example::

        >>> flow.multiprocessing.get_sharing_strategy()
        'file_descriptor'
    """
    return "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Sets the tensor sharing strategy; only ``"file_descriptor"`` is supported (another raises ``ValueError``).

    Args:
        new_strategy (str): the strategy's name.

    Example::

        >>> flow.multiprocessing.set_sharing_strategy("file_descriptor")
        >>> flow.multiprocessing.set_sharing_strategy("file_system")
        Traceback (most recent call last):
        ...
        ValueError: set_sharing_strategy: 'file_system' is not supported; ...
    """
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"set_sharing_strategy: {new_strategy!r} is not supported; monoflow shares tensors by "
                         f"file descriptor ({sorted(_STRATEGIES)})")


init_reductions()
