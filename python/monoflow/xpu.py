"""monoflow.xpu: torch.xpu's questions (Intel GPUs), answered by the device registry.

Scripts probe it to pick a device (``torch.xpu.is_available()`` in
pytorch/examples); without an 'xpu' device plugin it is unavailable, counts
are 0 and seeding is a no-op, as in a torch build without XPU."""
from monoflow._device_face import face

_face = face("xpu")


def is_available():
    """Whether an XPU device can be used (an 'xpu' device plugin is loaded and reports a device)."""
    return _face.is_available()


def device_count():
    """The number of XPU devices (0 without an 'xpu' device plugin)."""
    return _face.device_count()


def current_device():
    return _face.index(None) if _face.is_available() else 0


def synchronize(device=None):
    _face.synchronize(device)


def empty_cache():
    _face.empty_cache()


def manual_seed(seed):
    """Seeds the current XPU device's generator; a no-op without one."""
    if _face.is_available():
        _face.generator().manual_seed(seed)


def manual_seed_all(seed):
    for g in _face.generators():
        g.manual_seed(seed)
