"""torch.special's Bessel functions, orthogonal polynomials and regularized incomplete gamma functions,
composed of monoflow ops.

As in torch, the Bessel functions and the polynomials have no gradient (their results do not require grad);
gammainc/gammaincc are differentiable in ``other`` (x) and refuse a gradient in ``input`` (a) as torch does.

Methods: J0/J1 by the trapezoid rule on Bessel's integral over a full period (spectrally accurate) for
|x| <= 25 and Hankel's asymptotic expansion above; Y0/Y1 by Neumann's series over those J_2k; K0/K1 by their
power series for x <= 2, the trapezoid rule on ``int exp(-x cosh t) cosh(nu t) dt`` up to 30 and the
asymptotic expansion above; the polynomials by their three-term recurrences (with torch's trigonometric
forms and endpoint cases); P(a, x) by its series for x < a + 1 and Legendre's continued fraction for Q
otherwise.
"""
import math as _math

from monoflow import _C
from monoflow import _dtypes
from monoflow import ops_math as _m
from monoflow.autograd.function import Function as _Function
from monoflow.autograd.grad_mode import no_grad as _no_grad

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
           "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p", "gammainc", "gammaincc"]

_EULER = 0.57721566490153286061
_where = _m.where


def _float_input(op, x):
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"special.{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x.dtype.is_complex:  # (the cast below would silently drop the imaginary part)
        raise NotImplementedError(f"special.{op}(): not implemented for complex tensors (got {x.dtype})")
    return x if x.dtype.is_floating_point else x.to(_C.get_default_dtype())


def _no_out(op, out):
    if out is not None:
        raise NotImplementedError(f"special.{op}(): out= is not supported")


# ---------------------------------------------------------------- Bessel functions of the first and second kind

_NODES = 128  # trapezoid nodes over one period: exact to double precision for |x| <= 25 and orders <= 60
_SMALL = 25.0


def _bessel_j_table(x64, orders):
    """J_n(x) for each n of orders (a list), stacked on a new last dim: the mean of cos(n tau - x sin tau)
    over _NODES equally spaced tau (x is clamped into [-_SMALL, _SMALL] by the caller)."""
    from monoflow._creation import arange
    tau = arange(_NODES, dtype=_dtypes.float64, device=x64.device) * (2 * _math.pi / _NODES)
    phase = x64.unsqueeze(-1) * _m.sin(tau)  # (*, nodes)
    cols = [_m.cos(tau * n - phase).mean(-1) for n in orders]
    return cols


def _hankel(x, nu):
    """(P, Q, omega) of Hankel's expansion for large x > 0: J = sqrt(2/(pi x)) (P cos w - Q sin w),
    Y = sqrt(2/(pi x)) (P sin w + Q cos w)."""
    mu = 4.0 * nu * nu
    P, Q = 1.0, 0.0
    term = x * 0 + 1.0
    for k in range(1, 30):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2:
            Q = Q + (term if k % 4 == 1 else -term)
        else:
            P = P + (term if k % 4 == 0 else -term)
    omega = x - (nu * 0.5 + 0.25) * _math.pi
    return P, Q, omega


def _j(x, order):
    x64 = x.double()
    ax = _m.abs(x64)
    small = ax <= _SMALL
    xs = _where(small, x64, 0.0)
    (js,) = _bessel_j_table(xs, [order])
    # the power series near 0, for relative precision (J1(x) ~ x / 2)
    tiny = ax < 2.0
    xt = _where(tiny, x64, 0.0)
    q = -xt * xt * 0.25
    term = xt * 0.5 if order else xt * 0 + 1.0
    series = term
    for k in range(1, 25):
        term = term * q / (k * (k + order))
        series = series + term
    js = _where(tiny, series, js)
    xl = _where(small, _SMALL + 1, ax)
    P, Q, w = _hankel(xl, order)
    big = _m.sqrt(2.0 / (_math.pi * xl)) * (P * _m.cos(w) - Q * _m.sin(w))
    if order == 1:
        big = _where(x64 < 0, -big, big)
    out = _where(small, js, big)
    return _where(_m.isinf(x64), _math.nan, out).to(x.dtype)  # torch's (cephes') NaN at +-inf


