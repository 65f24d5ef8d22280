"""Elementwise functions that compose the core's math ops: torch's aliases
(negative, multiply, greater, ...), comparisons as methods, and the
composites (logit, xlogy, hypot, copysign, frac, sgn, signbit, heaviside,
gcd/lcm, shifts, logaddexp, fmax/fmin, nan_to_num, sinc, ...).

Each composite is differentiable through the ops it is made of; where a
branch that `where` discards could produce inf/NaN (and so a NaN gradient
through the discarded side), its input is replaced by a safe value first.
"""
import builtins
import functools
import math
import numbers
import operator

import numpy as np

from monoflow import _C, _dtypes
from monoflow import _composite as _c
from monoflow import ops_math as _m

__all__ = [
    "negative", "positive", "multiply", "subtract", "divide", "true_divide", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "logit", "xlogy", "hypot", "copysign", "nextafter", "frac", "sgn", "signbit",
    "deg2rad", "rad2deg", "heaviside", "gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift", "logaddexp",
    "logaddexp2", "fmax", "fmin", "nan_to_num", "sinc", "float_power", "ldexp", "isposinf", "isneginf", "isreal",
    "is_floating_point", "is_nonzero", "rsub", "isin",
]


def _tensor_arg(op, x, name="input"):
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    return x


def _float(x, op):
    """x itself when floating, else in the default float dtype (torch's rule
    for the floating functions). Complex is refused: the cast would silently
    drop the imaginary part (deg2rad of 1+1j gave 0.0175)."""
    if x.dtype.is_complex:
        raise NotImplementedError(f"{op}(): not implemented for complex tensors (got {x.dtype})")
    return x if x.dtype.is_floating_point else x.to(_C.get_default_dtype())


# ---------------------------------------------------------------- aliases

def negative(input):
    return -_tensor_arg("negative", input)


def positive(input):
    _tensor_arg("positive", input)
    if input.dtype.name == "bool":
        raise RuntimeError("positive(): the `+` operator, on a bool tensor, is not supported.")
    return input


def multiply(input, other):
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase):
        return other.__rmul__(input)  # a number first
    _C.check_tensor(input, "multiply", "input", 1)
    _other_arg("multiply", other)
    return input * other


def subtract(input, other, *, alpha=1):
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase):
        if not isinstance(input, (numbers.Number, np.bool_)):
            raise TypeError(f"subtract(): argument 'input' (position 1) must be Tensor or Number, not "
                            f"{type(input).__name__}")
        if not isinstance(alpha, (numbers.Number, np.bool_)):
            raise TypeError(f"subtract(): argument 'alpha' must be Number, not {type(alpha).__name__}")
        return (other * alpha if alpha != 1 else other).__rsub__(input)
    _C.check_tensor(input, "subtract", "input", 1)
    _other_arg("subtract", other)
    return input.sub(other, alpha=alpha)


def _other_arg(op, other):
    # a Tensor or a Number: Python's "unsupported operand type(s) for *" names
    # no op, and a list times a 0-dim int tensor would even repeat the list
    if not isinstance(other, (_C.TensorBase, numbers.Number, np.bool_)):
        raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor or Number, not {type(other).__name__}")


def rsub(input, other, *, alpha=1):
    """other - alpha * input."""
    _C.check_tensor(input, "rsub", "input", 1)
    if not isinstance(other, (_C.TensorBase, numbers.Number)):
        raise TypeError(f"rsub(): argument 'other' (position 2) must be Tensor or Number, not {type(other).__name__}")
    return other - (input * alpha if alpha != 1 else input)


