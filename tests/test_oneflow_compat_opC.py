"""OneFlow module-test compatibility (helper opC): behaviours found by running
OneFlow's python/oneflow/test/modules tests against monoflow, checked against
torch or numpy."""
import numpy as np
import pytest
import torch

import monoflow as flow


# --- nn.QatConv1d/2d/3d (OneFlow test_qat_conv_modules) ------------------------

def _fake_quant_np(x, bit, scheme, per_channel=False):
    xs = x.reshape(x.shape[0], -1) if per_channel else x.reshape(1, -1)
    view = (-1,) + (1,) * (x.ndim - 1) if per_channel else ()
    if scheme == "symmetric":
        top = 2.0 ** (bit - 1) - 1
        s = (np.abs(xs).max(1) / top).reshape(view)
        return np.clip(np.round(x / s), -top, top) * s
    lo, hi = xs.min(1), xs.max(1)
    s = ((hi - lo) / (2.0 ** bit - 1)).reshape(view)
    z = (-np.round(lo / s.reshape(-1))).reshape(view)
    return (np.clip(np.round(x / s + z), 0, 2.0 ** bit - 1) - z) * s


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
@pytest.mark.parametrize("per_layer", [True, False])
def test_qat_conv_matches_torch_conv_of_fake_quantized_operands(n, scheme, per_layer):
    flow.manual_seed(0)
    m = getattr(flow.nn, f"QatConv{n}d")(2, 3, 3, stride=2, padding=1, quantization_bit=4,
                                         quantization_scheme=scheme, weight_quant_per_layer=per_layer)
    x_np = np.random.RandomState(n).randn(2, 2, *([7] * n)).astype(np.float64)
    x = flow.tensor(x_np, dtype=flow.float32, requires_grad=True)
    y = m(x)
    y.sum().backward()
    w_np = m.weight.detach().numpy().astype(np.float64)
    xq = torch.tensor(_fake_quant_np(x_np, 4, scheme), requires_grad=True)
    wq = torch.tensor(_fake_quant_np(w_np, 4, scheme, per_channel=not per_layer))
    conv = getattr(torch.nn.functional, f"conv{n}d")
    ref = conv(xq, wq, torch.tensor(m.bias.detach().numpy(), dtype=torch.float64), stride=2, padding=1)
    ref.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    # the input's gradient passes straight through the fake quantization
    np.testing.assert_allclose(x.grad.numpy(), xq.grad.numpy(), rtol=1e-4, atol=1e-4)
    assert m.weight.grad is not None and m.weight.grad.shape == m.weight.shape
    assert m.current_train_step.dtype == flow.int64
    assert float(m.input_min_max_observer.moving_max[0]) > 0


def test_qat_conv_checks_its_options():
    with pytest.raises(ValueError, match="quantization_bit"):
        flow.nn.QatConv2d(1, 1, 1, quantization_bit=9)
    assert isinstance(flow.nn.QatConv2d(1, 1, 1), flow.nn.Conv2d)


# --- optim.LBFGS(contiguous_params=) (OneFlow test_optim_lbfgs) ----------------

def test_lbfgs_accepts_contiguous_params_same_steps_as_torch():
    init = np.random.RandomState(0).rand(6)
    g = np.random.RandomState(1).rand(6)
    results = []
    for lib, kw in ((torch, {}), (flow, {"contiguous_params": True})):
        p = lib.nn.Parameter(lib.tensor(init.copy()))
        opt = lib.optim.LBFGS([p], lr=0.1, line_search_fn="strong_wolfe", **kw)
        gt = lib.tensor(g)

        def closure():
            opt.zero_grad()
            loss = (p * p * gt).sum()
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        results.append(p.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6, atol=1e-8)
    opt2 = flow.optim.LBFGS([flow.nn.Parameter(flow.zeros(2))], contiguous_params=True)
    assert opt2.param_groups[0]["contiguous_params"] is True


# --- rand_like/randn_like/randint_like(placement=, sbp=) (OneFlow test_randn_like, test_randint_like)

@pytest.mark.parametrize("fn,args", [("rand_like", ()), ("randn_like", ()), ("randint_like", (0, 16))])
def test_like_creation_takes_placement_and_sbp(fn, args):
    placement = flow.placement("cpu", ranks=[0])
    sbp = (flow.sbp.broadcast,)
    dtype = flow.int32 if fn == "randint_like" else flow.float64
    x = getattr(flow, fn)(flow.randn(10, 1), *args, placement=placement, sbp=sbp, dtype=dtype)
    assert x.dtype == dtype and x.sbp == sbp and x.placement == placement
    assert tuple(x.shape) == (10, 1)
    with pytest.raises(ValueError, match="sbp"):
        getattr(flow, fn)(flow.randn(2), *args, sbp=sbp)
