"""Gradients of the math ops (core/src/ops_math*.cc) and of the activation
compositions (monoflow/_activations.py), on every registered device: central
finite differences in float64 and torch's gradients for the same upstream
gradient (check_gradients), second order for a few, in-place forms against
the out-of-place ones, torch's conventions at kinks and singular points, and
float32 against torch."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from autograd_helpers import TORCH, check_gradients, leaf
from helpers import device_settings
from monoflow import _activations as A

few = settings(device_settings, max_examples=3)

# Small shapes (the finite differences cost two forwards per element).
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3).filter(lambda s: math.prod(s) <= 12)


def _tfn(name):
    if TORCH is None:
        return None
    F = TORCH.nn.functional
    return getattr(TORCH, name, None) or getattr(F, name)


# ---------------------------------------------------------------- values

def _kinky(rng, shape):
    """Values at least 0.1 away from every multiple of 0.5 (where floor,
    round, relu, hardtanh, hardswish, ... have their kinks)."""
    k = rng.integers(-8, 14, size=shape)
    return 0.5 * k + 0.1 + 0.3 * rng.random(shape)


DOMAINS = {
    "log": (0.2, 3), "log2": (0.2, 3), "log10": (0.2, 3), "sqrt": (0.2, 3), "rsqrt": (0.2, 3),
    "log1p": (-0.8, 3), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9), "acosh": (1.1, 3),
    "tan": (-1.3, 1.3),
}
KINKY = ("abs", "sign", "floor", "ceil", "round", "trunc", "relu", "reciprocal")
UNARY = ("exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "reciprocal",
         "abs", "sign", "floor", "ceil", "round", "trunc", "square", "relu", "silu")


def unary_values(name, rng, shape):
    if name in KINKY:
        return _kinky(rng, shape)
    lo, hi = DOMAINS.get(name, (-3, 3))
    return rng.uniform(lo, hi, size=shape)


@st.composite
def case(draw):
    """(shape, rng, transposed): the op then sees a permuted (non-contiguous) view."""
    shape = draw(SHAPES)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return shape, rng, len(shape) >= 2 and draw(st.booleans())


def _rev(x):
    # A non-contiguous view of x: its dims reversed (works on both frameworks).
    return x.permute(*reversed(range(x.dim())))


def viewed(fn, transposed):
    return (lambda *xs: fn(*[_rev(x) for x in xs])) if transposed else fn


def stored(a, transposed):
    # The array to make a leaf from, so that viewed() gives back a's values.
    return np.ascontiguousarray(a.transpose()) if transposed else a


# ---------------------------------------------------------------- unary

@pytest.mark.parametrize("name", UNARY)
@few
@given(c=case())
def test_unary(device, name, c):
    shape, rng, tr = c
    x = unary_values(name, rng, shape)
    fn = getattr(flow, name)
    tfn = _tfn(name)
    check_gradients(viewed(fn, tr), [stored(x, tr)], device,
                    torch_fn=viewed(tfn, tr) if tfn else None)


ACTIVATIONS = {
    "gelu": (lambda x: flow.gelu(x), lambda x: TORCH.nn.functional.gelu(x)),
    "gelu_tanh": (lambda x: flow.gelu(x, approximate="tanh"),
                  lambda x: TORCH.nn.functional.gelu(x, approximate="tanh")),
    "softplus": (lambda x: flow.softplus(x), lambda x: TORCH.nn.functional.softplus(x)),
    "softplus_beta": (lambda x: flow.softplus(x, beta=2.5, threshold=3.0),
                      lambda x: TORCH.nn.functional.softplus(x, beta=2.5, threshold=3.0)),
    "round_decimals": (lambda x: flow.round(x / 10, decimals=1), lambda x: TORCH.round(x / 10, decimals=1)),
    "leaky_relu": (lambda x: A.leaky_relu(x, 0.2), lambda x: TORCH.nn.functional.leaky_relu(x, 0.2)),
    "elu": (lambda x: A.elu(x, 1.3), lambda x: TORCH.nn.functional.elu(x, 1.3)),
    "selu": (A.selu, lambda x: TORCH.nn.functional.selu(x)),
    "celu": (lambda x: A.celu(x, 0.7), lambda x: TORCH.nn.functional.celu(x, 0.7)),
    "hardtanh": (lambda x: A.hardtanh(x, -2.0, 1.5), lambda x: TORCH.nn.functional.hardtanh(x, -2.0, 1.5)),
    "relu6": (A.relu6, lambda x: TORCH.nn.functional.relu6(x)),
    "hardsigmoid": (A.hardsigmoid, lambda x: TORCH.nn.functional.hardsigmoid(x)),
    "hardswish": (A.hardswish, lambda x: TORCH.nn.functional.hardswish(x)),
    "mish": (A.mish, lambda x: TORCH.nn.functional.mish(x)),
    "logsigmoid": (A.logsigmoid, lambda x: TORCH.nn.functional.logsigmoid(x)),
    "softsign": (A.softsign, lambda x: TORCH.nn.functional.softsign(x)),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
@few
@given(c=case())
def test_activations(device, name, c):
    shape, rng, tr = c
    x = _kinky(rng, shape)
    fn, tfn = ACTIVATIONS[name]
    check_gradients(viewed(fn, tr), [stored(x, tr)], device, torch_fn=viewed(tfn, tr) if TORCH else None)


def test_activation_values_and_errors(device):
    # Large inputs stay finite (logsigmoid, softplus, elu's discarded branch).
    x = leaf([-800.0, -30.0, -1.0, 0.0, 2.0, 30.0, 800.0], device)
    for fn in (A.logsigmoid, A.elu, A.selu, A.celu, A.mish, A.softsign, flow.silu, flow.gelu):
        y = fn(x)
        (g,) = flow.autograd.grad(y.sum(), x)
        assert np.isfinite(g.numpy()).all(), fn.__name__
    np.testing.assert_allclose(A.logsigmoid(x).detach().numpy()[:3], [-800.0, -30.0, -1.313261687518223])
    with pytest.raises(TypeError, match="leaky_relu"):
        A.leaky_relu(flow.tensor([1, 2], device=device))
    with pytest.raises(ValueError, match="hardtanh"):
        A.hardtanh(x, 1.0, -1.0)
    assert flow.selu is A.selu and flow.celu is A.celu


# ---------------------------------------------------------------- binary

@st.composite
def binary_case(draw):
    """Broadcasting shapes for a and b (either may be the bigger one)."""
    shape = draw(SHAPES)
    drop = draw(st.integers(0, len(shape)))
    small = tuple(1 if draw(st.booleans()) else n for n in shape[drop:])
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return (shape, small) if draw(st.booleans()) else (small, shape), rng


def _signed(rng, shape, lo, hi):
    return rng.uniform(lo, hi, size=shape) * rng.choice([-1.0, 1.0], size=shape)


@few
@given(c=binary_case())
def test_pow_tensors(device, c):
    (sa, sb), rng = c
    a, b = rng.uniform(0.2, 3, sa), rng.uniform(-2, 2, sb)
    check_gradients(lambda x, y: x ** y, [a, b], device, torch_fn=lambda x, y: x ** y)
    check_gradients(lambda x, y: flow.pow(x, y), [a, b], device, torch_fn=lambda x, y: TORCH.pow(x, y))


@pytest.mark.parametrize("e", [2, 3, -1, 0.5, -2.5, 1.5, 1, 0])
@few
@given(c=case())
def test_pow_scalar_exponent(device, e, c):
    shape, rng, tr = c
    x = rng.uniform(0.2, 3, shape) if isinstance(e, float) else _signed(rng, shape, 0.2, 3)
    check_gradients(viewed(lambda t: t ** e, tr), [stored(x, tr)], device,
                    torch_fn=viewed(lambda t: t ** e, tr))


@pytest.mark.parametrize("s", [2.0, 0.5, 3, math.e])
@few
@given(c=case())
def test_pow_scalar_base(device, s, c):
    shape, rng, tr = c
    y = rng.uniform(-2, 2, shape)
    check_gradients(viewed(lambda t: s ** t, tr), [stored(y, tr)], device, torch_fn=viewed(lambda t: s ** t, tr))


@few
@given(c=binary_case())
def test_atan2(device, c):
    (sa, sb), rng = c
    a, b = _signed(rng, sa, 0.2, 3), _signed(rng, sb, 0.2, 3)
    check_gradients(flow.atan2, [a, b], device, torch_fn=_tfn("atan2"))
    check_gradients(lambda x: flow.atan2(x, 1.5), [a], device, torch_fn=lambda x: TORCH.atan2(x, TORCH.tensor(1.5,
                                                                                                  dtype=x.dtype)))


@pytest.mark.parametrize("name", ["remainder", "fmod"])
@few
@given(c=binary_case())
def test_remainder_fmod(device, name, c):
    (sa, sb), rng = c
    full = np.broadcast_shapes(sa, sb)
    b = _signed(rng, sb, 0.5, 2)
    # a/b at least 0.1 away from an integer: no jump within the differences
    q = rng.integers(-4, 4, size=full) + 0.1 + 0.8 * rng.random(full)
    a = q * b
    fn, tfn = getattr(flow, name), _tfn(name)
    if a.shape != sa:  # a is the broadcast one: gradcheck b only through a fixed a
        check_gradients(lambda y: fn(flow.tensor(a, device=device), y), [b], device,
                        torch_fn=lambda y: tfn(TORCH.tensor(a), y))
    else:
        check_gradients(fn, [a, b], device, torch_fn=tfn)
    check_gradients(lambda x: fn(x, 0.7), [q * 0.7], device, torch_fn=lambda x: tfn(x, 0.7))
    if name == "remainder":  # a number on the left (torch has no derivative for it)
        bq = 5.0 / (rng.integers(1, 4, size=sb) + 0.1 + 0.8 * rng.random(sb))
        check_gradients(lambda y: 5.0 % y, [bq], device)


def _grid(rng, shape):
    return 0.5 * rng.integers(-6, 6, size=shape)


@few
@given(c=binary_case())
def test_clamp_tensors(device, c):
    (sa, sb), rng = c
    full = np.broadcast_shapes(sa, sb)
    x = _grid(rng, full) + 0.1 + 0.3 * rng.random(full)  # never at a bound (multiples of 0.5)
    # hi < lo somewhere too (max wins there), but never hi == lo: the
    # derivative is discontinuous there and finite differences split it
    lo, hi = _grid(rng, sb), _grid(rng, sa) + 0.25
    check_gradients(lambda t, l, h: flow.clamp(t, l, h), [x, lo, hi], device,
                    torch_fn=lambda t, l, h: TORCH.clamp(t, l, h))
    check_gradients(lambda t, l: flow.clamp(t, min=l), [x, lo], device, torch_fn=lambda t, l: TORCH.clamp(t, min=l))
    check_gradients(lambda t, h: t.clamp_max(h), [x, hi], device, torch_fn=lambda t, h: t.clamp_max(h))
    check_gradients(lambda t, h: flow.clamp_min(t, h), [x, hi], device, torch_fn=lambda t, h: TORCH.clamp_min(t, h))


@few
@given(c=case())
def test_clamp_scalars(device, c):
    shape, rng, tr = c
    x = _kinky(rng, shape)
    for lo, hi in ((-1.0, 2.5), (None, 0.5), (1.5, None), (2.0, -1.0)):
        check_gradients(viewed(lambda t: flow.clamp(t, lo, hi), tr), [stored(x, tr)], device,
                        torch_fn=viewed(lambda t: TORCH.clamp(t, lo, hi), tr))


def test_clamp_boundaries_match_torch(device):
    # torch: x's gradient passes where min <= x <= max (both ends included);
    # a bound's where it binds, max winning over min when min > max.
    torch = pytest.importorskip("torch")
    x = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 0.5])
    lo = np.array([-1.0, 0.5, 1.0, 2.5, 0.0, 1.0])
    hi = np.array([0.0, 0.0, 1.0, 2.0, 1.0, 0.0])
    compare_with_torch(lambda t, l, h: flow.clamp(t, l, h), lambda t, l, h: torch.clamp(t, l, h), [x, lo, hi],
                       device)
    compare_with_torch(lambda t: flow.clamp(t, 0.0, 2.0), lambda t: torch.clamp(t, 0.0, 2.0), [x], device)
    compare_with_torch(lambda t, l: flow.clamp(t, min=l), lambda t, l: torch.clamp(t, min=l), [x, lo], device)


@few
@given(c=binary_case(), scalar=st.sampled_from([None, "x", "y"]))
def test_where(device, c, scalar):
    (sa, sb), rng = c
    cond = rng.random(np.broadcast_shapes(sa, sb)[-1:] or ()) < 0.5
    x, y = rng.standard_normal(sa), rng.standard_normal(sb)
    cf = flow.tensor(cond, device=device)
    if scalar == "x":
        check_gradients(lambda b: flow.where(cf, 2.5, b), [y], device,
                        torch_fn=lambda b: TORCH.where(TORCH.tensor(cond), 2.5, b))
    elif scalar == "y":
        check_gradients(lambda a: flow.where(cf, a, -1), [x], device,
                        torch_fn=lambda a: TORCH.where(TORCH.tensor(cond), a, -1))
    else:
        check_gradients(lambda a, b: flow.where(cf, a, b), [x, y], device,
                        torch_fn=lambda a, b: TORCH.where(TORCH.tensor(cond), a, b))
        check_gradients(lambda a, b: a.where(cf, b), [x, y], device,
                        torch_fn=lambda a, b: a.where(TORCH.tensor(cond), b))


@few
@given(c=binary_case(), w=st.sampled_from([0.3, -0.5, 2.0, "tensor", "0-dim"]))
def test_lerp(device, c, w):
    (sa, sb), rng = c
    s, e = rng.standard_normal(sa), rng.standard_normal(sb)
    if isinstance(w, float):
        check_gradients(lambda a, b: flow.lerp(a, b, w), [s, e], device, torch_fn=lambda a, b: TORCH.lerp(a, b, w))
        return
    wv = rng.standard_normal(sa if w == "tensor" else ())
    check_gradients(flow.lerp, [s, e, wv], device, torch_fn=_tfn("lerp"))


# ---------------------------------------------------------------- torch's conventions at singular points

def compare_with_torch(fn, tfn, arrays, device, dtype=flow.float64, rtol=1e-7, atol=1e-12):
    """Gradients of fn against torch's, NaN and inf included (no finite differences)."""
    torch = pytest.importorskip("torch")
    tdt = {flow.float64: torch.float64, flow.float32: torch.float32}[dtype]
    xs = [leaf(a, device, dtype=dtype) for a in arrays]
    out = fn(*xs)
    up = np.random.default_rng(1).standard_normal(tuple(out.shape))
    got = flow.autograd.grad(out, xs, flow.tensor(up, dtype=dtype, device=device), allow_unused=True)
    ts = [torch.tensor(np.asarray(a), dtype=tdt, requires_grad=True) for a in arrays]
    tout = tfn(*ts)
    want = torch.autograd.grad(tout, ts, torch.tensor(up, dtype=tdt), allow_unused=True)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=rtol, atol=atol)
    for g, w in zip(got, want):
        w = np.zeros(g.shape) if w is None else w.numpy()
        assert g is not None
        np.testing.assert_allclose(g.numpy(), w, rtol=rtol, atol=atol, equal_nan=True)


