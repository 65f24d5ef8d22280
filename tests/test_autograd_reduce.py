"""Derivatives of the reductions and dim-wise ops: finite differences in
float64 and torch's gradients for the same upstream gradient
(tests/autograd_helpers.py), over hypothesis-drawn shapes, dims and keepdim,
including 0-dim and non-contiguous inputs, ties (max/amax) and zeros
(prod/cumprod), where finite differences are not defined and torch is the oracle."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
from autograd_helpers import check_gradients, leaf

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch, the reference oracle (pip install torch)")

few = settings(max_examples=6, deadline=None)


@st.composite
def shape_dims(draw, max_dims=3, allow_empty_dims=True):
    """(shape, dims tuple or None for all, keepdim, transposed)."""
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=max_dims)))
    nd = len(shape)
    if nd and draw(st.booleans()):
        dims = tuple(draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd,
                                   unique_by=lambda d: d % nd)))
    else:
        dims = None
    return shape, dims, draw(st.booleans()), nd >= 2 and draw(st.booleans())


def values(shape, seed, lo=0.5, hi=2.0, signs=True):
    """Distinct values away from 0 (no ties, no kinks)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    v = np.linspace(lo, hi, n) if n > 1 else np.array([lo + 0.3])
    v = rng.permutation(v) * (rng.choice([-1.0, 1.0], n) if signs else 1.0)
    return v.reshape(shape)


def tr(t, transposed):
    """A non-contiguous view (transpose of the last two dims) when asked."""
    return t.transpose(-1, -2) if transposed else t


def compare_torch(fn, torch_fn, arrays, device, seed=0):
    """Gradients against torch's only (for points where finite differences
    are one-sided: ties, |x| kinks)."""
    if torch is None:
        pytest.skip("needs PyTorch, the reference oracle (pip install torch)")
    xs = [leaf(a, device) for a in arrays]
    outs = fn(*xs)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    rng = np.random.default_rng(seed)
    ups = [rng.standard_normal(tuple(o.shape)) for o in outs]
    got = flow.autograd.grad(outs, xs, [flow.tensor(u, dtype=o.dtype, device=device) for u, o in zip(ups, outs)],
                             allow_unused=True)
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    touts = torch_fn(*ts)
    touts = list(touts) if isinstance(touts, (tuple, list)) else [touts]
    for o, to in zip(outs, touts):
        np.testing.assert_allclose(o.detach().numpy(), to.detach().numpy(), rtol=1e-12, atol=1e-12)
    want = torch.autograd.grad(touts, ts, [torch.tensor(u) for u in ups], allow_unused=True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


def tdims(dims, shape):
    return tuple(range(len(shape))) if dims is None else dims


# ---------------------------------------------------------------- reductions over dims

@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin", "logsumexp"])
@few
@given(sd=shape_dims(), seed=st.integers(0, 99))
def test_reductions(device, op, sd, seed):
    shape, dims, keepdim, transposed = sd
    if op == "prod" and dims is not None and len(dims) > 1:
        dims = dims[:1]  # prod takes one dim
    a = values(shape, seed)

    def fn(x):
        x = tr(x, transposed)
        if op == "prod":
            return x.prod(None if dims is None else dims[0], keepdim=keepdim)
        if op in ("amax", "amin"):
            return getattr(x, op)(() if dims is None else dims, keepdim=keepdim)
        if op == "logsumexp":
            return x.logsumexp(tdims(dims, x.shape), keepdim=keepdim)
        return getattr(x, op)(dims, keepdim=keepdim)

    def tfn(x):
        x = tr(x, transposed)
        if op == "prod":
            return x.prod() if dims is None else x.prod(dims[0], keepdim=keepdim)
        if op in ("amax", "amin"):
            return getattr(torch, op)(x, () if dims is None else dims, keepdim=keepdim)
        if op == "logsumexp":
            return torch.logsumexp(x, tdims(dims, x.shape), keepdim=keepdim)
        return getattr(torch, op)(x, dims, keepdim=keepdim)

    if op == "prod" and dims is None and keepdim:
        keepdim = False  # torch's prod() has no keepdim without a dim
    check_gradients(fn, [a], device, torch_fn=tfn)


@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1, 2])
@few
@given(sd=shape_dims(), seed=st.integers(0, 99))
def test_var_std(device, op, correction, sd, seed):
    shape, dims, keepdim, transposed = sd
    seen = list(shape)  # the reduced dims are the transposed view's
    if transposed and len(seen) >= 2:
        seen[-1], seen[-2] = seen[-2], seen[-1]
    n = int(np.prod([seen[d] for d in dims] if dims is not None else seen)) if seen else 1
    if n <= correction:
        shape, dims = (4,), None  # N - correction must be positive for a finite gradient
        transposed = False
    a = values(shape, seed)
    check_gradients(lambda x: getattr(tr(x, transposed), op)(dims, keepdim=keepdim, correction=correction), [a],
                    device,
                    torch_fn=lambda x: getattr(torch, op)(tr(x, transposed), dims, keepdim=keepdim,
                                                          correction=correction))


