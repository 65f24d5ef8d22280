"""Statistics and control of the caching allocator, per device."""
from monoflow import _C


def memory_stats(device="cpu"):
    """allocated/reserved/peak bytes, raw allocations and frees, cache hits, OOM retries."""
    return _C.memory_stats(device)


def memory_allocated(device="cpu"):
    return _C.memory_stats(device)["allocated_bytes"]


def memory_reserved(device="cpu"):
    return _C.memory_stats(device)["reserved_bytes"]


def max_memory_allocated(device="cpu"):
    return _C.memory_stats(device)["peak_allocated_bytes"]


def empty_cache(device="cpu"):
    """Returns every cached, unused block of the device to the plugin."""
    _C.empty_cache(device)


def reset_peak_memory_stats(device="cpu"):
    _C.reset_peak_memory_stats(device)