def test_singular_points_match_torch(device):
    torch = pytest.importorskip("torch")
    z = np.array([0.0, -0.0, 1.0, -1.0, 2.0])
    for name in ("log", "log2", "sqrt", "rsqrt", "reciprocal", "abs", "relu", "sign", "asin", "acos", "atanh",
                 "acosh", "log1p", "floor", "round"):
        compare_with_torch(getattr(flow, name), getattr(torch, name), [z], device)
    for fn, tfn in ((A.leaky_relu, torch.nn.functional.leaky_relu), (A.elu, torch.nn.functional.elu),
                    (A.relu6, torch.nn.functional.relu6), (A.hardtanh, torch.nn.functional.hardtanh),
                    (A.hardsigmoid, torch.nn.functional.hardsigmoid), (A.hardswish, torch.nn.functional.hardswish),
                    (A.celu, torch.nn.functional.celu), (A.selu, torch.nn.functional.selu),
                    (A.logsigmoid, torch.nn.functional.logsigmoid), (A.softsign, torch.nn.functional.softsign)):
        compare_with_torch(fn, tfn, [np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0, -0.0])], device)


def test_pow_conventions_match_torch(device):
    torch = pytest.importorskip("torch")
    base = np.array([0.0, 0.0, 0.0, -2.0, -2.0, -0.5, 2.0, 0.0])
    expo = np.array([0.0, 2.0, -1.0, 2.0, 0.5, 3.0, 0.0, 0.5])
    compare_with_torch(lambda a, b: a ** b, lambda a, b: a ** b, [base, expo], device)
    for e in (0, 0.0, 2, -1, 0.5, 1, -2.0):
        compare_with_torch(lambda a: a ** e, lambda a: a ** e, [base], device)
    for s in (0.0, 0, -2.0, 2, 1.0):
        compare_with_torch(lambda b: s ** b, lambda b: s ** b, [expo], device)


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "sqrt", "atan2", "pow", "gelu", "softplus", "clamp",
                                  "lerp", "silu", "erf"])
