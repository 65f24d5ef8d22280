"""complex64 / complex128: creation, numpy round trip, promotion, arithmetic,
abs/angle/real/imag/conj/exp, sum/mean, matmul, casts, errors and autograd,
against numpy and torch (torch's .grad of the same real-valued loss)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
from helpers import TORCH

CDTYPES = ("complex64", "complex128")
TOL = {"complex64": dict(rtol=2e-5, atol=2e-5), "complex128": dict(rtol=1e-11, atol=1e-11)}
needs_torch = pytest.mark.skipif(TORCH is None, reason="torch is not installed (reference oracle)")


def crandn(shape, dt, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)
small = settings(max_examples=25, deadline=None)


def both(a, dt, transpose=False, requires_grad=False):
    """The same values as a monoflow and a torch tensor (optionally a transposed, non-contiguous view)."""
    x, t = flow.tensor(a), TORCH.tensor(a)
    if transpose and a.ndim >= 2:
        x, t = x.transpose(0, 1), t.transpose(0, 1)
    if requires_grad:
        x, t = x.detach().requires_grad_(), t.detach().requires_grad_()
    return x, t


def close(x, t, dt):
    assert str(x.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(x.detach().numpy(), t.detach().resolve_conj().numpy(), **TOL[dt])


# ---------------------------------------------------------------- dtype objects and creation

def test_dtype_objects():
    assert flow.cfloat is flow.complex64 and flow.cdouble is flow.complex128
    assert flow.complex64.is_complex and not flow.complex64.is_floating_point
    assert flow.complex64.itemsize == 8 and flow.complex128.itemsize == 16
    assert not flow.float32.is_complex
    assert flow.float32.to_complex() is flow.complex64 and flow.complex128.to_real() is flow.float64


@pytest.mark.parametrize("dt", CDTYPES)
def test_numpy_round_trip(dt):
    a = crandn((3, 4), dt, 0)
    x = flow.tensor(a)
    assert x.dtype == getattr(flow, dt) and x.is_complex() and flow.is_complex(x)
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(flow.from_numpy(a).numpy(), a)
    assert x.tolist() == a.tolist()
    assert x[1, 2].item() == complex(a[1, 2])
    assert isinstance(x[0, 0].item(), complex)
    np.testing.assert_array_equal(x.T.contiguous().numpy(), a.T)
    np.testing.assert_array_equal(x[:, ::2].clone().numpy(), a[:, ::2])
    assert "j" in repr(x)


def test_python_complex_data_takes_the_default_complex_dtype():
    assert flow.tensor([1 + 2j, 3]).dtype == flow.complex64
    assert flow.tensor(1j).item() == 1j
    flow.set_default_dtype(flow.float64)
    try:
        assert flow.tensor([1j]).dtype == flow.complex128
    finally:
        flow.set_default_dtype(flow.float32)


@pytest.mark.parametrize("dt", CDTYPES)
def test_creation(dt):
    d = getattr(flow, dt)
    np.testing.assert_array_equal(flow.zeros(2, 3, dtype=d).numpy(), np.zeros((2, 3), dt))
    np.testing.assert_array_equal(flow.ones(2, dtype=d).numpy(), np.ones(2, dt))
    assert flow.empty(2, dtype=d).dtype == d
    np.testing.assert_array_equal(flow.full((2,), 1 - 2j, dtype=d).numpy(), np.full(2, 1 - 2j, dt))
    assert flow.full((2,), 1j).dtype == flow.complex64
    flow.manual_seed(0)
    r = flow.randn(4000, dtype=d)
    assert r.dtype == d
    # torch: real and imaginary parts each N(0, 1/2)
    assert abs(r.real.numpy().var() - 0.5) < 0.05 and abs(r.imag.numpy().var() - 0.5) < 0.05


@pytest.mark.parametrize("dt", CDTYPES)
def test_complex_and_views(dt):
    rd = "float32" if dt == "complex64" else "float64"
    re, im = np.arange(6, dtype=rd).reshape(2, 3), -np.arange(6, dtype=rd).reshape(2, 3)
    z = flow.complex(flow.tensor(re), flow.tensor(im))
    assert z.dtype == getattr(flow, dt)
    np.testing.assert_array_equal(z.numpy(), re + 1j * im)
    r = flow.view_as_real(z)
    assert r.shape == (2, 3, 2) and r.dtype == getattr(flow, rd)
    np.testing.assert_array_equal(flow.view_as_complex(r).numpy(), z.numpy())
    # real/imag are views: writing through them changes z
    z.real.fill_(7.0)
    z.imag[0].fill_(1.0)
    assert z[0, 0].item() == 7 + 1j and z[1, 0].item() == 7 - 3j
    np.testing.assert_array_equal(flow.real(z).numpy(), z.numpy().real)


@needs_torch
def test_angle_of_real_tensors():
    a = np.array([-2.0, 0.0, 3.0, np.nan], np.float32)
    np.testing.assert_array_equal(flow.angle(flow.tensor(a)).numpy(), TORCH.angle(TORCH.tensor(a)).numpy())
    np.testing.assert_array_equal(flow.tensor(a).angle().numpy(), TORCH.tensor(a).angle().numpy())


def test_view_as_complex_errors():
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        flow.view_as_complex(flow.zeros(3, 3))
    with pytest.raises(RuntimeError, match="stride 1"):
        flow.view_as_complex(flow.zeros(2, 3).T)
    with pytest.raises(RuntimeError, match="float and double"):
        flow.view_as_complex(flow.zeros(3, 2, dtype=flow.int32))
    with pytest.raises(RuntimeError, match="complex tensors"):
        flow.view_as_real(flow.zeros(3))
    with pytest.raises(RuntimeError, match="non-complex"):
        flow.imag(flow.zeros(3))


# ---------------------------------------------------------------- promotion

@needs_torch
@pytest.mark.parametrize("a", ["bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("b", CDTYPES)
def test_promote_types(a, b):
    want = TORCH.promote_types(getattr(TORCH, a), getattr(TORCH, b))
    assert flow.promote_types(getattr(flow, a), getattr(flow, b)) == getattr(flow, str(want).split(".")[-1])
    assert not flow.can_cast(getattr(flow, b), flow.float64)


@needs_torch
@pytest.mark.parametrize("rd", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("dt", CDTYPES)
def test_mixed_arithmetic_dtypes(rd, dt):
    a = crandn((3,), dt, 1)
    x, t = both(a, dt)
    r = np.array([1, 0, 1]).astype(rd)
    xr, tr = flow.tensor(r), TORCH.tensor(r)
    for op in (lambda p, q: p + q, lambda p, q: q - p, lambda p, q: p * q, lambda p, q: p / (q + 1)):
        if rd == "bool" and op(1, 1) == 0:  # subtraction with a bool tensor: both refuse
            with pytest.raises(RuntimeError, match="bool tensor is not supported"):
                op(x, xr)
            continue
        close(op(x, xr), op(t, tr), dt)
    for s in (2, 2.5, 1 - 1j):
        close(x * s, t * s, dt)
        close(s - x, s - t, dt)
        close(s / x, s / t, dt)
    # a Python complex makes a real tensor complex (float64 -> complex128)
    y, u = flow.tensor(r) + 1j, TORCH.tensor(r) + 1j
    assert str(y.dtype).split(".")[-1] == str(u.dtype).split(".")[-1]
    np.testing.assert_allclose(y.numpy(), u.numpy())


# ---------------------------------------------------------------- values vs torch

@needs_torch
@small
@given(shape=shapes, dt=st.sampled_from(CDTYPES), seed=st.integers(0, 1000), transpose=st.booleans())
def test_elementwise_vs_torch(shape, dt, seed, transpose):
    a, b = crandn(shape, dt, seed), crandn(shape, dt, seed + 1)
    x, t = both(a, dt, transpose)
    y, u = both(b, dt, transpose)
    close(x + y, t + u, dt)
    close(x - y, t - u, dt)
    close(x * y, t * u, dt)
    close(x / y, t / u, dt)
    close(-x, -t, dt)
    close(x.conj(), t.conj().resolve_conj(), dt)
    close(x.abs(), t.abs(), dt)
    close(flow.abs(x), t.abs(), dt)
    close(x.angle(), t.angle(), dt)
    close(x.exp(), t.exp(), dt)
    close(x.log(), t.log(), dt)
    close(flow.polar(x.abs(), x.angle()), TORCH.polar(t.abs(), t.angle()), dt)
    close(x.real, t.real, dt)
    close(x.imag, t.imag, dt)
    close(x.sum(), t.sum(), dt)
    close(x.sum(0, keepdim=True), t.sum(0, keepdim=True), dt)
    close(x.mean(), t.mean(), dt)
    close(flow.mean(x, dim=-1), t.mean(dim=-1), dt)
    z = x.clone()
    z *= y
    z += 1j
    close(z, t * u + 1j, dt)


@needs_torch
@small
@given(m=st.integers(1, 4), k=st.integers(1, 4), n=st.integers(1, 4), dt=st.sampled_from(CDTYPES),
       seed=st.integers(0, 1000), batch=st.booleans())
def test_matmul_vs_torch(m, k, n, dt, seed, batch):
    pre = (2,) if batch else ()
    a, b = crandn(pre + (m, k), dt, seed), crandn((k, n), dt, seed + 1)
    x, t = both(a, dt)
    y, u = both(b, dt)
    close(x @ y, t @ u, dt)
    close(flow.matmul(x, y), TORCH.matmul(t, u), dt)
    r = np.random.default_rng(seed).standard_normal((k, n)).astype("float32" if dt == "complex64" else "float64")
    close(x @ flow.tensor(r), t @ TORCH.tensor(r).to(t.dtype), dt)


@pytest.mark.parametrize("dt", CDTYPES)
def test_casts(dt):
    a = crandn((4,), dt, 3)
    x = flow.tensor(a)
    other = "complex128" if dt == "complex64" else "complex64"
    np.testing.assert_allclose(x.to(getattr(flow, other)).numpy(), a.astype(other), rtol=1e-6)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        r = x.float()
    np.testing.assert_allclose(r.numpy(), a.real.astype("float32"), rtol=1e-6)
    np.testing.assert_array_equal(flow.tensor([1.5, 2.0]).to(getattr(flow, dt)).numpy(), np.array([1.5, 2], dt))
    np.testing.assert_array_equal(flow.tensor([1, 2]).to(getattr(flow, dt)).numpy(), np.array([1, 2], dt))


@pytest.mark.parametrize("dt", CDTYPES)
def test_unsupported_ops_raise_torch_errors(dt):
    x = flow.ones(3, dtype=getattr(flow, dt))
    name = "ComplexFloat" if dt == "complex64" else "ComplexDouble"
    with pytest.raises(NotImplementedError, match=rf"relu\(\): not implemented for '{name}'"):
        flow.relu(x)
    with pytest.raises(NotImplementedError, match=rf"erf\(\): not implemented for '{name}'"):
        x.erf()
    with pytest.raises(RuntimeError):
        x.max()
    with pytest.raises(RuntimeError):
        x < x
    with pytest.raises(RuntimeError):
        flow.zeros(3).add_(x)  # complex result into a float tensor
    with pytest.raises(RuntimeError):
        flow.zeros(3).fill_(1j)


# ---------------------------------------------------------------- autograd vs torch

def _loss(z, w):
    # a real-valued loss that mixes real and imaginary parts
    return (z * w).real.sum() + (z.abs() ** 2).sum() * 0.5 + z.imag.sum() * 0.25


@needs_torch
@small
@given(shape=shapes, dt=st.sampled_from(CDTYPES), seed=st.integers(0, 1000), transpose=st.booleans())
def test_autograd_vs_torch(shape, dt, seed, transpose):
    a, b, c = crandn(shape, dt, seed), crandn(shape, dt, seed + 1), crandn(shape, dt, seed + 2)
    x, t = both(a, dt, transpose, requires_grad=True)
    y, u = both(b, dt, transpose, requires_grad=True)
    w, v = both(c, dt, transpose)
    for f in (lambda p, q: p * q, lambda p, q: p / q, lambda p, q: p + q * 2, lambda p, q: p.exp() - q.conj(),
              lambda p, q: p * p + q.abs(), lambda p, q: p.log() * q, lambda p, q: p.angle() * q.real + p, lambda p, q: (p * q).sum(0) + p.mean()):
        x.grad = y.grad = t.grad = u.grad = None
        _loss(f(x, y), w if f(x, y).shape == x.shape else w[0]).backward()
        _loss(f(t, u), v if f(t, u).shape == t.shape else v[0]).backward()
        close(x.grad, t.grad, dt)
        close(y.grad, u.grad, dt)


@needs_torch
@pytest.mark.parametrize("dt", CDTYPES)
def test_autograd_matmul_and_mixed_real(dt):
    rd = "float32" if dt == "complex64" else "float64"
    a, b = crandn((3, 4), dt, 5), crandn((4, 2), dt, 6)
    r = np.random.default_rng(7).standard_normal((3, 4)).astype(rd)
    x, t = both(a, dt, requires_grad=True)
    y, u = both(b, dt, requires_grad=True)
    p, q = flow.tensor(r, requires_grad=True), TORCH.tensor(r, requires_grad=True)
    ((x * p) @ y).abs().sum().backward()
    ((t * q) @ u).abs().sum().backward()
    close(x.grad, t.grad, dt)
    close(y.grad, u.grad, dt)
    assert p.grad.dtype == getattr(flow, rd)  # a real input gets a real gradient
    np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), **TOL[dt])


@needs_torch
def test_autograd_complex_built_from_real_parts():
    re, im = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.0, -1.0])
    a, b = flow.tensor(re, requires_grad=True), flow.tensor(im, requires_grad=True)
    c, d = TORCH.tensor(re, requires_grad=True), TORCH.tensor(im, requires_grad=True)
    (flow.complex(a, b).exp() * (1 + 2j)).imag.sum().backward()
    (TORCH.complex(c, d).exp() * (1 + 2j)).imag.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), d.grad.numpy(), rtol=1e-12)
    # abs at 0 has gradient 0, as torch
    z = flow.zeros(2, dtype=flow.complex128, requires_grad=True)
    z.abs().sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), np.zeros(2))


def test_views_of_complex_leaves_carry_gradients():
    z = flow.tensor(crandn((3, 2), "complex64", 9), requires_grad=True)
    (z[1:, 0] * 2j).real.sum().backward()
    want = np.zeros((3, 2), np.complex64)
    want[1:, 0] = -2j  # d/dRe (Re(2j z)) = 0, d/dIm = -2
    np.testing.assert_allclose(z.grad.numpy(), want)


@pytest.mark.parametrize("dt", CDTYPES)
def test_dlpack_setitem_and_like_functions(dt):
    d = getattr(flow, dt)
    a = crandn((2, 3), dt, 11)
    x = flow.tensor(a)
    np.testing.assert_array_equal(np.from_dlpack(x), a)
    np.testing.assert_array_equal(flow.from_dlpack(a).numpy(), a)
    if TORCH is not None:
        np.testing.assert_array_equal(TORCH.from_dlpack(x).numpy(), a)
    x[0, 1] = 2 - 3j
    x[1] = 1j
    a[0, 1], a[1] = 2 - 3j, 1j
    np.testing.assert_array_equal(x.numpy(), a)
    with pytest.raises(RuntimeError):
        flow.zeros(2)[0] = 1j
    np.testing.assert_array_equal(flow.full_like(x, 1 + 1j).numpy(), np.full((2, 3), 1 + 1j, dt))
    r = flow.rand(500, dtype=d)
    assert r.dtype == d and 0 <= r.real.numpy().min() and r.imag.numpy().max() < 1


def test_complex_outputs_need_an_explicit_gradient():
    z = flow.ones(2, dtype=flow.complex64, requires_grad=True)
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        (z * 2).sum().backward()
    (z * 2).sum().backward(flow.tensor(1 + 0j))
    np.testing.assert_array_equal(z.grad.numpy(), np.full(2, 2, np.complex64))
    with pytest.raises(NotImplementedError, match=r"atan2\(\): not implemented for 'ComplexFloat'"):
        flow.atan2(z, z)