def divide(input, other, *, rounding_mode=None):
    # monoflow.div, which _tensor's import of this module cannot import here.
    from monoflow._functional import div
    if not isinstance(other, (_C.TensorBase, numbers.Number)):
        raise TypeError(f"divide(): argument 'other' (position 2) must be Tensor or Number, not {type(other).__name__}")
    if rounding_mode is not None and not isinstance(rounding_mode, str):
        raise TypeError(f"divide(): argument 'rounding_mode' must be str or None, not {type(rounding_mode).__name__}")
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(f"divide(): expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"{rounding_mode!r}")
    return div(input, other, rounding_mode=rounding_mode)


true_divide = divide


def greater(input, other):
    return _c.comparable("greater", input, other) > other


def greater_equal(input, other):
    return _c.comparable("greater_equal", input, other) >= other


def less(input, other):
    return _c.comparable("less", input, other) < other


def less_equal(input, other):
    return _c.comparable("less_equal", input, other) <= other


def not_equal(input, other):
    return input != other


# ---------------------------------------------------------------- composites

def logit(input, eps=None):
    """log(p / (1 - p)); with eps, p is clamped to [eps, 1 - eps] first (gradient zero outside)."""
    x = _float(_tensor_arg("logit", input), "logit")
    if eps is not None:
        eps = _C.check_float(eps, "logit", "eps", 2)
        x = x.clamp(eps, 1 - eps)
    else:
        # outside [0, 1] the value is NaN and, as torch's, so is the gradient (the quotient's is finite)
        x = x + _m.where((x < 0) | (x > 1), math.nan, 0.0).to(x.dtype)
    # log(x) - log1p(-x): its gradient 1/x + 1/(1-x) is inf at 0 and 1, as torch's (the quotient's was NaN)
    return _m.log(x) - _m.log1p(-x)


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (unless other is NaN)."""
    if not isinstance(input, _C.TensorBase) and not isinstance(other, _C.TensorBase):
        raise TypeError("xlogy(): expected at least one Tensor argument")
    like = input if isinstance(input, _C.TensorBase) else other
    x = input if isinstance(input, _C.TensorBase) else _C._full((), input, _float(like, "xlogy").dtype, like.device)
    y = other if isinstance(other, _C.TensorBase) else _C._full((), other, _float(like, "xlogy").dtype, like.device)
    x, y = _promote_float(x, y, "xlogy")
    # where x == 0 the value is 0 but, as in torch, d/dx is still log(y): the
    # product is kept there, over a y made finite and positive
    zero = (x == 0) & ~_m.isnan(y)
    safe_y = _m.where(zero & ((y <= 0) | _m.isinf(y)), 1, y)
    return x * _m.log(safe_y)


def _promote_float(a, b, op):
    dt = _C.promote_types(a.dtype, b.dtype)
    if dt.is_complex:  # (as _float: the cast would drop the imaginary part)
        raise NotImplementedError(f"{op}(): not implemented for complex tensors (got {dt})")
    if not dt.is_floating_point:
        dt = _C.get_default_dtype()
    return a.to(dt), b.to(dt)


def hypot(input, other):
    """sqrt(input**2 + other**2), scaled by the larger magnitude so that it does not overflow."""
    a, b = _tensor_arg("hypot", input), _tensor_arg("hypot", other, "other")
    dt = _C.promote_types(a.dtype, b.dtype)  # (an integer side takes the other's floating dtype, as torch)
    if not dt.is_floating_point:
        raise RuntimeError(f"hypot(): expected a floating-point input, got {a.dtype} and {b.dtype}")
    return _hypot_function().apply(a.to(dt), b.to(dt))


def _hypot_scaled(a, b):
    # (s, a / s, b / s, |(a, b)| / s) for a power of two s near the larger
    # magnitude: the squares neither underflow nor overflow.
    m = _m.abs(a).maximum(_m.abs(b))
    ok = _m.isfinite(m) & (m > 0)
    s = _m.where(ok, _m.exp2(_m.floor(_m.log2(_m.where(ok, m, 1.0)))), 1.0)
    x, y = a / s, b / s
    return s, x, y, _m.sqrt(x * x + y * y)


@functools.cache
def _hypot_function():
    from monoflow.autograd.function import Function  # (autograd imports the tensor, which imports this module)

    class Hypot(Function):
        # The gradient a / h is formed from the scaled values (NaN at (0, 0)
        # as torch's): the chain rule through s * r would round subnormal
        # products at subnormal inputs (to 0 or 2x), and h itself keeps no
        # digits there. The backward recomputes them from the inputs so that
        # it is differentiable in turn.
        @staticmethod
        def forward(ctx, a, b):
            s, _, _, r = _hypot_scaled(a, b)
            ctx.save_for_backward(a, b)
            return _m.where(_m.isinf(a) | _m.isinf(b), math.inf, s * r)

        @staticmethod
        def backward(ctx, g):
            _, x, y, r = _hypot_scaled(*ctx.saved_tensors)
            return g * (x / r), g * (y / r)

    return Hypot


def signbit(input):
    """True where the sign bit is set (so for -0.0 too)."""
    x = _tensor_arg("signbit", input)
    if x.dtype.name == "bool":
        return _C._full(tuple(x.shape), False, x.dtype, x.device)
    if not x.dtype.is_floating_point:
        return x < 0
    # -0.0: 1 / -0.0 is -inf
    return (x < 0) | ((x == 0) & ((1 / x) < 0))


def copysign(input, other):
    """|input| with the sign of other (in a floating dtype)."""
    if not isinstance(input, _C.TensorBase):
        _C.check_tensor(other, "copysign", "other", 2)  # (a number first needs a tensor other)
    a = input if isinstance(input, _C.TensorBase) else _C._full((), input, _C.get_default_dtype(), other.device)
    if isinstance(other, _C.TensorBase):
        dt = _C.promote_types(a.dtype, other.dtype)  # (an integer input with float16 other is float16)
        if not dt.is_floating_point:
            dt = _C.get_default_dtype()
        a = a.to(dt)
        neg = signbit(other)
    else:
        neg = math.copysign(1.0, _c.number("copysign", "other", 2, other)) < 0
        a = _float(a, "copysign")
        return -_m.abs(a) if neg else _m.abs(a)
    return _m.where(neg, -_m.abs(a), _m.abs(a))


def nextafter(input, other):
    """The next representable value after input towards other (not differentiable)."""
    a, b = _tensor_arg("nextafter", input), _tensor_arg("nextafter", other, "other")
    dt = _C.promote_types(a.dtype, b.dtype)  # (as torch: float16 with an integer is float16)
    if not dt.is_floating_point:
        raise RuntimeError(f"nextafter(): expected a floating-point input, got {a.dtype} and {b.dtype}")
    a, b = a.to(dt), b.to(dt)
    _C.broadcast_shapes(a.shape, b.shape)  # (refused as nextafter's, not in numpy's words)
    from monoflow._creation import from_numpy

    if dt.name == "bfloat16":
        out = _nextafter_bfloat16(a.detach().float().numpy(), b.detach().float().numpy())
        return from_numpy(out).to(device=a.device, dtype=dt)
    out = np.asarray(np.nextafter(a.detach().numpy(), b.detach().numpy()), order="C")
    return from_numpy(out.copy()).to(a.device)


def _nextafter_bfloat16(x, y):
    # bfloat16 is the top half of a float32 (exact both ways): step its sign-magnitude bits
    x, y = np.broadcast_arrays(x.astype(np.float32), y.astype(np.float32))
    bits = (x.view(np.uint32) >> 16).astype(np.int64)
    away_from_zero = (y > x) == (x > 0)
    bits = np.where(x == 0, np.where(y > 0, 0x0001, 0x8001), np.where(away_from_zero, bits + 1, bits - 1))
    out = (bits.astype(np.uint32) << 16).view(np.float32)
    out = np.where(x == y, y, out)
    return np.ascontiguousarray(np.where(np.isnan(x) | np.isnan(y), np.nan, out).astype(np.float32))


def frac(input):
    """input - trunc(input) (gradient 1)."""
    x = _tensor_arg("frac", input)
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"frac(): not implemented for integer tensors ({x.dtype}), as in torch")
    return x - _m.trunc(x).detach()


def sgn(input):
    """sign(input) for real tensors; z / |z| (0 at 0) for complex ones, as torch."""
    x = _tensor_arg("sgn", input)
    if x.dtype.is_complex:
        from monoflow import _complex_math

        return _complex_math.sgn(x)
    return _m.sign(x)


def deg2rad(input):
    x = _tensor_arg("deg2rad", input)
    if x.dtype.is_complex:
        raise RuntimeError("deg2rad(): deg2rad is not supported for complex tensors")
    return _float(x, "deg2rad") * (math.pi / 180.0)


def rad2deg(input):
    x = _tensor_arg("rad2deg", input)
    if x.dtype.is_complex:
        raise RuntimeError("rad2deg(): rad2deg is not supported for complex tensors")
    return _float(x, "rad2deg") * (180.0 / math.pi)


def heaviside(input, values):
    """0 where input < 0, `values` where input == 0, 1 where input > 0."""
    x, v = _tensor_arg("heaviside", input), _tensor_arg("heaviside", values, "values")
    if x.dtype != v.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return _m.where(x == 0, v, (x > 0).to(x.dtype))


def _integral(op, *ts):
    for t in ts:
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype.name == "bool":
            raise NotImplementedError(f"{op}(): not implemented for {t.dtype} (integer tensors only, as in torch)")


def gcd(input, other):
    """The greatest common divisor, elementwise (non-negative)."""
    a, b = _tensor_arg("gcd", input), _tensor_arg("gcd", other, "other")
    _integral("gcd", a, b)
    dt = _C.promote_types(a.dtype, b.dtype)
    a, b = _m.abs(a.to(dt)), _m.abs(b.to(dt))
    a, b = a.expand(_C.broadcast_shapes(a.shape, b.shape)).clone(), b.expand(_C.broadcast_shapes(a.shape,
                                                                                                 b.shape)).clone()
    # Euclid, all elements at once; `safe` keeps the remainder defined where b is already 0
    while bool((b != 0).any()):
        nz = b != 0
        safe = _m.where(nz, b, 1)
        a, b = _m.where(nz, b, a), _m.where(nz, a % safe, 0)
    return a


def lcm(input, other):
    """The least common multiple, elementwise (non-negative; 0 if either is 0)."""
    a, b = _tensor_arg("lcm", input), _tensor_arg("lcm", other, "other")
    _integral("lcm", a, b)
    g = gcd(a, b)
    return _m.abs((a // _m.where(g == 0, 1, g)) * b).to(g.dtype)


def _shift_args(op, input, other):
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase) \
            and isinstance(input, (int, np.integer)):
        # a Python integer first (2 << t) takes the tensor's dtype, as torch
        input = _C._full((), int(input), other.dtype, other.device)
    a = _tensor_arg(op, input)
    if isinstance(other, float):
        raise NotImplementedError(f"{op}(): not implemented for a float shift ({other})")
    b = other if isinstance(other, _C.TensorBase) else _C._full((), _C.check_int(other, op, "other", 2), a.dtype,
                                                                 a.device)
    _integral(op, a, b)
    return a, b


def bitwise_left_shift(input, other):
    """input << other, wrapping like the C integer types."""
    a, b = _shift_args("bitwise_left_shift", input, other)
    dt = _C.promote_types(a.dtype, b.dtype)
    bits = 8 * _np_itemsize(dt)
    out = a.to(dt) * _m.pow(_C._full((), 2, dt, a.device), b.clamp(0, bits - 1).to(dt))
    return _m.where((b < 0) | (b >= bits), 0, out)


def bitwise_right_shift(input, other):
    """input >> other (arithmetic: the sign is kept)."""
    a, b = _shift_args("bitwise_right_shift", input, other)
    dt = _C.promote_types(a.dtype, b.dtype)
    bits = 8 * _np_itemsize(dt)
    # a signed type's 2**(bits - 1) overflows: a shift by bits - 1 or more leaves the sign (-1 or 0);
    # an unsigned one shifts by up to bits - 1 (uint8 246 >> 7 is 1) and gives 0 beyond
    last = bits - 1 if not dt.is_signed else bits - 2
    big = (b < 0) | (b > last)
    out = a.to(dt) // _m.pow(_C._full((), 2, dt, a.device), b.clamp(0, last).to(dt))
    return _m.where(big, _m.where(a < 0, -1, 0).to(dt), out)


def _np_itemsize(dt):
    return np.dtype(dt.name).itemsize


def logaddexp(input, other):
    """log(exp(input) + exp(other)) without overflow."""
    a, b = _promote_float(_tensor_arg("logaddexp", input), _tensor_arg("logaddexp", other, "other"), "logaddexp")
    return _log_add_exp(a, b)


def _log_add_exp(a, b):
    # the larger plus softplus(smaller - larger): softplus's derivative is the sigmoid, so every order
    # of derivative is right at ties (max and |a - b| gave a second derivative of 0 where a == b;
    # torch's is 1/4). Equal infinities (a == b == +-inf) give that infinity, not inf - inf.
    same_inf = _m.isinf(a) & (a == b)
    a_big = a >= b
    hi, lo = _m.where(a_big, a, b), _m.where(a_big, b, a)
    return _m.where(same_inf, a, hi + _m.softplus(_m.where(same_inf, 0, lo - hi)))


def logaddexp2(input, other):
    """log2(2**input + 2**other) without overflow."""
    a, b = _promote_float(_tensor_arg("logaddexp2", input), _tensor_arg("logaddexp2", other, "other"),
                          "logaddexp2")
    ln2 = math.log(2.0)
    return _log_add_exp(a * ln2, b * ln2) / ln2


def fmax(input, other):
    """maximum, but a NaN loses to a number."""
    a, b = _tensor_arg("fmax", input), _tensor_arg("fmax", other, "other")
    # torch's gradient rule: all of it to `input` where input >= other (ties
    # included) or other is NaN, else to `other`.
    return _m.where((a >= b) | _m.isnan(b), a, b)


def fmin(input, other):
    """minimum, but a NaN loses to a number."""
    a, b = _tensor_arg("fmin", input), _tensor_arg("fmin", other, "other")
    # torch's gradient rule: all of it to `input` where input <= other (ties
    # included) or other is NaN, else to `other`.
    return _m.where((a <= b) | _m.isnan(b), a, b)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN -> nan, +inf -> posinf (default: the dtype's max), -inf -> neginf (its lowest)."""
    x = _tensor_arg("nan_to_num", input)
    for pos, (name, v) in enumerate((("nan", nan), ("posinf", posinf), ("neginf", neginf)), 1):
        if v is not None:  # torch's float? arguments (a complex or a str named no op)
            _C.check_float(v, "nan_to_num", name, pos)
    if not x.dtype.is_floating_point:
        return x.clone()
    info = np.finfo(np.float32 if x.dtype.name == "bfloat16" else np.dtype(x.dtype.name))
    big = float(info.max) if x.dtype.name != "bfloat16" else 3.3895313892515355e38
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    out = _m.where(_m.isnan(x), nan, x)
    out = _m.where(x == math.inf, posinf, out)
    return _m.where(x == -math.inf, neginf, out).to(x.dtype)


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0 (gradient 0 there)."""
    x = _tensor_arg("sinc", input)
    x = x if x.dtype.is_complex else _float(x, "sinc")  # (the formula holds for complex x)
    # Near 0 the quotient's gradient, cos(a)/a - sin(a)/a^2, cancels (it loses
    # 3/a^2 ulps) and is inf - inf once a^2 underflows (subnormal x): there the
    # Taylor series of sin(a)/a gives the value and a gradient with no
    # cancellation. Its first omitted term, a^8/9!, is below the epsilon for
    # |a| < 0.05 in float64 and |a| < 0.5 in float32.
    a = x * math.pi
    small = _m.abs(a) < (0.05 if x.dtype == _dtypes.float64 else 0.5)
    a_big = _m.where(small, 1, a)
    a2 = a * a
    series = 1 - a2 / 6 * (1 - a2 / 20 * (1 - a2 / 42))
    return _m.where(small, series, _m.sin(a_big) / a_big)


def float_power(input, exponent):
    """pow computed in float64."""
    # float64, or complex128 when an operand is complex (a cast to float64 dropped the imaginary part)
    dt = _dtypes.complex128 if any(isinstance(t, _C.TensorBase) and t.dtype.is_complex
                                   for t in (input, exponent)) else _dtypes.float64
    a = input.to(dt) if isinstance(input, _C.TensorBase) else _c.number("float_power", "input", 1, input)
    b = exponent.to(dt) if isinstance(exponent, _C.TensorBase) else _c.number("float_power", "exponent", 2,
                                                                                exponent)
    return _m.pow(a, b)


def ldexp(input, other):
    """input * 2**other."""
    x = _tensor_arg("ldexp", input)
    if not isinstance(other, _C.TensorBase):  # a Number (torch takes a Tensor only)
        x = x if x.dtype.is_complex else _float(x, "ldexp")
        other = _C._full((), _c.number("ldexp", "other", 2, other), x.dtype.to_real() if x.dtype.is_complex
                         else x.dtype, x.device)
    dt = _C.promote_types(x.dtype, other.dtype)  # (an integer input with float16 other is float16)
    x = x.to(dt if dt.is_floating_point or dt.is_complex else _C.get_default_dtype())
    return x * _m.pow(2.0, other).to(x.dtype)


def isposinf(input):
    return _tensor_arg("isposinf", input) == math.inf


def isneginf(input):
    return _tensor_arg("isneginf", input) == -math.inf


def isreal(input):
    """True where the imaginary part is 0 (everywhere for real dtypes)."""
    x = _tensor_arg("isreal", input)
    if x.dtype.is_complex:
        return x.imag == 0
    return _C._full(tuple(x.shape), True, _dtypes.ALIASES["bool"], x.device)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of `elements` is one of `test_elements`."""
    if not isinstance(elements, _C.TensorBase) and not isinstance(test_elements, _C.TensorBase):
        raise TypeError(f"isin(): expected 'elements' or 'test_elements' to be a Tensor, got "
                        f"{type(elements).__name__} and {type(test_elements).__name__}")
    e = elements if isinstance(elements, _C.TensorBase) else _C._full((), elements, test_elements.dtype,
                                                                       test_elements.device)
    t = test_elements if isinstance(test_elements, _C.TensorBase) else _C._full((), test_elements, e.dtype,
                                                                                 e.device)
    flat = t.reshape(-1)
    if flat.numel() == 0:
        hit = _C._full(tuple(e.shape), False, _dtypes.ALIASES["bool"], e.device)
    else:
        hit = (e.unsqueeze(-1) == flat).any(-1)
    return ~hit if invert else hit


def is_floating_point(input):
    return _tensor_arg("is_floating_point", input).dtype.is_floating_point


def is_nonzero(input):
    x = _tensor_arg("is_nonzero", input)
    if x.numel() != 1:
        raise RuntimeError(f"is_nonzero(): Boolean value of Tensor with "
                           f"{'no values' if x.numel() == 0 else 'more than one value'} is ambiguous")
    return bool(x.item() != 0)


# ---------------------------------------------------------------- Tensor methods

def _compare(op):
    compare = getattr(operator, op)

    def fn(input, other):
        try:
            return compare(input, other)
        except TypeError:
            if isinstance(other, (_C.TensorBase, numbers.Number)):
                raise
            # (Python's "'<' not supported between instances ..." names no op)
            raise TypeError(_C.name_op_in_progress(f"{op}(): argument 'other' (position 1) must be Tensor or Number, "
                                                   f"not {type(other).__name__}")) from None

    fn.__name__ = fn.__qualname__ = op  # (Python's argument errors say "lt() missing ...")
    fn.__code__ = fn.__code__.replace(co_name=op)
    return fn


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def is_nonzero(self):
        return is_nonzero(self)

    def positive(self):
        return positive(self)

    def is_signed(self):
        return self.dtype.name not in ("bool", "uint8")


# comparisons: lt, le, ... with torch's other names, and the in-place forms
# (which keep self's dtype: the bool result is copied in)
_COMPARE_NAMES = {"lt": ("less",), "le": ("less_equal",), "gt": ("greater",), "ge": ("greater_equal",),
                  "eq": (), "ne": ("not_equal",)}
for _op, _aliases in _COMPARE_NAMES.items():
    _fn = _compare(_op)
    for _n in (_op,) + _aliases:
        setattr(TensorMethods, _n, _c.method(_fn))
        setattr(TensorMethods, _n + "_", _c.inplace_method(_fn, _n))

_INPLACE = ("negative", "multiply", "subtract", "divide", "true_divide", "logit", "xlogy", "hypot", "copysign",
            "nextafter", "frac", "sgn", "deg2rad", "rad2deg", "heaviside", "gcd", "lcm", "bitwise_left_shift",
            "bitwise_right_shift", "nan_to_num", "sinc", "float_power", "ldexp")
for _n in _INPLACE + ("logaddexp", "logaddexp2", "fmax", "fmin", "signbit", "isposinf", "isneginf", "isreal"):
    setattr(TensorMethods, _n, _c.method(globals()[_n], _n))
for _n in _INPLACE:
    setattr(TensorMethods, _n + "_", _c.inplace_method(globals()[_n], _n))
del _op, _aliases, _fn, _n
_float_power_inplace = TensorMethods.float_power_


def _float_power_(self, exponent):
    # torch's rule: self must already have the result's dtype (float64, complex128 with a complex
    # operand); casting a float64 power back into float32 self is refused, not rounded
    want = _dtypes.complex128 if any(isinstance(t, _C.TensorBase) and t.dtype.is_complex or isinstance(t, complex)
                                     for t in (self, exponent)) else _dtypes.float64
    if isinstance(self, _C.TensorBase) and self.dtype != want:
        raise RuntimeError(f"float_power_(): the base given to float_power_ has dtype {_dtypes.torch_name(self.dtype)} "
                           f"but the operation's result requires dtype {_dtypes.torch_name(want)}")
    return _float_power_inplace(self, exponent)


TensorMethods.float_power_ = _c._named(_float_power_, "float_power_")


# the shift operators: t << n, n << t, t <<= n (and >>), as torch's Tensor
def _shift_operator(fn, reflected=False):
    def op(self, other):
        if not isinstance(other, (_C.TensorBase, int, np.integer, float)) or isinstance(other, bool):
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)
    return op


