"""monoflow.special (torch.special's names).

The core's elementwise ops (erf, erfc, exp2, expm1, log1p, sigmoid, ...)
under their special-function names, and compositions for the rest:
gammaln (Lanczos), digamma (recurrence + asymptotic series), zeta (Hurwitz,
Euler-Maclaurin) and polygamma, the modified Bessel functions i0/i1 (power
series, asymptotic expansion for large |x|), erfinv (Newton on erf). All of
them are differentiable, erfinv with its exact derivative.
"""
import math as _math

from monoflow import _C
from monoflow import ops_math as _m
from monoflow import ops_pointwise as _p
from monoflow import ops_reduce as _r
from monoflow.autograd.function import Function as _Function

__all__ = ["erf", "erfc", "erfinv", "erfcx", "expit", "logit", "exp2", "expm1", "log1p", "logsumexp", "softmax",
           "log_softmax", "xlogy", "xlog1py", "entr", "sinc", "round", "gammaln", "digamma", "psi", "polygamma",
           "multigammaln", "zeta", "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr"]

logit, xlogy, sinc = _p.logit, _p.xlogy, _p.sinc

# The core's ops under their special-function names, looked up in ops_math
# when used rather than bound here: the global layer replaces ops_math's
# functions after this module is imported, and a name bound here would stay
# the unwrapped function, with another docstring than monoflow.erf and no
# dispatch of global tensors. Looked up, special.erf *is* monoflow.erf.
_MATH_NAMES = {"erf": "erf", "erfc": "erfc", "exp2": "exp2", "expm1": "expm1", "log1p": "log1p",
               "expit": "sigmoid", "round": "round"}


def __getattr__(name):
    target = _MATH_NAMES.get(name)
    if target is None:
        raise AttributeError(f"module 'monoflow.special' has no attribute '{name}'")
    return getattr(_m, target)


def __dir__():
    return sorted(set(globals()) | set(_MATH_NAMES))


def logsumexp(input, dim, keepdim=False):
    """The log of the sum of exponentials of ``input`` over ``dim``, computed stably: :func:`monoflow.logsumexp`.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        dim (int or tuple of ints): the dims to reduce.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.

    Example::

        >>> flow.special.logsumexp(flow.tensor([[1., 2., 3.]]), 1)
        tensor([3.4076])
    """
    return _r.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    """:func:`monoflow.softmax` along ``dim``: ``exp(x) / exp(x).sum(dim)``, computed stably.

    Args:
        input (Tensor): the tensor of scores.
        dim (int): the dim along which the result sums to 1.
        dtype (monoflow.dtype, optional): the dtype to convert ``input`` to
            before computing, and of the result.

    Example::

        >>> flow.special.softmax(flow.tensor([1., 2., 3.]), 0)
        tensor([0.0900, 0.2447, 0.6652])
    """
    return _r.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """:func:`monoflow.log_softmax` along ``dim``: ``x - logsumexp(x, dim)``.

    Args:
        input (Tensor): the tensor of scores.
        dim (int): the dim to normalise along.
        dtype (monoflow.dtype, optional): the dtype to convert ``input`` to
            before computing, and of the result.

    Example::

        >>> flow.special.log_softmax(flow.tensor([1., 2.]), 0, dtype=flow.float64)
        tensor([-1.3133, -0.3133], dtype=monoflow.float64)
    """
    return _r.log_softmax(input, dim, dtype)


def _float(op, x):
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"special.{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x.dtype.is_complex:  # (the cast below would silently drop the imaginary part)
        raise NotImplementedError(f"special.{op}(): not implemented for complex tensors (got {x.dtype})")
    return x if x.dtype.is_floating_point else x.to(_C.get_default_dtype())


