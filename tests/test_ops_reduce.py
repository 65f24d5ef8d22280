"""Properties of the reductions on every registered device: mean, prod,
amax/amin, max/min (values and indices), argmax/argmin, var/std, norm,
logsumexp, all/any (and the float32 sum's accuracy), against numpy
references computed in float64/int64 from the exact input values, with
torch as the oracle of result dtypes, shapes and error cases."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from helpers import (
    DTYPES, EPS, FLOATING, FLOW, INTEGRAL, NP, TORCH, assert_values, category, device_settings, tdt,
    tensor_specs, to_np,
)

needs_torch = pytest.mark.skipif(TORCH is None, reason="torch is not installed")


# ---------------------------------------------------------------- helpers

@st.composite
def reduce_dims(draw, ndim, allow_none=True):
    """None (all dims) or a list of distinct dims, each maybe negative (a
    0-dim tensor takes 0 and -1)."""
    if allow_none and draw(st.booleans()):
        return None
    n = max(ndim, 1)
    picked = draw(st.lists(st.tuples(st.integers(0, n - 1), st.booleans()), unique_by=lambda p: p[0],
                           min_size=0 if allow_none else 1, max_size=n))
    return [d - n if neg else d for d, neg in picked]


def axes_of(dims, ndim):
    """numpy axes of reduced dims (all when None or empty)."""
    if not dims:
        return tuple(range(ndim))
    return tuple(sorted({d % ndim for d in dims})) if ndim else ()


# smallest normal number: results below it round with an absolute error up to it
TINY = {n: float(np.finfo(np.float32 if n == "bfloat16" else n).tiny) for n in FLOATING}


def torch_tensor(spec):
    """A torch tensor with a spec's values and dtype."""
    if spec.name == "bfloat16":
        return TORCH.from_numpy(spec.values.copy()).to(TORCH.bfloat16)
    return TORCH.from_numpy(spec.values.copy())


def f64(a):
    return np.asarray(a).astype(np.float64)


def check_like_torch(out, expected_torch):
    """Dtype and shape as torch's result."""
    assert out.dtype == FLOW[str(expected_torch.dtype).replace("torch.", "")], (out.dtype, expected_torch.dtype)
    assert tuple(out.shape) == tuple(expected_torch.shape), (tuple(out.shape), tuple(expected_torch.shape))


def reduced_count(shape, axes):
    return int(np.prod([shape[a] for a in axes])) if axes else 1


# ---------------------------------------------------------------- mean

