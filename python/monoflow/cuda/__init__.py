"""monoflow.cuda: torch.cuda's questions, answered by the device registry.

With a CUDA plugin loaded these report and drive its devices; without one,
``is_available()`` is False, counts and memory statistics are 0, seeding is
a silent no-op (as in torch), and using a device raises a RuntimeError that
says how to get the plugin."""
from monoflow import _C
from monoflow._device_face import DeviceProperties, face  # noqa: F401
from monoflow._legacy_tensor import legacy_types as _legacy_types
from monoflow.cuda import amp  # noqa: F401
from monoflow.cuda.streams import Event, Stream, StreamContext, current_stream, default_stream, stream  # noqa: F401

OutOfMemoryError = _C.OutOfMemoryError
# torch.cuda.FloatTensor, ...: isinstance(t, flow.cuda.FloatTensor) is False for CPU tensors
globals().update(_legacy_types("cuda"))
_face = face("cuda")


def is_available():
    """Returns whether a CUDA device can be used: a CUDA device plugin is loaded and reports at least one device.

    monoflow's devices come from plugins (``monoflow.devices.load(path)``, the
    ``MONOFLOW_DEVICE_PLUGINS`` environment variable or an entry point); on a
    machine without one this is ``False`` and the queries below answer 0.

    Example::

        >>> isinstance(flow.cuda.is_available(), bool)
        True
        >>> flow.cuda.is_available()  # with a CUDA plugin and a GPU  # doctest: +SKIP
        True
    """
    return _face.is_available()


def device_count():
    """Returns the number of CUDA devices (0 without a CUDA device plugin).

    Example::

        >>> flow.cuda.device_count() == (1 if flow.cuda.is_available() else 0) or flow.cuda.device_count() > 1
        True
    """
    return _face.device_count()


def is_initialized():
    """Returns whether CUDA is ready to use: in monoflow, the same as :func:`is_available` (no lazy initialization).

    Example::

        >>> flow.cuda.is_initialized() == flow.cuda.is_available()
        True
    """
    return _face.is_available()


def init():
    """Initializes CUDA: a no-op when a CUDA device is available; otherwise raises ``RuntimeError`` saying how to
    load a plugin.

    Example::

        >>> if flow.cuda.is_available():
        ...     flow.cuda.init()
    """
    _face.require("cuda.init")


def current_device():
    """Returns the index of the current CUDA device (``0`` until :func:`set_device` changes it).

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> flow.cuda.current_device() if flow.cuda.is_available() else 0
        0
    """
    _face.require("cuda.current_device")
    return _face.current


def set_device(device):
    """Makes ``device`` the current CUDA device, the one ``"cuda"`` without an index means.

    Args:
        device (int, str or device): the device; a negative index is a no-op, as in torch.

    Raises:
        RuntimeError: when no CUDA device is available, or the index is out of range.

    Example::

        >>> flow.cuda.set_device(0)  # doctest: +SKIP
        >>> flow.cuda.current_device()  # doctest: +SKIP
        0
    """
    _face.set_device(device)


class device:  # noqa: N801 - torch's name
    """Context manager that makes ``device`` the current CUDA device inside the block.

    Args:
        device (int, str, device or None): the device; ``None`` changes nothing.

    Example::

        >>> with flow.cuda.device(None):  # a no-op without a device
        ...     pass
        >>> with flow.cuda.device(1):  # doctest: +SKIP
        ...     flow.cuda.current_device()
        1
    """

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
    """Context manager that makes the device of a tensor the current CUDA device (a no-op for a CPU tensor).

    Args:
        obj (Tensor): the tensor whose device to use.

    Example::

        >>> with flow.cuda.device_of(flow.ones(2)):  # a CPU tensor: nothing changes
        ...     pass
    """

    def __init__(self, obj):
        super().__init__(obj.device.index if obj.device.type == "cuda" else None)


def get_device_properties(device=None):
    """Returns the properties of a CUDA device: ``name``, ``total_memory`` (bytes), ``multi_processor_count``.

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> flow.cuda.get_device_properties(0)  # doctest: +SKIP
        _CudaDeviceProperties(name='...', total_memory=...MB, multi_processor_count=...)
        >>> hasattr(flow.cuda.DeviceProperties, 'total_memory')
        True
    """
    return _face.properties(device)


def get_device_name(device=None):
    """Returns the name of a CUDA device, as its plugin reports it.

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> flow.cuda.get_device_name(0)  # doctest: +SKIP
        'NVIDIA H200'
        >>> callable(flow.cuda.get_device_name)
        True
    """
    return _face.properties(device).name


