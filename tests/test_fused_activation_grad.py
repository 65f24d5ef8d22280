"""The backward of gelu (both forms), silu, tanh, sigmoid and relu runs as one
fused pass when it is not itself recorded (Note [Fused activation backward]
in core/src/ops_math_grad_fused.cc). It must equal the composed derivative
(what a create_graph backward runs) bit for bit, and torch's gradient within
rounding; double backward keeps working through the composed ops."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow

torch = pytest.importorskip("torch")

ACTS = {
    "gelu": (lambda lib, t: lib.nn.functional.gelu(t)),
    "gelu_tanh": (lambda lib, t: lib.nn.functional.gelu(t, approximate="tanh")),
    "silu": (lambda lib, t: lib.nn.functional.silu(t)),
    "tanh": (lambda lib, t: lib.tanh(t)),
    "sigmoid": (lambda lib, t: lib.sigmoid(t)),
    "relu": (lambda lib, t: lib.relu(t)),
}
TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-13)}


def _input(lib, base, transposed):
    t = lib.tensor(np.ascontiguousarray(base.T) if transposed else base)
    return t.t() if transposed else t


@settings(max_examples=60, deadline=None)
@given(act=st.sampled_from(sorted(ACTS)), rows=st.integers(1, 40), cols=st.integers(1, 70),
       dtype=st.sampled_from(["float32", "float64"]), transposed=st.booleans(), seed=st.integers(0, 2**16))
def test_gradient_matches_torch_and_the_composed_chain(act, rows, cols, dtype, transposed, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, cols)) * 3).astype(dtype)
    x.flat[:3] = [0.0, -0.0, 1e-3][: x.size]  # relu's kink, gelu near 0
    g = rng.standard_normal((rows, cols)).astype(dtype)
    f = ACTS[act]

    xm = _input(flow, x, transposed).requires_grad_()
    fused, = flow.autograd.grad(f(flow, xm), xm, flow.tensor(g))
    composed, = flow.autograd.grad(f(flow, xm), xm, flow.tensor(g), create_graph=True)
    np.testing.assert_array_equal(fused.numpy(), composed.detach().numpy())

    xt = _input(torch, x, transposed).requires_grad_()
    ref, = torch.autograd.grad(f(torch, xt), xt, torch.tensor(g))
    np.testing.assert_allclose(fused.numpy(), ref.numpy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("act", sorted(ACTS))
def test_half_types_round_as_the_composed_chain(act, dtype):
    x = flow.randn(7, 33).to(getattr(flow, dtype)).requires_grad_()
    g = flow.randn(7, 33).to(getattr(flow, dtype))
    fused, = flow.autograd.grad(ACTS[act](flow, x), x, g)
    composed, = flow.autograd.grad(ACTS[act](flow, x), x, g, create_graph=True)
    assert fused.dtype == x.dtype
    np.testing.assert_array_equal(fused.float().numpy(), composed.detach().float().numpy())


def test_broadcast_gradient_from_a_sum():
    # sum's backward hands an expanded (stride 0) gradient to the activation
    x = np.random.default_rng(3).standard_normal((5, 6))
    xm, xt = flow.tensor(x).requires_grad_(), torch.tensor(x).requires_grad_()
    flow.nn.functional.gelu(xm).sum().backward()
    torch.nn.functional.gelu(xt).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("act", sorted(set(ACTS) - {"relu"}))  # relu's derivative is constant in x
def test_double_backward_matches_torch(act):
    x = np.random.default_rng(4).standard_normal((4, 5)) * 2
    outs = []
    for lib in (flow, torch):
        t = lib.tensor(x).requires_grad_()
        d, = lib.autograd.grad(ACTS[act](lib, t).sum(), t, create_graph=True)
        dd, = lib.autograd.grad(d.sum(), t)
        outs.append((d.detach().numpy(), dd.numpy()))
    for mine, ref in zip(*outs):
        np.testing.assert_allclose(mine, ref, rtol=1e-10, atol=1e-12)