def _y(x, order):
    x64 = x.double()
    small = x64 <= _SMALL
    xs = _where(small & (x64 > 0), x64, 1.0)
    K = 31  # J_2k beyond k = 30 vanish to double precision for x <= 25
    js = _bessel_j_table(xs, list(range(0, 2 * K + 2)))
    log_term = _m.log(xs * 0.5) + _EULER
    if order == 0:
        s = 0.0
        for k in range(1, K + 1):
            s = s + (js[2 * k] / k if k % 2 == 0 else -js[2 * k] / k)
        ys = (2 / _math.pi) * log_term * js[0] - (4 / _math.pi) * s
    else:
        s = 0.0
        for k in range(1, K + 1):
            t = (js[2 * k - 1] - js[2 * k + 1]) / k
            s = s + (t if k % 2 == 0 else -t)
        ys = -(2 / _math.pi) * (js[0] / xs - log_term * js[1]) + (2 / _math.pi) * s
    xl = _where(small, _SMALL + 1, x64)
    P, Q, w = _hankel(xl, order)
    big = _m.sqrt(2.0 / (_math.pi * xl)) * (P * _m.sin(w) + Q * _m.cos(w))
    out = _where(small, ys, big)
    out = _where(x64 == 0, -_math.inf, out)
    out = _where(x64 < 0, _math.nan, out)
    out = _where(x64 == _math.inf, _math.nan, out)  # as torch
    return out.to(x.dtype)


def bessel_j0(input, *, out=None):
    """The Bessel function of the first kind of order 0, ``J_0(x)``, element-wise (no gradient, as torch).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.bessel_j0(flow.tensor([0., 1., 2.4048]))
        tensor([1.0000e+00, 7.6520e-01, 1.3300e-05])
    """
    _no_out("bessel_j0", out)
    with _no_grad():
        return _j(_float_input("bessel_j0", input), 0)


def bessel_j1(input, *, out=None):
    """The Bessel function of the first kind of order 1, ``J_1(x)``, element-wise (odd; no gradient, as torch).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.bessel_j1(flow.tensor([0., 1., -1.]))
        tensor([ 0.0000,  0.4401, -0.4401])
    """
    _no_out("bessel_j1", out)
    with _no_grad():
        return _j(_float_input("bessel_j1", input), 1)


def bessel_y0(input, *, out=None):
    """The Bessel function of the second kind of order 0, ``Y_0(x)``, element-wise: ``-inf`` at 0, NaN for
    ``x < 0`` (no gradient, as torch).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.bessel_y0(flow.tensor([1., 2.]))
        tensor([0.0883, 0.5104])
    """
    _no_out("bessel_y0", out)
    with _no_grad():
        return _y(_float_input("bessel_y0", input), 0)


def bessel_y1(input, *, out=None):
    """The Bessel function of the second kind of order 1, ``Y_1(x)``, element-wise: ``-inf`` at 0, NaN for
    ``x < 0`` (no gradient, as torch).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.bessel_y1(flow.tensor([1., 2.]))
        tensor([-0.7812, -0.1070])
    """
    _no_out("bessel_y1", out)
    with _no_grad():
        return _y(_float_input("bessel_y1", input), 1)