@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), keepdim=st.booleans())
def test_mean(device, data, name, keepdim):
    X = data.draw(tensor_specs(dtype=name, lo=-100, hi=100), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dims = data.draw(reduce_dims(nd), label="dims")
    dt = None if name in FLOATING and data.draw(st.booleans()) else data.draw(st.sampled_from(FLOATING))
    out = flow.mean(x, dims, keepdim, dtype=None if dt is None else FLOW[dt])
    res = dt or name
    axes = axes_of(dims, nd)
    src = f64(X.values)
    with np.errstate(all="ignore"):
        exp = np.mean(src, axis=axes, keepdims=keepdim) if nd else src
        bound = np.mean(np.abs(src), axis=axes, keepdims=keepdim) if nd else np.abs(src)
    n = reduced_count(X.values.shape, axes)
    # inputs cast to `res` first (one rounding each), then summed with error <= n eps
    tol = (n + 3) * EPS[res] * bound + TINY[res]
    assert_values(out, exp, res, atol=tol)
    if TORCH is not None:
        check_like_torch(out, torch_tensor(X).mean(dims, keepdim, dtype=tdt(res)))


def test_mean_errors_and_examples(device):
    i = flow.arange(6, device=device).reshape(2, 3)
    with pytest.raises(RuntimeError, match="mean.*floating point"):
        i.mean()
    with pytest.raises(RuntimeError, match="mean.*floating point"):
        i.mean(dtype=flow.int32)
    assert i.mean(dtype=flow.float32).item() == 2.5
    assert i.mean(1, dtype=flow.float64).tolist() == [1.0, 4.0]
    e = flow.zeros(0, 3, device=device)
    assert math.isnan(e.mean().item())
    assert np.isnan(to_np(e.mean(0))).all() and e.mean(1).shape == (0,)
    assert flow.tensor(3.0, device=device).mean().item() == 3.0
    with pytest.raises(IndexError, match="mean.*out of range"):
        i.float().mean(2)
    with pytest.raises(RuntimeError, match="mean.*multiple times"):
        i.float().mean((0, -2))


# ---------------------------------------------------------------- prod

@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), keepdim=st.booleans())
def test_prod(device, data, name, keepdim):
    kw = {"lo": -2, "hi": 2} if name in FLOATING else {"lo": -3, "hi": 3} if category(name) == 1 else {}
    X = data.draw(tensor_specs(dtype=name, shape=data.draw(st.lists(st.integers(0, 5), max_size=3)), **kw),
                  label="x")
    if name in FLOATING:
        # |x| in {0} + [0.5, 2] over <= 125 elements: no partial product leaves
        # float range, so any accumulation order gives the reference's value
        X.values[np.abs(X.values) < 0.5] = 0
    x = X.make(device)
    nd = X.values.ndim
    dim = data.draw(st.none() | st.integers(-max(nd, 1), max(nd, 1) - 1), label="dim")
    dt = data.draw(st.sampled_from([None, None, "int64", "float64"]), label="dtype")
    if dt == "int64" and name in FLOATING:
        dt = None
    if dim is None:
        keepdim = False  # (torch.prod has no keepdim without a dim)
    out = x.prod(dim, keepdim, dtype=None if dt is None else FLOW[dt])
    res = dt or (name if name in FLOATING else "int64")
    axes = () if nd == 0 else tuple(range(nd)) if dim is None else (dim % nd,)
    if category(res) == 2:
        exp = np.prod(f64(X.values), axis=axes, keepdims=keepdim)
        n = reduced_count(X.values.shape, axes)  # (a rounding per product, in any order)
        assert_values(out, exp, res, atol=(n + 2) * EPS[res] * np.abs(exp) + TINY[res])
    else:
        with np.errstate(all="ignore"):
            exp = np.prod(X.values.astype(np.int64), axis=axes, keepdims=keepdim)
        assert_values(out, exp, res)  # int64 products wrap, as numpy's
    if TORCH is not None:
        tx = torch_tensor(X)
        tkw = {} if dt is None else {"dtype": tdt(dt)}
        check_like_torch(out, tx.prod(**tkw) if dim is None else tx.prod(dim, keepdim, **tkw))


def test_prod_examples(device):
    x = flow.tensor([[1, 2, 3], [4, 5, 6]], dtype=flow.int8, device=device)
    assert x.prod().item() == 720 and x.prod().dtype == flow.int64  # no int8 overflow
    assert x.prod(1).tolist() == [6, 120] and flow.prod(x, 0, keepdim=True).shape == (1, 3)
    assert flow.tensor([True, False], device=device).prod().item() == 0
    assert flow.zeros(0, 2, device=device).prod(0).tolist() == [1.0, 1.0]
    assert x.prod(dtype=flow.float32).dtype == flow.float32
    with pytest.raises(IndexError, match="prod.*out of range"):
        x.prod(2)


# ---------------------------------------------------------------- amax / amin

@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), keepdim=st.booleans(), which=st.sampled_from(["amax", "amin"]))
def test_amax_amin(device, data, name, keepdim, which):
    X = data.draw(tensor_specs(dtype=name, nan=True, shape=data.draw(st.lists(st.integers(1, 5), max_size=4))),
                  label="x")
    x = X.make(device)
    nd = X.values.ndim
    dims = data.draw(reduce_dims(nd, allow_none=False) | st.just(()), label="dims")
    out = getattr(flow, which)(x, dims, keepdim)
    axes = axes_of(dims, nd)
    fn = np.max if which == "amax" else np.min  # (both propagate NaN)
    exp = fn(X.values, axis=axes, keepdims=keepdim) if nd else X.values
    assert_values(out, exp, name)
    if TORCH is not None:
        check_like_torch(out, getattr(torch_tensor(X), which)(dims, keepdim))


