"""Small compatibility fixes, each against torch: Tensor.type() names and
casts, Size slices, to()/contiguous() returning the tensor itself,
random_()'s three forms, bernoulli_(p tensor), linalg *_ex info, named-tuple
reprs, error types, and erfcx/log_ndtr/gammaln at the edges of their range."""
import math
import warnings

import numpy as np
import pytest

import monoflow as flow
from helpers import TORCH

needs_torch = pytest.mark.skipif(TORCH is None, reason="torch is not installed (reference oracle)")


# ---------------------------------------------------------------- Tensor.type, Size, identity of no-op casts

@needs_torch
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32",
                                "int64", "bool", "complex64", "complex128"])
def test_type_names(dt):
    # OneFlow's form ('oneflow.FloatTensor') with monoflow's name; the part after the dot is torch's
    x, t = flow.zeros(2, dtype=getattr(flow, dt)), TORCH.zeros(2, dtype=getattr(TORCH, dt))
    assert x.type() == "monoflow." + t.type().split(".", 1)[1]
    assert x.type(x.type()) is x


def test_type_casts():
    x = flow.ones(2, 3)
    assert x.type(flow.float32) is x
    for spec in (flow.float64, "torch.DoubleTensor", "monoflow.DoubleTensor", "oneflow.DoubleTensor",
                 flow.DoubleTensor):
        y = x.type(spec)
        assert y.dtype == flow.float64 and y.type() == "monoflow.DoubleTensor"
    assert x.type("torch.LongTensor").dtype == flow.int64
    with pytest.raises(ValueError, match="invalid type"):
        x.type("torch.FooTensor")
    with pytest.raises(TypeError, match="type"):
        x.type(3)


def test_size_slices_stay_sizes():
    s = flow.ones(2, 3, 4).shape
    assert isinstance(s[1:], flow.Size) and s[1:] == (3, 4) and repr(s[::2]) == "monoflow.Size([2, 4])"
    assert isinstance(s[0], int)
    assert isinstance(s + (5,), flow.Size) and isinstance((1,) + s, flow.Size) and isinstance(s * 2, flow.Size)
    assert s + (5,) == (2, 3, 4, 5) and (1,) + s == (1, 2, 3, 4)


def test_noop_to_and_contiguous_return_self():
    x = flow.randn(2, 3)
    assert x.contiguous() is x and x.to(flow.float32) is x and x.to("cpu") is x and x.to(x) is x
    assert x.float() is x and x.cpu() is x
    assert x.to(flow.float32, copy=True) is not x and x.to(flow.float64) is not x
    t = x.t()
    assert t.contiguous() is not t and t.contiguous().is_contiguous()


# ---------------------------------------------------------------- random_, bernoulli_

@pytest.mark.parametrize("dt,top", [("float32", 2 ** 24), ("float64", 2 ** 53), ("float16", 2 ** 11),
                                    ("uint8", 255), ("int8", 127), ("int32", 2 ** 31 - 1), ("bool", 1)])
def test_random_no_bound(dt, top):
    x = flow.empty(4000, dtype=getattr(flow, dt)).random_()
    v = x.double() if dt != "bool" else x.long()
    assert v.min().item() >= 0 and v.max().item() <= top
    if dt in ("uint8", "int8", "bool"):
        assert v.max().item() == top  # small ranges are covered


def test_random_forms():
    g = flow.Generator().manual_seed(0)
    a = flow.empty(1000).random_(5, generator=g)
    assert a.min().item() >= 0 and a.max().item() == 4
    b = flow.empty(1000).random_(3, 6)
    assert b.min().item() == 3 and b.max().item() == 5
    c = flow.empty(1000, dtype=flow.int64).random_(10, None)
    assert c.min().item() >= 10 and c.max().item() > 2 ** 40
    d = flow.empty(100).random_(to=2)
    assert set(d.tolist()) <= {0.0, 1.0}
    assert (flow.empty(100).random_(**{"from": 7, "to": 9}) >= 7).all()
    with pytest.raises(TypeError):
        flow.empty(2).random_(1, 2, 3)


