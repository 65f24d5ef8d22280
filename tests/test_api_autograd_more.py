"""autograd surface against torch: Function through an instance (OneFlow's
style) and apply, grad(is_grads_batched=), autograd.functional (jacobian,
hessian, vjp, jvp, vhp, hvp), anomaly-mode switches, second-order
gradients through pooling, dtype casts and requires_grad."""
import warnings

import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-10, atol=1e-12)


class MulAdd(flow.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, k):
        ctx.save_for_backward(x, y)
        ctx.k = k
        return x * y + k

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x, None


def test_function_instance_and_apply():
    a, b = flow.randn(3, requires_grad=True), flow.randn(3, requires_grad=True)
    out1 = MulAdd.apply(a, b, 2.0)
    out2 = MulAdd()(a, b, 2.0)  # OneFlow's tests call an instance
    np.testing.assert_allclose(out1.detach().numpy(), out2.detach().numpy())
    out2.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy())


def test_grad_is_grads_batched():
    x = np.random.default_rng(0).standard_normal(4)
    tx, mx = torch.tensor(x, requires_grad=True), flow.tensor(x, requires_grad=True)
    ty, my = tx.sin() * tx, mx.sin() * mx
    eye = np.eye(4)
    (tg,) = torch.autograd.grad(ty, tx, torch.tensor(eye), is_grads_batched=True)
    (mg,) = flow.autograd.grad(my, mx, flow.tensor(eye), is_grads_batched=True)
    np.testing.assert_allclose(mg.numpy(), tg.numpy(), **TOL)
    assert tuple(mg.shape) == (4, 4)
    with pytest.raises(RuntimeError, match="leading batch dim"):
        flow.autograd.grad([my, my], [mx], [flow.ones(2, 4), flow.ones(3, 4)], is_grads_batched=True)


def f_two(x, y):
    return (x.exp() * y).sum(0), x * y.sin()


def f_scalar(x, y):
    return (x ** 3 * y).sum() + (x * y.sin()).sum()


def arrays(seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((2, 3)), rng.standard_normal((2, 3))


def as_lib(lib, arrs):
    return tuple(lib.tensor(a) for a in arrs)


def assert_nested(a, b):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_nested(x, y)
    else:
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL)


def test_jacobian_shapes_and_values():
    arrs = arrays()
    assert_nested(flow.autograd.functional.jacobian(f_two, as_lib(flow, arrs)),
                  torch.autograd.functional.jacobian(f_two, as_lib(torch, arrs)))
    one = lambda x: x.tanh() * 2  # noqa: E731  (tensor in, tensor out)
    assert_nested(flow.autograd.functional.jacobian(one, flow.tensor(arrs[0])),
                  torch.autograd.functional.jacobian(one, torch.tensor(arrs[0])))
    const = lambda x: x.detach() * 0 + 1  # noqa: E731
    j = flow.autograd.functional.jacobian(const, flow.tensor(arrs[0]))
    assert float(j.abs().sum()) == 0.0
    with pytest.raises(RuntimeError, match="independent"):
        flow.autograd.functional.jacobian(const, flow.tensor(arrs[0]), strict=True)


def test_hessian_vhp_hvp_vjp_jvp():
    arrs = arrays(2)
    F, T = flow.autograd.functional, torch.autograd.functional
    assert_nested(F.hessian(f_scalar, as_lib(flow, arrs)), T.hessian(f_scalar, as_lib(torch, arrs)))
    v = arrays(3)
    for name in ("vhp", "hvp"):
        assert_nested(getattr(F, name)(f_scalar, as_lib(flow, arrs), as_lib(flow, v)),
                      getattr(T, name)(f_scalar, as_lib(torch, arrs), as_lib(torch, v)))
    vo = (np.random.default_rng(4).standard_normal(3), np.random.default_rng(5).standard_normal((2, 3)))
    assert_nested(F.vjp(f_two, as_lib(flow, arrs), as_lib(flow, vo)),
                  T.vjp(f_two, as_lib(torch, arrs), as_lib(torch, vo)))
    assert_nested(F.jvp(f_two, as_lib(flow, arrs), as_lib(flow, v)),
                  T.jvp(f_two, as_lib(torch, arrs), as_lib(torch, v)))
    with pytest.raises(RuntimeError, match="single element"):
        F.vjp(f_two, as_lib(flow, arrs))