def modified_bessel_i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0, ``I_0(x)`` (the values of
    :func:`monoflow.special.i0`, without a gradient, as torch's ``modified_bessel_i0``).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.modified_bessel_i0(flow.tensor([0., 1.]))
        tensor([1.0000, 1.2661])
    """
    from monoflow.special import i0
    _no_out("modified_bessel_i0", out)
    with _no_grad():
        return i0(_float_input("modified_bessel_i0", input))


def modified_bessel_i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1, ``I_1(x)`` (the values of
    :func:`monoflow.special.i1`, without a gradient, as torch's ``modified_bessel_i1``).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.modified_bessel_i1(flow.tensor([0., 1.]))
        tensor([0.0000, 0.5652])
    """
    from monoflow.special import i1
    _no_out("modified_bessel_i1", out)
    with _no_grad():
        return i1(_float_input("modified_bessel_i1", input))


_K_SERIES_MAX = 2.0
_K_ASYM_MIN = 30.0
_K_H = 0.02
_K_TMAX = 4.6


def _k(x, order, scaled):
    """K_order(x) (order 0 or 1), times exp(x) when scaled."""
    from monoflow._creation import arange
    from monoflow.special import i0, i1
    x64 = x.double()
    # power series (x <= 2)
    xs = _where((x64 > 0) & (x64 <= _K_SERIES_MAX), x64, 1.0)
    q = xs * xs * 0.25
    lg = _m.log(xs * 0.5)
    if order == 0:
        term, harm, s = xs * 0 + 1.0, 0.0, 0.0
        for k in range(1, 30):
            term = term * q / (k * k)
            harm += 1.0 / k
            s = s + term * harm
        series = -(lg + _EULER) * i0(xs) + s
    else:
        # K1 = 1/x + ln(x/2) I1 - (x/4) sum (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!)
        term = xs * 0 + 1.0
        psi1, psi2 = -_EULER, 1.0 - _EULER
        s = term * (psi1 + psi2)
        for k in range(1, 30):
            term = term * q / (k * (k + 1))
            psi1 += 1.0 / k
            psi2 += 1.0 / (k + 1)
            s = s + term * (psi1 + psi2)
        series = 1.0 / xs + lg * i1(xs) - xs * 0.25 * s
    if scaled:
        series = series * _m.exp(xs)
    # trapezoid on exp(-x (cosh t - 1)) cosh(order t) over [0, _K_TMAX] (2 < x <= 30)
    mid = (x64 > _K_SERIES_MAX) & (x64 <= _K_ASYM_MIN)
    xm = _where(mid, x64, 3.0)
    n = int(round(_K_TMAX / _K_H))
    t = arange(n + 1, dtype=_dtypes.float64, device=x.device) * _K_H
    w = _m.cosh(t * order) if order else t * 0 + 1.0
    f = _m.exp(-xm.unsqueeze(-1) * (_m.cosh(t) - 1.0)) * w
    integral = (f.sum(-1) - 0.5 * f[..., 0]) * _K_H  # f at t_max is negligible
    if not scaled:
        integral = integral * _m.exp(-xm)
    # asymptotic expansion (x > 30)
    xl = _where(x64 > _K_ASYM_MIN, x64, _K_ASYM_MIN + 1)
    mu = 4.0 * order * order
    term, asym = xl * 0 + 1.0, 1.0
    for k in range(1, 30):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * xl)
        asym = asym + term
    big = _m.sqrt(_math.pi / (2 * xl)) * asym
    if not scaled:
        big = big * _m.exp(-xl)
    out = _where(x64 <= _K_SERIES_MAX, series, _where(x64 <= _K_ASYM_MIN, integral, big))
    out = _where(x64 == 0, _math.inf, out)
    out = _where(x64 < 0, _math.nan, out)
    out = _where(x64 == _math.inf, 0.0, out)
    out = _where(_m.isnan(x64), _math.nan, out)
    return out.to(x.dtype)


def modified_bessel_k0(input, *, out=None):
    """The modified Bessel function of the second kind of order 0, ``K_0(x)``: ``inf`` at 0, NaN for
    ``x < 0`` (no gradient, as torch).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.modified_bessel_k0(flow.tensor([0.5, 1., 2.]))
        tensor([0.9244, 0.4210, 0.1139])
    """
    _no_out("modified_bessel_k0", out)
    with _no_grad():
        return _k(_float_input("modified_bessel_k0", input), 0, False)


def modified_bessel_k1(input, *, out=None):
    """The modified Bessel function of the second kind of order 1, ``K_1(x)``: ``inf`` at 0, NaN for
    ``x < 0`` (no gradient, as torch).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.modified_bessel_k1(flow.tensor([0.5, 1., 2.]))
        tensor([1.6564, 0.6019, 0.1399])
    """
    _no_out("modified_bessel_k1", out)
    with _no_grad():
        return _k(_float_input("modified_bessel_k1", input), 1, False)


def scaled_modified_bessel_k0(input, *, out=None):
    """``exp(x) * K_0(x)``, element-wise: finite for large ``x`` where :func:`modified_bessel_k0` underflows.

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.scaled_modified_bessel_k0(flow.tensor([1., 1000.]))
        tensor([1.1445, 0.0396])
    """
    _no_out("scaled_modified_bessel_k0", out)
    with _no_grad():
        return _k(_float_input("scaled_modified_bessel_k0", input), 0, True)


def scaled_modified_bessel_k1(input, *, out=None):
    """``exp(x) * K_1(x)``, element-wise: finite for large ``x`` where :func:`modified_bessel_k1` underflows.

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.scaled_modified_bessel_k1(flow.tensor([1., 1000.]))
        tensor([1.6362, 0.0396])
    """
    _no_out("scaled_modified_bessel_k1", out)
    with _no_grad():
        return _k(_float_input("scaled_modified_bessel_k1", input), 1, True)


