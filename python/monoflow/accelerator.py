"""monoflow.accelerator: torch.accelerator, over the device registry.

The accelerator is the first registered device type other than the CPU
that has devices (a CUDA plugin, or any third-party one) and is not the
host's own processor behind another API (OpenCL on PoCL: a device, used by
name, but no accelerator); without one, ``is_available()`` is False,
``current_accelerator()`` None and the counts 0."""
from monoflow import _C
from monoflow._device_face import face

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "device_count", "is_available",
           "set_device_idx", "set_device_index", "synchronize", "empty_cache", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "device_index"]


def _face():
    for name in _C.device_types():
        if name != "cpu" and _C.device_count(name) > 0 and not _on_host_cpu(name):
            return face(name)
    return None


def _on_host_cpu(name):
    """Whether every device of `name` is the host's own processor (OpenCL on PoCL): usable as
    ``device=name``, but no accelerator; a script choosing ``current_accelerator()`` runs slower there."""
    return all(d["runs_on_host_cpu"] for d in _C.device_info(name)["devices"])


def _require(what):
    f = _face()
    if f is None:
        raise RuntimeError(f"accelerator.{what}: no accelerator is available (device types loaded: "
                           f"{', '.join(_C.device_types())}); load a device plugin with monoflow.devices.load(path)")
    return f


def is_available():
    """Returns whether an accelerator is available: a device type other than the CPU that has devices.

    Example::

        >>> isinstance(flow.accelerator.is_available(), bool)
        True
    """
    return _face() is not None


def current_accelerator(check_available=False):
    """Returns the accelerator's device type as a ``device`` (e.g. ``device(type='cuda')``), or ``None`` without one.

    Args:
        check_available (bool): accepted for torch compatibility; the result is
            ``None`` whenever no accelerator is available. Default: ``False``.

    Example::

        >>> acc = flow.accelerator.current_accelerator()
        >>> acc is None or acc.type != 'cpu'
        True
    """
    f = _face()
    return None if f is None else _C.device(f.type)


def device_count():
    """Returns the number of devices of the accelerator (``0`` without one).

    Example::

        >>> flow.accelerator.device_count() >= 0
        True
    """
    f = _face()
    return 0 if f is None else f.device_count()


def current_device_index():
    """Returns the index of the current accelerator device (``current_device_idx`` is the same function).

    Raises:
        RuntimeError: when no accelerator is available.

    Example::

        >>> flow.accelerator.current_device_index() if flow.accelerator.is_available() else 0
        0
    """
    return _require("current_device_index()").current


current_device_idx = current_device_index


def set_device_index(device):
    """Makes ``device`` the current accelerator device (``set_device_idx`` is the same function).

    Args:
        device (int, str or device): the device.

    Raises:
        RuntimeError: when no accelerator is available.

    Example::

        >>> flow.accelerator.set_device_index(0)  # doctest: +SKIP
        >>> flow.accelerator.current_device_index()  # doctest: +SKIP
        0
    """
    _require("set_device_index()").set_device(device)


set_device_idx = set_device_index


class device_index:  # noqa: N801
    """Context manager that makes ``device`` the current accelerator device inside the block.

    Args:
        device (int or None): the device index; ``None`` changes nothing.

    Example::

        >>> with flow.accelerator.device_index(None):
        ...     pass
        >>> with flow.accelerator.device_index(0):  # doctest: +SKIP
        ...     flow.accelerator.current_device_index()
        0
    """

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
    """Waits until all work queued on an accelerator device has finished.

    Args:
        device (int, str or device, optional): the device; ``None`` is the current one.
            Default: ``None``.

    Raises:
        RuntimeError: when no accelerator is available.

    Example::

        >>> flow.accelerator.synchronize()  # doctest: +SKIP
    """
    _require("synchronize()").synchronize(device)


def empty_cache():
    """Returns the cached, unused memory blocks of the accelerator's devices (a no-op without one).

    Example::

        >>> flow.accelerator.empty_cache()
    """
    f = _face()
    if f is not None:
        f.empty_cache()


def memory_stats(device_index=None):
    """Returns the caching allocator's statistics of an accelerator device as a dict (empty without one).

    Args:
        device_index (int, str or device, optional): the accelerator device; ``None`` is
            the current one. Default: ``None``.

    Example::

        >>> isinstance(flow.accelerator.memory_stats(), dict)
        True
    """
    f = _face()
    return {} if f is None else f.stats(device_index)


def memory_allocated(device_index=None):
    """Returns the bytes of tensor memory allocated now on an accelerator device (``0`` without one):
    ``memory_stats()["allocated_bytes"]``.

    Args:
        device_index (int, str or device, optional): the accelerator device; ``None`` is
            the current one. Default: ``None``.

    Example::

        >>> flow.accelerator.memory_allocated() >= 0
        True
    """
    return memory_stats(device_index).get("allocated_bytes", 0)


def max_memory_allocated(device_index=None):
    """Returns the peak of the allocated bytes on an accelerator device (``0`` without one):
    ``memory_stats()["peak_allocated_bytes"]``.

    Args:
        device_index (int, str or device, optional): the accelerator device; ``None`` is
            the current one. Default: ``None``.

    Example::

        >>> flow.accelerator.max_memory_allocated() >= 0
        True
    """
    return memory_stats(device_index).get("peak_allocated_bytes", 0)


def memory_reserved(device_index=None):
    """Returns the bytes the caching allocator holds on an accelerator device (``0`` without one):
    ``memory_stats()["reserved_bytes"]``.

    Args:
        device_index (int, str or device, optional): the accelerator device; ``None`` is
            the current one. Default: ``None``.

    Example::

        >>> flow.accelerator.memory_reserved() >= 0
        True
    """
    return memory_stats(device_index).get("reserved_bytes", 0)


def max_memory_reserved(device_index=None):
    """Returns the peak of the reserved bytes on an accelerator device (``0`` without one):
    ``memory_stats()["peak_reserved_bytes"]``.

    Args:
        device_index (int, str or device, optional): the accelerator device; ``None`` is
            the current one. Default: ``None``.

    Example::

        >>> flow.accelerator.max_memory_reserved() >= 0
        True
    """
    return memory_stats(device_index).get("peak_reserved_bytes", 0)


def reset_peak_memory_stats(device_index=None):
    """Resets the memory peaks of an accelerator device to the current values (a no-op without one).

    Args:
        device_index (int, str or device, optional): the accelerator device; ``None`` is
            the current one. Default: ``None``.

    Example::

        >>> flow.accelerator.reset_peak_memory_stats()
    """
    f = _face()
    if f is not None:
        f.reset_peak_memory_stats(device_index)