def xlog1py(input, other):
    """Computes ``input * log1p(other)`` element-wise, with 0 where ``input`` is 0 (unless ``other`` is NaN).

    The shapes broadcast; integer inputs are computed in the default floating
    dtype. Differentiable in both arguments.

    Args:
        input (Tensor): the multiplier.
        other (Tensor): the argument of ``log1p``.

    Example::

        >>> flow.special.xlog1py(flow.tensor([0., 2.]), flow.tensor([-1., 1.]))
        tensor([0.0000, 1.3863])
    """
    x, y = _p._promote_float(_float("xlog1py", input), _float("xlog1py", other), "special.xlog1py")
    # as xlogy: the product is kept where x == 0 (d/dx is log1p(y) there), over a safe y
    zero = (x == 0) & ~_m.isnan(y)
    return x * _m.log1p(_m.where(zero & ((y <= -1) | _m.isinf(y)), 0, y))


def entr(input):
    """The elementwise entropy term ``-x * log(x)``: 0 at ``x = 0``, ``-inf`` for ``x < 0``.

    Integer inputs are computed in the default floating dtype.

    Args:
        input (Tensor): the values.

    Example::

        >>> flow.special.entr(flow.tensor([0., 0.5, -1.]))
        tensor([0.0000, 0.3466,   -inf])
    """
    x = _float("entr", input)
    pos = x > 0
    val = -x * _m.log(_m.where(pos, x, 1))
    return _m.where(pos, val, _m.where(x == 0, 0, _m.where(_m.isnan(x), x, -_math.inf)))


def erfcx(input):
    """The scaled complementary error function, ``exp(x**2) * erfc(x)``, element-wise.

    Computed in float64: the product below x = 4, Laplace's continued fraction
    (40 terms) from 4 on, where the product would underflow and overflow
    (``inf`` below about -26.6, as torch). Differentiable.

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.erfcx(flow.tensor([0., 1., 5.]))
        tensor([1.0000, 0.4276, 0.1107])
        >>> flow.special.erfcx(flow.tensor([10.], dtype=flow.float64))
        tensor([0.0561], dtype=monoflow.float64)
    """
    x = _float("erfcx", input)
    return _erfcx64(x.double()).to(x.dtype)


def _erfcx64(x):
    far = x >= 4.0
    # each branch sees only its own arguments (no inf/nan in the other's gradient); below 4 the product
    # neither underflows nor cancels (for negative x, erfc(x) is in (1, 2))
    near = _m.where(far, 0.0, x)
    direct = _m.exp(near * near) * _m.erfc(near)
    t = _m.where(far, x, 4.0)
    cf = t
    for k in range(40, 0, -1):  # erfc(t) = exp(-t^2)/sqrt(pi) / (t + (1/2)/(t + 1/(t + (3/2)/(t + ...))))
        cf = t + (k / 2.0) / cf
    return _m.where(far, 1.0 / (_math.sqrt(_math.pi) * cf), direct)


# ---------------------------------------------------------------- erfinv

def _erfinv_values(y):
    """erfinv in float64: Giles' single-precision approximation, then two Newton steps."""
    y64 = y.double()
    w = -_m.log((1.0 - y64) * (1.0 + y64))
    small = w < 5.0
    ws = w - 2.5
    wl = _m.sqrt(_m.where(small, 5.0, w)) - 3.0
    ps = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
              0.246640727, 1.50140941):
        ps = ps * ws + c
    pl = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
              1.00167406, 2.83297682):
        pl = pl * wl + c
    x = _m.where(small, ps, pl) * y64
    for _ in range(2):
        err = _m.erf(x) - y64
        x = x - err / (2.0 / _math.sqrt(_math.pi) * _m.exp(-x * x))
    x = _m.where(y64 == 1, _math.inf, _m.where(y64 == -1, -_math.inf, x))
    return _m.where(_m.abs(y64) > 1, _math.nan, x).to(y.dtype)


class _Erfinv(_Function):
    @staticmethod
    def forward(ctx, y):
        x = _erfinv_values(y)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (_math.sqrt(_math.pi) / 2.0) * _m.exp(x * x)


