"""Properties of the dim-wise reduce ops on every registered device: cumsum,
cumprod, softmax, log_softmax, sort, argsort and topk, against numpy
references from the exact input values (torch as the oracle of dtypes,
shapes and errors); also the vectorised softmax paths at every SIMD width
the CPU offers."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from helpers import (
    DTYPES, EPS, FLOATING, FLOW, INTEGRAL, TORCH, assert_values, category, device_settings, tdt,
    tensor_specs, to_np,
)

TINY = {n: float(np.finfo(np.float32 if n == "bfloat16" else n).tiny) for n in FLOATING}


def torch_tensor(spec):
    if spec.name == "bfloat16":
        return TORCH.from_numpy(spec.values.copy()).to(TORCH.bfloat16)
    return TORCH.from_numpy(spec.values.copy())


def check_like_torch(out, expected_torch):
    assert out.dtype == FLOW[str(expected_torch.dtype).replace("torch.", "")], (out.dtype, expected_torch.dtype)
    assert tuple(out.shape) == tuple(expected_torch.shape), (tuple(out.shape), tuple(expected_torch.shape))


def dim_of(draw, nd):
    n = max(nd, 1)
    return draw(st.integers(-n, n - 1))


def along(values, dim, fn):
    """fn applied to every 1-D slice of `values` along `dim` (a 0-dim array is one slice of one)."""
    if values.ndim == 0:
        return np.asarray(fn(values.reshape(1))).reshape(())
    return np.apply_along_axis(fn, dim % values.ndim, values) if values.size else np.asarray(values)


# ---------------------------------------------------------------- cumsum / cumprod

@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), which=st.sampled_from(["cumsum", "cumprod"]))
def test_cumsum_cumprod(device, data, name, which):
    kw = {"lo": -100, "hi": 100} if name in FLOATING else {}
    if which == "cumprod":
        kw = {"lo": -2, "hi": 2} if name in FLOATING else {"lo": -3, "hi": 3} if category(name) == 1 else {}
    X = data.draw(tensor_specs(dtype=name, **kw), label="x")
    if which == "cumprod" and name in FLOATING:
        X.values[np.abs(X.values) < 0.5] = 0  # partial products stay in float range (|x| >= 0.5 or 0)
    x = X.make(device)
    nd = X.values.ndim
    dim = dim_of(data.draw, nd)
    dt = data.draw(st.sampled_from([None, None, "int64", "float64", "float32"]), label="dtype")
    if dt is not None and category(dt) == 1 and name in FLOATING:
        dt = None
    out = getattr(flow, which)(x, dim, dtype=None if dt is None else FLOW[dt])
    res = dt or (name if name in FLOATING else "int64")
    fn = np.cumsum if which == "cumsum" else np.cumprod
    if category(res) == 2:
        src = X.values.astype(np.float64)
        exp = along(src, dim, fn)
        n = X.values.shape[dim % nd] if nd else 1
        bound = along(np.abs(src), dim, fn) if which == "cumsum" else np.abs(exp)
        assert_values(out, exp, res, atol=(n + 2) * EPS[res] * bound + TINY[res])
    else:
        with np.errstate(all="ignore"):
            exp = along(X.values.astype(np.int64), dim, fn)  # wraps like int64
        assert_values(out, exp, res)
    assert out.is_contiguous()
    if TORCH is not None:
        check_like_torch(out, getattr(TORCH, which)(torch_tensor(X), dim, dtype=None if dt is None else tdt(dt)))


def test_cumsum_examples(device):
    x = flow.arange(6, device=device).reshape(2, 3)
    assert x.cumsum(0).tolist() == [[0, 1, 2], [3, 5, 7]] and x.cumsum(-1).tolist() == [[0, 1, 3], [3, 7, 12]]
    assert flow.tensor([True, True], device=device).cumsum(0).tolist() == [1, 2]
    assert flow.full((300,), 100, dtype=flow.int8, device=device).cumsum(0)[-1].item() == 30000  # int64
    assert x.cumprod(1, dtype=flow.float64).tolist() == [[0.0, 0.0, 0.0], [3.0, 12.0, 60.0]]
    assert x.cumsum(0, dtype=flow.int32).dtype == flow.int32
    z = flow.tensor(3, device=device)
    assert z.cumsum(0).item() == 3 and z.cumsum(0).shape == ()
    assert flow.zeros(0, 3, device=device).cumsum(0).shape == (0, 3)
    y = flow.tensor([[1, 2], [3, 4]], dtype=flow.int32, device=device)
    v = y._version
    assert y.cumsum_(1) is y and y.tolist() == [[1, 3], [3, 7]] and y.dtype == flow.int32 and y._version > v
    y.T.cumprod_(1)
    assert y.tolist() == [[1, 3], [3, 21]]
    with pytest.raises(IndexError, match="cumsum.*out of range"):
        x.cumsum(2)
    with pytest.raises(IndexError, match="cumprod.*out of range"):
        x.cumprod(-3)


# ---------------------------------------------------------------- softmax / log_softmax

def np_softmax(a, dim, log):
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 0:
        a1 = np_softmax(a.reshape(1), 0, log)
        return a1.reshape(())
    with np.errstate(all="ignore"):
        m = np.max(a, axis=dim, keepdims=True) if a.size else a
        z = a - m
        s = np.sum(np.exp(z), axis=dim, keepdims=True)
        return z - np.log(s) if log else np.exp(z) / s


@device_settings
@given(data=st.data(), name=st.sampled_from(FLOATING + ("int64",)), log=st.booleans())
def test_softmax_log_softmax(device, data, name, log):
    shape = data.draw(st.lists(st.integers(0, 5), max_size=3) | st.tuples(st.integers(1, 3), st.integers(30, 70)),
                      label="shape")  # (long rows: the vector loops and their tails)
    X = data.draw(tensor_specs(dtype=name, shape=shape, nan=data.draw(st.booleans(), label="nan"),
                               **({"lo": -30, "hi": 30} if name != "int64" else {"lo": -20, "hi": 20})), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dim = dim_of(data.draw, nd)
    dt = None if name != "int64" and data.draw(st.booleans()) else data.draw(st.sampled_from(FLOATING))
    fn = flow.log_softmax if log else flow.softmax
    out = fn(x, dim, dtype=None if dt is None else FLOW[dt])
    res = dt or name
    src = X.values.astype(np.float64)
    if dt is not None:
        src = to_np(flow.tensor(X.values).to(FLOW[dt])).astype(np.float64)  # the op sees x cast first
    exp = np_softmax(src, dim % max(nd, 1), log)
    # x - max(x) rounds to `res` (an error relative to |x| + |max|, which exp
    # turns into a relative one); exp itself is within ~1 ulp
    with np.errstate(all="ignore"):
        big = np.max(np.abs(src), axis=dim % nd, keepdims=True) if nd and src.size else np.abs(src)
        amp = 2 + np.abs(src) + np.where(np.isfinite(big), big, 0)
        tol = 8 * EPS[res] * amp * (1 if log else np.abs(exp)) + TINY[res]
    assert_values(out, exp, res, atol=tol)
    assert out.is_contiguous()
    if TORCH is not None:
        tfn = TORCH.log_softmax if log else TORCH.softmax
        check_like_torch(out, tfn(torch_tensor(X), dim, dtype=None if dt is None else tdt(dt)))


def test_softmax_examples_and_errors(device):
    inf, nan = math.inf, math.nan
    row = lambda *v: flow.tensor(list(v), device=device)  # noqa: E731
    assert row(0.0, -inf).softmax(0).tolist() == [1.0, 0.0] and row(0.0, -inf).log_softmax(0).tolist() == [0.0, -inf]
    assert all(math.isnan(v) for v in row(-inf, -inf).softmax(0).tolist())
    assert all(math.isnan(v) for v in row(1.0, nan, 2.0).softmax(0).tolist())
    assert all(math.isnan(v) for v in row(inf, 1.0).softmax(0).tolist())
    big = row(1000.0, 1000.0, -1000.0)
    assert big.softmax(0).tolist() == pytest.approx([0.5, 0.5, 0.0]) and big.log_softmax(0)[0].item() == pytest.approx(
        -math.log(2))
    assert flow.tensor(3.0, device=device).softmax(0).item() == 1.0
    h = flow.tensor([[1.0, 2.0]], dtype=flow.float16, device=device)
    assert h.softmax(-1).dtype == flow.float16 and flow.softmax(h, 1, dtype=flow.float32).dtype == flow.float32
    assert flow.zeros(0, 4, device=device).softmax(1).shape == (0, 4)
    i = flow.arange(4, device=device)
    assert i.softmax(0, dtype=flow.float64).sum().item() == pytest.approx(1.0)
    with pytest.raises(NotImplementedError, match="softmax.*Long"):
        i.softmax(0)
    with pytest.raises(NotImplementedError, match="log_softmax"):
        flow.log_softmax(i, 0)
    with pytest.raises(IndexError, match="softmax.*out of range"):
        h.softmax(2)


def test_softmax_over_non_innermost_dims(device):
    # float32 rows that lie side by side in memory take the column path
    # (blocks of adjacent rows, including blocks narrower than the width)
    rng = np.random.default_rng(1)
    for shape, dim in (((50, 37), 0), ((5000, 37), 0), ((3, 40, 21), 1), ((7, 6, 5), 0)):
        a = (rng.standard_normal(shape) * 10).astype(np.float32)
        a.flat[::97] = -np.inf
        x = flow.tensor(a, device=device)
        for log in (False, True):
            got = to_np((flow.log_softmax if log else flow.softmax)(x, dim))
            exp = np_softmax(a, dim, log)
            np.testing.assert_allclose(got, exp, rtol=2e-6, atol=1e-6 if not log else 1e-5)
    t = flow.tensor(rng.standard_normal((9, 33)).astype(np.float32), device=device)[:, ::2]  # strided rows
    np.testing.assert_allclose(to_np(t.softmax(1)), np_softmax(to_np(t), 1, False), rtol=2e-6, atol=1e-7)


SIMD_SCRIPT = r"""
import numpy as np, monoflow as flow
rng = np.random.default_rng(2)
a = (rng.standard_normal((64, 77)) * 20).astype(np.float32)
a[3, 5] = -np.inf
x = flow.from_numpy(a)
a64 = a.astype(np.float64)
m = a64.max(1, keepdims=True)
ref = np.exp(a64 - m) / np.exp(a64 - m).sum(1, keepdims=True)
np.testing.assert_allclose(x.softmax(1).numpy(), ref, rtol=2e-6, atol=1e-7)
np.testing.assert_allclose(x.log_softmax(1).numpy(), np.log(ref), rtol=2e-6, atol=1e-5)
np.testing.assert_allclose(x.softmax(0).numpy(), (np.exp(a64 - a64.max(0)) / np.exp(a64 - a64.max(0)).sum(0)),
                           rtol=2e-6, atol=1e-7)
