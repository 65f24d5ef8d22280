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
    return device_type in _C.device_types()


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


class autocast:  # noqa: N801 - torch's name
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