def erfinv(input):
    """The inverse error function, element-wise: ``erfinv(erf(x)) = x`` on ``(-1, 1)``.

    Gives ``inf`` / ``-inf`` at 1 / -1 and NaN outside ``[-1, 1]``. Computed in
    float64 (an approximation refined by Newton steps) and differentiable, with
    the exact derivative ``sqrt(pi) / 2 * exp(erfinv(x)**2)``.

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.erfinv(flow.tensor([0., 0.5, -0.5]))
        tensor([ 0.0000,  0.4769, -0.4769])
        >>> flow.special.erfinv(flow.tensor([1., -1., 2.]))
        tensor([inf, -inf, nan])
    """
    return _Erfinv.apply(_float("erfinv", input))


def ndtr(input):
    r"""The cumulative distribution function of the standard normal distribution, element-wise.

    .. math:: \text{ndtr}(x) = \frac{1}{2}\,\text{erfc}\!\left(-\frac{x}{\sqrt{2}}\right)

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.ndtr(flow.tensor([0., 1.96]))
        tensor([0.5000, 0.9750])
    """
    return _m.erfc(_float("ndtr", input) * (-1.0 / _math.sqrt(2.0))) * 0.5


def ndtri(input):
    """The inverse of :func:`ndtr`, the quantile function of the standard normal distribution, element-wise.

    Computed as ``sqrt(2) * erfinv(2 * p - 1)``: ``-inf`` at 0, ``inf`` at 1,
    NaN outside ``[0, 1]``.

    Args:
        input (Tensor): probabilities; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.ndtri(flow.tensor([0.5, 0.975]))
        tensor([0.0000, 1.9600])
    """
    return erfinv(_float("ndtri", input) * 2.0 - 1.0) * _math.sqrt(2.0)


def log_ndtr(input):
    """The log of :func:`ndtr`, the log of the standard normal CDF, element-wise.

    Computed in float64 without forming the CDF where it under- or
    overflows the precision: ``log(1/2) - t**2 + log(erfcx(t))`` with
    ``t = -x/sqrt(2)`` for negative x (finite far into the tail, as torch),
    ``log1p(-erfc(x/sqrt(2))/2)`` for x >= 0 (tiny negative values, not 0).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.log_ndtr(flow.tensor([0., -10.]))
        tensor([ -0.6931, -53.2313])
    """
    x = _float("log_ndtr", input)
    x64 = x.double()
    neg = x64 < 0
    t = _m.where(neg, -x64, 0.0) / _math.sqrt(2.0)
    left = _math.log(0.5) - t * t + _m.log(_erfcx64(t))
    right = _m.log1p(-0.5 * _m.erfc(_m.where(neg, 0.0, x64) / _math.sqrt(2.0)))
    return _m.where(neg, left, right).to(x.dtype)


# ---------------------------------------------------------------- gamma family

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
            12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)


def _lgamma_right(x):
    """log|Gamma(x)| for x >= 0.5 (Lanczos, g = 7, n = 9)."""
    z = x - 1.0
    a = _LANCZOS[0]
    for i, c in enumerate(_LANCZOS[1:], start=1):
        a = a + c / (z + i)
    t = z + _LANCZOS_G + 0.5
    return 0.5 * _math.log(2 * _math.pi) + (z + 0.5) * _m.log(t) - t + _m.log(a)


def _zeta(k, n=1000):
    """Riemann zeta(k) for an integer k >= 2: n terms and the Euler-Maclaurin tail."""
    head = sum(j ** -k for j in range(n, 0, -1))
    tail = n ** (1 - k) / (k - 1) - 0.5 * n ** -k + k * n ** (-k - 1) / 12 - k * (k + 1) * (k + 2) * n ** (-k - 3) / 720
    return head + tail


# lgamma(1 + z) = -euler_gamma z + sum_k (-1)^k zeta(k) / k z^k, |z| <= 1/4 (25 terms: 1e-17)
_LGAMMA_SERIES = (-0.5772156649015329,) + tuple((-1) ** k * _zeta(k) / k for k in range(2, 27))


def _lgamma_near_roots(z):
    """lgamma(1 + z) for |z| <= 1/4, accurate relative to its small value (Horner on the series)."""
    acc = 0.0
    for c in reversed(_LGAMMA_SERIES):
        acc = (acc + c) * z
    return acc