def test_float32_matches_torch(device, name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x, y = rng.uniform(0.2, 2.5, (3, 4)), rng.uniform(-1.5, 1.5, (4,))
    cases = {
        "atan2": (flow.atan2, torch.atan2, [x, y]),
        "pow": (lambda a, b: a ** b, lambda a, b: a ** b, [x, y]),
        "gelu": (lambda a: flow.gelu(a, approximate="tanh"), lambda a: torch.nn.functional.gelu(a, approximate="tanh"),
                 [y]),
        "softplus": (lambda a: flow.softplus(a, 2.0), lambda a: torch.nn.functional.softplus(a, 2.0), [y]),
        "clamp": (lambda a: flow.clamp(a, -1.0, 1.0), lambda a: torch.clamp(a, -1.0, 1.0), [y]),
        "lerp": (flow.lerp, torch.lerp, [x, y, y]),
        "silu": (flow.silu, torch.nn.functional.silu, [y]),
    }
    fn, tfn, arrays = cases[name] if name in cases else (getattr(flow, name), getattr(torch, name), [x])
    compare_with_torch(fn, tfn, arrays, device, dtype=flow.float32, rtol=2e-6, atol=1e-6)


# ---------------------------------------------------------------- second order

def _first_grad(fn, n_inputs, up, framework):
    # x -> d<up, fn(x)>/dx with create_graph: its gradient is the second order.
    def g(*xs):
        with framework.enable_grad():  # gradcheck's finite differences run under no_grad
            out = fn(*xs)
            u = (flow.tensor(up, dtype=out.dtype, device=out.device) if framework is flow
                 else TORCH.tensor(up, dtype=out.dtype))
            return framework.autograd.grad(out, xs, u, create_graph=True)

    return g


SECOND_ORDER = {
    "exp": (flow.exp, "exp", 1),
    "tanh": (flow.tanh, "tanh", 1),
    "sigmoid": (flow.sigmoid, "sigmoid", 1),
    "pow": (lambda a, b: a ** b, lambda a, b: a ** b, 2),
    "pow_scalar": (lambda a: a ** 3, lambda a: a ** 3, 1),
    "mul_chain": (lambda a, b: a * b * a, lambda a, b: a * b * a, 2),
    "gelu": (flow.gelu, "gelu", 1),
    "gelu_tanh": (lambda a: flow.gelu(a, approximate="tanh"), "gelu_tanh", 1),
    "softplus": (lambda a: flow.softplus(a, 1.5), "softplus", 1),
    "sqrt": (flow.sqrt, "sqrt", 1),
    "atan2": (flow.atan2, "atan2", 2),
    "reciprocal": (flow.reciprocal, "reciprocal", 1),
}


@pytest.mark.parametrize("name", SECOND_ORDER)
@settings(device_settings, max_examples=3)
@given(c=case())
def test_second_order(device, name, c):
    shape, rng, _ = c
    fn, tname, n = SECOND_ORDER[name]
    if TORCH is not None:
        F = TORCH.nn.functional
        tfn = {"gelu": F.gelu, "gelu_tanh": lambda a: F.gelu(a, approximate="tanh"),
               "softplus": lambda a: F.softplus(a, 1.5)}.get(tname) or \
            (getattr(TORCH, tname) if isinstance(tname, str) else tname)
    arrays = [rng.uniform(0.3, 2, shape) for _ in range(n)]
    up = rng.standard_normal(shape)
    check_gradients(_first_grad(fn, n, up, flow), arrays, device,
                    torch_fn=_first_grad(tfn, n, up, TORCH) if TORCH is not None else None)


# ---------------------------------------------------------------- in-place forms

INPLACE_UNARY = ("exp", "log", "sqrt", "sin", "tanh", "sigmoid", "reciprocal", "abs", "floor", "square", "relu",
                 "atan", "rsqrt", "expm1")


def _same_grads(device, make, inplace, outofplace, arrays):
    """inplace(y, *others) (y: a non-leaf made from the first leaf) against the
    out-of-place result, for the same upstream gradient."""
    rng = np.random.default_rng(3)
    got, want = [], []
    for fn, sink in ((inplace, got), (outofplace, want)):
        xs = [leaf(a, device) for a in arrays]
        y = make(xs[0])
        out = fn(y, *xs[1:])
        up = flow.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype, device=device)
        sink.append(out.detach().numpy())
        sink.extend(g.numpy() for g in flow.autograd.grad(out, xs, up))
        rng = np.random.default_rng(3)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", INPLACE_UNARY)
