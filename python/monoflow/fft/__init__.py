"""monoflow.fft: discrete Fourier transforms, as torch.fft.

Note [FFT on the host through numpy]
  The transforms run numpy's pocketfft on host memory (a copy for tensors on
  other devices), one dim at a time: an n-dim transform is separable, and each
  norm ("backward", "ortho", "forward") scales per dim by a factor whose
  product is the n-dim one. Each 1-d transform is one autograd op whose
  backward is its adjoint, another transform: c2c's is the inverse c2c with
  the dual norm; r2c's is the real part of the inverse of the zero-padded
  spectrum; c2r's is r2c with the bins that stand for two (all but DC and
  Nyquist) doubled, as torch's _fft_c2r_backward. Gradients follow torch's
  convention for complex inputs (dL/dRe + i dL/dIm).
"""
import numpy as np

from monoflow import _C, _dtypes
from monoflow.autograd.function import Function

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(norm, op):
    norm = "backward" if norm is None else norm
    if norm not in _DUAL:
        raise ValueError(f"{op}(): Invalid normalization mode: {norm}")
    return norm


def _host(t):
    return t.detach().cpu().numpy()


def _back(arr, dtype, like):
    from monoflow import _creation

    out = _creation.from_numpy(np.ascontiguousarray(arr.astype(_dtypes.to_numpy(dtype), copy=False)))
    return out if like.device.type == "cpu" else out.to(like.device)


def _resize(a, axis, length):
    """numpy array `a` trimmed or zero-padded at the end of `axis` to `length`."""
    n = a.shape[axis]
    if n == length:
        return a
    if n > length:
        return np.take(a, range(length), axis=axis)
    pad = [(0, 0)] * a.ndim
    pad[axis] = (0, length - n)
    return np.pad(a, pad)


class _C2C(Function):
    @staticmethod
    def forward(ctx, x, dim, n, norm, inverse):
        ctx.args = (dim, x.shape[dim], n, norm, inverse)
        fn = np.fft.ifft if inverse else np.fft.fft
        return _back(fn(_host(x), n=n, axis=dim, norm=norm), x.dtype, x)

    @staticmethod
    def backward(ctx, g):
        dim, length, n, norm, inverse = ctx.args
        fn = np.fft.fft if inverse else np.fft.ifft
        return _back(_resize(fn(_host(g), n=n, axis=dim, norm=_DUAL[norm]), dim, length), g.dtype, g), \
            None, None, None, None


class _R2C(Function):
    @staticmethod
    def forward(ctx, x, dim, n, norm):
        ctx.args = (dim, x.shape[dim], n or x.shape[dim], norm, x.dtype)
        return _back(np.fft.rfft(_host(x), n=n, axis=dim, norm=norm), x.dtype.to_complex(), x)

    @staticmethod
    def backward(ctx, g):
        dim, length, n, norm, dt = ctx.args
        full = np.fft.ifft(_host(g), n=n, axis=dim, norm=_DUAL[norm]).real  # ifft zero-pads the half spectrum
        return _back(_resize(full, dim, length), dt, g), None, None, None


class _C2R(Function):
    @staticmethod
    def forward(ctx, x, dim, n, norm):
        ctx.args = (dim, x.shape[dim], n, norm)
        return _back(np.fft.irfft(_host(x), n=n, axis=dim, norm=norm), x.dtype.to_real(), x)

    @staticmethod
    def backward(ctx, g):
        dim, length, n, norm = ctx.args
        gx = np.fft.rfft(_host(g), axis=dim, norm=_DUAL[norm])
        m = gx.shape[dim]
        scale = np.full(m, 2.0)
        scale[0] = 1.0
        if n % 2 == 0:
            scale[-1] = 1.0
        shape = [1] * gx.ndim
        shape[dim] = m
        gx = gx * scale.reshape(shape)
        return _back(_resize(gx, dim, length), g.dtype.to_complex(), g), None, None, None


def _input(x, op, want_complex):
    x = _C.check_tensor(x, op)
    if x.dtype.is_complex:
        if not want_complex:
            raise RuntimeError(f"{op} expects a real input tensor, but got {x.dtype}")
        return x
    if not x.dtype.is_floating_point or x.dtype in (_dtypes.float16, _dtypes.bfloat16):
        x = x.to(_C.get_default_dtype())
    return x.to(x.dtype.to_complex()) if want_complex else x


