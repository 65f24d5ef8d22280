"""Complex ops beyond the arithmetic (test_complex.py): comparisons, where,
indexing, data movement, the analytic functions, pow, sgn, reductions,
isclose, casts; values, dtypes, gradients (torch's .grad of the same
real-valued loss: the conjugate Wirtinger convention) and error types
against torch."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
from helpers import TORCH

pytestmark = pytest.mark.skipif(TORCH is None, reason="torch is not installed (reference oracle)")

CDTYPES = ("complex64", "complex128")
TOL = {"complex64": dict(rtol=3e-5, atol=3e-5), "complex128": dict(rtol=1e-10, atol=1e-10)}
shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)
small = settings(max_examples=15, deadline=None)


def crandn(shape, dt, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


def _np(t):
    t = t.detach()
    if hasattr(t, "resolve_conj"):
        t = t.resolve_conj()
    return t.numpy()


def _loss(out, lib, seed):
    """A real-valued loss of out with fixed random weights (the same for both libraries)."""
    rng = np.random.default_rng(seed + 1000)
    if hasattr(out, "resolve_conj"):
        out = out.resolve_conj()
    if out.dtype.is_complex:
        w = rng.standard_normal(tuple(out.shape) + (2,))
        return (lib.view_as_real(out) * lib.tensor(w, dtype=lib.view_as_real(out).dtype)).sum()
    return (out * lib.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype)).sum()


def check(fn, arrays, dt, grad=True, seed=0, transpose=False):
    """fn(lib, *tensors) in monoflow and torch: same dtype, values, and gradients of the same loss."""
    xs = [flow.tensor(a) for a in arrays]
    ts = [TORCH.tensor(a) for a in arrays]
    if transpose:
        xs = [x.transpose(0, 1) if x.dim() >= 2 else x for x in xs]
        ts = [t.transpose(0, 1) if t.dim() >= 2 else t for t in ts]
    diff = [a.dtype.kind in "fc" for a in arrays]
    if grad:
        xs = [x.detach().requires_grad_(d) for x, d in zip(xs, diff)]
        ts = [t.detach().requires_grad_(d) for t, d in zip(ts, diff)]
    out, ref = fn(flow, *xs), fn(TORCH, *ts)
    assert str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(_np(out), _np(ref), equal_nan=True, **TOL[dt])
    if grad and ref.requires_grad:
        _loss(out, flow, seed).backward()
        _loss(ref, TORCH, seed).backward()
        for x, t in zip(xs, ts):
            if t.grad is not None:
                np.testing.assert_allclose(_np(x.grad), _np(t.grad), **TOL[dt])
    return out


# ---------------------------------------------------------------- analytic functions and pow

ANALYTIC = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
            "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sigmoid", "square")


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("name", ANALYTIC)
@given(shape=shapes, seed=st.integers(0, 2**16), transpose=st.booleans())
@settings(max_examples=4, deadline=None)
def test_analytic(name, dt, shape, seed, transpose):
    check(lambda lib, x: getattr(lib, name)(x), [crandn(shape, dt, seed)], dt, seed=seed, transpose=transpose)


@pytest.mark.parametrize("dt", CDTYPES)
def test_analytic_edges(dt):
    # branch cuts, zero, infinities: numpy's C99 functions give torch's values
    a = np.array([0, -1, -4 + 0j, -4 - 0j, 1e-30j, 1e30 + 1e30j, complex(np.inf, 0), complex(0, np.nan),
                  -1e-8 + 1e-20j], dtype=dt)
    for name in ("sqrt", "log", "exp", "asin", "acosh", "atanh", "tanh"):
        check(lambda lib, x: getattr(lib, name)(x), [a], dt, grad=False)


@pytest.mark.parametrize("dt", CDTYPES)
def test_inplace_unary(dt):
    a = crandn((3, 2), dt, 1)
    x, t = flow.tensor(a), TORCH.tensor(a)
    assert x.sqrt_() is x
    t.sqrt_()
    np.testing.assert_allclose(x.numpy(), t.numpy(), **TOL[dt])
    x.exp_(), t.exp_()
    np.testing.assert_allclose(x.numpy(), t.numpy(), **TOL[dt])


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("exponent", [2, 3, 0.5, -1.5, 0, 1 + 2j, -0.5j])
def test_pow_scalar_exponent(dt, exponent):
    check(lambda lib, x: x ** exponent, [crandn((3, 4), dt, 2)], dt)
    check(lambda lib, x: lib.pow(x, exponent), [crandn((5,), dt, 3)], dt)


@pytest.mark.parametrize("dt", CDTYPES)
@given(s1=shapes, seed=st.integers(0, 2**16))
@small
def test_pow_tensor_exponent_broadcast(dt, s1, seed):
    a, b = crandn(s1, dt, seed), crandn(s1[-1:], dt, seed + 1)
    check(lambda lib, x, y: x ** y, [a, b], dt, seed=seed)
    check(lambda lib, x, y: lib.pow(x, y), [a, b.real.copy()], dt, seed=seed)  # a real exponent tensor


@pytest.mark.parametrize("dt", CDTYPES)
def test_pow_scalar_base_and_real_base(dt):
    check(lambda lib, x: 2 ** x, [crandn((4,), dt, 4)], dt)
    check(lambda lib, x: (1 - 1j) ** x, [crandn((4,), dt, 5)], dt)
    real = np.abs(np.random.default_rng(6).standard_normal(4)).astype("float32" if dt == "complex64" else "float64")
    check(lambda lib, x: x ** (0.5 + 1j), [real], dt)


@pytest.mark.parametrize("dt", CDTYPES)
def test_pow_at_zero(dt):
    # 0 ** b: gradient 0 in b for a real b >= 0 (torch's rule)
    a = np.array([0, 0, 1 + 1j], dtype=dt)
    b = np.array([2, 0.5, 2], dtype=dt)
    check(lambda lib, x, y: x ** y, [a, b], dt)
    # 0 ** 0 is 1 as for torch's scalar exponents (torch's tensor exponents give nan there: exp(0 * log 0))
    assert (flow.tensor([0j]) ** flow.tensor([0j])).tolist() == [1 + 0j] == (TORCH.tensor([0j]) ** 0).tolist()


def test_pow_inplace_and_promotion():
    x = flow.tensor([1 + 1j, 2 - 1j])
    x **= 2
    np.testing.assert_allclose(x.numpy(), np.array([1 + 1j, 2 - 1j], dtype="complex64") ** 2, rtol=1e-6)
    assert (flow.ones(2) ** 1j).dtype == flow.complex64
    assert (flow.ones(2, dtype=flow.float64) ** flow.tensor(1j)).dtype == flow.complex128
    with pytest.raises(RuntimeError, match="can't be cast"):
        y = flow.ones(2)
        y **= 1j


@pytest.mark.parametrize("dt", CDTYPES)
def test_sgn_and_sign(dt):
    a = np.array([3 + 4j, 0, -2j, 1e-3 + 0j], dtype=dt)
    check(lambda lib, x: lib.sgn(x), [a], dt)
    check(lambda lib, x: x.sgn(), [a], dt)
    with pytest.raises(NotImplementedError, match="sgn"):
        flow.sign(flow.tensor(a))


# ---------------------------------------------------------------- comparisons and tests

@pytest.mark.parametrize("dt", CDTYPES)
def test_eq_ne(dt):
    a = np.array([1 + 2j, 3 - 1j, 2, 0.5j], dtype=dt)
    b = np.array([1 + 2j, 3 + 1j, 2, 0.5], dtype=dt)
    x, y, t, u = flow.tensor(a), flow.tensor(b), TORCH.tensor(a), TORCH.tensor(b)
    for f in (lambda p, q: p == q, lambda p, q: p != q, lambda p, q: p == 2, lambda p, q: p != 0.5j,
              lambda p, q: p.eq(q), lambda p, q: p.ne(q), lambda p, q: q.real == p):
        r, ref = f(x, y), f(t, u)
        assert r.dtype == flow.bool
        np.testing.assert_array_equal(r.numpy(), ref.numpy())
    assert flow.equal(x, x) and not flow.equal(x, y)
    with pytest.raises(NotImplementedError, match="lt"):
        x < y


@pytest.mark.parametrize("dt", CDTYPES)
def test_nan_inf_tests(dt):
    a = np.array([complex(np.nan, 0), complex(0, np.inf), 1 + 1j, complex(-np.inf, np.nan)], dtype=dt)
    x, t = flow.tensor(a), TORCH.tensor(a)
    for name in ("isnan", "isinf", "isfinite"):
        np.testing.assert_array_equal(getattr(x, name)().numpy(), getattr(t, name)().numpy())


@pytest.mark.parametrize("dt", CDTYPES)
def test_isclose_allclose(dt):
    a = np.array([1 + 1j, 1 + 1j, complex(np.nan, 1), complex(np.inf, 0), 0], dtype=dt)
    b = np.array([1 + 1.000001j, 1 + 1.1j, complex(np.nan, 1), complex(np.inf, 0), 1e-9j], dtype=dt)
    x, y, t, u = flow.tensor(a), flow.tensor(b), TORCH.tensor(a), TORCH.tensor(b)
    for kw in (dict(), dict(equal_nan=True), dict(rtol=0, atol=0), dict(rtol=0.2)):
        np.testing.assert_array_equal(flow.isclose(x, y, **kw).numpy(), TORCH.isclose(t, u, **kw).numpy())
        assert flow.allclose(x[:2], y[:2], **kw) == TORCH.allclose(t[:2], u[:2], **kw)
    assert flow.isclose(x, 1 + 1j).tolist() == TORCH.isclose(t, TORCH.tensor(1 + 1j, dtype=t.dtype)).tolist()


@pytest.mark.parametrize("dt", CDTYPES)
def test_any_all_nonzero(dt):
    a = np.array([[0, 1j], [0, 0]], dtype=dt)
    x, t = flow.tensor(a), TORCH.tensor(a)
    assert x.any().item() == t.any().item() and x.all().item() == t.all().item()
    np.testing.assert_array_equal(x.any(1).numpy(), t.any(1).numpy())
    np.testing.assert_array_equal(x.nonzero().numpy(), t.nonzero().numpy())
    np.testing.assert_array_equal(flow.count_nonzero(x).numpy(), TORCH.count_nonzero(t).numpy())


# ---------------------------------------------------------------- where, masks, indexing

@pytest.mark.parametrize("dt", CDTYPES)
@given(shape=shapes, seed=st.integers(0, 2**16))
@small
def test_where(dt, shape, seed):
    rng = np.random.default_rng(seed)
    cond = rng.random(shape) > 0.5
    a, b = crandn(shape, dt, seed), crandn(shape[-1:], dt, seed + 1)
    xs = [flow.tensor(cond), flow.tensor(a).requires_grad_(), flow.tensor(b).requires_grad_()]
    ts = [TORCH.tensor(cond), TORCH.tensor(a).requires_grad_(), TORCH.tensor(b).requires_grad_()]
    out, ref = flow.where(*xs), TORCH.where(*ts)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    _loss(out, flow, seed).backward()
    _loss(ref, TORCH, seed).backward()
    for x, t in zip(xs[1:], ts[1:]):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), **TOL[dt])
    np.testing.assert_array_equal(flow.where(xs[0], xs[1], 0).detach().numpy(),
                                  TORCH.where(ts[0], ts[1], 0).detach().numpy())
    np.testing.assert_array_equal(flow.where(xs[0], 2j, xs[1]).detach().numpy(),
                                  TORCH.where(ts[0], 2j, ts[1]).detach().numpy())


def test_where_errors_and_promotion():
    x = flow.tensor([1j, 2])
    assert flow.where(flow.tensor([True, False]), x, flow.ones(2, dtype=flow.float64)).dtype == flow.complex128
    # a non-bool condition means nonzero (OneFlow's where; torch refuses it)
    np.testing.assert_array_equal(flow.where(flow.tensor([0, 3]), x, 5j).numpy(), np.array([5j, 2]))


@pytest.mark.parametrize("dt", CDTYPES)
def test_masked_fill_select(dt):
    a = crandn((3, 4), dt, 7)
    m = np.random.default_rng(7).random((3, 4)) > 0.5
    check(lambda lib, x: x.masked_fill(lib.tensor(m), 1 - 2j), [a], dt)
    check(lambda lib, x: lib.masked_select(x, lib.tensor(m[0])), [a], dt)
    x, t = flow.tensor(a), TORCH.tensor(a)
    x.masked_fill_(flow.tensor(m), 3j)
    t.masked_fill_(TORCH.tensor(m), 3j)
    np.testing.assert_array_equal(x.numpy(), t.numpy())


INDEXES = [
    lambda lib: (0,), lambda lib: (slice(1, None),), lambda lib: (Ellipsis, 1),
    lambda lib: (lib.tensor([2, 0, 2]),), lambda lib: (slice(None), lib.tensor([1, 0])),
    lambda lib: (lib.tensor([[0, 1], [2, 2]]), lib.tensor([1, 0])),
    lambda lib: (lib.tensor([True, False, True]),), lambda lib: ([0, 2], Ellipsis),
    lambda lib: (lib.tensor([1, 0]), slice(None), lib.tensor([0, 1])), lambda lib: (None, lib.tensor([0]), 1),
]


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("k", range(len(INDEXES)))
def test_getitem(dt, k):
    a = crandn((3, 2, 2), dt, k)
    check(lambda lib, x: x[INDEXES[k](lib)], [a], dt)


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("k", range(len(INDEXES)))
def test_setitem(dt, k):
    a, v = crandn((3, 2, 2), dt, k), crandn((2,), dt, k + 1)
    x, t = flow.tensor(a), TORCH.tensor(a)
    for value in (1 - 1j, 2.5, "tensor"):
        fv, tv = (flow.tensor(v), TORCH.tensor(v)) if value == "tensor" else (value, value)
        x[INDEXES[k](flow)] = fv
        t[INDEXES[k](TORCH)] = tv
        np.testing.assert_array_equal(x.numpy(), t.numpy())


@pytest.mark.parametrize("dt", CDTYPES)
def test_mask_setitem_and_index_put(dt):
    a = crandn((3, 4), dt, 8)
    m = np.random.default_rng(8).random((3, 4)) > 0.5
    x, t = flow.tensor(a), TORCH.tensor(a)
    x[flow.tensor(m)] = 2 + 1j
    t[TORCH.tensor(m)] = 2 + 1j
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    idx = ([0, 2, 0], [1, 1, 1])
    vals = crandn((3,), dt, 9)
    for acc in (False, True):
        r = flow.tensor(a).index_put((flow.tensor(idx[0]), flow.tensor(idx[1])), flow.tensor(vals), accumulate=acc)
        ref = TORCH.tensor(a).index_put((TORCH.tensor(idx[0]), TORCH.tensor(idx[1])), TORCH.tensor(vals),
                                        accumulate=acc)
        np.testing.assert_allclose(r.numpy(), ref.numpy(), **TOL[dt])


@pytest.mark.parametrize("dt", CDTYPES)
def test_gather_scatter_index_select(dt):
    a = crandn((3, 4), dt, 10)
    idx = np.array([[0, 3], [2, 2], [1, 0]])
    check(lambda lib, x: x.gather(1, lib.tensor(idx)), [a], dt)
    check(lambda lib, x: lib.index_select(x, 1, lib.tensor([3, 0, 3])), [a], dt)
    check(lambda lib, x: x.index_select(0, lib.tensor([2])), [a], dt)
    src = crandn((3, 2), dt, 11)
    check(lambda lib, x, s: lib.zeros(3, 4, dtype=x.dtype).scatter(1, lib.tensor(idx[:, :1]), s), [a, src], dt,
          grad=False)
    check(lambda lib, x, s: x.scatter_add(1, lib.tensor(idx), s), [a, src], dt)
    x, t = flow.tensor(a), TORCH.tensor(a)
    x.scatter_(0, flow.tensor([[2, 1, 0, 0]]), 5j)
    t.scatter_(0, TORCH.tensor([[2, 1, 0, 0]]), 5j)
    np.testing.assert_array_equal(x.numpy(), t.numpy())


# ---------------------------------------------------------------- shape ops

@pytest.mark.parametrize("dt", CDTYPES)
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=3).map(tuple), seed=st.integers(0, 2**16),
       k=st.integers(-2, 2), transpose=st.booleans())
@small
def test_shape_ops(dt, shape, seed, k, transpose):
    a = crandn(shape, dt, seed)
    for f in (lambda lib, x: x.flip(0), lambda lib, x: lib.flip(x, (-1, 0)), lambda lib, x: x.roll(1, -1),
              lambda lib, x: x.tril(k), lambda lib, x: lib.triu(x, k), lambda lib, x: lib.cat([x, x * 2], -1),
              lambda lib, x: lib.stack([x, x], 1), lambda lib, x: x.permute(*reversed(range(x.dim()))),
              lambda lib, x: x.flatten(), lambda lib, x: x.repeat(2, 1, *([1] * (x.dim() - 2))),
              lambda lib, x: x.cumsum(0), lambda lib, x: x.cumprod(-1), lambda lib, x: lib.cumprod(x, 0),
              lambda lib, x: lib.fliplr(x), lambda lib, x: x.tile(2),
              lambda lib, x: x[None].expand(2, *x.shape), lambda lib, x: x[..., ::2]):
        check(f, [a], dt, seed=seed, transpose=transpose)


def test_tril_inplace_and_errors():
    a = crandn((3, 3), "complex64", 12)
    x, t = flow.tensor(a), TORCH.tensor(a)
    x.triu_(1), t.triu_(1)
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        flow.tensor([1j]).tril()


# ---------------------------------------------------------------- reductions

@pytest.mark.parametrize("dt", CDTYPES)
@given(shape=shapes, seed=st.integers(0, 2**16), data=st.data())
@small
def test_sum_mean_prod(dt, shape, seed, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = data.draw(st.booleans())
    a = crandn(shape, dt, seed)
    check(lambda lib, x: x.sum(dim, keepdim), [a], dt, seed=seed)
    check(lambda lib, x: x.mean(dim, keepdim), [a], dt, seed=seed)
    check(lambda lib, x: x.prod(dim, keepdim), [a], dt, seed=seed)
    check(lambda lib, x: lib.prod(x), [a], dt, seed=seed)


@pytest.mark.parametrize("dt", CDTYPES)
def test_prod_with_zeros(dt):
    a = np.array([[1 + 1j, 0, 2j], [0, 0, 1], [1, 2, 3j]], dtype=dt)
    check(lambda lib, x: x.prod(1), [a], dt)
    check(lambda lib, x: x.prod(), [a[2]], dt)
    check(lambda lib, x: x.cumprod(1), [a], dt)


@pytest.mark.parametrize("dt", CDTYPES)
def test_var_std_norm_trace(dt):
    a = crandn((3, 4), dt, 13)
    check(lambda lib, x: x.var(1), [a], dt)
    check(lambda lib, x: x.std(), [a], dt)
    check(lambda lib, x: x.norm(), [a], dt)
    check(lambda lib, x: lib.linalg.vector_norm(x, 1, dim=0), [a], dt)
    check(lambda lib, x: lib.trace(x), [a[:, :3]], dt)
    check(lambda lib, x: lib.var_mean(x, 0)[0] + lib.std_mean(x, 1, keepdim=True)[1].abs().sum(), [a], dt)
    check(lambda lib, x: lib.std_mean(x)[1], [a], dt)


@pytest.mark.parametrize("dt", CDTYPES)
def test_dot_family(dt):
    a, b = crandn((4,), dt, 21), crandn((4,), dt, 22)
    for f in (lambda lib, x, y: lib.vdot(x, y), lambda lib, x, y: lib.dot(x, y), lambda lib, x, y: lib.outer(x, y),
              lambda lib, x, y: lib.inner(x, y), lambda lib, x, y: lib.einsum("i,j->ij", x, y)):
        check(f, [a, b], dt)


@pytest.mark.parametrize("dt", CDTYPES)
def test_lerp_addcmul_addcdiv(dt):
    a, b, c = crandn((3,), dt, 14), crandn((3,), dt, 15), crandn((3,), dt, 16)
    check(lambda lib, x, y: lib.lerp(x, y, 0.25), [a, b], dt)
    check(lambda lib, x, y, z: lib.addcmul(x, y, z, value=2), [a, b, c], dt)
    check(lambda lib, x, y, z: x.addcdiv(y, z, value=0.5j), [a, b, c], dt)


# ---------------------------------------------------------------- conj, polar, complex, casts

@pytest.mark.parametrize("dt", CDTYPES)
def test_conj_family(dt):
    a = crandn((2, 3), dt, 17)
    check(lambda lib, x: x.conj(), [a], dt)
    check(lambda lib, x: lib.conj_physical(x), [a], dt)
    check(lambda lib, x: x.conj().resolve_conj(), [a], dt)
    x = flow.tensor(a)
    # monoflow's conj is a physical copy (no lazy conjugate bit): is_conj() is always False
    assert not x.conj().is_conj() and x.resolve_conj() is x
    r = flow.ones(2)
    assert r.conj() is r and r.resolve_conj() is r


@pytest.mark.parametrize("real", ("float32", "float64"))
def test_polar_complex(real):
    rng = np.random.default_rng(18)
    m, p = np.abs(rng.standard_normal(4)).astype(real), rng.standard_normal(4).astype(real)
    dt = "complex64" if real == "float32" else "complex128"
    check(lambda lib, x, y: lib.polar(x, y), [m, p], dt)
    check(lambda lib, x, y: lib.complex(x, y), [m, p], dt)


@pytest.mark.parametrize("dt", CDTYPES)
def test_casts(dt):
    a = crandn((2, 3), dt, 19)
    other = "complex128" if dt == "complex64" else "complex64"
    check(lambda lib, x: x.to(getattr(lib, other)), [a], other)
    check(lambda lib, x: x.clone(), [a], dt)
    check(lambda lib, x: x.t().contiguous(), [a], dt)
    for real in ("float32", "float64"):
        with pytest.warns(UserWarning, match="discards the imaginary part"):
            out = flow.tensor(a).to(getattr(flow, real))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = TORCH.tensor(a).to(getattr(TORCH, real))
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)
    r = np.random.default_rng(20).standard_normal(3)
    check(lambda lib, x: x.to(getattr(lib, dt)), [r], dt)
    x = flow.tensor(a)
    assert x.to(getattr(flow, dt)) is x and x.contiguous() is x


def test_unsupported_ops_raise():
    x = flow.tensor([1 + 1j, 2j])
    for f, exc in ((lambda: flow.relu(x), NotImplementedError), (lambda: x.floor(), NotImplementedError),
                   (lambda: flow.atan2(x, x), NotImplementedError), (lambda: x % 2, NotImplementedError),
                   (lambda: x > 0, NotImplementedError), (lambda: flow.erf(x), NotImplementedError)):
        with pytest.raises(exc):
            f()


@pytest.mark.parametrize("dt", CDTYPES)
def test_zero_dim_complex_stays_zero_dim(dt):
    # (the host round trip went through np.ascontiguousarray, which makes 0-d arrays 1-d)
    v = 0.3 + 1.2j
    want = {"exp": np.exp(v), "sqrt": np.sqrt(v), "sin": np.sin(v), "tanh": np.tanh(v), "log": np.log(v),
            "sigmoid": 1 / (1 + np.exp(-v)), "reciprocal": 1 / v, "rsqrt": 1 / np.sqrt(v), "expm1": np.expm1(v)}
    z = flow.tensor(v, dtype=getattr(flow, dt))
    for name, ref in want.items():
        out = getattr(flow, name)(z)
        assert out.shape == (), name
        np.testing.assert_allclose(out.numpy(), ref, **TOL[dt], err_msg=name)
    assert (z ** 2.5).shape == () and np.sin(z).shape == ()


def test_python_complex_given_to_tensor_only_ops_is_a_type_error():
    # (it went down the complex-tensor path and failed there with an AttributeError)
    t = flow.ones(3)
    for call, name in ((lambda: flow.nonzero(1 + 2j), "nonzero"), (lambda: flow.masked_select(1j, t > 0), "masked_select"),
                       (lambda: flow.tile(1 + 2j, (1, 0)), "tile"), (lambda: flow.flip(1j, [0]), "flip"),
                       (lambda: flow.normal(0.0, 1.0, size=(2,), out=0), "normal")):
        with pytest.raises(TypeError, match=rf"{name}\(\): argument '(input|out)' must be Tensor"):
            call()
    np.testing.assert_array_equal(flow.flip(flow.tensor([1j, 2]), [0]).numpy(), [2, 1j])