def test_amax_amin_examples(device):
    x = flow.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, -6.0]], device=device)
    assert math.isnan(x.amax().item()) and x.amax(0).tolist()[0] == 4.0
    assert x.amin(1).tolist()[1] == -6.0 and math.isnan(x.amin(1).tolist()[0])
    assert flow.tensor([True, False], device=device).amax().item() is True
    e = flow.zeros(0, 3, device=device)
    assert e.amax(1).shape == (0,)
    with pytest.raises(IndexError, match="amax.*reduction dim 0 to have non-zero size"):
        e.amax(0)
    with pytest.raises(RuntimeError, match="amin.*numel\\(\\) == 0"):
        e.amin()
    with pytest.raises(RuntimeError, match="amax.*multiple times"):
        x.amax((1, -1))
    with pytest.raises(IndexError, match="amin.*out of range"):
        x.amin(-3)


# ---------------------------------------------------------------- max / min / argmax / argmin

def np_arg(values, axis, largest):
    """numpy's argmax/argmin: the first extreme, or the first NaN."""
    return np.argmax(values, axis=axis) if largest else np.argmin(values, axis=axis)


@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), keepdim=st.booleans(), largest=st.booleans())
def test_max_min_with_dim(device, data, name, keepdim, largest):
    # few distinct values, so that ties (first index wins) are common
    kw = {"lo": -2, "hi": 2} if name != "bool" else {}
    X = data.draw(tensor_specs(dtype=name, nan=True, shape=data.draw(st.lists(st.integers(1, 5), max_size=4)), **kw),
                  label="x")
    x = X.make(device)
    nd = X.values.ndim
    dim = data.draw(st.integers(-max(nd, 1), max(nd, 1) - 1), label="dim")
    r = x.max(dim, keepdim) if largest else flow.min(x, dim=dim, keepdim=keepdim)
    assert isinstance(r, flow.return_types.max if largest else flow.return_types.min)
    values, indices = r
    if nd:
        axis = dim % nd
        exp_v = (np.max if largest else np.min)(X.values, axis=axis, keepdims=keepdim)
        exp_i = np_arg(X.values, axis, largest)
        if keepdim:
            exp_i = np.expand_dims(exp_i, axis)
    else:
        exp_v, exp_i = X.values, np.array(0)
    assert_values(values, exp_v, name)
    assert_values(indices, exp_i, "int64")
    assert r.values is values and r.indices is indices
    if TORCH is not None:
        tr = getattr(torch_tensor(X), "max" if largest else "min")(dim, keepdim)
        check_like_torch(values, tr.values)
        check_like_torch(indices, tr.indices)