def _dim(x, dim, op):
    n = x.dim()
    if not -n <= dim < n:
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _length(n, op):
    if n is not None and (not isinstance(n, int) or n < 1):
        raise RuntimeError(f"{op}(): Invalid number of data points ({n}) specified")
    return n


def fft(input, n=None, dim=-1, norm=None):
    x = _input(input, "fft", True)
    return _C2C.apply(x, _dim(x, dim, "fft"), _length(n, "fft"), _norm(norm, "fft"), False)


def ifft(input, n=None, dim=-1, norm=None):
    x = _input(input, "ifft", True)
    return _C2C.apply(x, _dim(x, dim, "ifft"), _length(n, "ifft"), _norm(norm, "ifft"), True)


def rfft(input, n=None, dim=-1, norm=None):
    x = _input(input, "rfft", False)
    return _R2C.apply(x, _dim(x, dim, "rfft"), _length(n, "rfft"), _norm(norm, "rfft"))


def irfft(input, n=None, dim=-1, norm=None):
    x = _input(input, "irfft", True)
    d = _dim(x, dim, "irfft")
    n = _length(n, "irfft") or 2 * (x.shape[d] - 1)
    if n < 1:
        raise RuntimeError(f"irfft(): Invalid number of data points ({n}) specified")
    return _C2R.apply(x, d, n, _norm(norm, "irfft"))


def _plan(x, s, dim, op):
    """(dims, sizes) of an n-dim transform, as torch: dims default to the last
    len(s) dims (all dims without s); sizes to the input's."""
    if dim is None:
        dims = list(range(x.dim() - len(s), x.dim())) if s is not None else list(range(x.dim()))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [_dim(x, d, op) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op}(): dims must be unique")
    if s is not None and len(s) != len(dims):
        raise RuntimeError(f"{op}(): When given, dim and shape arguments must have the same length")
    sizes = [None if s is None or s[i] == -1 else _length(s[i], op) for i in range(len(dims))]
    return dims, sizes


def fftn(input, s=None, dim=None, norm=None):
    x = _input(input, "fftn", True)
    norm = _norm(norm, "fftn")
    for d, n in zip(*_plan(x, s, dim, "fftn")):
        x = _C2C.apply(x, d, n, norm, False)
    return x


def ifftn(input, s=None, dim=None, norm=None):
    x = _input(input, "ifftn", True)
    norm = _norm(norm, "ifftn")
    for d, n in zip(*_plan(x, s, dim, "ifftn")):
        x = _C2C.apply(x, d, n, norm, True)
    return x


def rfftn(input, s=None, dim=None, norm=None):
    x = _input(input, "rfftn", False)
    norm = _norm(norm, "rfftn")
    dims, sizes = _plan(x, s, dim, "rfftn")
    if not dims:
        raise RuntimeError("rfftn(): must transform at least one axis")
    x = _R2C.apply(x, dims[-1], sizes[-1], norm)
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _C2C.apply(x, d, n, norm, False)
    return x


def irfftn(input, s=None, dim=None, norm=None):
    x = _input(input, "irfftn", True)
    norm = _norm(norm, "irfftn")
    dims, sizes = _plan(x, s, dim, "irfftn")
    if not dims:
        raise RuntimeError("irfftn(): must transform at least one axis")
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _C2C.apply(x, d, n, norm, True)
    last = sizes[-1] or 2 * (x.shape[dims[-1]] - 1)
    return _C2R.apply(x, dims[-1], last, norm)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    return fftn(input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return ifftn(input, s, dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return rfftn(input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return irfftn(input, s, dim, norm)


def _freq_tensor(values, dtype, device, requires_grad):
    from monoflow import _creation

    out = _creation.tensor(values, dtype=dtype or _C.get_default_dtype(), device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _freq_tensor(np.fft.fftfreq(n, d), dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _freq_tensor(np.fft.rfftfreq(n, d), dtype, device, requires_grad)


def _shift(x, dim, op, sign):
    x = _C.check_tensor(x, op)
    dims = list(range(x.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_dim(x, d, op) for d in dims]
    shifts = [sign * (x.shape[d] // 2) for d in dims]
    if not dims:
        return x.clone()
    if x.dtype.is_complex:  # roll the (real, imag) pairs: the core's roll has no complex kernel
        from monoflow import _complex

        return _complex.view_as_complex(_complex.view_as_real(x).roll(shifts, dims).contiguous())
    return x.roll(shifts, dims)


def fftshift(input, dim=None):
    return _shift(input, dim, "fftshift", 1)


def ifftshift(input, dim=None):
    return _shift(input, dim, "ifftshift", -1)