def get_device_capability(device=None):
    """Would return a CUDA device's compute capability; raises ``NotImplementedError``: the device plugin ABI does
    not report it yet.

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> flow.cuda.get_device_capability()
        Traceback (most recent call last):
        ...
        NotImplementedError: cuda.get_device_capability: the device plugin ABI does not report compute capability yet
    """
    raise NotImplementedError("cuda.get_device_capability: the device plugin ABI does not report compute "
                              "capability yet")


def is_bf16_supported(including_emulation=True):
    """Returns whether bfloat16 works on CUDA: ``True`` whenever a CUDA device is available.

    Args:
        including_emulation (bool): accepted for torch compatibility. Default: ``True``.

    Example::

        >>> flow.cuda.is_bf16_supported() == flow.cuda.is_available()
        True
    """
    return _face.is_available()


def synchronize(device=None):
    """Waits until all work queued on a CUDA device has finished.

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> flow.cuda.synchronize()  # doctest: +SKIP
    """
    _face.synchronize(device)


# -- memory (the core's caching allocator of the device)
def memory_stats(device=None):
    """Returns the caching allocator's statistics of a CUDA device as a dict (empty without a CUDA device).

    Keys include ``allocated_bytes``, ``peak_allocated_bytes``, ``reserved_bytes``
    and ``peak_reserved_bytes``.

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> isinstance(flow.cuda.memory_stats(), dict)
        True
        >>> flow.cuda.memory_stats()['allocated_bytes']  # doctest: +SKIP
        0
    """
    return _face.stats(device)


def memory_allocated(device=None):
    """Returns the bytes of tensor memory allocated now on a CUDA device (``0`` without a CUDA device).

    The counts are the core caching allocator's (``memory_stats()["allocated_bytes"]``).

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> flow.cuda.memory_allocated() >= 0
        True
        >>> x = flow.ones(1024, device='cuda')  # doctest: +SKIP
        >>> flow.cuda.memory_allocated() >= 4096  # doctest: +SKIP
        True
    """
    return _face.stat("allocated_bytes", device)


def max_memory_allocated(device=None):
    """Returns the peak of the allocated bytes since the start or the last :func:`reset_peak_memory_stats` on a CUDA
    device (``0`` without a CUDA device).

    The counts are the core caching allocator's (``memory_stats()["peak_allocated_bytes"]``).

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> flow.cuda.max_memory_allocated() >= 0
        True
        >>> x = flow.ones(1024, device='cuda')  # doctest: +SKIP
        >>> flow.cuda.max_memory_allocated() >= 4096  # doctest: +SKIP
        True
    """
    return _face.stat("peak_allocated_bytes", device)


def memory_reserved(device=None):
    """Returns the bytes the caching allocator holds (allocated plus cached) on a CUDA device (``0`` without a CUDA
    device).

    The counts are the core caching allocator's (``memory_stats()["reserved_bytes"]``).

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> flow.cuda.memory_reserved() >= 0
        True
        >>> x = flow.ones(1024, device='cuda')  # doctest: +SKIP
        >>> flow.cuda.memory_reserved() >= 4096  # doctest: +SKIP
        True
    """
    return _face.stat("reserved_bytes", device)


def max_memory_reserved(device=None):
    """Returns the peak of the reserved bytes since the start or the last :func:`reset_peak_memory_stats` on a CUDA
    device (``0`` without a CUDA device).

    The counts are the core caching allocator's (``memory_stats()["peak_reserved_bytes"]``).

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> flow.cuda.max_memory_reserved() >= 0
        True
        >>> x = flow.ones(1024, device='cuda')  # doctest: +SKIP
        >>> flow.cuda.max_memory_reserved() >= 4096  # doctest: +SKIP
        True
    """
    return _face.stat("peak_reserved_bytes", device)


def reset_peak_memory_stats(device=None):
    """Resets the peaks (``max_memory_allocated``, ``max_memory_reserved``) of a CUDA device to the current values;
    a no-op without one.

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> flow.cuda.reset_peak_memory_stats()
        >>> flow.cuda.max_memory_allocated() == flow.cuda.memory_allocated()
        True
    """
    _face.reset_peak_memory_stats(device)


def empty_cache():
    """Returns the cached, unused blocks of every CUDA device to the device (a no-op without one).

    Tensors still alive keep their memory; ``memory_reserved()`` drops.

    Example::

        >>> flow.cuda.empty_cache()
    """
    _face.empty_cache()


