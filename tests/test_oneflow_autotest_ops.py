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
