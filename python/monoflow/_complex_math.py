"""Complex pointwise math: the analytic functions, pow, sgn, the
comparisons and the nan/inf tests (Note [Complex through real views] in
_complex.py covers the arithmetic).

Note [Complex functions on the host]
  The transcendental functions of a complex tensor (exp, log, sqrt, sin,
  tanh, asin, pow, ...) run numpy's C99 complex functions on host memory
  (a copy for tensors of other devices), as monoflow.fft does with its
  transforms: they are accurate on the branch cuts and at the edges of the
  range, where compositions of real ops lose digits (sqrt near the negative
  axis, log near |z| = 1). Each is one autograd op. All of them are
  holomorphic, so with torch's convention the gradient of a real loss is
  ``grad * conj(f'(z))``; f' is written with the differentiable complex ops.
  Saved tensors are detached (autograd.Function), so these gradients are
  first order only.
"""
import builtins
import math

import numpy as np

from monoflow import _C, _complex, _dtypes
from monoflow.autograd.function import Function


def _host(t):
    return t.detach().cpu().numpy()


def _back(arr, dtype, like):
    from monoflow import _creation

    out = _creation.from_numpy(np.asarray(np.asarray(arr).astype(_dtypes.to_numpy(dtype), copy=False), order="C"))
    return out if like.device.type == "cpu" else out.to(like.device)


def _sqrt(z):
    return Analytic.apply(z, "sqrt")


def _inv_sqrt(z):
    return 1 / _sqrt(z)


def _sigmoid(a):
    with np.errstate(all="ignore"):
        return 1 / (1 + np.exp(-a))


# name -> (numpy function, f'(z) from z and out = f(z))
_ANALYTIC = {
    "exp": (np.exp, lambda z, o: o),
    "exp2": (np.exp2, lambda z, o: o * math.log(2.0)),
    "expm1": (np.expm1, lambda z, o: o + 1),
    "log": (np.log, lambda z, o: 1 / z),
    "log2": (np.log2, lambda z, o: 1 / (z * math.log(2.0))),
    "log10": (np.log10, lambda z, o: 1 / (z * math.log(10.0))),
    "log1p": (np.log1p, lambda z, o: 1 / (z + 1)),
    "sqrt": (np.sqrt, lambda z, o: 0.5 / o),
    "rsqrt": (lambda a: 1 / np.sqrt(a), lambda z, o: -0.5 * o * o * o),
    "reciprocal": (lambda a: 1 / a, lambda z, o: -(o * o)),
    "sin": (np.sin, lambda z, o: Analytic.apply(z, "cos")),
    "cos": (np.cos, lambda z, o: -Analytic.apply(z, "sin")),
    "tan": (np.tan, lambda z, o: 1 + o * o),
    "sinh": (np.sinh, lambda z, o: Analytic.apply(z, "cosh")),
    "cosh": (np.cosh, lambda z, o: Analytic.apply(z, "sinh")),
    "tanh": (np.tanh, lambda z, o: 1 - o * o),
    "asin": (np.arcsin, lambda z, o: _inv_sqrt(1 - z * z)),
    "acos": (np.arccos, lambda z, o: -_inv_sqrt(1 - z * z)),
    "atan": (np.arctan, lambda z, o: 1 / (1 + z * z)),
    "asinh": (np.arcsinh, lambda z, o: _inv_sqrt(z * z + 1)),
    "acosh": (np.arccosh, lambda z, o: 1 / (_sqrt(z - 1) * _sqrt(z + 1))),  # (not sqrt(z^2 - 1): its branch)
    "atanh": (np.arctanh, lambda z, o: 1 / (1 - z * z)),
    "sigmoid": (_sigmoid, lambda z, o: o * (1 - o)),
}


class Analytic(Function):
    """f(z) for a complex z and an analytic f of _ANALYTIC (numpy on the host)."""

    @staticmethod
    def forward(ctx, z, name):
        with np.errstate(all="ignore"):
            out = _back(_ANALYTIC[name][0](_host(z)), z.dtype, z)
        ctx.name = name
        ctx.save_for_backward(z, out)
        return out

    @staticmethod
    def backward(ctx, g):
        z, out = ctx.saved_tensors
        return g * _complex.conj(_ANALYTIC[ctx.name][1](z, out)), None


def _isnan(z):
    re, im = _complex._parts(z)
    return re.isnan() | im.isnan()


def _isinf(z):
    re, im = _complex._parts(z)
    return re.isinf() | im.isinf()


def _isfinite(z):
    re, im = _complex._parts(z)
    return re.isfinite() & im.isfinite()