TensorMethods.__lshift__ = _shift_operator(bitwise_left_shift)
TensorMethods.__rlshift__ = _shift_operator(bitwise_left_shift, reflected=True)
TensorMethods.__rshift__ = _shift_operator(bitwise_right_shift)
TensorMethods.__rrshift__ = _shift_operator(bitwise_right_shift, reflected=True)
def _apply_(self, callable):  # noqa: A002 - torch's argument name
    """Applies the Python function ``callable`` to every element, in place (torch's ``Tensor.apply_``:
    slow, CPU tensors only; the values go through numpy and come back in ``self``'s dtype).

    Args:
        callable (Callable): a function of one element value.

    Example::

        >>> flow.tensor([1.0, 2.0]).apply_(lambda v: v * 10)
        tensor([10., 20.])
    """
    _C.check_tensor(self, "apply_", "self", 0)
    if not builtins.callable(callable):
        raise TypeError(f"apply_(): argument 'callable' must be callable, not {type(callable).__name__}")
    if self.device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    values = self.detach().numpy()
    out = np.vectorize(callable, otypes=[values.dtype])(values) if values.size else values
    return self.copy_(_tensor_like(out, self))


def _map_(self, tensor, callable):  # noqa: A002 - torch's argument name
    """Sets each element to ``callable(self_element, tensor_element)``, in place (torch's
    ``Tensor.map_``; ``tensor`` broadcasts to ``self``; slow, CPU tensors only).

    Args:
        tensor (Tensor): the second operand, broadcast to ``self``'s shape.
        callable (Callable): a function of two element values.

    Example::

        >>> flow.tensor([1.0, 2.0]).map_(flow.tensor([3.0, 4.0]), lambda a, b: a * b)
        tensor([3., 8.])
    """
    _C.check_tensor(self, "map_", "self", 0)
    _C.check_tensor(tensor, "map_", "tensor", 1)
    if not builtins.callable(callable):
        raise TypeError(f"map_(): argument 'callable' must be callable, not {type(callable).__name__}")
    if self.device.type != "cpu" or tensor.device.type != "cpu":
        raise TypeError("map_ is only implemented on CPU tensors")
    a = self.detach().numpy()
    try:
        b = np.broadcast_to(tensor.detach().numpy(), a.shape)
    except ValueError:
        raise RuntimeError(f"map_(): the tensor of shape {list(tensor.shape)} does not broadcast to self's shape "
                           f"{list(self.shape)}") from None
    out = np.vectorize(callable, otypes=[a.dtype])(a, b) if a.size else a
    return self.copy_(_tensor_like(out, self))


def _tensor_like(values, like):
    from monoflow._creation import tensor

    return tensor(np.asarray(values, order="C"), dtype=like.dtype)


TensorMethods.apply_ = _apply_
TensorMethods.map_ = _map_
TensorMethods.__ilshift__ = TensorMethods.bitwise_left_shift_
TensorMethods.__irshift__ = TensorMethods.bitwise_right_shift_
