"""Fixes found by running OneFlow's module tests (op slice 01) against monoflow,
each checked against torch or numpy."""
import numpy as np
import pytest
import torch

import monoflow as flow


# -- test_hann_window: window functions take placement=/sbp= like every creation function
@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_window_placement_sbp(name):
    placement = flow.placement("cpu", ranks=[0])
    sbp = (flow.sbp.broadcast,)
    out = getattr(flow, name)(7, False, placement=placement, sbp=sbp)
    assert out.sbp == sbp and out.placement == placement
    ref = getattr(torch, name)(7, False).numpy()
    np.testing.assert_allclose(out.to_local().numpy(), ref, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match=name):
        getattr(flow, name)(7, sbp=sbp)


# -- test_l1loss: OneFlow's loss layers take reduction first (nn.L1Loss("sum")); torch's legacy
#    positional size_average (a bool) keeps working
def test_loss_oneflow_positional_reduction():
    x, y = np.random.randn(3, 4).astype(np.float32), np.random.randn(3, 4).astype(np.float32)
    fx, fy, tx, ty = flow.tensor(x), flow.tensor(y), torch.tensor(x), torch.tensor(y)
    for red in ["none", "sum", "mean"]:
        for name in ["L1Loss", "MSELoss"]:
            out = getattr(flow.nn, name)(red)(fx, fy).numpy()
            np.testing.assert_allclose(out, getattr(torch.nn, name)(reduction=red)(tx, ty).numpy(), rtol=1e-6)
    m = flow.nn.SmoothL1Loss("sum", 0.5)
    np.testing.assert_allclose(m(fx, fy).numpy(), torch.nn.SmoothL1Loss(reduction="sum", beta=0.5)(tx, ty).numpy(),
                               rtol=1e-6)
    assert flow.nn.KLDivLoss("sum", True).log_target is True
    assert flow.nn.BCELoss(None, "sum").reduction == "sum"
    assert flow.nn.MarginRankingLoss(0.5, "sum").reduction == "sum"
    pw = flow.ones(4)
    assert flow.nn.BCEWithLogitsLoss(None, "none", pw).pos_weight is pw
    nll = flow.nn.NLLLoss(None, 1, "sum")
    assert (nll.ignore_index, nll.reduction) == (1, "sum")
    ce = flow.nn.CrossEntropyLoss(None, 2, "none")
    assert (ce.ignore_index, ce.reduction) == (2, "none")
    # torch's legacy positional flags
    assert flow.nn.L1Loss(False).reduction == torch.nn.L1Loss(False).reduction == "sum"
    assert flow.nn.NLLLoss(None, True).reduction == "mean"
    with pytest.raises(TypeError, match="L1Loss"):
        flow.nn.L1Loss("sum", False)


# -- test_logspace: logspace (and eye) take placement=/sbp=
def test_logspace_eye_placement_sbp():
    placement = flow.placement("cpu", ranks=[0])
    sbp = (flow.sbp.broadcast,)
    x = flow.logspace(start=0, end=3, steps=4, base=2.0, placement=placement, sbp=sbp)
    assert x.sbp == sbp and x.placement == placement
    np.testing.assert_allclose(x.to_local().numpy(), torch.logspace(0, 3, 4, base=2.0).numpy())
    e = flow.eye(3, 2, placement=placement, sbp=sbp)
    assert e.sbp == sbp
    np.testing.assert_array_equal(e.to_local().numpy(), torch.eye(3, 2).numpy())


# -- test_maxunpool: overlapping windows (stride < kernel) repeat an index; unpool writes the value
#    once (torch's scatter), it does not sum the repeats
@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_overlapping_windows(n):
    shape = (2, 3) + (9,) * n
    x = np.random.randn(*shape).astype(np.float32)
    tpool, tunpool = getattr(torch.nn.functional, f"max_pool{n}d"), getattr(torch.nn.functional, f"max_unpool{n}d")
    fpool, funpool = getattr(flow.nn.functional, f"max_pool{n}d"), getattr(flow.nn.functional, f"max_unpool{n}d")
    ty, ti = tpool(torch.tensor(x), 3, 1, return_indices=True)
    fy, fi = fpool(flow.tensor(x), 3, 1, return_indices=True)
    ty.requires_grad_(True)
    fy.requires_grad_(True)
    to = tunpool(ty, ti, 3, 1, output_size=shape[2:])
    fo = funpool(fy, fi, 3, 1, output_size=shape[2:])
    np.testing.assert_allclose(fo.detach().numpy(), to.detach().numpy(), rtol=1e-6)
    g = np.random.randn(*to.shape).astype(np.float32)
    to.backward(torch.tensor(g))
    fo.backward(flow.tensor(g))
    np.testing.assert_allclose(fy.grad.numpy(), ty.grad.numpy(), rtol=1e-6)


# -- test_optim_adadelta: Adadelta takes OneFlow's contiguous_params (same values as without)
def test_adadelta_contiguous_params():
    init = np.random.rand(10).astype(np.float32)
    grads = [np.random.rand(10).astype(np.float32) for _ in range(4)]
    outs = []
    for contiguous in (False, True):
        w = flow.nn.Parameter(flow.tensor(init))
        opt = flow.optim.Adadelta([w], lr=0.5, rho=0.6, weight_decay=0.1, contiguous_params=contiguous)
        assert opt.param_groups[0]["contiguous_params"] is contiguous
        for g in grads:
            (w * flow.tensor(g)).sum().backward()
            opt.step()
            opt.zero_grad()
        outs.append(w.detach().numpy())
    tw = torch.nn.Parameter(torch.tensor(init))
    topt = torch.optim.Adadelta([tw], lr=0.5, rho=0.6, weight_decay=0.1)
    for g in grads:
        (tw * torch.tensor(g)).sum().backward()
        topt.step()
        topt.zero_grad()
    for out in outs:
        np.testing.assert_allclose(out, tw.detach().numpy(), rtol=1e-5, atol=1e-6)