def sgn(z):
    """z / |z|, 0 at 0 (torch.sgn), differentiable through the composition."""
    from monoflow import ops_math

    a = _complex.abs(z)
    zero = a == 0
    q = z / ops_math.where(zero, 1.0, a).to(z.dtype)
    return where(zero, 0, q)


def _square(z):
    return z * z


def _sign(z):
    raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                              "torch.sgn instead.")


def _logical_not(z):
    return eq(z, 0)


_OTHERS = {"isnan": _isnan, "isinf": _isinf, "isfinite": _isfinite, "square": _square, "sign": _sign,
           "logical_not": _logical_not}


def unary(name, z):
    """The unary math op `name` on a complex tensor; None when it has no complex form."""
    if not isinstance(z, _C.TensorBase):  # a Python complex given as the input: torch's TypeError
        raise TypeError(_C.name_op_in_progress(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(z).__name__}"))
    if name in _ANALYTIC:
        return Analytic.apply(z, name)
    fn = _OTHERS.get(name)
    return None if fn is None else fn(z)


# ---------------------------------------------------------------- pow

def _sum_to(g, shape):
    """g (broadcast from shape) summed back to shape."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1]
    out = _complex.sum(g, dims, True) if dims else g
    return out.reshape(shape)


def _grad_for(g, v):
    """g as the gradient of operand v: summed to its shape, the real part for a real v."""
    g = _sum_to(g, v.shape)
    return g if v.dtype.is_complex else _complex.real(g).to(v.dtype)


class Pow(Function):
    """a ** b, either a tensor or a number, at least one complex; dt the result dtype."""

    @staticmethod
    def forward(ctx, a, b, dt):
        like = a if isinstance(a, _C.TensorBase) else b
        ca, cb = _complex._as_complex_tensor(a, dt, like), _complex._as_complex_tensor(b, dt, like)
        with np.errstate(all="ignore"):
            out = _back(np.power(_host(ca), _host(cb)), dt, like)
        ctx.operands = tuple(v.detach() if isinstance(v, _C.TensorBase) else None for v in (a, b))
        ctx.save_for_backward(ca, cb, out)
        return out

    @staticmethod
    def backward(ctx, g):
        ca, cb, out = ctx.saved_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:
            d = where(eq(cb, 0), 0, cb * pow(ca, cb - 1))
            ga = _grad_for(g * _complex.conj(d), ctx.operands[0])
        if ctx.needs_input_grad[1]:
            re, im = _complex._parts(cb)
            # torch: at a = 0 the gradient in a real b >= 0 is 0
            d = where(eq(ca, 0) & (im == 0) & (re >= 0), 0, out * Analytic.apply(ca, "log"))
            gb = _grad_for(g * _complex.conj(d), ctx.operands[1])
        return ga, gb, None


def pow(a, b):
    """a ** b where a or b is complex (each a tensor or a number)."""
    return Pow.apply(a, b, _complex.result_type(a, b))


# ---------------------------------------------------------------- comparisons

def _operands(a, b):
    for v in (a, b):
        if not isinstance(v, (_C.TensorBase, bool, int, float, builtins.complex, np.number)):
            return None
    dt = _complex.result_type(a, b)
    if not dt.is_complex:
        dt = dt.to_complex() if dt.is_floating_point else _dtypes.default_complex()
    like = a if isinstance(a, _C.TensorBase) else b
    return _complex._as_complex_tensor(a, dt, like).detach(), _complex._as_complex_tensor(b, dt, like).detach()


def eq(a, b):
    ops = _operands(a, b)
    if ops is None:
        return NotImplemented
    return (_complex._raw_as_real(ops[0]) == _complex._raw_as_real(ops[1])).all(-1)


def ne(a, b):
    out = eq(a, b)
    return out if out is NotImplemented else out.logical_not()


def compare(name, a, b):
    if name == "eq":
        return eq(a, b)
    if name == "ne":
        return ne(a, b)
    dt = next(v.dtype for v in (a, b) if isinstance(v, _C.TensorBase))
    if not dt.is_complex:
        dt = _dtypes.default_complex()
    raise _complex._not_implemented(name, dt)


def isclose(a, b, rtol, atol, equal_nan):
    """torch.isclose for complex operands: |a - b| <= atol + rtol |b| in the complex modulus."""
    close = eq(a, b)
    if equal_nan:
        close = close | (_isnan(a) & _isnan(b))
    if rtol == 0 and atol == 0:
        return close
    err = _complex.abs((a - b).detach())
    allowed = atol + rtol * _complex.abs(b.detach())
    return close | (err.isfinite() & (err <= allowed))


def where(cond, x, y):
    from monoflow import _complex_shape

    return _complex_shape.where(cond, x, y)
