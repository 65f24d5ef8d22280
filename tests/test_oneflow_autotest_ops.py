"""Behaviours that OneFlow's module tests (python/oneflow/test/modules, run
through its autotest harness) expect from monoflow, found by running those
tests against monoflow. Oracles: torch and numpy."""
import numpy as np
import pytest

import monoflow as flow
from helpers import TORCH

torch = TORCH
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


# --- ONEFLOW_ENABLE_NHWC: channels-last 2-D pooling modules ------------------

@needs_torch
@pytest.mark.parametrize("cls", ["MaxPool2d", "AvgPool2d"])
def test_pool2d_built_under_oneflow_enable_nhwc_is_channels_last(monkeypatch, cls):
    arr = np.random.RandomState(0).randn(2, 9, 11, 3)
    monkeypatch.setenv("ONEFLOW_ENABLE_NHWC", "1")
    m = getattr(flow.nn, cls)(kernel_size=3, stride=2, padding=1, ceil_mode=True)
    monkeypatch.setenv("ONEFLOW_ENABLE_NHWC", "0")
    x = flow.tensor(arr, requires_grad=True)
    y = m(x)
    tx = torch.tensor(arr.transpose(0, 3, 1, 2), requires_grad=True)
    ty = getattr(torch.nn, cls)(kernel_size=3, stride=2, padding=1, ceil_mode=True)(tx).permute(0, 2, 3, 1)
    assert tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-6, atol=1e-9)
    g = np.random.RandomState(1).rand(*ty.shape)
    y.backward(flow.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.permute(0, 2, 3, 1).numpy(), rtol=1e-6, atol=1e-9)
    # a module built without the variable stays channels-first
    assert tuple(getattr(flow.nn, cls)(3)(flow.randn(1, 2, 6, 6)).shape) == (1, 2, 2, 2)


def test_nhwc_maxpool2d_returns_indices_channels_last_and_refuses_other_ranks(monkeypatch):
    monkeypatch.setenv("ONEFLOW_ENABLE_NHWC", "1")
    m = flow.nn.MaxPool2d(2, return_indices=True)
    out, idx = m(flow.randn(1, 4, 4, 3))
    assert tuple(out.shape) == (1, 2, 2, 3) and tuple(idx.shape) == (1, 2, 2, 3)
    with pytest.raises(ValueError, match="MaxPool2d"):
        m(flow.randn(4, 4, 3))


# --- where: a condition of any dtype (OneFlow) --------------------------------

@needs_torch
@pytest.mark.parametrize("dtype", [flow.int32, flow.int64, flow.float32, flow.uint8])
def test_where_takes_a_non_bool_condition_as_nonzero(dtype):
    rs = np.random.RandomState(0)
    c = rs.randint(-1, 2, size=(3, 1, 4))
    a, b = rs.randn(2, 4), rs.randn(3, 2, 1)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    fa, fb = flow.tensor(a, requires_grad=True), flow.tensor(b, requires_grad=True)
    tout = torch.where(torch.tensor(c != 0), ta, tb)
    fout = flow.where(flow.tensor(c, dtype=dtype), fa, fb)
    np.testing.assert_array_equal(fout.numpy(), tout.detach().numpy())
    tout.sum().backward()
    fout.sum().backward()
    np.testing.assert_array_equal(fa.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(fb.grad.numpy(), tb.grad.numpy())
    # the Tensor method and number operands take it too
    np.testing.assert_array_equal(fa.where(flow.tensor(c, dtype=dtype), 0.0).detach().numpy(),
                                  torch.where(torch.tensor(c != 0), ta, 0.0).detach().numpy())
    assert flow.where(flow.tensor([1], dtype=dtype), 0.5, 2.0).dtype == flow.float32


# --- full with a one-element tensor fill value ---------------------------------

@needs_torch
@pytest.mark.parametrize("value", [2.5, 3, True, -1.25])
def test_full_with_a_tensor_fill_value_matches_torch(value):
    tv = torch.tensor(value)
    fv = flow.tensor(value)
    t = torch.full((2, 3), tv)
    f = flow.full((2, 3), fv)
    assert str(f.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    f = flow.full((4,), fv, dtype=flow.float64, requires_grad=True)
    assert f.requires_grad and f.is_leaf and f.dtype == flow.float64
    assert f.numpy().tolist() == [float(value)] * 4


def test_full_with_a_tensor_fill_value_traces_in_a_graph():
    class G(flow.nn.Graph):
        def build(self, v):
            return flow.full((2, 2), v)

    out = G()(flow.tensor(1.5))
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 1.5, np.float32))
    with pytest.raises(RuntimeError, match="full"):
        flow.full((2,), flow.tensor([1.0, 2.0]))


