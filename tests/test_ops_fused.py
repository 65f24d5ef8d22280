"""Fused elementwise updates: add(alpha=) via _C.add_alpha, addcmul, addcdiv
(values vs numpy and torch, gradients, in-place rules)."""
import numpy as np
import pytest

import monoflow as flow
from monoflow import _C

from autograd_helpers import check_gradients

RNG = np.random.default_rng(0)


def arr(*shape, dtype=np.float32, positive=False):
    a = RNG.standard_normal(shape).astype(dtype)
    return np.abs(a) + 0.5 if positive else a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_addcmul_addcdiv_values(device, dtype):
    x, a, b = arr(3, 4, dtype=dtype), arr(4, dtype=dtype), arr(3, 1, dtype=dtype, positive=True)
    X, A, B = (flow.tensor(v, device=device) for v in (x, a, b))
    v = dtype(0.3)
    np.testing.assert_allclose(flow.addcmul(X, A, B, value=0.3).numpy(), x + v * a * b, rtol=1e-6)
    np.testing.assert_allclose(X.addcdiv(A, B, value=0.3).numpy(), x + v * a / b, rtol=1e-6)
    np.testing.assert_allclose(_C.add_alpha(X, A, 0.3).numpy(), x + v * a, rtol=1e-6)
    X.addcmul_(A, B, value=-2)
    np.testing.assert_allclose(X.numpy(), x - 2 * a * b, rtol=1e-6)


def test_matches_torch_float32():
    torch = pytest.importorskip("torch")
    x, a, b = arr(1000), arr(1000), arr(1000, positive=True)
    for name in ("addcmul", "addcdiv"):
        got = getattr(flow, name)(flow.tensor(x), flow.tensor(a), flow.tensor(b), value=-0.37).numpy()
        want = getattr(torch, name)(torch.tensor(x), torch.tensor(a), torch.tensor(b), value=-0.37).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)  # torch may use FMA


def test_strided_and_half(device):
    x = arr(6, 8)
    X = flow.tensor(x, device=device)
    T = X.t()  # non-contiguous operands take the strided path
    got = flow.addcmul(T, T, T, value=0.5).numpy()
    np.testing.assert_allclose(got, x.T + np.float32(0.5) * x.T * x.T, rtol=1e-6)
    H = flow.tensor(x, device=device).to(flow.float16)
    np.testing.assert_allclose(flow.addcdiv(H, H, H + 10, value=2).float().numpy(),
                               x + 2 * x / (x + 10), rtol=2e-2, atol=2e-2)


def test_mixed_and_integer_dtypes(device):
    i = flow.tensor([1, 2, 3], device=device)
    f = flow.tensor([0.5, 0.5, 0.5], device=device)
    assert flow.addcmul(i, i, i, value=2).tolist() == [3, 10, 21]
    np.testing.assert_allclose(flow.addcmul(i, f, i).numpy(), [1.5, 3.0, 4.5])
    np.testing.assert_allclose(flow.addcdiv(f, i, f.double()).numpy(), [2.5, 4.5, 6.5])
    with pytest.raises(RuntimeError, match="addcdiv"):
        flow.addcdiv(i, i, i)
    with pytest.raises(TypeError, match="tensor1"):
        flow.addcmul(f, 2.0, f)


def test_inplace_rules(device):
    x = flow.tensor(arr(3, 4), device=device)
    with pytest.raises(RuntimeError, match="shape"):
        x[0].addcmul_(x, x)  # broadcast shape (3, 4) doesn't fit (4,)
    with pytest.raises(RuntimeError, match="memory location"):
        flow.zeros(1, device=device).expand(4).addcdiv_(x[0], x[0] + 3)
    with pytest.raises(RuntimeError):
        x[0, :3].addcmul_(x[0, 1:], x[0, 1:])  # partial overlap with self
    y = flow.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        y.addcmul_(y.detach(), y.detach())  # leaf that requires grad


def test_gradients(device):
    x, a, b = arr(3, 4, dtype=np.float64), arr(4, dtype=np.float64), arr(3, 1, dtype=np.float64, positive=True)
    check_gradients(lambda x, a, b: flow.addcmul(x, a, b, value=0.7), [x, a, b], device,
                    torch_fn=lambda x, a, b: x.addcmul(a, b, value=0.7))
    check_gradients(lambda x, a, b: flow.addcdiv(x, a, b, value=-1.5), [x, a, b], device,
                    torch_fn=lambda x, a, b: x.addcdiv(a, b, value=-1.5))
    check_gradients(lambda x, a: _C.add_alpha(x, a, 2.5), [x, a], device,
                    torch_fn=lambda x, a: x.add(a, alpha=2.5))


def test_inplace_gradients_and_versions(device):
    def f(x, a, b):
        y = x * 1.0
        y.addcdiv_(a, b, value=0.5)
        _C.add_alpha_(y, a, -3)
        return y.addcmul_(a, b, value=2)
    x, a, b = arr(2, 3, dtype=np.float64), arr(3, dtype=np.float64), arr(2, 3, dtype=np.float64, positive=True)
    check_gradients(f, [x, a, b], device)
    # a saved operand modified before backward is caught
    A = flow.tensor(a, dtype=flow.float64, device=device, requires_grad=True)
    B = flow.tensor(b, dtype=flow.float64, device=device)
    w = B * 1.0
    out = flow.addcmul(flow.zeros(2, 3, dtype=flow.float64, device=device), A, w)
    w.add_(1)
    with pytest.raises(RuntimeError):
        out.sum().backward()


@pytest.mark.parametrize("dtype", [flow.float32, flow.float16, flow.float64])
@pytest.mark.parametrize("scale", [1.0, 0.75])
def test_sgd_momentum_matches_the_chain(device, dtype, scale):
    p0, b0, g0 = arr(5, 7), arr(5, 7), arr(5, 7)
    p, buf, g = (flow.tensor(v, device=device).to(dtype) for v in (p0, b0, g0))
    q, qbuf = p.clone(), buf.clone()
    v0, w0 = p._version, buf._version
    _C.sgd_momentum_(p, buf, g, 0.9, scale, 0.01)
    qbuf.mul_(0.9)
    _C.add_alpha_(qbuf, g, scale) if scale != 1 else qbuf.add_(g)
    _C.add_alpha_(q, qbuf, -0.01)
    np.testing.assert_array_equal(buf.numpy(), qbuf.numpy())
    np.testing.assert_array_equal(p.numpy(), q.numpy())
    assert p._version > v0 and buf._version > w0


def test_sgd_momentum_strided_and_fallback(device):
    base = flow.tensor(arr(4, 6), device=device)
    p = base.t()  # strided parameter
    buf, g = flow.tensor(arr(6, 4), device=device), flow.tensor(arr(6, 4), device=device)
    want_buf = buf.numpy() * np.float32(0.5) + g.numpy()
    want_p = p.numpy() + np.float32(-0.1) * want_buf
    _C.sgd_momentum_(p, buf, g, 0.5, 1.0, 0.1)
    np.testing.assert_allclose(buf.numpy(), want_buf, rtol=1e-6)
    np.testing.assert_allclose(base.numpy().T, want_p, rtol=1e-6)
    # mixed dtypes take the unfused chain
    b64 = flow.zeros(6, 4, dtype=flow.float64, device=device)
    _C.sgd_momentum_(b64, b64.clone(), g, 0.5, 1.0, 1.0)
    np.testing.assert_allclose(b64.numpy(), -g.numpy(), rtol=1e-6)


@pytest.mark.parametrize("wide, narrow", [("float32", "bfloat16"), ("float32", "float16"), ("float64", "float32")])
@pytest.mark.parametrize("inplace", [False, True])
def test_add_with_alpha_of_a_narrower_operand_rounds_in_the_results_dtype(wide, narrow, inplace):
    # alpha * b is computed in the result's dtype, as torch: b = 1 in bfloat16 with alpha 0.3 gives 0.3 in
    # float32, not bfloat16's 0.30078 (an optimizer adding a bfloat16 update to float32 weights)
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(6), rng.standard_normal(6)
    outs = []
    for lib in (torch, flow):
        x, y = lib.tensor(a).to(getattr(lib, wide)), lib.tensor(b).to(getattr(lib, narrow))
        out = x.add_(y, alpha=0.3) if inplace else lib.add(x, y, alpha=0.3)
        outs.append((str(out.dtype).split(".")[-1], out.double().numpy()))
    assert outs[1][0] == outs[0][0] == wide
    # (torch's kernel may fuse the multiply-add: an ulp of the wide dtype, far below the narrow one's)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=4 * np.finfo(wide).eps, atol=4 * np.finfo(wide).eps)
    # a 0-dim wider operand does not decide the dtype (torch's rule), so nothing is widened then
    z = flow.add(flow.tensor(0.5), flow.ones(2, dtype=getattr(flow, narrow)), alpha=0.3)
    assert z.dtype == getattr(flow, narrow)
