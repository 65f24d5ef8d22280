"""dtype objects, their aliases and the numpy mapping."""
import numpy as np

from monoflow._C import dtypes as _all

bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64 = _all

ALIASES = {
    "bool": bool_, "uint8": uint8, "int8": int8, "int16": int16, "short": int16, "int32": int32, "int": int32,
    "int64": int64, "long": int64, "float16": float16, "half": float16, "bfloat16": bfloat16,
    "float32": float32, "float": float32, "float64": float64, "double": float64,
}

_TO_NUMPY = {bool_: np.bool_, uint8: np.uint8, int8: np.int8, int16: np.int16, int32: np.int32,
             int64: np.int64, float16: np.float16, float32: np.float32, float64: np.float64}
_FROM_NUMPY = {np.dtype(v): k for k, v in _TO_NUMPY.items()}


def to_numpy(dt):
    try:
        return _TO_NUMPY[dt]
    except KeyError:
        raise TypeError(f"{dt!r} has no numpy equivalent; convert with .float() first") from None


def from_numpy(npdt):
    try:
        return _FROM_NUMPY[np.dtype(npdt)]
    except KeyError:
        supported = ", ".join(str(np.dtype(v)) for v in _TO_NUMPY.values())
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(npdt)}; the supported types are: "
                        f"{supported}") from None