@device_settings
@given(data=st.data(), name=st.sampled_from(INTEGRAL + FLOATING), keepdim=st.booleans(), largest=st.booleans())
def test_argmax_argmin(device, data, name, keepdim, largest):
    X = data.draw(tensor_specs(dtype=name, nan=True, lo=-2, hi=2,
                               shape=data.draw(st.lists(st.integers(1, 5), max_size=4))), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dim = data.draw(st.none() | st.integers(-max(nd, 1), max(nd, 1) - 1), label="dim")
    out = (flow.argmax if largest else flow.argmin)(x, dim, keepdim)
    if dim is None:
        exp = np.array(np_arg(X.values.reshape(-1), 0, largest))
        if keepdim:
            exp = exp.reshape((1,) * nd)
    elif nd == 0:
        exp = np.array(0)
    else:
        exp = np_arg(X.values, dim % nd, largest)
        if keepdim:
            exp = np.expand_dims(exp, dim % nd)
    assert_values(out, exp, "int64")
    if TORCH is not None:
        check_like_torch(out, getattr(torch_tensor(X), "argmax" if largest else "argmin")(dim, keepdim))


def test_max_min_forms_and_errors(device):
    x = flow.tensor([[3, 1, 3], [0, 7, 7]], device=device)
    assert x.max().item() == 7 and x.max().shape == () and flow.min(x).item() == 0
    v, i = x.max(1)
    assert v.tolist() == [3, 7] and i.tolist() == [0, 1]  # the first of equal maxima
    r = flow.max(x, dim=0, keepdim=True)
    assert r.values.tolist() == [[3, 7, 7]] and r.indices.tolist() == [[0, 1, 1]]
    assert r._fields == ("values", "indices")
    assert "monoflow.return_types.max(" in repr(r) and "indices=" in repr(r)
    assert flow.max(x, flow.full((2, 3), 5, device=device)).tolist() == [[5, 5, 5], [5, 7, 7]]  # maximum
    assert x.min(flow.full((3,), 2, device=device)).tolist() == [[2, 1, 2], [0, 2, 2]]
    assert flow.argmax(x).item() == 4 and x.argmin().item() == 3
    assert flow.argmax(x, keepdim=True).shape == (1, 1)
    f = flow.tensor([1.0, float("nan"), 3.0, float("nan")], device=device)
    assert f.argmax().item() == 1 and f.argmin().item() == 1 and math.isnan(f.max().item())
    assert flow.tensor([True, False], device=device).max(0).indices.item() == 0
    z = flow.tensor(5, device=device)
    assert z.max(0).values.item() == 5 and z.max(-1).indices.item() == 0 and z.argmax(0).item() == 0
    e = flow.zeros(0, 3, device=device)
    assert e.max(1).values.shape == (0,)
    with pytest.raises(RuntimeError, match="max.*numel\\(\\) == 0"):
        e.max()
    with pytest.raises(IndexError, match="min.*reduction dim 0 to have non-zero size"):
        e.min(0)
    with pytest.raises(IndexError, match="argmax.*numel\\(\\) == 0"):
        e.argmax()
    with pytest.raises(IndexError, match="argmin.*non-zero size"):
        e.argmin(0)
    with pytest.raises(RuntimeError, match="argmax.*bool"):
        flow.tensor([True], device=device).argmax()
    with pytest.raises(IndexError, match="max.*out of range"):
        x.max(2)
    with pytest.raises(IndexError, match="argmin.*out of range"):
        x.argmin(-3)


# ---------------------------------------------------------------- var / std

@device_settings
@given(data=st.data(), name=st.sampled_from(FLOATING), keepdim=st.booleans(), which=st.sampled_from(["var", "std"]))
def test_var_std(device, data, name, keepdim, which):
    X = data.draw(tensor_specs(dtype=name, lo=-100, hi=100), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dims = data.draw(reduce_dims(nd), label="dims")
    form = data.draw(st.sampled_from(["default", "unbiased", "correction"]), label="form")
    if form == "default":
        out, corr = getattr(x, which)(dims, keepdim=keepdim), 1.0
    elif form == "unbiased":
        unbiased = data.draw(st.booleans(), label="unbiased")
        out, corr = getattr(flow, which)(x, dims, unbiased, keepdim), float(unbiased)
    else:
        corr = data.draw(st.sampled_from([0, 1, 2, 0.5]), label="correction")
        out = getattr(flow, which)(x, dims, keepdim=keepdim, correction=corr)
    axes = axes_of(dims, nd)
    src = f64(X.values)
    n = reduced_count(X.values.shape, axes)
    with np.errstate(all="ignore"):
        mean = np.mean(src, axis=axes, keepdims=True) if nd else src
        m2 = np.sum((src - mean) ** 2, axis=axes, keepdims=keepdim) if nd else src * 0
        exp = m2 / max(0.0, n - corr)
        # computed in double from the exact inputs, then rounded once: the
        # double error is relative to the raw second moment (cancellation)
        raw = (np.sum(src ** 2, axis=axes, keepdims=keepdim) if nd else src ** 2) / max(1.0, n - corr)
        slack = 1e-13 * (n + 1) * raw
        if which == "std":
            exp = np.sqrt(exp)
            slack = np.sqrt(slack)
        tol = 2 * EPS[name] * np.abs(exp) + slack + TINY[name]
    assert_values(out, exp, name, atol=tol)
    if TORCH is not None:
        check_like_torch(out, getattr(torch_tensor(X), which)(dims, correction=corr, keepdim=keepdim))


def test_var_std_examples_and_errors(device):
    f = flow.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    assert f.var().item() == pytest.approx(5 / 3) and f.var(unbiased=False).item() == 1.25
    assert f.std(0, True, True).shape == (1, 2) and f.std(0, False, True).tolist() == [[1.0, 1.0]]
    assert flow.var(f, True).item() == pytest.approx(5 / 3)  # var(x, unbiased)
    assert f.var(1, keepdim=True, correction=0).tolist() == [[0.25], [0.25]]
    assert f.var((0, 1), correction=0.5).item() == pytest.approx(5 / 3.5)
    assert math.isnan(flow.tensor([1.0], device=device).var().item())  # N - correction = 0
    assert flow.tensor([1.0, 2.0], device=device).var(correction=3).item() == math.inf
    assert math.isnan(flow.zeros(0, device=device).std().item())
    big = flow.tensor([1e8 + 1, 1e8 + 2, 1e8 + 3], dtype=flow.float64, device=device)
    assert big.var().item() == 1.0  # no cancellation (E[x^2] - E[x]^2 would lose it)
    with pytest.raises(RuntimeError, match="var.*floating point"):
        flow.arange(3, device=device).var()
    with pytest.raises(RuntimeError, match="std.*floating point"):
        flow.arange(3, device=device).std(0)
    with pytest.raises(TypeError, match="std"):
        f.std(0, True, unbiased=True)
    with pytest.raises(TypeError, match="var.*unbiased or correction"):
        f.var(0, True, correction=1)
    with pytest.raises(IndexError, match="var.*out of range"):
        f.var(2)


# ---------------------------------------------------------------- norm

P_VALUES = [2, 1, math.inf, -math.inf, 0, 3, 0.5, -1, "fro", None]


def np_norm(a, p, axes, keepdim):
    a = np.abs(f64(a))
    with np.errstate(all="ignore"):
        if p in ("fro", None, 2):
            return np.sqrt(np.sum(a * a, axis=axes, keepdims=keepdim))
        if p == math.inf:
            return np.max(a, axis=axes, keepdims=keepdim)
        if p == -math.inf:
            return np.min(a, axis=axes, keepdims=keepdim)
        if p == 0:
            return np.sum(a != 0, axis=axes, keepdims=keepdim).astype(np.float64)
        return np.sum(a ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)


@device_settings
@given(data=st.data(), name=st.sampled_from(FLOATING), keepdim=st.booleans(), p=st.sampled_from(P_VALUES))
def test_norm(device, data, name, keepdim, p):
    X = data.draw(tensor_specs(dtype=name, lo=-50, hi=50, shape=data.draw(st.lists(st.integers(1, 5), max_size=4))),
                  label="x")
    x = X.make(device)
    nd = X.values.ndim
    dims = data.draw(reduce_dims(nd), label="dims")
    if p in ("fro", None) and dims is not None and len(dims) > 2:
        dims = dims[:2]
    dt = data.draw(st.sampled_from([None, "float64"] + (["float32"] if name != "float64" else [])), label="dtype")
    out = flow.norm(x, p, dims, keepdim, dtype=None if dt is None else FLOW[dt])
    res = dt or name
    axes = axes_of(dims, nd)
    exp = np_norm(X.values, p, axes, keepdim) if nd else np_norm(X.values.reshape(1), p, 0, False).reshape(())
    if res == "float16":  # a norm past float16's range is inf, as in torch
        exp = np.where(np.abs(exp) > 65504, np.inf, exp)
    # |x|^p sums in double, one rounding of the result (pow's few ulp for odd p)
    assert_values(out, exp, res, atol=16 * EPS[res] * np.abs(exp) + TINY[res])
    if TORCH is not None:
        tkw = {} if dt is None else {"dtype": tdt(dt)}
        check_like_torch(out, TORCH.norm(torch_tensor(X), "fro" if p is None else p, dims, keepdim, **tkw))


def test_norm_examples_and_errors(device):
    f = flow.tensor([[1.0, -2.0], [3.0, 0.0]], device=device)
    assert f.norm().item() == pytest.approx(math.sqrt(14))
    assert f.norm(1).item() == 6.0 and f.norm(math.inf).item() == 3.0 and f.norm(-math.inf).item() == 0.0
    assert f.norm(0).item() == 3.0 and f.norm(p="fro", dim=1).tolist() == pytest.approx([math.sqrt(5), 3.0])
    assert f.norm(2, 0, True).shape == (1, 2)
    assert flow.norm(f.half(), dtype=flow.float32).dtype == flow.float32
    assert flow.tensor([float("nan"), 1.0], device=device).norm(0).item() == 2.0  # NaN is non-zero
    assert math.isnan(flow.tensor([float("nan"), 1.0], device=device).norm(math.inf).item())
    big = flow.tensor([3e30, 4e30], device=device)
    assert big.norm().item() == pytest.approx(5e30, rel=1e-6)  # squares accumulate in double
    e = flow.zeros(0, 3, device=device)
    assert e.norm().item() == 0.0 and e.norm(math.inf, dim=1).shape == (0,)
    with pytest.raises(RuntimeError, match="norm.*inf norm on an empty tensor"):
        e.norm(math.inf)
    with pytest.raises(RuntimeError, match="norm.*dimension 0"):
        e.norm(-1, dim=0)
    with pytest.raises(RuntimeError, match="norm.*floating point"):
        flow.arange(3, device=device).norm()
    with pytest.raises(RuntimeError, match="norm.*narrowing"):
        f.norm(dtype=flow.float16)
    with pytest.raises(RuntimeError, match="norm.*'abc'"):
        f.norm("abc")
    with pytest.raises(RuntimeError, match="norm.*Frobenius"):
        flow.zeros(2, 2, 2, device=device).norm("fro", (0, 1, 2))
    with pytest.raises(NotImplementedError, match="nuclear"):
        f.norm("nuc")


# ---------------------------------------------------------------- logsumexp

@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), keepdim=st.booleans())
def test_logsumexp(device, data, name, keepdim):
    kw = {"lo": -100, "hi": 100} if category(name) == 1 else {"lo": -200, "hi": 200}
    X = data.draw(tensor_specs(dtype=name, nan=data.draw(st.booleans()), **kw), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dims = data.draw(reduce_dims(nd, allow_none=False), label="dims")
    out = flow.logsumexp(x, dims, keepdim)
    res = name if name in FLOATING else "float32"
    axes = axes_of(dims, nd)
    src = f64(X.values)
    with np.errstate(all="ignore"):
        if nd:
            m = np.max(src, axis=axes, keepdims=True) if src.size else np.full(
                [1 if a in axes else s for a, s in enumerate(src.shape)], -np.inf)
            shift = np.where(np.isfinite(m), m, 0.0)
            exp = np.log(np.sum(np.exp(src - shift), axis=axes, keepdims=True)) + shift
            if not keepdim:
                exp = exp.reshape([s for a, s in enumerate(exp.shape) if a not in axes])
        else:
            exp = src
    # inputs and result round to `res`; exp/log add a few ulp of the largest term
    tol = 8 * EPS[res] * (np.abs(exp) + 1)
    assert_values(out, exp, res, atol=tol)
    if TORCH is not None:
        check_like_torch(out, TORCH.logsumexp(torch_tensor(X), dims, keepdim))


def test_logsumexp_examples(device):
    inf, nan = math.inf, math.nan
    x = flow.tensor([[1000.0, 1000.0], [-1000.0, -1000.0]], device=device)
    assert x.logsumexp(1).tolist() == pytest.approx([1000 + math.log(2), -1000 + math.log(2)])  # no overflow
    t = lambda *v: flow.tensor(list(v), device=device).logsumexp(0).item()  # noqa: E731
    assert t(-inf, -inf) == -inf and t(inf, inf) == inf and t(inf, -inf) == inf and t(inf, 1.0) == inf
    assert math.isnan(t(inf, nan)) and math.isnan(t(1.0, nan))
    assert flow.zeros(0, 2, device=device).logsumexp(0).tolist() == [-inf, -inf]
    assert flow.tensor([1, 2], dtype=flow.int8, device=device).logsumexp(0).dtype == flow.float32
    # long rows take the vectorised path with a tail: compare with the short formula
    v = np.linspace(-30, 30, 1000 + 7).astype(np.float32)
    got = flow.tensor(v, device=device).logsumexp(0).item()
    assert got == pytest.approx(float(np.log(np.sum(np.exp(v.astype(np.float64))))), rel=1e-6)
    with pytest.raises(IndexError, match="logsumexp.*out of range"):
        x.logsumexp(2)


# ---------------------------------------------------------------- all / any

@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), keepdim=st.booleans(), which=st.sampled_from(["all", "any"]))
def test_all_any(device, data, name, keepdim, which):
    kw = {"lo": -1, "hi": 1} if name != "bool" else {}
    X = data.draw(tensor_specs(dtype=name, nan=name in FLOATING, **kw), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dims = data.draw(reduce_dims(nd) | st.just(()), label="dims")
    keepdim = keepdim and dims is not None  # (torch's all() has no keepdim without dims)
    out = getattr(flow, which)(x, dims, keepdim)
    res = "uint8" if name == "uint8" else "bool"
    nz = X.values != 0  # NaN counts as non-zero
    fn = np.all if which == "all" else np.any
    if dims is not None and len(dims) == 0:
        exp = nz  # like torch: an explicit empty dim list reduces nothing
    else:
        exp = fn(nz, axis=axes_of(dims, nd), keepdims=keepdim) if nd else nz
    assert_values(out, exp.astype(NP[res]), res)
    if TORCH is not None:
        tx = torch_tensor(X)
        check_like_torch(out, getattr(tx, which)() if dims is None else getattr(tx, which)(tuple(dims), keepdim))


def test_all_any_examples(device):
    x = flow.tensor([[0, 1], [2, 3]], device=device)
    assert x.all().item() is False and x.any().item() is True
    assert x.all(1).tolist() == [False, True] and flow.any(x, 0, keepdim=True).shape == (1, 2)
    assert flow.zeros(0, device=device).all().item() is True and flow.zeros(0, device=device).any().item() is False
    assert flow.tensor([float("nan")], device=device).all().item() is True
    u = flow.tensor([1, 0], dtype=flow.uint8, device=device)
    assert u.all().dtype == flow.uint8 and u.any().item() == 1


# ---------------------------------------------------------------- sum

def test_float32_sum_is_accurate(device):
    # 2^20 copies of 0.1: sequential float accumulation is off by ~1e-2
    # relative; blocked/pairwise summation stays near float rounding.
    n = 1 << 20
    x = flow.full((n,), 0.1, dtype=flow.float32, device=device)
    exact = n * float(np.float32(0.1))
    assert abs(x.sum().item() - exact) / exact < 1e-6
    assert abs(x.mean().item() - float(np.float32(0.1))) / 0.1 < 1e-6
    # the same along a reduced dim that is not contiguous (column sums)
    m = flow.full((1 << 14, 8), 0.1, dtype=flow.float32, device=device)
    col = to_np(m.sum(0))
    assert np.all(np.abs(col - (1 << 14) * float(np.float32(0.1))) / ((1 << 14) * 0.1) < 1e-6)


def test_reductions_of_large_noncontiguous_tensors(device):
    # big enough for the threaded paths (split reductions, column chunks)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 700)).astype(np.float32)
    x = flow.tensor(a, device=device)
    for t, ref in ((x, a), (x.T, a.T), (x[:, ::3], a[:, ::3])):
        r64 = ref.astype(np.float64)
        np.testing.assert_allclose(to_np(t.sum(0)), r64.sum(0), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(to_np(t.sum(1)), r64.sum(1), rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(to_np(t.amax(0)), ref.max(0))
        np.testing.assert_array_equal(to_np(t.argmin(1)), ref.argmin(1))
        np.testing.assert_allclose(to_np(t.var(0)), r64.var(0, ddof=1), rtol=1e-5)
        np.testing.assert_allclose(to_np(t.norm(dim=1)), np.sqrt((r64 ** 2).sum(1)), rtol=1e-5)
        np.testing.assert_allclose(to_np(t.logsumexp(0)), np.log(np.exp(r64).sum(0)), rtol=1e-5)
        assert t.sum().item() == pytest.approx(float(r64.sum()), abs=1e-2)
        assert t.amax().item() == ref.max() and t.argmax().item() == int(np.argmax(ref))


def test_functions_and_methods_exist():
    for name in ("mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "norm",
                 "logsumexp", "all", "any", "cumsum", "cumprod", "softmax", "log_softmax", "sort", "argsort", "topk"):
        assert callable(getattr(flow, name)), name
        assert callable(getattr(flow.Tensor, name)), name
    for name in ("cumsum_", "cumprod_"):
        assert callable(getattr(flow.Tensor, name)), name
    import monoflow.return_types as rt

    assert rt.sort is flow.return_types.sort and rt.topk._fields == ("values", "indices")