def spherical_bessel_j0(input, *, out=None):
    """The spherical Bessel function of the first kind of order 0, ``sin(x) / x`` (1 at 0; a series for
    ``|x| < 0.5``), element-wise (no gradient, as torch).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.spherical_bessel_j0(flow.tensor([0., 1., 3.1416]))
        tensor([ 1.0000e+00,  8.4147e-01, -2.3046e-06])
    """
    _no_out("spherical_bessel_j0", out)
    with _no_grad():
        x = _float_input("spherical_bessel_j0", input)
        x2 = x * x
        series = 1 + x2 * (-1 / 6 + x2 * (1 / 120 + x2 * (-1 / 5040 + x2 * (1 / 362880 + x2 * (
            -1 / 39916800 + x2 * (1 / 6227020800))))))
        small = _m.abs(x) < 0.5
        safe = _where(small, 1.0, x)
        out = _where(small, series, _m.sin(safe) / safe)
        return _where(_m.isinf(x), 0.0, out)


_AI0 = 0.355028053887817239260  # Ai(0)
_AIP0 = 0.258819403792806798405  # -Ai'(0)


def _airy_u(n):
    u = [1.0]
    for k in range(1, n):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
    return u


def _airy(x):
    """Ai(x) in float64: Maclaurin series on [-7, 2], (1/pi) sqrt(x/3) K_{1/3}(zeta) by the trapezoid rule on
    (2, 9.65], the asymptotic expansions beyond (zeta = 2/3 |x|^(3/2))."""
    from monoflow._creation import arange
    x64 = x.double()
    # Maclaurin series: Ai = Ai(0) f - (-Ai'(0)) g
    mid = (x64 >= -7.0) & (x64 <= 2.0)
    xs = _where(mid, x64, 0.0)
    x3 = xs * xs * xs
    f = xs * 0 + 1.0
    g = xs * 1.0
    tf, tg = f, g
    for k in range(1, 60):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f = f + tf
        g = g + tg
    series = _AI0 * f - _AIP0 * g
    # (2, 9.65]: K_{1/3}(zeta) = int_0^inf exp(-zeta cosh t) cosh(t / 3) dt
    trap = (x64 > 2.0) & (x64 <= 9.65)
    xm = _where(trap, x64, 3.0)
    zeta = (2.0 / 3.0) * xm * _m.sqrt(xm)
    n = int(round(_K_TMAX / _K_H))
    t = arange(n + 1, dtype=_dtypes.float64, device=x.device) * _K_H
    fk = _m.exp(-zeta.unsqueeze(-1) * (_m.cosh(t) - 1.0)) * _m.cosh(t / 3.0)
    k13 = (fk.sum(-1) - 0.5 * fk[..., 0]) * _K_H * _m.exp(-zeta)
    trap_val = _m.sqrt(xm / 3.0) * k13 / _math.pi
    u = _airy_u(40)
    # x > 9.65 (zeta > 20): Ai ~ exp(-zeta) / (2 sqrt(pi) x^(1/4)) sum (-1)^k u_k zeta^-k
    big = x64 > 9.65
    xb = _where(big, x64, 10.0)
    zb = (2.0 / 3.0) * xb * _m.sqrt(xb)
    acc, p = 0.0, xb * 0 + 1.0
    for k in range(40):
        acc = acc + (u[k] if k % 2 == 0 else -u[k]) * p
        p = p / zb
    big_val = _m.exp(-zb) / (2 * _math.sqrt(_math.pi) * _m.sqrt(_m.sqrt(xb))) * acc
    # x < -7: Ai(-y) ~ y^(-1/4) / sqrt(pi) (sin(zeta + pi/4) P - cos(zeta + pi/4) Q)
    neg = x64 < -7.0
    yn = _where(neg, -x64, 8.0)
    zn = (2.0 / 3.0) * yn * _m.sqrt(yn)
    P, Q, p = 0.0, 0.0, yn * 0 + 1.0
    for k in range(40):
        sgn = 1.0 if (k // 2) % 2 == 0 else -1.0
        if k % 2 == 0:
            P = P + sgn * u[k] * p
        else:
            Q = Q + sgn * u[k] * p
        p = p / zn
    ang = zn + _math.pi / 4
    neg_val = (_m.sin(ang) * P - _m.cos(ang) * Q) / (_math.sqrt(_math.pi) * _m.sqrt(_m.sqrt(yn)))
    out = _where(mid, series, _where(trap, trap_val, _where(big, big_val, neg_val)))
    out = _where(_m.isinf(x64) | _m.isnan(x64), _math.nan, out)  # torch's (cephes') NaN at +-inf
    return out.to(x.dtype)


def airy_ai(input, *, out=None):
    """The Airy function of the first kind ``Ai(x)``, element-wise (no gradient, as torch).

    Args:
        input (Tensor): the values; integers are computed in the default floating dtype.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.airy_ai(flow.tensor([0., 1., -1.]))
        tensor([0.3550, 0.1353, 0.5356])
    """
    _no_out("airy_ai", out)
    with _no_grad():
        return _airy(_float_input("airy_ai", input))


# ---------------------------------------------------------------- orthogonal polynomials

def _poly_args(op, x, n):
    """(x, n_int, dtype, device): x as a float tensor and n truncated to int64, broadcast together (torch's
    promotion: a Python number takes the other's dtype, integers become the default float), on the host;
    the result goes back to `device`. The recurrence is a Python loop of small ops, up to _MAX_DEGREE
    steps: on an accelerator each step's kernel launches made a high degree take minutes."""
    is_x, is_n = isinstance(x, _C.TensorBase), isinstance(n, _C.TensorBase)
    if not is_x and not is_n:
        raise TypeError(f"special.{op}(): expected at least one Tensor argument")
    if is_x and is_n:
        dtype = _C.promote_types(x.dtype, n.dtype)
    elif is_x:
        dtype = x.dtype
    else:
        dtype = n.dtype
    if not dtype.is_floating_point:
        dtype = _C.get_default_dtype()
    xt = x.to(dtype) if is_x else _C._full(tuple(n.shape), float(x), dtype, n.device)
    nt = n if is_n else _C._full(tuple(xt.shape), float(n), dtype, xt.device)
    nt = _m.trunc(nt.to(_dtypes.float64)) if nt.dtype.is_floating_point else nt.to(_dtypes.float64)
    shape = _C.broadcast_shapes(tuple(xt.shape), tuple(nt.shape))
    device = xt.device
    return xt.expand(shape).cpu(), nt.expand(shape).to(dtype).cpu(), dtype, device


_MAX_DEGREE = 100_000  # the recurrence is a loop in Python, one step per degree


def _recurrence(op, x, n, p0, p1, step, needed=None):
    """The value of the polynomial of degree n (elementwise) from p0 = P_0, p1 = P_1 and
    P_{k+1} = step(k, P_k, P_{k-1}); 0 where n < 0. Elements outside `needed` are left to the
    caller's other formula. The loop ends once every needed element has its degree or has
    overflowed (two non-finite terms in a row: every higher degree is NaN, as in torch); a finite
    element still short of its degree after _MAX_DEGREE steps raises ValueError."""
    wanted = n if needed is None else _where(needed, n, 0)
    top = int(wanted.max()) if wanted.numel() else 0
    out = _where(n == 0, p0, 0.0 * x)
    if top >= 1:
        out = _where(n == 1, p1, out)
    p, q = p0, p1
    for k in range(1, top):
        if k % 64 == 0:
            live = (wanted > k) & (_m.isfinite(p) | _m.isfinite(q))
            if not bool(live.any()):
                return _where(wanted > k, _math.nan, out)
            if k >= _MAX_DEGREE:
                raise ValueError(f"special.{op}(): degree {int(wanted.max())} is too high for this recurrence "
                                 f"(at most {_MAX_DEGREE} where the values stay finite)")
        r = step(k, q, p)
        out = _where(n == k + 1, r, out)
        p, q = q, r
    return out


def _even(n):
    return _m.remainder(n, 2) == 0


def _chebyshev(op, kind, x, n, out):
    _no_out(op, out)
    with _no_grad():
        x, n, dtype, device = _poly_args(op, x, n)
        one = x * 0 + 1.0
        p1 = {"t": x, "u": x + x, "v": x + x - 1, "w": x + x + 1}[kind]
        ax = _m.abs(x)
        inside = ax < 1
        by_trig = (n > (6 if kind == "t" else 8)) & inside  # (torch's choice of formula)
        val = _recurrence(op, x, n, one, p1, lambda k, q, p: (x + x) * q - p, needed=~by_trig & (ax != 1))
        acos = _m.acos(_where(inside, x, 0.0))
        if kind == "t":
            val = _where(by_trig, _m.cos(n * acos), val)
            edge = _where((x > 0) | _even(n), 1.0, -1.0)
        elif kind == "u":
            s = _m.sin(acos)
            trig = _where(s != 0, _m.sin((n + 1) * acos) / _where(s != 0, s, 1.0),
                          (n + 1) * _m.cos((n + 1) * acos) / _where(x != 0, x, 1.0))
            val = _where(by_trig, trig, val)
            edge = _where((x > 0) | _even(n), n + 1, -(n + 1))
        elif kind == "v":
            half = _m.cos(acos / 2)
            trig = _where(_m.sin(acos / 2) != 1, _m.cos((n + 0.5) * acos) / _where(half != 0, half, 1.0),
                          _where(_even(n), n + n + 1, -(n + n + 1)))
            val = _where(by_trig, trig, val)
            edge = _where(x > 0, 1.0, _where(_even(n), n + n + 1, -(n + n + 1)))
        else:
            half = _m.sin(acos / 2)
            trig = _where(_m.cos(acos / 2) != 1, _m.sin((n + 0.5) * acos) / _where(half != 0, half, 1.0),
                          _where(x > 0, n + n + 1, _where(_even(n), 1.0, -1.0)))
            val = _where(by_trig, trig, val)
            edge = _where(x > 0, n + n + 1, _where(_even(n), 1.0, -1.0))
        val = _where(ax == 1, edge, val)
        return _where(n < 0, 0.0, val).to(device=device, dtype=dtype)


def _shifted(op, kind, x, n, out):
    _no_out(op, out)
    with _no_grad():
        xt, nt, dtype, device = _poly_args(op, x, n)
        return _chebyshev(op, kind, xt + xt - 1, nt, None).to(device=device, dtype=dtype)


def chebyshev_polynomial_t(input, n, *, out=None):
    """The Chebyshev polynomial of the first kind ``T_n(input)``, element-wise (``n`` truncated to an
    integer; 0 for ``n < 0``; no gradient, as torch).

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.chebyshev_polynomial_t(flow.tensor([0.5, 2.0]), 3)
        tensor([-1., 26.])
    """
    return _chebyshev("chebyshev_polynomial_t", "t", input, n, out)


def chebyshev_polynomial_u(input, n, *, out=None):
    """The Chebyshev polynomial of the second kind ``U_n(input)``, element-wise (``n`` truncated to an
    integer; 0 for ``n < 0``; no gradient, as torch).

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.chebyshev_polynomial_u(flow.tensor([0.5, 2.0]), 3)
        tensor([-1., 56.])
    """
    return _chebyshev("chebyshev_polynomial_u", "u", input, n, out)


def chebyshev_polynomial_v(input, n, *, out=None):
    """The Chebyshev polynomial of the third kind ``V_n(input)``, element-wise (``n`` truncated to an
    integer; 0 for ``n < 0``; no gradient, as torch).

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.chebyshev_polynomial_v(flow.tensor([0.5, 2.0]), 3)
        tensor([-1., 41.])
    """
    return _chebyshev("chebyshev_polynomial_v", "v", input, n, out)


def chebyshev_polynomial_w(input, n, *, out=None):
    """The Chebyshev polynomial of the fourth kind ``W_n(input)``, element-wise (``n`` truncated to an
    integer; 0 for ``n < 0``; no gradient, as torch).

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.chebyshev_polynomial_w(flow.tensor([0.5, 2.0]), 3)
        tensor([-1., 71.])
    """
    return _chebyshev("chebyshev_polynomial_w", "w", input, n, out)


def shifted_chebyshev_polynomial_t(input, n, *, out=None):
    """The shifted Chebyshev polynomial of the first kind ``T*_n(x) = T_n(2x - 1)``, element-wise.

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.shifted_chebyshev_polynomial_t(flow.tensor([0.25, 1.0]), 2)
        tensor([-0.5000,  1.0000])
    """
    return _shifted("shifted_chebyshev_polynomial_t", "t", input, n, out)


def shifted_chebyshev_polynomial_u(input, n, *, out=None):
    """The shifted Chebyshev polynomial of the second kind ``U*_n(x) = U_n(2x - 1)``, element-wise.

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.shifted_chebyshev_polynomial_u(flow.tensor([0.25, 1.0]), 2)
        tensor([0., 3.])
    """
    return _shifted("shifted_chebyshev_polynomial_u", "u", input, n, out)


def shifted_chebyshev_polynomial_v(input, n, *, out=None):
    """The shifted Chebyshev polynomial of the third kind ``V*_n(x) = V_n(2x - 1)``, element-wise.

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.shifted_chebyshev_polynomial_v(flow.tensor([0.25, 1.0]), 2)
        tensor([1., 1.])
    """
    return _shifted("shifted_chebyshev_polynomial_v", "v", input, n, out)


def shifted_chebyshev_polynomial_w(input, n, *, out=None):
    """The shifted Chebyshev polynomial of the fourth kind ``W*_n(x) = W_n(2x - 1)``, element-wise.

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.shifted_chebyshev_polynomial_w(flow.tensor([0.25, 1.0]), 2)
        tensor([-1.,  5.])
    """
    return _shifted("shifted_chebyshev_polynomial_w", "w", input, n, out)


def hermite_polynomial_h(input, n, *, out=None):
    """The physicists' Hermite polynomial ``H_n(input)``, element-wise (``n`` truncated to an integer; 0 for
    ``n < 0``; no gradient, as torch).

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.hermite_polynomial_h(flow.tensor([0.5, 2.0]), 3)
        tensor([-5., 40.])
    """
    _no_out("hermite_polynomial_h", out)
    with _no_grad():
        x, n, dtype, device = _poly_args("hermite_polynomial_h", input, n)
        val = _recurrence("hermite_polynomial_h", x, n, x * 0 + 1.0, x + x,
                          lambda k, q, p: (x + x) * q - (2 * k) * p)
        return _where(n < 0, 0.0, val).to(device=device, dtype=dtype)


def hermite_polynomial_he(input, n, *, out=None):
    """The probabilists' Hermite polynomial ``He_n(input)``, element-wise (``n`` truncated to an integer; 0
    for ``n < 0``; no gradient, as torch).

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.hermite_polynomial_he(flow.tensor([0.5, 2.0]), 3)
        tensor([-1.3750,  2.0000])
    """
    _no_out("hermite_polynomial_he", out)
    with _no_grad():
        x, n, dtype, device = _poly_args("hermite_polynomial_he", input, n)
        val = _recurrence("hermite_polynomial_he", x, n, x * 0 + 1.0, x, lambda k, q, p: x * q - k * p)
        return _where(n < 0, 0.0, val).to(device=device, dtype=dtype)


def laguerre_polynomial_l(input, n, *, out=None):
    """The Laguerre polynomial ``L_n(input)``, element-wise (``n`` truncated to an integer; 0 for ``n < 0``;
    no gradient, as torch).

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.laguerre_polynomial_l(flow.tensor([0.5, 2.0]), 2)
        tensor([ 0.1250, -1.0000])
    """
    _no_out("laguerre_polynomial_l", out)
    with _no_grad():
        x, n, dtype, device = _poly_args("laguerre_polynomial_l", input, n)
        val = _recurrence("laguerre_polynomial_l", x, n, x * 0 + 1.0, 1 - x,
                          lambda k, q, p: ((k + k + (1 - x)) * q - k * p) / (k + 1))
        val = _where((x == 0) & (n >= 0), 1.0, val)
        return _where(n < 0, 0.0, val).to(device=device, dtype=dtype)


def legendre_polynomial_p(input, n, *, out=None):
    """The Legendre polynomial ``P_n(input)``, element-wise (``n`` truncated to an integer; 0 for ``n < 0``;
    no gradient, as torch).

    Args:
        input (Tensor or Number): the points.
        n (Tensor or Number): the degrees.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.legendre_polynomial_p(flow.tensor([0.5, 2.0]), 2)
        tensor([-0.1250,  5.5000])
    """
    _no_out("legendre_polynomial_p", out)
    with _no_grad():
        x, n, dtype, device = _poly_args("legendre_polynomial_p", input, n)
        val = _recurrence("legendre_polynomial_p", x, n, x * 0 + 1.0, x,
                          lambda k, q, p: ((k + k + 1) * x * q - k * p) / (k + 1))
        return _where(n < 0, 0.0, val).to(device=device, dtype=dtype)


# ---------------------------------------------------------------- regularized incomplete gamma functions

_IGAM_ITERS = 600


def _igam_pq(a, x):
    """(P, Q) in float64 for float64 a, x of one shape."""
    from monoflow.ops_special import lgamma
    bad = (a < 0) | (x < 0) | _m.isnan(a) | _m.isnan(x)
    use_series = x < a + 1
    # series for P where x < a + 1
    a_s = _where(use_series & ~bad & (a > 0), a, 1.0)
    x_s = _where(use_series & ~bad & (a > 0), x, 0.5)
    term = 1.0 / a_s
    total = term
    ap = a_s
    for _ in range(_IGAM_ITERS):
        ap = ap + 1
        term = term * x_s / ap
        total = total + term
    p_series = total * _m.exp(a_s * _m.log(x_s) - x_s - lgamma(a_s))
    # Legendre's continued fraction for Q where x >= a + 1 (modified Lentz)
    cf = ~use_series & ~bad & _m.isfinite(x) & (a > 0)
    a_c = _where(cf, a, 1.0)
    x_c = _where(cf, x, 3.0)
    tiny = 1e-300
    b = x_c + 1 - a_c
    c = x_c * 0 + 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, _IGAM_ITERS):
        an = -i * (i - a_c)
        b = b + 2
        d = an * d + b
        d = _where(_m.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = _where(_m.abs(c) < tiny, tiny, c)
        d = 1 / d
        h = h * (d * c)
    q_cf = _m.exp(-x_c + a_c * _m.log(x_c) - lgamma(a_c)) * h
    P = _where(use_series, p_series, 1 - q_cf)
    Q = _where(use_series, 1 - p_series, q_cf)
    # edge cases as torch (cephes igam/igamc)
    P = _where(x == 0, 0.0, P)
    Q = _where(x == 0, 1.0, Q)
    P = _where((a == 0) & (x > 0), 1.0, P)
    Q = _where((a == 0) & (x > 0), 0.0, Q)
    P = _where(x == _math.inf, 1.0, P)
    Q = _where(x == _math.inf, 0.0, Q)
    P = _where((a == _math.inf) & _m.isfinite(x), 0.0, P)
    Q = _where((a == _math.inf) & _m.isfinite(x), 1.0, Q)
    nan = bad | ((a == 0) & (x == 0)) | ((a == _math.inf) & (x == _math.inf))
    P = _where(nan, _math.nan, P)
    Q = _where(nan, _math.nan, Q)
    return P, Q


def _igam_args(op, input, other):
    for name, v in (("input", input), ("other", other)):
        if not isinstance(v, _C.TensorBase):
            raise TypeError(f"special.{op}(): argument '{name}' must be Tensor, not {type(v).__name__}")
    dtype = _C.promote_types(input.dtype, other.dtype)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"igamma_cpu" not implemented for \'{_dtype_title(dtype)}\'')
    shape = _C.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    return input.to(dtype).expand(shape), other.to(dtype).expand(shape), dtype


