"""monoflow.cuda: torch.cuda's questions, answered by the device registry.

With a CUDA plugin loaded these report and drive its devices; without one,
``is_available()`` is False, counts and memory statistics are 0, seeding is
a silent no-op (as in torch), and using a device raises a RuntimeError that
says how to get the plugin."""
from monoflow import _C
from monoflow._device_face import DeviceProperties, face  # noqa: F401
from monoflow.cuda import amp  # noqa: F401
from monoflow.cuda.streams import Event, Stream, StreamContext, current_stream, default_stream, stream  # noqa: F401

OutOfMemoryError = _C.OutOfMemoryError
_face = face("cuda")


def is_available():
    return _face.is_available()


def device_count():
    return _face.device_count()


def is_initialized():
    return _face.is_available()


def init():
    _face.require("cuda.init")


def current_device():
    """The index of the current CUDA device (0 until set_device)."""
    _face.require("cuda.current_device")
    return _face.current


def set_device(device):
    _face.set_device(device)


class device:  # noqa: N801 - torch's name
    """Context manager that makes `device` current inside the block."""

    def __init__(self, device):
        self.idx = -1 if device is None else _face.index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = _face.current
            _face.set_device(self.idx)

    def __exit__(self, *exc):
        if self.idx >= 0:
            _face.current = self.prev_idx
        return False


class device_of(device):  # noqa: N801
    """The device of a tensor as the current one (no-op for a CPU tensor)."""

    def __init__(self, obj):
        super().__init__(obj.device.index if obj.device.type == "cuda" else None)


def get_device_properties(device=None):
    return _face.properties(device)


def get_device_name(device=None):
    return _face.properties(device).name


def get_device_capability(device=None):
    raise NotImplementedError("cuda.get_device_capability: the device plugin ABI does not report compute "
                              "capability yet")


def is_bf16_supported(including_emulation=True):
    return _face.is_available()


def synchronize(device=None):
    _face.synchronize(device)


# -- memory (the core's caching allocator of the device)
def memory_stats(device=None):
    return _face.stats(device)


def memory_allocated(device=None):
    return _face.stat("allocated_bytes", device)


def max_memory_allocated(device=None):
    return _face.stat("peak_allocated_bytes", device)


def memory_reserved(device=None):
    return _face.stat("reserved_bytes", device)


def max_memory_reserved(device=None):
    return _face.stat("peak_reserved_bytes", device)


def reset_peak_memory_stats(device=None):
    _face.reset_peak_memory_stats(device)


def empty_cache():
    _face.empty_cache()


# -- random state: no-ops without devices (torch seeds lazily, when CUDA initialises)
def manual_seed(seed):
    if _face.is_available():
        _face.generator().manual_seed(seed)


def manual_seed_all(seed):
    for g in _face.generators():
        g.manual_seed(seed)


def seed():
    if _face.is_available():
        _face.generator().seed()


def seed_all():
    gens = _face.generators()
    if gens:
        s = gens[0].seed()
        for g in gens[1:]:
            g.manual_seed(s)


def initial_seed():
    return _face.generator().initial_seed()


def get_rng_state(device="cuda"):
    return _face.generator(device).get_state()


def set_rng_state(new_state, device="cuda"):
    _face.generator(device).set_state(new_state)


def get_rng_state_all():
    return [g.get_state() for g in _face.generators()]


def set_rng_state_all(new_states):
    for g, s in zip(_face.generators(), new_states):
        g.set_state(s)


def __getattr__(name):
    if name == "default_generators":  # one per device, as loaded now
        return tuple(_face.generators())
    raise AttributeError(f"module 'monoflow.cuda' has no attribute '{name}'")