# --- OneFlow's optimizer options: do_bias_correction, contiguous_params --------

def _numpy_adam(x, grads, lr, betas, eps, wd, bias_correction, amsgrad):
    m, v, vmax = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    for t, g in enumerate(grads, 1):
        g = g + wd * x
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        vmax = np.maximum(vmax, v)
        bc1, bc2 = (1 - betas[0] ** t, 1 - betas[1] ** t) if bias_correction else (1.0, 1.0)
        x = x - (lr / bc1) * m / (np.sqrt(vmax if amsgrad else v) / np.sqrt(bc2) + eps)
    return x


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
@pytest.mark.parametrize("bias_correction", [True, False])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_do_bias_correction_survives_a_state_dict_reload(cls, bias_correction, amsgrad):
    rs = np.random.RandomState(3)
    x0 = rs.uniform(size=(6,))
    grads = [rs.uniform(size=(6,)) for _ in range(6)]
    p = flow.nn.Parameter(flow.tensor(x0))
    opt = getattr(flow.optim, cls)([{"params": [p], "lr": 0.1, "betas": (0.9, 0.8), "weight_decay": 0.0}],
                                   amsgrad=amsgrad, do_bias_correction=bias_correction, contiguous_params=True)
    for i, g in enumerate(grads):
        (p * flow.tensor(g)).sum().backward()
        opt.step()
        opt.zero_grad()
        if i == 2:  # a fresh optimizer takes the saved options, as OneFlow's tests reload it
            state = opt.state_dict()
            opt = getattr(flow.optim, cls)([p], contiguous_params=True)
            opt.load_state_dict(state)
    assert opt.param_groups[0]["do_bias_correction"] is bias_correction
    expected = _numpy_adam(x0, grads, 0.1, (0.9, 0.8), 1e-8, 0.0, bias_correction, amsgrad)
    np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


@needs_torch
def test_sgd_accepts_contiguous_params_and_updates_as_torch():
    x0 = np.random.RandomState(4).randn(5)
    p, tp = flow.nn.Parameter(flow.tensor(x0)), torch.nn.Parameter(torch.tensor(x0))
    opt = flow.optim.SGD([p], lr=0.1, momentum=0.9, contiguous_params=True)
    topt = torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    for _ in range(3):
        (p * p).sum().backward(); opt.step(); opt.zero_grad()
        (tp * tp).sum().backward(); topt.step(); topt.zero_grad()
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-12)
    assert opt.param_groups[0]["contiguous_params"] is True


@needs_torch
@pytest.mark.parametrize("cls, kw", [("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
                                     ("Adagrad", dict(lr=0.1, lr_decay=0.01))])
def test_rmsprop_adagrad_accept_contiguous_params_and_update_as_torch(cls, kw):
    x0 = np.random.RandomState(5).randn(4)
    p, tp = flow.nn.Parameter(flow.tensor(x0)), torch.nn.Parameter(torch.tensor(x0))
    opt = getattr(flow.optim, cls)([p], contiguous_params=True, **kw)
    topt = getattr(torch.optim, cls)([tp], **kw)
    for i in range(4):
        (p * p * (i + 1)).sum().backward(); opt.step(); opt.zero_grad()
        (tp * tp * (i + 1)).sum().backward(); topt.step(); topt.zero_grad()
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-10)
    state = opt.state_dict()
    again = getattr(flow.optim, cls)([p], contiguous_params=False)
    again.load_state_dict(state)
    assert again.param_groups[0]["contiguous_params"] is True