def _dtype_title(dtype):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(dtype.name, dtype.name)


class _IGamma(_Function):
    @staticmethod
    def forward(ctx, a, x, upper):
        P, Q = _igam_pq(a.double(), x.double())
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        return (Q if upper else P).to(a.dtype)

    @staticmethod
    def backward(ctx, g):
        from monoflow.ops_special import lgamma
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented." if not ctx.upper
                                      else "the derivative for 'igammac: input' is not implemented.")
        d = _m.exp(-x + (a - 1) * _m.log(x) - lgamma(a))
        return None, g * (-d if ctx.upper else d), None


def gammainc(input, other, *, out=None):
    """The regularized lower incomplete gamma function ``P(a, x) = gamma(a, x) / Gamma(a)``, with
    ``a = input`` and ``x = other`` (both nonnegative; NaN otherwise), element-wise.

    The shapes broadcast. Differentiable in ``other``; a gradient for ``input`` raises
    ``NotImplementedError``, as in torch. Integer tensors are refused, as torch refuses them.

    Args:
        input (Tensor): the shape parameter ``a``.
        other (Tensor): the upper limit ``x``.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.gammainc(flow.tensor([1.0, 2.0]), flow.tensor([1.0, 3.0]))
        tensor([0.6321, 0.8009])
    """
    _no_out("gammainc", out)
    a, x, _ = _igam_args("gammainc", input, other)
    return _IGamma.apply(a, x, False)


def gammaincc(input, other, *, out=None):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``, with ``a = input`` and
    ``x = other``, element-wise (computed directly, so small tails keep their precision).

    The shapes broadcast. Differentiable in ``other``; a gradient for ``input`` raises
    ``NotImplementedError``, as in torch.

    Args:
        input (Tensor): the shape parameter ``a``.
        other (Tensor): the lower limit ``x``.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.special.gammaincc(flow.tensor([1.0, 2.0]), flow.tensor([1.0, 30.0]))
        tensor([3.6788e-01, 2.9009e-12])
    """
    _no_out("gammaincc", out)
    a, x, _ = _igam_args("gammaincc", input, other)
    return _IGamma.apply(a, x, True)
