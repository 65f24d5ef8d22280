"""What a torch-style device namespace (monoflow.cuda, monoflow.accelerator)
asks about one device type, answered by the device registry.

Queries (is_available, device_count, memory statistics of an unused device)
answer False/0 when no plugin of the type is loaded, as torch's do on a
machine without the device; using it (set_device, synchronize, reading its
random state) raises a RuntimeError that names the device type and how to
get a plugin for it.
"""
from monoflow import _C, memory



class DeviceUnavailableError(RuntimeError):
    pass


class DeviceProperties:
    """The properties of one device, as ``get_device_properties()`` returns them: ``name``, ``total_memory``
    (bytes), ``multi_processor_count``, ``type`` and ``index``.

    Args:
        type_name (str): the device type (``"cuda"``).
        index (int): the device index.
        props (dict): the plugin's report (``name``, ``total_memory``, ``multiprocessor_count``).

    Example::

        >>> props = {"name": "GPU", "total_memory": 2 << 30, "multiprocessor_count": 8}
        >>> p = flow.cuda.DeviceProperties("cuda", 0, props)
        >>> p
        _CudaDeviceProperties(name='GPU', total_memory=2048MB, multi_processor_count=8)
    """

    __slots__ = ("name", "total_memory", "multi_processor_count", "type", "index")

    def __init__(self, type_name, index, props):
        self.type, self.index = type_name, index
        self.name = props["name"]
        self.total_memory = props["total_memory"]
        self.multi_processor_count = props["multiprocessor_count"]

    def __repr__(self):
        return (f"_{self.type.capitalize()}DeviceProperties(name='{self.name}', total_memory="
                f"{self.total_memory // (1024 * 1024)}MB, multi_processor_count={self.multi_processor_count})")


class DeviceFace:
    """The registry's view of one device type, plus the current device index
    that torch keeps per process."""

    def __init__(self, type_name):
        self.type = type_name
        self.current = 0

    # -- queries: never raise
    def is_available(self):
        return self.device_count() > 0

    def device_count(self):
        try:  # (looks up this type only: another deferred plugin stays unloaded, Note [Deferred plugins])
            return _C.device_count(self.type)
        except RuntimeError:  # no such device type
            return 0

    # -- use: raises when absent
    def require(self, what, index=None):
        """The device string for `index` (default: the current device)."""
        if not self.is_available():
            loaded = self.type in _C.device_types()
            raise DeviceUnavailableError(
                f"{what}: no '{self.type}' device is available ("
                + (f"its plugin reports 0 devices" if loaded else
                   f"no '{self.type}' device plugin is loaded; loaded: {', '.join(_C.device_types())}")
                + "). A device type comes from its plugin: load one with monoflow.devices.load(path), the "
                "MONOFLOW_DEVICE_PLUGINS environment variable or a 'monoflow.devices' entry point.")
        index = self.current if index is None else self.index(index)
        count = self.device_count()
        if not 0 <= index < count:
            raise RuntimeError(f"{what}: invalid device ordinal {index}: there are {count} '{self.type}' devices")
        return f"{self.type}:{index}"

    def index(self, device):
        """The index of `device`: an int, a device, a string or None (current)."""
        if device is None:
            return self.current
        if isinstance(device, int):
            return device
        if isinstance(device, str):
            name, _, idx = device.partition(":")
            if name != self.type:
                raise ValueError(f"expected a '{self.type}' device, got '{device}'")
            return int(idx) if idx else self.current
        if isinstance(device, _C.device):
            if device.type != self.type:
                raise ValueError(f"expected a '{self.type}' device, got '{device}'")
            return device.index
        raise TypeError(f"expected a device, a device string or an int, got {type(device).__name__}")

    def set_device(self, device):
        index = self.index(device)
        if index < 0:  # torch: a negative ordinal is a no-op
            return
        self.require(f"{self.type}.set_device", index)
        self.current = index

    def properties(self, device=None):
        dev = self.require(f"{self.type}.get_device_properties", None if device is None else self.index(device))
        index = int(dev.split(":")[1])
        return DeviceProperties(self.type, index, _C.device_info(self.type)["devices"][index])

    def synchronize(self, device=None):
        _C.synchronize(self.require(f"{self.type}.synchronize", None if device is None else self.index(device)))

    # -- memory: zeros for a device type that is not there (torch's answer before CUDA is initialised)
    def stats(self, device=None):
        if not self.is_available():
            return {}
        return memory.memory_stats(self.require(f"{self.type}.memory_stats", self.index(device)))

    def stat(self, key, device=None):
        return self.stats(device).get(key, 0)

    def empty_cache(self):
        for i in range(self.device_count()):
            memory.empty_cache(f"{self.type}:{i}")

    def reset_peak_memory_stats(self, device=None):
        if self.is_available():
            memory.reset_peak_memory_stats(self.require(f"{self.type}.reset_peak_memory_stats",
                                                        self.index(device)))

    # -- random state
    def generator(self, device=None):
        return _C.default_generator_for(self.require(f"{self.type} random state",
                                                     None if device is None else self.index(device)))

    def generators(self):
        return [_C.default_generator_for(f"{self.type}:{i}") for i in range(self.device_count())]


_faces = {}


def face(type_name):
    """Returns the one ``DeviceFace`` of a device type: the device registry's view behind ``monoflow.cuda`` and
    ``monoflow.accelerator``.

    It answers the queries (``is_available``, ``device_count``, memory
    statistics) with False/0 when no plugin of the type is loaded, and keeps the
    per-process current device index.

    Args:
        type_name (str): the device type, e.g. ``"cuda"``.

    Example::

        >>> f = flow.cuda.face("cuda")
        >>> f is flow.cuda.face("cuda"), f.type
        (True, 'cuda')
        >>> f.device_count() == flow.cuda.device_count()
        True
    """
    if type_name not in _faces:
        _faces[type_name] = DeviceFace(type_name)
    return _faces[type_name]