def gammaln(input):
    """The natural log of the absolute value of the gamma function, ``log|Gamma(x)|``, element-wise.

    Computed in float64 (Lanczos approximation, the reflection formula for
    ``x < 0.5``, and the Taylor series of lgamma about 1 and 2 within 1/4 of
    its roots there, so that values near 1 and 2 keep their relative
    precision: exactly 0 at 1 and 2) and returned in ``input``'s floating
    dtype; ``inf`` at the poles 0, -1, -2, .... Integer inputs are computed
    in the default floating dtype.

    Args:
        input (Tensor): the values.

    Example::

        >>> flow.special.gammaln(flow.tensor([0.5, 5., 10.]))
        tensor([ 0.5724,  3.1781, 12.8018])
        >>> flow.special.gammaln(flow.tensor([0.]))
        tensor([inf])
    """
    x = _float("gammaln", input)
    x64 = x.double()
    right = x64 >= 0.5
    xr = _m.where(right, x64, 1.0 - x64)  # the argument Lanczos sees, always >= 0.5
    lg = _lgamma_right(xr)
    pole = ~right & (x64 == _m.floor(x64))
    s = _m.abs(_m.sin(_math.pi * _m.where(pole, 0.5, x64)))
    refl = _math.log(_math.pi) - _m.log(s) - lg
    out = _m.where(right, lg, _m.where(pole, _math.inf, refl))
    z1, z2 = x64 - 1.0, x64 - 2.0
    near1, near2 = _m.abs(z1) <= 0.25, _m.abs(z2) <= 0.25
    z1, z2 = _m.where(near1, z1, 0.0), _m.where(near2, z2, 0.0)  # (the series only where it converges fast)
    out = _m.where(near1, _lgamma_near_roots(z1), _m.where(near2, _m.log1p(z2) + _lgamma_near_roots(z2), out))
    return _m.where(x64 == _math.inf, _math.inf, out).to(x.dtype)


# Bernoulli numbers B_2k / (2k) for the digamma asymptotic series
_DIGAMMA_ASYM = (1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12)


def _digamma_right(x):
    """psi(x) for x >= 0.5: six recurrence steps, then the asymptotic series at x + 6."""
    shift = 0.0
    for k in range(6):
        shift = shift + 1.0 / (x + k)
    z = x + 6.0
    inv2 = 1.0 / (z * z)
    series, power = 0.0, inv2
    for c in _DIGAMMA_ASYM:
        series = series + c * power
        power = power * inv2
    return _m.log(z) - 0.5 / z - series - shift


def digamma(input):
    """The digamma function ``psi(x) = d/dx log Gamma(x)``, element-wise; ``psi`` is the same function.

    Computed in float64 (recurrence and an asymptotic series, the reflection
    formula for ``x < 0.5``); ``-inf`` at 0 and NaN at the negative integers, as
    in PyTorch. Integer inputs are computed in the default floating dtype.

    Args:
        input (Tensor): the values.

    Example::

        >>> flow.special.digamma(flow.tensor([1., 0.5, 0.]))
        tensor([-0.5772, -1.9635,    -inf])
        >>> flow.special.psi(flow.tensor([2.]))
        tensor([0.4228])
    """
    x = _float("digamma", input)
    x64 = x.double()
    right = x64 >= 0.5
    xr = _m.where(right, x64, 1.0 - x64)
    val = _digamma_right(xr)
    pole = ~right & (x64 == _m.floor(x64))
    refl = val - _math.pi / _m.tan(_math.pi * _m.where(pole, 0.5, x64))
    out = _m.where(right, val, _m.where(pole, _math.nan, refl))
    return _m.where(x64 == 0, -_math.inf, out).to(x.dtype)


psi = digamma


_ZETA_B2K = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510)