def test_inplace_unary(device, name):
    x = unary_values(name, np.random.default_rng(0), (2, 3))
    _same_grads(device, lambda t: t * 1, lambda y: getattr(y, name + "_")(), getattr(flow, name), [x])
    # on a view: the base's gradient sees the write (only row 1 goes through the op)
    def on_view(y):
        getattr(y[1], name + "_")()
        return y

    _same_grads(device, lambda t: t * 1, on_view, lambda y: flow.stack([y[0], getattr(flow, name)(y[1])]), [x])


def test_inplace_second_order(device):
    # The saved result of an in-place op is connected to the op's own node.
    second = {"exp": np.exp, "sin": lambda v: -np.sin(v), "sqrt": lambda v: -0.25 * v ** -1.5,
              "tanh": lambda v: -2 * np.tanh(v) / np.cosh(v) ** 2}
    for name, d2 in second.items():
        v = np.array([0.5, 1.0, 2.0])
        x = leaf(v, device)
        y = x * 1
        getattr(y, name + "_")()
        (g,) = flow.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = flow.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(gg.numpy(), d2(v), rtol=1e-12)
    x, e = leaf([0.5, 2.0], device), leaf([1.5, -0.5], device)
    y = x * 1
    y.pow_(e)  # saves its result for e's gradient
    (ge,) = flow.autograd.grad(y.sum(), e, create_graph=True)
    (gx,) = flow.autograd.grad(ge.sum(), x)  # d/dx (x^e log x) = x^(e-1) (e log x + 1)
    xv, ev = np.array([0.5, 2.0]), np.array([1.5, -0.5])
    np.testing.assert_allclose(gx.numpy(), xv ** (ev - 1) * (ev * np.log(xv) + 1), rtol=1e-12)