def test_std_zero_spread_has_zero_gradient(device):
    x = leaf(np.full((2, 3), 1.5), device)
    x.std(1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 1.5, 0.5, -1.5, float("inf"), float("-inf"), 0.0])
@few
@given(sd=shape_dims(), seed=st.integers(0, 99))
def test_vector_norm(device, p, sd, seed):
    shape, dims, keepdim, transposed = sd
    a = values(shape, seed)
    tp = p

    def fn(x):
        return tr(x, transposed).norm(p, dims, keepdim=keepdim)

    def tfn(x):
        return torch.linalg.vector_norm(tr(x, transposed), tp, dims, keepdim=keepdim)

    check_gradients(fn, [a], device, torch_fn=tfn)


@needs_torch
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 1.5, float("inf")])
def test_vector_norm_at_zero_is_torch_subgradient(device, p):
    a = np.array([[0.0, 0.0, 0.0], [0.0, 2.0, -2.0]])
    compare_torch(lambda x: x.norm(p, 1), lambda x: torch.linalg.vector_norm(x, p, 1), [a], device)


@needs_torch
def test_norm_fro_and_dtype(device):
    a = values((2, 3), 3)
    check_gradients(lambda x: flow.norm(x), [a], device, torch_fn=lambda x: torch.norm(x))
    x = leaf(a, device, dtype=flow.float32)
    y = x.norm(2, dtype=flow.float64)
    assert y.dtype == flow.float64
    y.backward()
    assert x.grad.dtype == flow.float32
    np.testing.assert_allclose(x.grad.numpy(), a / np.linalg.norm(a), rtol=1e-6)


# ---------------------------------------------------------------- ties, zeros

@st.composite
def tied(draw, max_dims=3):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=max_dims)))
    n = int(np.prod(shape)) if shape else 1
    vals = draw(st.lists(st.sampled_from([-1.0, 0.0, 2.0, 2.0]), min_size=n, max_size=n))
    return np.array(vals, dtype=np.float64).reshape(shape)


@pytest.mark.skipif(torch is None, reason="torch is the oracle for ties")
@pytest.mark.parametrize("op", ["amax", "amin", "max", "min"])
@few
@given(a=tied(), keepdim=st.booleans(), data=st.data())
def test_ties_share_like_torch(device, op, a, keepdim, data):
    nd = a.ndim
    dims = data.draw(st.one_of(st.none(), st.integers(-max(nd, 1), max(nd, 1) - 1)))
    if op in ("amax", "amin"):
        d = () if dims is None else dims
        compare_torch(lambda x: getattr(x, op)(d, keepdim=keepdim),
                      lambda x: getattr(torch, op)(x, d, keepdim=keepdim), [a], device)
    elif dims is None:  # max(): shared evenly among ties
        compare_torch(lambda x: getattr(x, op)(), lambda x: getattr(x, op)(), [a], device)
    else:  # max(dim): to the index returned
        r = getattr(leaf(a, device), op)(dims, keepdim=keepdim)
        assert not r.indices.requires_grad and r.indices.grad_fn is None
        compare_torch(lambda x: getattr(x, op)(dims, keepdim=keepdim).values,
                      lambda x: getattr(x, op)(dims, keepdim=keepdim).values, [a], device)


def test_max_all_nan_shares_among_nans(device):
    x = leaf(np.array([1.0, np.nan, 3.0, np.nan]), device)
    x.max().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.5, 0.0, 0.5])


@st.composite
def with_zeros(draw, max_dims=3):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=max_dims)))
    n = int(np.prod(shape)) if shape else 1
    vals = draw(st.lists(st.sampled_from([0.0, 0.0, 1.5, -0.5, 2.0, -1.25]), min_size=n, max_size=n))
    return np.array(vals, dtype=np.float64).reshape(shape)


@few
@given(a=with_zeros(), keepdim=st.booleans(), data=st.data())
def test_prod_with_zeros(device, a, keepdim, data):
    nd = a.ndim
    dim = data.draw(st.one_of(st.none(), st.integers(-max(nd, 1), max(nd, 1) - 1)))
    if dim is None:
        check_gradients(lambda x: x.prod(), [a], device, torch_fn=lambda x: x.prod())
    else:
        check_gradients(lambda x: x.prod(dim, keepdim=keepdim), [a], device,
                        torch_fn=lambda x: x.prod(dim, keepdim=keepdim))


@few
@given(a=with_zeros(), data=st.data())
def test_cumprod_with_zeros(device, a, data):
    nd = a.ndim
    dim = data.draw(st.integers(-max(nd, 1), max(nd, 1) - 1))
    check_gradients(lambda x: x.cumprod(dim), [a], device, torch_fn=lambda x: x.cumprod(dim))