def zeta(input, other):
    """The Hurwitz zeta function ``sum_{k >= 0} (other + k) ** -input``, element-wise.

    With ``other = 1`` it is the Riemann zeta function. Either argument may be a
    number (not both); the shapes broadcast. Finite for ``input > 1``:
    ``inf`` at ``input = 1``, NaN below, and ``inf`` where ``other`` is a
    non-positive integer. Computed in float64 by Euler-Maclaurin summation.

    Args:
        input (Tensor or Number): the exponent ``s``.
        other (Tensor or Number): the shift ``q``.

    Example::

        >>> flow.special.zeta(flow.tensor([2., 4.]), 1.)
        tensor([1.6449, 1.0823])
        >>> flow.special.zeta(2., flow.tensor([2.]))
        tensor([0.6449])
    """
    s = input if isinstance(input, _C.TensorBase) else None
    q = other if isinstance(other, _C.TensorBase) else None
    like = s if s is not None else q
    if like is None:
        raise TypeError("special.zeta(): expected at least one Tensor argument")
    dt = _C.get_default_dtype() if not like.dtype.is_floating_point else like.dtype
    s = (s if s is not None else _C._full((), float(input), dt, like.device)).double()
    q = (q if q is not None else _C._full((), float(other), dt, like.device)).double()
    n = 9
    total = 0.0
    for k in range(n):
        total = total + _m.pow(q + k, -s)
    a = q + n
    total = total + _m.pow(a, 1.0 - s) / (s - 1.0) + 0.5 * _m.pow(a, -s)
    # the Bernoulli terms: B_2j / (2j)! * s (s+1) ... (s+2j-2) * a^(-s-2j+1)
    rising, fact = s, 2.0
    for j, b in enumerate(_ZETA_B2K, start=1):
        total = total + b / fact * rising * _m.pow(a, -s - 2 * j + 1)
        rising = rising * (s + 2 * j - 1) * (s + 2 * j)
        fact = fact * (2 * j + 1) * (2 * j + 2)
    out = _m.where(s == 1, _math.inf, _m.where(s < 1, _math.nan, total))
    out = _m.where((q <= 0) & (q == _m.floor(q)), _math.inf, out)
    return out.to(dt)


def polygamma(n, input):
    """The ``n``-th derivative of the digamma function, element-wise: ``polygamma(0, x) = digamma(x)``.

    For ``n >= 1`` it is ``(-1)**(n + 1) * n! * zeta(n + 1, x)``.

    Args:
        n (int): the order of the derivative, ``>= 0``.
        input (Tensor): the values.

    Example::

        >>> flow.special.polygamma(1, flow.tensor([1., 2.]))
        tensor([1.6449, 0.6449])
        >>> flow.special.polygamma(0, flow.tensor([1.]))
        tensor([-0.5772])
    """
    if not isinstance(n, int) or n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _float("polygamma", input)
    if n == 0:
        return digamma(x)
    # n! past 170 overflows a double anyway: no exact factorial of a huge n
    factor = float(_math.factorial(n)) if n <= 170 else _math.inf
    return zeta(_C._full((), float(n + 1), x.dtype, x.device), x) * (factor if n % 2 else -factor)


def multigammaln(input, p):
    r"""The log of the multivariate gamma function of dimension ``p``, element-wise.

    .. math::

        \log \Gamma_p(x) = \frac{p (p - 1)}{4} \log \pi
            + \sum_{i=0}^{p-1} \log\Gamma\!\left(x - \frac{i}{2}\right)

    Args:
        input (Tensor): the values, each ``> (p - 1) / 2`` for a finite result.
        p (int): the dimension, ``>= 1``.

    Example::

        >>> flow.special.multigammaln(flow.tensor([2., 3.]), 2)
        tensor([0.4516, 1.5502])
    """
    x = _float("multigammaln", input)
    p = _C.check_int(p, "multigammaln", "p", 2)
    if p < 1:
        raise RuntimeError(_C.name_op_in_progress(f"p has to be greater than or equal to 1, but got {p}"))
    if p > _MULTIGAMMALN_MAX_P:
        raise RuntimeError(_C.name_op_in_progress(
            f"p={p} is too large: at most {_MULTIGAMMALN_MAX_P} log-gamma terms are summed per element"))
    total = p * (p - 1) / 4.0 * _math.log(_math.pi)
    # The p terms in blocks along a new last dim: one op per block, not per term.
    for start in range(0, p, _MULTIGAMMALN_BLOCK):
        offsets = _C._arange(start, min(p, start + _MULTIGAMMALN_BLOCK), 1, x.dtype) / 2.0
        total = total + gammaln(x.unsqueeze(-1) - offsets).sum(-1)
    return total


