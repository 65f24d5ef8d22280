"""autocast: torch's mixed-precision region, as a face.

monoflow has no per-op automatic casting yet, so inside an enabled region ops
still run in their inputs' dtypes (full precision for float32 models): the
numbers are right, only the speed/memory gain is missing, and a warning says
so once. For a device type that is not loaded, autocast disables itself with
a warning, as torch does for CUDA on a machine without it."""
import functools
import warnings

from monoflow import _C

_warned = set()


def is_autocast_available(device_type):
    """Returns whether :class:`autocast` can be enabled for ``device_type``: a device plugin of that type is loaded.

    Args:
        device_type (str): the device type, e.g. ``"cpu"`` or ``"cuda"``.

    Example::

        >>> flow.amp.is_autocast_available("cpu")
        True
        >>> flow.amp.is_autocast_available("no_such_device")
        False
    """
    return device_type in _C.device_types()


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


class autocast:  # noqa: N801 - torch's name
    """A mixed-precision region, torch's ``autocast``: a context manager and
    a decorator.

    monoflow does not cast ops automatically yet: inside an enabled region
    ops still run in their inputs' dtypes (the numbers are those of full
    precision; only the speed and memory gain is missing), and a
    ``UserWarning`` says so once per device type. For a device type that is
    not loaded, autocast disables itself with a warning, as torch does for
    CUDA on a machine without it. To run in lower precision, convert the
    model and inputs (``model.to(monoflow.bfloat16)``).

    Args:
        device_type (str): the device type of the region (``"cpu"``,
            ``"cuda"``).
        dtype (monoflow.dtype, optional): the lower-precision dtype torch
            would cast to (kept as ``fast_dtype``). Default: ``None``.
        enabled (bool): whether the region is active. Default: ``True``.
        cache_enabled (bool, optional): accepted for torch compatibility.

    Raises:
        ValueError: if ``device_type`` is not a string.

    Example::

        >>> with flow.autocast("cpu", dtype=flow.bfloat16):
        ...     y = flow.ones(2, 2) @ flow.ones(2, 2)
        >>> y.dtype
        monoflow.float32
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"autocast: expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if self._enabled and not is_autocast_available(device_type):
            warnings.warn(f"User provided device_type of '{device_type}', but '{device_type}' is not available. "
                          "Disabling", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            _warn_once(device_type, "autocast: monoflow does not cast ops automatically yet; the "
                       "region runs in the tensors' own dtypes")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapped
