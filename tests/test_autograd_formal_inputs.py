"""Second derivatives through piecewise-linear backward (autograd.h, Note [Formal inputs of
piecewise-linear backward]): torch's relu, leaky_relu, hardtanh, threshold, shrinks, pools and
nll_loss have a backward that reads the forward input, so under create_graph the gradient dx is
connected to x and autograd.grad(dx, [x, gy]) gives zeros for x, where monoflow's mask-based
backward raised "not used in the graph". Checked against torch on every device: dx, ddx and ddy,
and that the ops whose torch backward does not read x (where, clamp, masked_fill) still raise."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
from helpers import device_settings

torch = pytest.importorskip("torch")

CASES = {
    "relu": lambda F, x: F.relu(x),
    "relu_method": lambda F, x: x.relu(),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.3),
    "hardtanh": lambda F, x: F.hardtanh(x, -2.0, 2.0),
    "relu6": lambda F, x: F.relu6(x * 3),
    "threshold": lambda F, x: F.threshold(x, 0.5, 0.2),
    "hardshrink": lambda F, x: F.hardshrink(x, 1.0),
    "softshrink": lambda F, x: F.softshrink(x, 1.0),
    "avg_pool1d": lambda F, x: F.avg_pool1d(x.reshape(2, 2, 6), 2),
    "avg_pool2d": lambda F, x: F.avg_pool2d(x.reshape(1, 2, 2, 6), 2, padding=1, count_include_pad=False),
    "avg_pool3d": lambda F, x: F.avg_pool3d(x.reshape(1, 1, 2, 2, 6), (1, 2, 2)),
    "adaptive_avg_pool1d": lambda F, x: F.adaptive_avg_pool1d(x.reshape(2, 2, 6), 4),
    "adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x.reshape(1, 2, 2, 6), (1, 4)),
    "max_pool1d": lambda F, x: F.max_pool1d(x.reshape(2, 2, 6), 2),
    "max_pool2d": lambda F, x: F.max_pool2d(x.reshape(1, 2, 2, 6), 2, padding=1),
    "max_pool3d": lambda F, x: F.max_pool3d(x.reshape(1, 1, 2, 2, 6), (1, 2, 2)),
    "adaptive_max_pool1d": lambda F, x: F.adaptive_max_pool1d(x.reshape(2, 2, 6), 3),
    "nll_loss": lambda F, x: F.nll_loss(x, x.new_tensor([0, 3, 5, 1]).long(), reduction="none"),
    "nll_loss_mean": lambda F, x: F.nll_loss(x, x.new_tensor([0, 3, 5, 1]).long()),
}
# torch's backward of these reads only the gradient (and a mask): grad(dx, x) is "not used" there too
NOT_CONNECTED = {
    "where": lambda F, x: (x > 0).to(x.dtype) * x,
    "clamp": lambda F, x: x.clamp(-1.0, 1.0),
    "masked_fill": lambda F, x: x.masked_fill(x > 1, 0.0),
}


def _second_order(lib, fn, xs, gys, gxs, device):
    on = {"device": device} if lib is flow else {}
    x = lib.tensor(xs, requires_grad=True, **on)
    y = fn(lib.nn.functional, x)
    gy = lib.tensor(gys[: y.numel()].reshape(tuple(y.shape)), requires_grad=True, **on)
    (dx,) = lib.autograd.grad(y, x, gy, create_graph=True)
    ddx, ddy = lib.autograd.grad(dx, [x, gy], lib.tensor(gxs, **on))
    return [t.detach().cpu().numpy() if lib is torch else t.numpy() for t in (dx, ddx, ddy)]


@pytest.mark.parametrize("name", sorted(CASES))
@settings(device_settings, max_examples=4)
@given(seed=st.integers(0, 2**31 - 1))
def test_second_derivative_matches_torch(device, name, seed):
    rng = np.random.default_rng(seed)
    xs = rng.uniform(-4, 4, (4, 6))
    gys, gxs = rng.uniform(-1, 1, 24), rng.uniform(-1, 1, (4, 6))
    want = _second_order(torch, CASES[name], xs, gys, gxs, "cpu")
    got = _second_order(flow, CASES[name], xs, gys, gxs, device)
    for label, g, w in zip(("dx", "ddx", "ddy"), got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=f"{name}: {label}")
    assert not got[1].any()  # the derivative through the formal input is zero


@pytest.mark.parametrize("name", sorted(NOT_CONNECTED))
def test_ops_torch_does_not_connect_still_raise(device, name):
    xs = np.linspace(-3, 3, 24).reshape(4, 6)
    for lib in (torch, flow):
        with pytest.raises(RuntimeError, match="not have been used"):
            _second_order(lib, NOT_CONNECTED[name], xs, np.ones(24), np.ones((4, 6)), "cpu" if lib is torch else device)


def test_hardsigmoid_second_derivative_is_oneflows_zero():
    # torch has no double backward for hardsigmoid; OneFlow's test_higher_derivative_activation wants ddx = 0
    x = flow.tensor(np.linspace(-4, 4, 12), requires_grad=True)
    gy = flow.tensor(np.linspace(-1, 1, 12), requires_grad=True)
    (dx,) = flow.autograd.grad(flow.nn.functional.hardsigmoid(x), x, gy, create_graph=True)
    gx = flow.ones(12, dtype=flow.float64)
    ddx, ddy = flow.autograd.grad(dx, [x, gy], gx)
    inside = (np.abs(np.linspace(-4, 4, 12)) < 3) / 6.0
    np.testing.assert_allclose(dx.numpy(), np.linspace(-1, 1, 12) * inside, rtol=1e-15)
    assert not ddx.numpy().any()
    np.testing.assert_allclose(ddy.numpy(), inside, rtol=1e-15)


@pytest.mark.parametrize("name", ["leaky_relu", "hardtanh", "threshold", "hardshrink", "softshrink"])
def test_compositions_are_named_as_torch_names_their_node(name):
    names = [CASES[name](lib.nn.functional, lib.ones(2, requires_grad=True)).grad_fn.name() for lib in (torch, flow)]
    assert names[1] == names[0]


def test_without_create_graph_nothing_is_added():
    # a first-order backward pays nothing: the gradient has no history, and a forward records no extra node
    # for the core ops
    x = flow.randn(3, 4, requires_grad=True)
    (dx,) = flow.autograd.grad(flow.relu(x).sum(), x)
    assert dx.grad_fn is None and not dx.requires_grad
    y = flow.nn.functional.max_pool2d(x.reshape(1, 1, 3, 4), 2)
    assert y.grad_fn.next_functions[0][0] is not None
    assert "FormalInput" not in y.grad_fn.name()


def test_hessian_of_a_relu_network_matches_torch():
    # The Hessian of a ReLU MLP w.r.t. its input: zero, where monoflow raised before (piecewise linear)
    rng = np.random.default_rng(0)
    w1, w2 = rng.standard_normal((5, 3)), rng.standard_normal((1, 5))
    xs = rng.standard_normal(3)
    got = []
    for lib in (torch, flow):
        a, b = lib.tensor(w1), lib.tensor(w2)
        f = lambda x: (b @ lib.nn.functional.leaky_relu(a @ x, 0.1)).sum()  # noqa: E731
        got.append(np.asarray(lib.autograd.functional.hessian(f, lib.tensor(xs))))
    np.testing.assert_array_equal(got[1], got[0])


def test_shrink_activations_keep_nan_as_torch():
    import monoflow.nn.functional as F
    v = [float("nan"), -2.0, -0.5, 0.0, 0.3, 1.5, float("inf"), -float("inf")]
    for name in ("softshrink", "hardshrink"):
        x, tx = flow.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
        y, ty = getattr(F, name)(x), getattr(torch.nn.functional, name)(tx)
        np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy(), err_msg=name)
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy(), err_msg=name)
