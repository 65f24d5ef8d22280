"""torch.cuda.memory: the caching allocator's statistics for CUDA devices, from the device
registry (zeros without a CUDA device, as torch answers before CUDA is initialised), and the
older names torch keeps for them."""
import warnings

from monoflow.cuda import (_face, empty_cache, max_memory_allocated, max_memory_reserved, memory_allocated,
                           memory_reserved, memory_stats, reset_peak_memory_stats)

__all__ = ["empty_cache", "ipc_collect", "max_memory_allocated", "max_memory_cached", "max_memory_reserved",
           "mem_get_info", "memory_allocated", "memory_cached", "memory_reserved", "memory_stats", "memory_summary",
           "reset_max_memory_allocated", "reset_max_memory_cached", "reset_peak_memory_stats"]


def memory_cached(device=None):
    """torch's older name of :func:`monoflow.cuda.memory_reserved` (with its FutureWarning).

    Args:
        device (int, str or monoflow.device, optional): the CUDA device. Default: ``None`` (current).

    Example::

        >>> import warnings; warnings.simplefilter("ignore", FutureWarning)
        >>> flow.cuda.memory_cached() == flow.cuda.memory_reserved()
        True
    """
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None):
    """torch's older name of :func:`monoflow.cuda.max_memory_reserved` (with its FutureWarning).

    Args:
        device (int, str or monoflow.device, optional): the CUDA device. Default: ``None`` (current).

    Example::

        >>> import warnings; warnings.simplefilter("ignore", FutureWarning)
        >>> flow.cuda.max_memory_cached() == flow.cuda.max_memory_reserved()
        True
    """
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_max_memory_allocated(device=None):
    """Resets the peak statistics of a CUDA device: torch's older call, which (as in torch, with
    its FutureWarning) resets all of them, :func:`monoflow.cuda.reset_peak_memory_stats`.

    Args:
        device (int, str or monoflow.device, optional): the CUDA device. Default: ``None`` (current).

    Example::

        >>> import warnings; warnings.simplefilter("ignore", FutureWarning)
        >>> flow.cuda.reset_max_memory_allocated()
    """
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    """Like :func:`reset_max_memory_allocated`: resets all peak statistics of a CUDA device.

    Args:
        device (int, str or monoflow.device, optional): the CUDA device. Default: ``None`` (current).

    Example::

        >>> import warnings; warnings.simplefilter("ignore", FutureWarning)
        >>> flow.cuda.reset_max_memory_cached()
    """
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def memory_summary(device=None, abbreviated=False):
    """A printable table of a CUDA device's allocator statistics (current and peak bytes, counts).

    Args:
        device (int, str or monoflow.device, optional): the CUDA device. Default: ``None`` (current).
        abbreviated (bool): accepted for torch's signature (the table is always short). Default: ``False``.

    Example::

        >>> print(flow.cuda.memory_summary().splitlines()[0])
        |=== monoflow CUDA memory summary, device 0 ===|
    """
    stats = memory_stats(device)
    index = _face.index(device)
    rows = [("allocated bytes", "allocated_bytes"), ("peak allocated bytes", "peak_allocated_bytes"),
            ("reserved bytes", "reserved_bytes"), ("peak reserved bytes", "peak_reserved_bytes"),
            ("active blocks", "active_blocks"), ("block requests", "num_allocs"), ("served from cache", "cache_hits"),
            ("device allocations", "num_raw_allocs"), ("device frees", "num_raw_frees"),
            ("out-of-memory retries", "num_oom_retries")]
    lines = [f"|=== monoflow CUDA memory summary, device {index} ===|"]
    if not stats:
        lines.append("| no CUDA device is available: nothing allocated |")
    lines += [f"| {label:<24}{stats[key]:>20} |" for label, key in rows if key in stats]
    return "\n".join(lines)


def mem_get_info(device=None):
    """``(free, total)`` bytes of a CUDA device; raises ``RuntimeError`` without one.

    monoflow's device plugins do not report the device's free memory (the allocator knows only
    what it holds itself), so with a device present this raises ``NotImplementedError``.

    Args:
        device (int, str or monoflow.device, optional): the CUDA device. Default: ``None`` (current).

    Example::

        >>> flow.cuda.mem_get_info()  # on a machine without CUDA  # doctest: +SKIP
        Traceback (most recent call last):
        RuntimeError: cuda.mem_get_info: no 'cuda' device is available (...)
    """
    _face.require("cuda.mem_get_info", None if device is None else _face.index(device))
    raise NotImplementedError("cuda.mem_get_info: the device's free memory is not reported by monoflow's device "
                              "plugins; memory_reserved() tells what monoflow holds")


def ipc_collect():
    """torch's release of CUDA memory shared with other processes through IPC. monoflow shares no
    CUDA memory between processes, so there is nothing to release; raises ``RuntimeError``
    without a CUDA device, as torch does.

    Example::

        >>> flow.cuda.ipc_collect()  # with a CUDA device  # doctest: +SKIP
    """
    _face.require("cuda.ipc_collect")