def test_inplace_binary_and_others(device):
    rng = np.random.default_rng(5)
    a, b = rng.uniform(0.5, 2, (2, 3)), rng.uniform(0.5, 2, (3,))
    mk = lambda t: t * 1  # noqa: E731
    cases = [
        (lambda y, o: y.pow_(o), lambda y, o: y ** o),
        (lambda y, o: y.__ipow__(o), lambda y, o: y ** o),
        (lambda y, o: y.atan2_(o), flow.atan2),
        (lambda y, o: y.remainder_(o), flow.remainder),
        (lambda y, o: y.fmod_(o), flow.fmod),
        (lambda y, o: y.clamp_(o, o + 0.5), lambda y, o: flow.clamp(y, o, o + 0.5)),
        (lambda y, o: y.clamp_min_(o), flow.clamp_min),
        (lambda y, o: y.clamp_max_(o), flow.clamp_max),
        (lambda y, o: y.lerp_(o, 0.3), lambda y, o: flow.lerp(y, o, 0.3)),
        (lambda y, o: y.lerp_(o, o), lambda y, o: flow.lerp(y, o, o)),
    ]
    for ip, oop in cases:
        _same_grads(device, mk, ip, oop, [a, b])
    scalar_cases = [
        (lambda y: y.pow_(2.5), lambda y: y ** 2.5),
        (lambda y: y.clamp_(0.7, 1.5), lambda y: y.clamp(0.7, 1.5)),
        (lambda y: y.remainder_(0.3), lambda y: y % 0.3),
        (lambda y: y.round_(decimals=1), lambda y: flow.round(y, decimals=1)),
        (lambda y: A.leaky_relu(y - 1, 0.1, inplace=True), lambda y: A.leaky_relu(y - 1, 0.1)),
        (lambda y: A.elu(y - 1, inplace=True), lambda y: A.elu(y - 1)),
        (lambda y: A.hardswish(y - 1, inplace=True), lambda y: A.hardswish(y - 1)),
    ]
    for ip, oop in scalar_cases:
        _same_grads(device, mk, ip, oop, [a])
    # self without history, the other operand with: its gradient reads self's old value
    x, e = flow.tensor(a, device=device), leaf(b, device)
    x.pow_(e)
    (ge,) = flow.autograd.grad(x.sum(), e)
    np.testing.assert_allclose(ge.numpy(), (a ** b * np.log(a)).sum(0), rtol=1e-12)


