"""monoflow.fft vs torch.fft (values, dtypes, and .grad of the same real loss) and numpy."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
from helpers import TORCH

needs_torch = pytest.mark.skipif(TORCH is None, reason="torch is not installed (reference oracle)")
NORMS = (None, "backward", "ortho", "forward")
TOL = {"float32": dict(rtol=1e-4, atol=1e-4), "float64": dict(rtol=1e-10, atol=1e-10)}
small = settings(max_examples=20, deadline=None)


def data(shape, rd, seed, complex_):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if complex_:
        a = a + 1j * rng.standard_normal(shape)
        return a.astype("complex64" if rd == "float32" else "complex128")
    return a.astype(rd)


def pair(a, transpose):
    x = flow.tensor(a, requires_grad=True)
    t = TORCH.tensor(a, requires_grad=True)
    if transpose and a.ndim >= 2:
        return x, t, x.transpose(0, 1), t.transpose(0, 1)
    return x, t, x, t


def loss(y, w):
    """A real loss of a real or complex result (weights w of y's shape)."""
    if y.is_complex():
        return (y.real * w).sum() + (y.imag * w * 0.5).sum()
    return (y * w).sum()


def check(fx, ft, a, rd, transpose):
    x, t, xi, ti = pair(a, transpose)
    y, u = fx(xi), ft(ti)
    assert str(y.dtype).split(".")[-1] == str(u.dtype).split(".")[-1]
    assert tuple(y.shape) == tuple(u.shape)
    np.testing.assert_allclose(y.detach().numpy(), u.detach().resolve_conj().numpy(), **TOL[rd])
    w = np.random.default_rng(0).standard_normal(tuple(u.shape)).astype(rd)
    loss(y, flow.tensor(w)).backward()
    loss(u, TORCH.tensor(w)).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.resolve_conj().numpy(), **TOL[rd])


shapes = st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple)


@needs_torch
@small
@given(shape=shapes, rd=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 100),
       norm=st.sampled_from(NORMS), n=st.one_of(st.none(), st.integers(1, 8)), cplx=st.booleans(),
       transpose=st.booleans(), inverse=st.booleans())
def test_fft_ifft(shape, rd, seed, norm, n, cplx, transpose, inverse):
    a = data(shape, rd, seed, cplx)
    name = "ifft" if inverse else "fft"
    check(lambda x: getattr(flow.fft, name)(x, n=n, dim=0, norm=norm),
          lambda t: getattr(TORCH.fft, name)(t, n=n, dim=0, norm=norm), a, rd, transpose)


@needs_torch
@small
@given(shape=shapes, rd=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 100),
       norm=st.sampled_from(NORMS), n=st.one_of(st.none(), st.integers(1, 8)), transpose=st.booleans())
def test_rfft_irfft(shape, rd, seed, norm, n, transpose):
    a = data(shape, rd, seed, False)
    check(lambda x: flow.fft.rfft(x, n=n, dim=-1, norm=norm), lambda t: TORCH.fft.rfft(t, n=n, dim=-1, norm=norm),
          a, rd, transpose)
    c = data(shape, rd, seed, True)
    # pair() transposes dims 0 and 1, which moves the last dim only in 2-D
    last = shape[0] if transpose and len(shape) == 2 else shape[-1]
    if n is None and last < 2:  # the default output length 2 * (m - 1) is 0: both refuse
        c = c.swapaxes(0, 1) if transpose and c.ndim >= 2 else c
        with pytest.raises(RuntimeError, match="Invalid number of data points"):
            flow.fft.irfft(flow.tensor(c))
        with pytest.raises(RuntimeError):
            TORCH.fft.irfft(TORCH.tensor(c))
        return
    check(lambda x: flow.fft.irfft(x, n=n, dim=-1, norm=norm), lambda t: TORCH.fft.irfft(t, n=n, dim=-1, norm=norm),
          c, rd, transpose)


@needs_torch
@small
@given(shape=st.lists(st.integers(2, 5), min_size=2, max_size=3).map(tuple),
       rd=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 100), norm=st.sampled_from(NORMS),
       name=st.sampled_from(["fft2", "ifft2", "fftn", "ifftn", "rfftn", "irfftn", "rfft2", "irfft2"]),
       with_s=st.booleans())
def test_nd_transforms(shape, rd, seed, norm, name, with_s):
    real_in = name.startswith("rfft")
    a = data(shape, rd, seed, not real_in)
    s = tuple(d + 1 for d in shape[-2:]) if with_s else None
    kw = dict(norm=norm) if s is None else dict(s=s, norm=norm)
    if name.endswith("n") and s is not None:
        kw["dim"] = (-2, -1)
    check(lambda x: getattr(flow.fft, name)(x, **kw), lambda t: getattr(TORCH.fft, name)(t, **kw), a, rd, False)


def test_against_numpy_and_helpers():
    a = data((4, 6), "float64", 1, True)
    np.testing.assert_allclose(flow.fft.fftn(flow.tensor(a)).numpy(), np.fft.fftn(a), rtol=1e-12)
    np.testing.assert_allclose(flow.fft.fftfreq(7, 0.5).numpy(), np.fft.fftfreq(7, 0.5).astype("float32"))
    np.testing.assert_allclose(flow.fft.rfftfreq(8).numpy(), np.fft.rfftfreq(8).astype("float32"))
    assert flow.fft.fftfreq(4, dtype=flow.float64).dtype == flow.float64
    for axes in (None, 0, (1,)):
        np.testing.assert_array_equal(flow.fft.fftshift(flow.tensor(a), dim=axes).numpy(), np.fft.fftshift(a, axes))
        np.testing.assert_array_equal(flow.fft.ifftshift(flow.tensor(a.real), dim=axes).numpy(),
                                      np.fft.ifftshift(a.real, axes))


def test_dtypes_and_errors():
    assert flow.fft.fft(flow.ones(4)).dtype == flow.complex64
    assert flow.fft.fft(flow.ones(4, dtype=flow.float64)).dtype == flow.complex128
    assert flow.fft.fft(flow.arange(4)).dtype == flow.complex64
    assert flow.fft.irfft(flow.ones(3, dtype=flow.complex128)).dtype == flow.float64
    with pytest.raises(ValueError, match="normalization"):
        flow.fft.fft(flow.ones(4), norm="bad")
    with pytest.raises(RuntimeError, match="real input"):
        flow.fft.rfft(flow.ones(4, dtype=flow.complex64))
    with pytest.raises(IndexError):
        flow.fft.fft(flow.ones(4), dim=2)
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        flow.fft.fft(flow.ones(4), n=0)