# -- random state: no-ops without devices (torch seeds lazily, when CUDA initialises)
def manual_seed(seed):
    """Seeds the random generator of the current CUDA device; a silent no-op without one (as in torch).

    ``flow.manual_seed`` seeds every device's generator at once.

    Args:
        seed (int): the seed.

    Example::

        >>> flow.cuda.manual_seed(42)
    """
    if _face.is_available():
        _face.generator().manual_seed(seed)


def manual_seed_all(seed):
    """Seeds the random generators of every CUDA device; a no-op without one.

    Args:
        seed (int): the seed.

    Example::

        >>> flow.cuda.manual_seed_all(42)
    """
    for g in _face.generators():
        g.manual_seed(seed)


def seed():
    """Seeds the generator of the current CUDA device with a non-deterministic random number; a no-op without one.

    Example::

        >>> flow.cuda.seed()
    """
    if _face.is_available():
        _face.generator().seed()


def seed_all():
    """Seeds every CUDA device's generator with one non-deterministic random number; a no-op without devices.

    Example::

        >>> flow.cuda.seed_all()
    """
    gens = _face.generators()
    if gens:
        s = gens[0].seed()
        for g in gens[1:]:
            g.manual_seed(s)


def initial_seed():
    """Returns the seed of the current CUDA device's generator.

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> flow.cuda.manual_seed(7)  # doctest: +SKIP
        >>> flow.cuda.initial_seed()  # doctest: +SKIP
        7
    """
    return _face.generator().initial_seed()


def get_rng_state(device="cuda"):
    """Returns the state of a CUDA device's generator, as a uint8 tensor, for :func:`set_rng_state`.

    Args:
        device (int, str or device): the device. Default: ``"cuda"`` (the current one).

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> state = flow.cuda.get_rng_state()  # doctest: +SKIP
        >>> a = flow.rand(2, device='cuda')  # doctest: +SKIP
        >>> flow.cuda.set_rng_state(state)  # doctest: +SKIP
        >>> flow.equal(a, flow.rand(2, device='cuda'))  # doctest: +SKIP
        True
    """
    return _face.generator(device).get_state()


def set_rng_state(new_state, device="cuda"):
    """Restores the state of a CUDA device's generator from :func:`get_rng_state`.

    Args:
        new_state (Tensor): the saved state (uint8).
        device (int, str or device): the device. Default: ``"cuda"`` (the current one).

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> flow.cuda.set_rng_state(flow.cuda.get_rng_state())  # doctest: +SKIP
    """
    _face.generator(device).set_state(new_state)


def get_rng_state_all():
    """Returns the generator states of every CUDA device, one tensor each (an empty list without devices).

    Example::

        >>> len(flow.cuda.get_rng_state_all()) == flow.cuda.device_count()
        True
    """
    return [g.get_state() for g in _face.generators()]


def set_rng_state_all(new_states):
    """Restores the generator states of every CUDA device from :func:`get_rng_state_all`.

    Args:
        new_states (list of Tensor): one state per device.

    Example::

        >>> flow.cuda.set_rng_state_all(flow.cuda.get_rng_state_all())
    """
    for g, s in zip(_face.generators(), new_states):
        g.set_state(s)


def get_arch_list():
    """The CUDA architectures of the devices present (``["sm_80"]``, ...); empty without CUDA.

    Example::

        >>> flow.cuda.get_arch_list() if not flow.cuda.is_available() else []
        []
    """
    return sorted({"sm_%d%d" % get_device_capability(i) for i in range(device_count())})


def is_tf32_supported():
    """Whether a CUDA device with TF32 units (compute capability 8.0 or newer) is present.

    Example::

        >>> flow.cuda.is_tf32_supported() == (flow.cuda.is_available() and flow.cuda.get_device_capability() >= (8, 0))
        True
    """
    return is_available() and get_device_capability() >= (8, 0)


has_half = True
has_magma = False

# torch.cuda's submodules; their functions are also this module's
from monoflow.cuda import memory, nvtx, random  # noqa: E402,F401
from monoflow.cuda.memory import (ipc_collect, max_memory_cached, mem_get_info, memory_cached,  # noqa: E402,F401
                                  memory_summary, reset_max_memory_allocated, reset_max_memory_cached)


def __getattr__(name):
    if name == "default_generators":  # one per device, as loaded now
        return tuple(_face.generators())
    raise AttributeError(f"module 'monoflow.cuda' has no attribute '{name}'")