# ---------------------------------------------------------------- dim-wise ops

@pytest.mark.parametrize("op", ["cumsum", "cumprod", "softmax", "log_softmax"])
@few
@given(sd=shape_dims(), seed=st.integers(0, 99), data=st.data())
def test_dimwise(device, op, sd, seed, data):
    shape, _, _, transposed = sd
    nd = len(shape)
    dim = data.draw(st.integers(-max(nd, 1), max(nd, 1) - 1))
    a = values(shape, seed)
    check_gradients(lambda x: getattr(tr(x, transposed), op)(dim), [a], device,
                    torch_fn=lambda x: getattr(tr(x, transposed), op)(dim))


@needs_torch
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_dtype_argument(device, op):
    a = values((2, 3), 1)
    x = leaf(a, device, dtype=flow.float32)
    y = getattr(x, op)(1, dtype=flow.float64)
    assert y.dtype == flow.float64
    up = np.random.default_rng(0).standard_normal((2, 3))
    y.backward(flow.tensor(up, device=device))
    assert x.grad.dtype == flow.float32
    tx = torch.tensor(a, dtype=torch.float32, requires_grad=True)
    getattr(tx, op)(1, dtype=torch.float64).backward(torch.tensor(up))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-7)


@needs_torch
def test_softmax_double_backward(device):
    a = values((2, 3), 5)
    up = np.random.default_rng(1).standard_normal((2, 3))
    x = leaf(a, device)
    (g,) = flow.autograd.grad(x.softmax(1), x, flow.tensor(up, device=device), create_graph=True)
    (gg,) = flow.autograd.grad((g * g).sum(), x)
    tx = torch.tensor(a, requires_grad=True)
    (tg,) = torch.autograd.grad(tx.softmax(1), tx, torch.tensor(up), create_graph=True)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), tx)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("descending", [False, True])
@few
@given(sd=shape_dims(), seed=st.integers(0, 99), data=st.data())
def test_sort_and_topk_values(device, descending, sd, seed, data):
    shape, _, _, transposed = sd
    nd = len(shape)
    dim = data.draw(st.integers(-max(nd, 1), max(nd, 1) - 1))
    a = values(shape, seed)
    check_gradients(lambda x: tr(x, transposed).sort(dim, descending).values, [a], device,
                    torch_fn=lambda x: tr(x, transposed).sort(dim, descending).values)
    n = (np.swapaxes(a, -1, -2) if transposed else a).shape[dim] if nd else 1
    k = data.draw(st.integers(0, n))
    check_gradients(lambda x: tr(x, transposed).topk(k, dim, descending).values, [a], device,
                    torch_fn=lambda x: tr(x, transposed).topk(k, dim, descending).values)


# ---------------------------------------------------------------- empty, no-grad outputs, compositions

@needs_torch
@pytest.mark.parametrize("op", ["sum", "mean", "prod", "logsumexp", "cumsum", "cumprod", "softmax"])
def test_reductions_over_empty_dims(device, op):
    a = np.zeros((2, 0, 3))
    x = leaf(a, device)
    tx = torch.tensor(a, requires_grad=True)
    if op in ("prod", "cumsum", "cumprod", "softmax"):
        y, ty = getattr(x, op)(1), getattr(tx, op)(1)
    else:
        y, ty = getattr(x, op)((1,)), getattr(tx, op)((1,))
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    y.sum().backward()
    ty.sum().backward()
    assert tuple(x.grad.shape) == (2, 0, 3) == tuple(tx.grad.shape)


def test_integer_outputs_carry_no_gradient(device):
    x = leaf(values((2, 3), 0), device)
    for r in (x.argmax(), x.argmin(1), x.max(1).indices, x.sort(1).indices, x.topk(2, 1).indices, x.argsort(1),
              x.all(), x.any(1), x > 0):
        assert not r.requires_grad and r.grad_fn is None
    assert x.max(1).values.requires_grad and x.sort(0).values.grad_fn is not None


@needs_torch
def test_var_mean_std_mean(device):
    a = values((3, 4), 2)
    check_gradients(lambda x: flow.var_mean(x, 1, correction=1), [a], device,
                    torch_fn=lambda x: torch.var_mean(x, 1, correction=1))
    check_gradients(lambda x: flow.std_mean(x, (0, 1), keepdim=True), [a], device,
                    torch_fn=lambda x: torch.std_mean(x, (0, 1), keepdim=True))


def test_cumsum_inplace_and_mean_dtype(device):
    a = values((2, 3), 4)
    check_gradients(lambda x: (x * 1).cumsum_(1), [a], device, torch_fn=lambda x: (x * 1).cumsum_(1))
    x = leaf(a, device, dtype=flow.float32)
    x.mean(dtype=flow.float64).backward()
    assert x.grad.dtype == flow.float32
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 1 / 6), rtol=1e-6)