def test_inplace_version_errors(device):
    x = leaf([0.5, 1.0, 2.0], device)
    y = x * 1
    z = y.sin()  # saves y
    y.exp_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    y = x * 1
    z = y.exp()  # saves its result
    z.tanh_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    y = x * 1
    z = y ** x  # saves both operands
    y.clamp_(0.0, 1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    with pytest.raises(RuntimeError, match="leaf Tensor that requires grad"):
        x.exp_()
    with pytest.raises(RuntimeError, match="leaf Tensor that requires grad"):
        A.relu6(x, inplace=True)


def test_no_copy_without_grad(device):
    # In-place ops on tensors that record nothing keep their results.
    x = flow.tensor([0.25, 4.0], device=device)
    x.sqrt_().pow_(2.0).clamp_(0.5, 3.0)
    np.testing.assert_allclose(x.numpy(), [0.5, 3.0])


def test_non_differentiable_results(device):
    x = leaf([0.5, -1.0, float("nan")], device)
    for r in (flow.isnan(x), flow.isinf(x), flow.isfinite(x), flow.logical_not(x), flow.logical_and(x, x),
              x > 0):
        assert not r.requires_grad and r.grad_fn is None
    assert flow.floor(x).requires_grad  # zero gradient, as torch, not "none"
    (g,) = flow.autograd.grad(flow.floor(x).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 0.0])
    assert flow.exp(x).grad_fn.name() == "ExpBackward0"
    with flow.no_grad():
        assert not flow.exp(x).requires_grad
