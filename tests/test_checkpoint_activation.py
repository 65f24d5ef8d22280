"""Activation checkpointing (monoflow.utils.checkpoint): gradients equal the
plain run's, dropout inside the block recomputes the same mask, and the
random stream after the block is unaffected."""
import numpy as np
import pytest

import monoflow as flow
from monoflow import nn
from monoflow.utils.checkpoint import checkpoint, checkpoint_sequential


def _block():
    flow.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 4))


def _grads(model, x):
    return [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_gradients_match_plain_run_with_dropout(use_reentrant):
    model = _block()
    x0 = flow.randn(5, 4)

    x = x0.clone().requires_grad_()
    flow.manual_seed(42)
    out = model(x)
    after = flow.rand(3).numpy()  # the generator's position after the forward
    (out * out).sum().backward()
    want_out, want = out.detach().numpy(), _grads(model, x)
    model.zero_grad()

    x = x0.clone().requires_grad_()
    flow.manual_seed(42)
    out = checkpoint(model, x, use_reentrant=use_reentrant)
    np.testing.assert_array_equal(flow.rand(3).numpy(), after)
    assert out.requires_grad
    (out * out).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), want_out, rtol=1e-6)
    for g, w in zip(_grads(model, x), want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


def test_parameters_get_gradients_when_no_input_requires_grad():
    model = _block().eval()
    x = flow.randn(3, 4)
    checkpoint(model, x, use_reentrant=False).sum().backward()
    got = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for g, p in zip(got, model.parameters()):
        np.testing.assert_allclose(g, p.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_recomputation_happens_in_backward():
    calls = []

    def fn(a, b, scale=1.0):
        calls.append(flow.is_grad_enabled())
        return (a * b).tanh() * scale, a + b

    a = flow.randn(3, requires_grad=True)
    b = flow.randn(3, requires_grad=True)
    y, z = checkpoint(fn, a, b, scale=2.0, use_reentrant=False)
    assert calls == [False]  # the forward keeps no graph
    (y.sum() + (z * z).sum()).backward()
    assert calls == [False, True]
    a2, b2 = a.detach().requires_grad_(), b.detach().requires_grad_()
    y2, z2 = fn(a2, b2, 2.0)
    (y2.sum() + (z2 * z2).sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), a2.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), b2.grad.numpy(), rtol=1e-6)


def test_checkpoint_sequential():
    flow.manual_seed(1)
    model = nn.Sequential(*[nn.Linear(4, 4) if i % 2 == 0 else nn.Tanh() for i in range(6)])
    x = flow.randn(2, 4, requires_grad=True)
    out = checkpoint_sequential(model, 3, x, use_reentrant=False)
    out.sum().backward()
    got = _grads(model, x)
    model.zero_grad()
    x2 = x.detach().requires_grad_()
    ref = model(x2)
    ref.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    for g, w in zip(got, _grads(model, x2)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


def test_no_grad_mode_just_runs():
    with flow.no_grad():
        out = checkpoint(lambda t: t * 2, flow.ones(2), use_reentrant=False)
    assert not out.requires_grad and out.numpy().tolist() == [2.0, 2.0]
