"""F.layer_norm's fused kernels (Note [Fused layer norm], core/src/ops_norm.cc)
against torch: values and gradients of input, weight and bias over random
shapes, normalized dims, dtypes and layouts, with and without affine terms;
second-order gradients (create_graph) and the composite path's agreement."""
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import monoflow as flow
from helpers import TORCH

torch = TORCH
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
TOL = {"float32": 2e-5, "float64": 1e-10, "float16": 2e-2, "bfloat16": 8e-2}


@needs_torch
@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=4), k=st.integers(1, 4),
       dtype=st.sampled_from(sorted(TOL)), affine=st.sampled_from(["both", "weight", "bias", "none"]),
       transposed=st.booleans(), seed=st.integers(0, 2 ** 16))
@example(shape=[3, 4, 7, 2], k=1, dtype="bfloat16", affine="both", transposed=False, seed=0)  # (torch's bf16 is off)
def test_matches_torch(shape, k, dtype, affine, transposed, seed):
    k = min(k, len(shape))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 3 + 1
    if transposed and len(shape) > 1:  # a non-contiguous input
        x = x.swapaxes(0, -1).copy().swapaxes(0, -1)
    norm = tuple(shape[len(shape) - k:])
    w, b = rng.standard_normal(norm), rng.standard_normal(norm)
    g = rng.standard_normal(shape)
    tdt, fdt = getattr(torch, dtype), getattr(flow, dtype)
    res = {}
    for lib, dt in ((torch, tdt), (flow, fdt)):
        xt = lib.tensor(x).to(dt)
        if transposed and len(shape) > 1:
            xt = xt.transpose(0, -1).contiguous().transpose(0, -1)
        xt.requires_grad_()
        wt = lib.tensor(w).to(dt).requires_grad_() if affine in ("both", "weight") else None
        bt = lib.tensor(b).to(dt).requires_grad_() if affine in ("both", "bias") else None
        y = lib.nn.functional.layer_norm(xt, norm, wt, bt, eps=1e-5)
        y.backward(lib.tensor(g).to(dt))
        res[lib.__name__] = [y, xt.grad] + [t.grad for t in (wt, bt) if t is not None]
    if dtype in ("float16", "bfloat16"):
        # the values: torch in float64 on the same rounded inputs. torch's own half-precision
        # gradient can be far off (over 2 nearly equal elements: -5.0 where float64 gives 0.028)
        xt = torch.tensor(x).to(tdt).double().requires_grad_()
        wt = torch.tensor(w).to(tdt).double().requires_grad_() if affine in ("both", "weight") else None
        bt = torch.tensor(b).to(tdt).double().requires_grad_() if affine in ("both", "bias") else None
        y = torch.nn.functional.layer_norm(xt, norm, wt, bt, eps=1e-5)
        y.backward(torch.tensor(g).to(tdt).double())
        ref = [y, xt.grad] + [t.grad for t in (wt, bt) if t is not None]
    else:
        ref = res["torch"]
    tol = TOL[dtype]
    for a, t, r in zip(res["monoflow"], res["torch"], ref):
        assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(a.detach().float().numpy(), r.detach().float().numpy(), rtol=tol, atol=tol * 20)


@needs_torch
def test_second_order_matches_torch():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in [(4, 3, 6), (6,), (6,)]]
    out = {}
    for lib in (torch, flow):
        x, w, b = (lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays)
        y = lib.nn.functional.layer_norm(x, (6,), w, b)
        gx, gw = lib.autograd.grad((y * y.sin()).sum(), [x, w], create_graph=True)
        (gx.square().sum() + gw.sum() * 3).backward()
        out[lib.__name__] = [x.grad, w.grad, b.grad]
    for a, t in zip(out["monoflow"], out["torch"]):
        np.testing.assert_allclose(a.numpy(), t.detach().numpy(), rtol=1e-9, atol=1e-10)


def test_fused_and_composite_paths_agree():
    """A weight of another dtype takes the composite: both paths give the same values."""
    x = flow.randn(5, 7, dtype=flow.float64)
    w = flow.randn(7, dtype=flow.float64)
    fused = flow.nn.functional.layer_norm(x, (7,), w)
    composite = flow.nn.functional.layer_norm(x, (7,), w.float()).double()
    np.testing.assert_allclose(fused.numpy(), composite.numpy(), rtol=1e-6, atol=1e-6)


def test_bad_arguments_name_layer_norm():
    with pytest.raises(RuntimeError, match="layer_norm"):
        flow.nn.functional.layer_norm(flow.randn(2, 3), (4,))
    with pytest.raises(RuntimeError, match="layer_norm"):
        flow.nn.functional.layer_norm(flow.randn(2, 3), (3,), flow.randn(4))


@pytest.mark.parametrize("shape,norm", [((0, 4), (4,)), ((3, 0), (0,)), ((2, 3, 0), (3, 0))])
def test_empty_inputs(shape, norm):
    x = flow.randn(*shape, requires_grad=True)
    m = flow.nn.LayerNorm(norm)
    y = m(x)
    y.sum().backward()
    assert y.shape == shape and x.grad.shape == shape
    assert m.weight.grad.shape == norm and float(m.weight.grad.abs().sum()) == 0
