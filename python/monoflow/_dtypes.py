"""dtype objects, their aliases and the numpy mapping."""
import numpy as np

from monoflow._C import dtypes as _all

bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128 = _all

ALIASES = {
    "bool": bool_, "uint8": uint8, "int8": int8, "int16": int16, "short": int16, "int32": int32, "int": int32,
    "int64": int64, "long": int64, "float16": float16, "half": float16, "bfloat16": bfloat16,
    "float32": float32, "float": float32, "float64": float64, "double": float64,
    "complex64": complex64, "cfloat": complex64, "complex128": complex128, "cdouble": complex128,
}

# torch's scalar-type names: its messages say them ("result type Float can't
# be cast to ... Long") and its legacy tensor types add "Tensor" (FloatTensor).
TORCH_NAMES = {bool_: "Bool", uint8: "Byte", int8: "Char", int16: "Short", int32: "Int", int64: "Long",
               float16: "Half", bfloat16: "BFloat16", float32: "Float", float64: "Double",
               complex64: "ComplexFloat", complex128: "ComplexDouble"}


def torch_name(dt):
    return TORCH_NAMES.get(dt, dt.name)


_TO_NUMPY = {bool_: np.bool_, uint8: np.uint8, int8: np.int8, int16: np.int16, int32: np.int32,
             int64: np.int64, float16: np.float16, float32: np.float32, float64: np.float64,
             complex64: np.complex64, complex128: np.complex128}
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


def default_complex():
    """The complex dtype matching the default float dtype (torch's default complex)."""
    from monoflow._C import get_default_dtype

    return complex128 if get_default_dtype() == float64 else complex64