def test_anomaly_mode_switches():
    assert not flow.autograd.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with flow.autograd.detect_anomaly():
            assert flow.autograd.is_anomaly_enabled()
            x = flow.randn(3, requires_grad=True)
            (x * 2).sum().backward()
    assert not flow.autograd.is_anomaly_enabled()
    flow.autograd.set_detect_anomaly(True)
    assert flow.autograd.is_anomaly_enabled()
    flow.autograd.set_detect_anomaly(False)
    assert not flow.autograd.is_anomaly_enabled()
    with flow.autograd.set_detect_anomaly(True, check_nan=False):
        assert flow.autograd.is_anomaly_enabled() and not flow.autograd.is_anomaly_check_nan_enabled()
    assert not flow.autograd.is_anomaly_enabled() and flow.autograd.is_anomaly_check_nan_enabled()

    @flow.autograd.set_detect_anomaly(True)
    def inside():
        return flow.autograd.is_anomaly_enabled()

    flow.autograd.set_detect_anomaly(False)
    assert inside() and not flow.autograd.is_anomaly_enabled()


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "adaptive_avg_pool2d",
                                  "adaptive_max_pool2d", "max_pool3d", "avg_pool3d"])
def test_second_order_gradients_through_pooling(pool):
    """grad of (grad of the pooled output) with respect to the input: torch's values."""
    shape = {"1d": (2, 3, 8), "2d": (2, 3, 6, 6), "3d": (1, 2, 4, 4, 4)}[pool[-2:]]
    arg = (3,) if pool.startswith("adaptive") else (2,)
    a = np.random.default_rng(6).standard_normal(shape)
    results = []
    for lib in (torch, flow):
        x = lib.tensor(a, requires_grad=True)
        y = getattr(lib.nn.functional, pool)(x * x, *arg)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], **TOL)
    np.testing.assert_allclose(results[1][1], results[0][1], **TOL)


@pytest.mark.parametrize("dtype", ["bool", "int64", "int32", "float32", "float16"])
def test_dtype_casts_and_requires_grad(dtype):
    """A cast of a grad-requiring float tensor: requires_grad as torch says
    (float targets stay differentiable, integer/bool targets do not)."""
    a = np.array([0.0, 1.5, -2.0])
    tx, mx = torch.tensor(a, requires_grad=True), flow.tensor(a, requires_grad=True)
    ty, my = tx.to(getattr(torch, dtype)), mx.to(getattr(flow, dtype))
    assert my.requires_grad == ty.requires_grad
    np.testing.assert_array_equal(my.detach().numpy(), ty.detach().numpy())


def test_gradgradcheck_variable_and_multithreading_switch():
    x = flow.tensor(np.random.default_rng(0).standard_normal(3), requires_grad=True)
    assert flow.autograd.gradgradcheck(lambda t: (t.sin() * t).sum(), (x,))
    with pytest.raises(flow.autograd.GradcheckError):
        flow.autograd.gradgradcheck(lambda t: BadSecond.apply(t), (x,))
    v = flow.autograd.Variable(flow.ones(2), requires_grad=True)
    assert v.requires_grad and v.is_leaf and isinstance(flow.zeros(1), flow.autograd.Variable)
    assert not isinstance(3.0, flow.autograd.Variable)
    assert flow.autograd.is_multithreading_enabled()
    with flow.autograd.set_multithreading_enabled(False):
        assert not flow.autograd.is_multithreading_enabled()
    assert flow.autograd.is_multithreading_enabled()


class BadSecond(flow.autograd.Function):
    """x^3 with a first derivative whose own derivative is wrong (3x^2 written as x^2 * 3 + x.detach())."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x * 0 + g * 3 * x.detach() ** 2
