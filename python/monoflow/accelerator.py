"""monoflow.accelerator: torch.accelerator, over the device registry.

The accelerator is the first registered device type other than the CPU
that has devices (a CUDA plugin, or any third-party one); without one,
``is_available()`` is False, ``current_accelerator()`` None and the counts 0."""
from monoflow import _C
from monoflow._device_face import face

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "device_count", "is_available",
           "set_device_idx", "set_device_index", "synchronize", "empty_cache", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "device_index"]


def _face():
    for name in _C.device_types():
        if name != "cpu" and _C.device_count(name) > 0:
            return face(name)
    return None


def _require(what):
    f = _face()
    if f is None:
        raise RuntimeError(f"accelerator.{what}: no accelerator is available (device types loaded: "
                           f"{', '.join(_C.device_types())}); load a device plugin with monoflow.devices.load(path)")
    return f


def is_available():
    return _face() is not None


def current_accelerator(check_available=False):
    f = _face()
    return None if f is None else _C.device(f.type)


def device_count():
    f = _face()
    return 0 if f is None else f.device_count()


def current_device_index():
    return _require("current_device_index()").current


current_device_idx = current_device_index


def set_device_index(device):
    _require("set_device_index()").set_device(device)


set_device_idx = set_device_index


class device_index:  # noqa: N801
    """Context manager: `idx` is the current accelerator device inside."""

    def __init__(self, device):
        self.idx, self.prev = device, None

    def __enter__(self):
        if self.idx is not None:
            f = _require("device_index()")
            self.prev = f.current
            f.set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev is not None:
            _face().current = self.prev
        return False


def synchronize(device=None):
    _require("synchronize()").synchronize(device)


def empty_cache():
    f = _face()
    if f is not None:
        f.empty_cache()


def memory_stats(device_index=None):
    f = _face()
    return {} if f is None else f.stats(device_index)


def memory_allocated(device_index=None):
    return memory_stats(device_index).get("allocated_bytes", 0)


def max_memory_allocated(device_index=None):
    return memory_stats(device_index).get("peak_allocated_bytes", 0)


def memory_reserved(device_index=None):
    return memory_stats(device_index).get("reserved_bytes", 0)


def max_memory_reserved(device_index=None):
    return memory_stats(device_index).get("peak_reserved_bytes", 0)


def reset_peak_memory_stats(device_index=None):
    f = _face()
    if f is not None:
        f.reset_peak_memory_stats(device_index)