def test_bernoulli_with_a_probability_tensor():
    p = flow.tensor([0.0, 1.0, 0.0, 1.0])
    out = flow.empty(3, 4).bernoulli_(p)
    np.testing.assert_array_equal(out.numpy(), np.tile([0.0, 1.0, 0.0, 1.0], (3, 1)))
    frac = flow.empty(20000).bernoulli_(flow.full((20000,), 0.25)).mean().item()
    assert abs(frac - 0.25) < 0.02
    x = flow.empty(3, dtype=flow.float64)
    assert x.bernoulli_(flow.tensor([1, 0, 1])) is x and x.tolist() == [1.0, 0.0, 1.0]


# ---------------------------------------------------------------- linalg *_ex

SINGULAR = [np.zeros((2, 2)), np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[0.0, 1.0], [0.0, 0.0]]),
            np.stack([np.eye(3), np.diag([1.0, 0.0, 2.0]), np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])]),
            np.array([[4.0, 2.0], [2.0, 3.0]])]
NOT_PD = [np.array([[1.0, 2.0], [2.0, 1.0]]), -np.eye(2), np.stack([np.eye(2), np.diag([1.0, -1.0])]),
          np.array([[4.0, 2.0], [2.0, 3.0]])]


@needs_torch
@pytest.mark.parametrize("k", range(len(SINGULAR)))
def test_inv_ex_solve_ex_info(k):
    a = SINGULAR[k]
    r, t = flow.linalg.inv_ex(flow.tensor(a)), TORCH.linalg.inv_ex(TORCH.tensor(a))
    assert r.info.dtype == flow.int32 and r.info.tolist() == t.info.tolist()
    ok = (t.info == 0).numpy()
    np.testing.assert_allclose(r.inverse.numpy()[ok], t.inverse.numpy()[ok], rtol=1e-12)
    assert np.isnan(r.inverse.numpy()[~ok]).all()
    b = np.ones(a.shape[:-1])
    r, t = flow.linalg.solve_ex(flow.tensor(a), flow.tensor(b)), TORCH.linalg.solve_ex(TORCH.tensor(a),
                                                                                       TORCH.tensor(b))
    assert r.info.tolist() == t.info.tolist() and tuple(r.result.shape) == tuple(t.result.shape)
    np.testing.assert_allclose(r.result.numpy()[ok], t.result.numpy()[ok], rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("k", range(len(NOT_PD)))
def test_cholesky_ex_info(k):
    a = NOT_PD[k]
    r, t = flow.linalg.cholesky_ex(flow.tensor(a)), TORCH.linalg.cholesky_ex(TORCH.tensor(a))
    assert r.info.tolist() == t.info.tolist()
    ok = (t.info == 0).numpy()
    np.testing.assert_allclose(r.L.numpy()[ok], t.L.numpy()[ok], rtol=1e-12)


@needs_torch
def test_ex_check_errors_and_gradients():
    for fn, args in ((flow.linalg.inv_ex, ()), (flow.linalg.solve_ex, (flow.ones(2, 2),))):
        with pytest.raises(RuntimeError, match=r"\(Batch element 1\)"):
            fn(flow.stack([flow.eye(2), flow.zeros(2, 2)]), *args, check_errors=True)
    with pytest.raises(RuntimeError, match="leading minor of order 1"):
        flow.linalg.cholesky_ex(-flow.eye(2), check_errors=True)
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    x, t = flow.tensor(a, requires_grad=True), TORCH.tensor(a, requires_grad=True)
    flow.linalg.inv_ex(x).inverse.sum().backward()
    TORCH.linalg.inv_ex(t).inverse.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_return_type_reprs():
    assert repr(flow.linalg.inv_ex(flow.eye(2))).startswith("monoflow.return_types.linalg_inv_ex(\ninverse=")
    assert repr(flow.ones(2, 2).max(0)).startswith("monoflow.return_types.max(\nvalues=")


# ---------------------------------------------------------------- error types as torch

def test_error_types():
    with pytest.raises(RuntimeError, match="same dtype"):
        flow.ones(2, 2) @ flow.ones(2, 2, dtype=flow.float64)
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        flow.broadcast_shapes((2, 3), (4, 3))
    for L in (flow, TORCH):  # torch's type for shapes that do not broadcast, in ops too
        with pytest.raises(RuntimeError):
            L.ones(2, 3) * L.ones(4)
    assert flow.broadcast_shapes((2, 1), (1, 3), ()) == (2, 3)


# ---------------------------------------------------------------- special functions at the edges

def _rel(a, b):
    fin = np.isfinite(b) & (np.abs(b) > np.finfo(np.float64).tiny)  # (denormal values carry fewer digits)
    return np.max(np.abs(a[fin] - b[fin]) / np.abs(b[fin]))


@needs_torch
@pytest.mark.parametrize("name", ["erfcx", "log_ndtr"])
def test_erfcx_log_ndtr_tails(name):
    xs = np.concatenate([np.linspace(-38, 38, 1521), [-1e3, 1e3, 1e5, 1e10, 1e300, 3.999999, 4.0, 4.0001,
                                                      1e-3, -1e-3, 0.0]])
    r = getattr(flow.special, name)(flow.tensor(xs)).numpy()
    t = getattr(TORCH.special, name)(TORCH.tensor(xs)).numpy()
    assert _rel(r, t) < 2e-13
    np.testing.assert_array_equal(r[~np.isfinite(t)], t[~np.isfinite(t)])
    for edge in (np.inf, -np.inf, np.nan):
        e = getattr(flow.special, name)(flow.tensor([edge])).numpy()
        np.testing.assert_array_equal(e, getattr(TORCH.special, name)(TORCH.tensor([edge])).numpy())
    # float32 keeps the tails too (no overflow of exp(x^2) or underflow of the CDF)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x32 = np.linspace(-30, 30, 601).astype("float32")
        r32 = getattr(flow.special, name)(flow.tensor(x32)).numpy().astype(np.float64)
        t32 = getattr(TORCH.special, name)(TORCH.tensor(x32.astype(np.float64))).numpy()
    normal = (np.abs(t32) > np.finfo(np.float32).tiny) & (np.abs(t32) < np.finfo(np.float32).max)
    assert _rel(r32[normal], t32[normal]) < 1e-6


@needs_torch
def test_erfcx_log_ndtr_gradients():
    for name, v in (("erfcx", [-20.0, -3.0, -0.5, 0.0, 0.5, 3.9, 4.1, 10.0, 100.0]),
                    ("log_ndtr", [-40.0, -3.0, -0.5, 0.0, 0.5, 3.9, 4.1, 10.0])):
        x, t = flow.tensor(v, dtype=flow.float64, requires_grad=True), TORCH.tensor(v, dtype=TORCH.float64,
                                                                                    requires_grad=True)
        getattr(flow.special, name)(x).sum().backward()
        getattr(TORCH.special, name)(t).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
def test_gammaln_near_its_roots():
    # (torch, not math.lgamma: CPython's own Lanczos loses digits near the roots too)
    xs = np.concatenate([np.linspace(0.7, 2.3, 801), [1.0, 2.0, 1 + 1e-9, 2 - 1e-7, 0.75, 1.25, 1.75, 2.25]])
    r = flow.special.gammaln(flow.tensor(xs)).numpy()
    ref = TORCH.special.gammaln(TORCH.tensor(xs)).numpy()
    assert _rel(r, ref) < 1e-12
    far = np.array([0.3, 3.5, 10.5, 100.0, -2.5])
    np.testing.assert_allclose(flow.special.gammaln(flow.tensor(far)).numpy(), [math.lgamma(v) for v in far],
                               rtol=1e-13)
    assert flow.special.gammaln(flow.tensor([1.0, 2.0])).tolist() == [0.0, 0.0]
    assert flow.lgamma(flow.tensor([1.0, 2.0], dtype=flow.float64)).tolist() == [0.0, 0.0]
