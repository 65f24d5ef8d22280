"""finfo / iinfo: the numerical limits of a dtype, as torch.finfo and torch.iinfo report them."""
import math

from monoflow import _C

# Floating types as (bits, mantissa bits, exponent bits), IEEE-754 layout
# (bfloat16 is float32 with the mantissa cut to 7 bits).
_FLOAT_LAYOUT = {"float16": (16, 10, 5), "bfloat16": (16, 7, 8), "float32": (32, 23, 8), "float64": (64, 52, 11)}
_INT_BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
# A complex dtype reports the limits of its real and imaginary parts, as in torch.
_COMPLEX_PART = {"complex64": "float32", "complex128": "float64"}


def _check_dtype(type, op):
    if not isinstance(type, _C.dtype):
        raise TypeError(f"{op}(): argument 'type' (position 1) must be monoflow.dtype, not {_typename(type)}")
    return type


def _typename(obj):
    return obj.__name__ if isinstance(obj, type) else obj.__class__.__name__


class finfo:
    """Numerical limits of a floating point dtype.

    Args:
        type: a floating point or complex ``monoflow.dtype`` (a complex one reports its
            parts' limits); the default dtype when left out.

    Attributes: ``bits``, ``eps`` (smallest x with 1 + x != 1), ``max``,
    ``min`` (= -max), ``tiny`` and ``smallest_normal`` (smallest positive
    normal number), ``resolution`` (10 ** -decimal digits of precision) and
    ``dtype`` (the dtype's name).

    Example::

        >>> import monoflow as flow
        >>> flow.finfo(flow.float16).max
        65504.0
        >>> flow.finfo(flow.bfloat16).eps
        0.0078125
    """

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):
        if type is None:
            type = _C.get_default_dtype()
        _check_dtype(type, "finfo")
        name = _COMPLEX_PART.get(type.name, type.name)
        if name not in _FLOAT_LAYOUT:
            raise TypeError("monoflow.finfo() requires a floating point input type. "
                            f"Use monoflow.iinfo to handle '{type!r}'")
        bits, mantissa, exponent = _FLOAT_LAYOUT[name]
        max_exponent = 2 ** (exponent - 1) - 1
        self.bits = bits
        self.eps = math.ldexp(1.0, -mantissa)
        self.max = math.ldexp(2.0 - math.ldexp(1.0, -mantissa), max_exponent)
        self.min = -self.max
        self.tiny = self.smallest_normal = math.ldexp(1.0, 1 - max_exponent)
        self.resolution = float("1e-%d" % math.floor(mantissa * math.log10(2)))
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None  # as torch.finfo

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Numerical limits of an integer dtype.

    Args:
        type: an integer ``monoflow.dtype`` (not bool).

    Attributes: ``bits``, ``max``, ``min`` (Python ints) and ``dtype`` (the
    dtype's name).

    Example::

        >>> import monoflow as flow
        >>> flow.iinfo(flow.int8).min
        -128
        >>> flow.iinfo(flow.uint8).max
        255
    """

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):
        _check_dtype(type, "iinfo")
        if type.name == "bool":
            raise TypeError("monoflow.bool is not supported by monoflow.iinfo")
        if type.name not in _INT_BITS:
            raise TypeError("monoflow.iinfo() requires an integer input type. "
                            f"Use monoflow.finfo to handle '{type!r}'")
        self.bits = _INT_BITS[type.name]
        self.min = -(1 << (self.bits - 1)) if type.is_signed else 0
        self.max = (1 << (self.bits - 1)) - 1 if type.is_signed else (1 << self.bits) - 1
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