# A p beyond this would take minutes (torch tries and runs out of memory).
_MULTIGAMMALN_MAX_P = 1 << 24
_MULTIGAMMALN_BLOCK = 4096


# ---------------------------------------------------------------- modified Bessel functions

def _bessel(x, order, scaled):
    """I_order(x) (order 0 or 1), times exp(-|x|) when scaled: the power series
    for |x| <= 20, the asymptotic expansion above."""
    x64 = x.double()
    ax = _m.abs(x64)
    small = ax <= 20.0
    # the series is even (order 0) or odd (order 1) in x: summed over x itself, so
    # that its gradient at 0 is right
    xs = _m.where(small, x64, 0.0)
    q = xs * xs * 0.25
    term = xs * 0.5 if order else xs * 0 + 1.0
    series = term
    for k in range(1, 60):
        term = term * q / (k * (k + order))
        series = series + term
    xl = _m.where(small, 21.0, ax)
    mu = 4.0 * order * order
    asym, t = 1.0, 1.0
    for k in range(1, 12):
        t = t * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * xl)
        asym = asym + t
    big = asym / _m.sqrt(2 * _math.pi * xl)  # times exp(|x|), applied below
    if order == 1:
        big = _m.where(x64 < 0, -big, big)
    if scaled:
        val = _m.where(small, series * _m.exp(-ax), big)
    else:
        val = _m.where(small, series, big * _m.exp(xl))
    return val.to(x.dtype)


def i0(input):
    """The modified Bessel function of the first kind of order 0, ``I_0(x)``, element-wise.

    A power series for ``|x| <= 20``, an asymptotic expansion above; overflows
    to ``inf`` for large ``|x|`` (see :func:`i0e`).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.i0(flow.tensor([0., 1., 2.]))
        tensor([1.0000, 1.2661, 2.2796])
    """
    return _bessel(_float("i0", input), 0, False)


def i0e(input):
    """The exponentially scaled modified Bessel function of order 0, ``I_0(x) * exp(-|x|)``, element-wise.

    Finite for every ``x``, where :func:`i0` overflows.

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.i0e(flow.tensor([0., 1., 100.]))
        tensor([1.0000, 0.4658, 0.0399])
    """
    return _bessel(_float("i0e", input), 0, True)


def i1(input):
    """The modified Bessel function of the first kind of order 1, ``I_1(x)``, element-wise (an odd function).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.i1(flow.tensor([0., 1., -1.]))
        tensor([ 0.0000,  0.5652, -0.5652])
    """
    return _bessel(_float("i1", input), 1, False)


def i1e(input):
    """The exponentially scaled modified Bessel function of order 1, ``I_1(x) * exp(-|x|)``, element-wise.

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.

    Example::

        >>> flow.special.i1e(flow.tensor([0., 1.]))
        tensor([0.0000, 0.2079])
    """
    return _bessel(_float("i1e", input), 1, True)


from monoflow.special._more import (  # noqa: E402
    airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, chebyshev_polynomial_t, chebyshev_polynomial_u,
    chebyshev_polynomial_v, chebyshev_polynomial_w, gammainc, gammaincc, hermite_polynomial_h, hermite_polynomial_he,
    laguerre_polynomial_l, legendre_polynomial_p, modified_bessel_i0, modified_bessel_i1, modified_bessel_k0,
    modified_bessel_k1, scaled_modified_bessel_k0, scaled_modified_bessel_k1, shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w,
    spherical_bessel_j0)
from monoflow.special import _more as _more_mod  # noqa: E402

__all__ = __all__ + _more_mod.__all__