np.testing.assert_allclose(x.logsumexp(1).numpy(), np.log(np.exp(a64 - m).sum(1)) + m[:, 0], rtol=1e-6)
assert np.isnan(flow.tensor([1.0, float("nan")] * 40).softmax(0).numpy()).all()
print("ok")
"""


@pytest.mark.parametrize("level", ["baseline", "avx2"])
def test_softmax_at_narrower_simd_widths(level):
    # The float kernels are built for several vector widths and the widest
    # the CPU has runs; MONOFLOW_CPU_SIMD caps it, so the others are checked
    # here in a fresh process.
    env = dict(os.environ, MONOFLOW_CPU_SIMD=level)
    r = subprocess.run([sys.executable, "-c", SIMD_SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


# ---------------------------------------------------------------- sort / argsort / topk

def ref_order(row, descending):
    """Stable order of a 1-D array with NaN above every number."""
    def key(i):
        v = row[i]
        nan = v != v
        if descending:
            return (0 if nan else 1, 0 if nan else -float(v))
        return (1 if nan else 0, 0 if nan else float(v))
    return sorted(range(len(row)), key=key)


def sorted_along(values, dim, descending, k=None):
    """(values, indices) of the stable sort along dim, first k of each row."""
    if values.ndim == 0:
        return values.copy(), np.array(0)
    moved = np.moveaxis(values, dim, -1)
    k = moved.shape[-1] if k is None else k
    idx = np.zeros(moved.shape[:-1] + (k,), dtype=np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        idx[pos] = ref_order(moved[pos], descending)[:k]
    vals = np.take_along_axis(moved, idx, axis=-1)
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), descending=st.booleans(), stable=st.booleans())
def test_sort_argsort(device, data, name, descending, stable):
    kw = {"lo": -3, "hi": 3} if name != "bool" else {}  # ties are common
    X = data.draw(tensor_specs(dtype=name, nan=name in FLOATING, **kw), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dim = dim_of(data.draw, nd)
    r = flow.sort(x, dim, descending, stable=stable) if data.draw(st.booleans()) else x.sort(dim=dim,
                                                                                            descending=descending)
    assert isinstance(r, flow.return_types.sort)
    exp_v, exp_i = sorted_along(X.values, dim % max(nd, 1), descending)
    assert_values(r.values, exp_v, name)
    assert_values(r.indices, exp_i, "int64")  # monoflow always sorts stably
    assert_values(flow.argsort(x, dim, descending, stable=stable), exp_i, "int64")
    if TORCH is not None:
        tv, ti = TORCH.sort(torch_tensor(X), dim=dim, descending=descending, stable=True)
        check_like_torch(r.values, tv)
        np.testing.assert_array_equal(to_np(r.indices), ti.numpy())


@device_settings
@given(data=st.data(), name=st.sampled_from(INTEGRAL + FLOATING), largest=st.booleans(), sorted_=st.booleans())
def test_topk(device, data, name, largest, sorted_):
    X = data.draw(tensor_specs(dtype=name, nan=name in FLOATING, lo=-3, hi=3), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dim = dim_of(data.draw, nd)
    n = X.values.shape[dim % nd] if nd else 1
    k = data.draw(st.integers(0, n), label="k")
    values, indices = flow.topk(x, k, dim, largest, sorted_)
    if nd == 0:
        exp_v, exp_i = X.values, np.array(0)
    else:
        exp_v, exp_i = sorted_along(X.values, dim % nd, largest, k)
    # (unsorted results come in the sorted order too; ties: the lower index first)
    assert_values(values, exp_v, name)
    assert_values(indices, exp_i, "int64")
    if TORCH is not None and nd:
        tv, ti = TORCH.topk(torch_tensor(X), k, dim, largest, True)
        check_like_torch(values, tv)
        check_like_torch(indices, ti)
        np.testing.assert_array_equal(to_np(values), tv.float().numpy() if name == "bfloat16" else tv.numpy())


def test_sort_topk_examples_and_errors(device):
    nan, inf = math.nan, math.inf
    f = flow.tensor([3.0, nan, 1.0, -inf, 1.0], device=device)
    v, i = f.sort()
    assert v.tolist()[:4] == [-inf, 1.0, 1.0, 3.0] and math.isnan(v.tolist()[4]) and i.tolist() == [3, 2, 4, 0, 1]
    v, i = f.sort(descending=True)
    assert math.isnan(v.tolist()[0]) and i.tolist() == [1, 0, 2, 4, 3]
    assert f.argsort().tolist() == [3, 2, 4, 0, 1] and flow.argsort(f, descending=True).tolist() == [1, 0, 2, 4, 3]
    assert flow.tensor([True, False], device=device).sort().indices.tolist() == [1, 0]
    r = flow.tensor([2, 2, 1, 2], device=device).topk(2)
    assert r.values.tolist() == [2, 2] and r.indices.tolist() == [0, 1]
    assert "monoflow.return_types.topk(" in repr(r)
    t = flow.tensor([[1.0, 5.0, 3.0], [4.0, 0.0, 6.0]], device=device)
    assert t.topk(1, dim=0).indices.tolist() == [[1, 0, 1]] and t.topk(2, largest=False).values.tolist() == [
        [1.0, 3.0], [0.0, 4.0]]
    assert flow.topk(f, 2).values.tolist()[1] == 3.0  # NaN counts as the largest
    assert t.topk(0).values.shape == (2, 0) and flow.zeros(0, 3, device=device).sort(0).values.shape == (0, 3)
    z = flow.tensor(3.0, device=device)
    assert z.sort().values.item() == 3.0 and z.topk(1).indices.item() == 0
    big = flow.tensor(np.arange(1000, dtype=np.float32)[::-1].copy(), device=device)
    assert big.topk(3, largest=False).values.tolist() == [0.0, 1.0, 2.0]  # (the heap-selection path)
    with pytest.raises(RuntimeError, match="topk.*out of range"):
        t.topk(4)
    with pytest.raises(RuntimeError, match="topk.*out of range"):
        t.topk(-1)
    with pytest.raises(RuntimeError, match="topk.*bool"):
        flow.tensor([True], device=device).topk(1)
    with pytest.raises(IndexError, match="sort.*out of range"):
        t.sort(2)
    with pytest.raises(IndexError, match="topk.*out of range"):
        t.topk(1, dim=-3)
