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
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

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

    out = _creation.from_numpy(np.asarray(arr.astype(_dtypes.to_numpy(dtype), copy=False), order="C"))
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
    """One-dimensional discrete Fourier transform of ``input`` along ``dim``.

    Real inputs are transformed as complex ones (integers and half floats in
    the default dtype first): the result is complex64 for float32 input,
    complex128 for float64. The transform runs on the host (numpy's pocketfft), copying tensors of other
    devices there and back; autograd goes through it.

    Args:
        input (Tensor): the input, real or complex.
        n (int, optional): the length of the transform: ``input`` is cut or
            zero-padded along ``dim`` to ``n``. Default: ``input.shape[dim]``.
        dim (int): the dimension to transform. Default: ``-1``.
        norm (str, optional): the scaling: ``"backward"`` (the default, same as
            ``None``) scales the inverse transform by ``1/n``, ``"forward"``
            scales this transform by ``1/n``, ``"ortho"`` scales both by
            ``1/sqrt(n)``.

    Returns:
        Tensor: the complex spectrum, ``n`` long along ``dim``.

    Example::

        >>> flow.fft.fft(flow.tensor([1., 0., 0., 0.]))
        tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
        >>> flow.fft.fft(flow.tensor([1., 2., 3., 4.]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
        >>> flow.fft.fft(flow.tensor([1., 2., 3., 4.]), n=2)
        tensor([ 3.+0.j, -1.+0.j])
    """
    x = _input(input, "fft", True)
    return _C2C.apply(x, _dim(x, dim, "fft"), _length(n, "fft"), _norm(norm, "fft"), False)


def ifft(input, n=None, dim=-1, norm=None):
    """One-dimensional inverse discrete Fourier transform of ``input`` along ``dim``.

    ``ifft(fft(x))`` is ``x`` (as a complex tensor). Real inputs are
    transformed as complex ones. The transform runs on the host (numpy's pocketfft), copying tensors of other
    devices there and back; autograd goes through it.

    Args:
        input (Tensor): the spectrum, real or complex.
        n (int, optional): the length of the transform: ``input`` is cut or
            zero-padded along ``dim`` to ``n``. Default: ``input.shape[dim]``.
        dim (int): the dimension to transform. Default: ``-1``.
        norm (str, optional): the scaling: ``"backward"`` (the default, same as
            ``None``) scales the inverse transform by ``1/n``, ``"forward"``
            scales this transform by ``1/n``, ``"ortho"`` scales both by
            ``1/sqrt(n)``.

    Returns:
        Tensor: a complex tensor, ``n`` long along ``dim``.

    Example::

        >>> flow.fft.ifft(flow.tensor([4., 0., 0., 0.]))
        tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
        >>> x = flow.tensor([1., 2., 3., 4.])
        >>> flow.fft.ifft(flow.fft.fft(x))
        tensor([1.+0.j, 2.+0.j, 3.+0.j, 4.+0.j])
    """
    x = _input(input, "ifft", True)
    return _C2C.apply(x, _dim(x, dim, "ifft"), _length(n, "ifft"), _norm(norm, "ifft"), True)


def rfft(input, n=None, dim=-1, norm=None):
    """One-dimensional Fourier transform of a real ``input``, keeping the
    non-negative frequencies only.

    The spectrum of a real signal is Hermitian (bin ``n - k`` is the conjugate
    of bin ``k``), so only its first ``n // 2 + 1`` bins are returned. Complex
    inputs raise a ``RuntimeError`` (use :func:`fft`). The transform runs on the host (numpy's pocketfft), copying tensors of other
    devices there and back; autograd goes through it.

    Args:
        input (Tensor): the real input (integers in the default dtype).
        n (int, optional): the length of the signal: ``input`` is cut or
            zero-padded along ``dim`` to ``n``. Default: ``input.shape[dim]``.
        dim (int): the dimension to transform. Default: ``-1``.
        norm (str, optional): the scaling: ``"backward"`` (the default, same as
            ``None``) scales the inverse transform by ``1/n``, ``"forward"``
            scales this transform by ``1/n``, ``"ortho"`` scales both by
            ``1/sqrt(n)``.

    Returns:
        Tensor: a complex tensor, ``n // 2 + 1`` long along ``dim``.

    Example::

        >>> flow.fft.rfft(flow.tensor([1., 2., 3., 4.]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j])
        >>> flow.fft.rfft(flow.tensor([1., 2., 3., 4., 5.])).shape
        monoflow.Size([3])
    """
    x = _input(input, "rfft", False)
    return _R2C.apply(x, _dim(x, dim, "rfft"), _length(n, "rfft"), _norm(norm, "rfft"))


def irfft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`rfft`: the real signal whose half spectrum is ``input``.

    The length of the output cannot be told from the half spectrum: give the
    original length as ``n`` when it was odd. The transform runs on the host (numpy's pocketfft), copying tensors of other
    devices there and back; autograd goes through it.

    Args:
        input (Tensor): the half spectrum (non-negative frequencies), complex
            or real.
        n (int, optional): the length of the output along ``dim``.
            Default: ``2 * (input.shape[dim] - 1)``.
        dim (int): the dimension to transform. Default: ``-1``.
        norm (str, optional): the scaling: ``"backward"`` (the default, same as
            ``None``) scales the inverse transform by ``1/n``, ``"forward"``
            scales this transform by ``1/n``, ``"ortho"`` scales both by
            ``1/sqrt(n)``.

    Returns:
        Tensor: a real tensor (float32 for complex64 input, float64 for
        complex128), ``n`` long along ``dim``.

    Example::

        >>> X = flow.fft.rfft(flow.tensor([1., 2., 3., 4., 5.]))
        >>> flow.fft.irfft(X, n=5)
        tensor([1., 2., 3., 4., 5.])
        >>> flow.fft.irfft(flow.fft.rfft(flow.tensor([1., 2., 3., 4.])))
        tensor([1., 2., 3., 4.])
    """
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
    """N-dimensional discrete Fourier transform of ``input``: a one-dimensional
    :func:`fft` along each of the dimensions ``dim``.

    Real inputs are transformed as complex ones. The transform runs on the host (numpy's pocketfft), copying tensors of other
    devices there and back; autograd goes through it.

    Args:
        input (Tensor): the input, real or complex.
        s (sequence of int, optional): the length of the transform in each
            dimension of ``dim`` (``-1``: that dimension's size); ``input`` is
            cut or zero-padded to it. Default: the sizes of ``input``.
        dim (int or sequence of int, optional): the dimensions to transform.
            Default: the last ``len(s)`` dimensions, all of them without ``s``.
        norm (str, optional): the scaling, with ``n`` the product of the
            transformed sizes: ``"backward"`` (the default, same as ``None``)
            scales the inverse transform by ``1/n``, ``"forward"`` scales this
            transform by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``.

    Returns:
        Tensor: the complex spectrum.

    Example::

        >>> x = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.fft.fftn(x)
        tensor([[10.+0.j, -2.+0.j],
                [-4.+0.j,  0.+0.j]])
        >>> flow.fft.fftn(x, dim=0)
        tensor([[ 4.+0.j,  6.+0.j],
                [-2.+0.j, -2.+0.j]])
    """
    x = _input(input, "fftn", True)
    norm = _norm(norm, "fftn")
    for d, n in zip(*_plan(x, s, dim, "fftn")):
        x = _C2C.apply(x, d, n, norm, False)
    return x


def ifftn(input, s=None, dim=None, norm=None):
    """N-dimensional inverse discrete Fourier transform of ``input``: a
    one-dimensional :func:`ifft` along each of the dimensions ``dim``.

    Real inputs are transformed as complex ones. The transform runs on the host (numpy's pocketfft), copying tensors of other
    devices there and back; autograd goes through it.

    Args:
        input (Tensor): the spectrum, real or complex.
        s (sequence of int, optional): the length of the transform in each
            dimension of ``dim`` (``-1``: that dimension's size); ``input`` is
            cut or zero-padded to it. Default: the sizes of ``input``.
        dim (int or sequence of int, optional): the dimensions to transform.
            Default: the last ``len(s)`` dimensions, all of them without ``s``.
        norm (str, optional): the scaling, with ``n`` the product of the
            transformed sizes: ``"backward"`` (the default, same as ``None``)
            scales the inverse transform by ``1/n``, ``"forward"`` scales this
            transform by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``.

    Returns:
        Tensor: a complex tensor.

    Example::

        >>> x = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.fft.ifftn(flow.fft.fftn(x))
        tensor([[1.+0.j, 2.+0.j],
                [3.+0.j, 4.+0.j]])
    """
    x = _input(input, "ifftn", True)
    norm = _norm(norm, "ifftn")
    for d, n in zip(*_plan(x, s, dim, "ifftn")):
        x = _C2C.apply(x, d, n, norm, True)
    return x


def rfftn(input, s=None, dim=None, norm=None):
    """N-dimensional Fourier transform of a real ``input``, keeping the
    non-negative frequencies of the last dimension of ``dim`` only.

    It is :func:`rfft` along the last dimension of ``dim`` (which becomes
    ``n // 2 + 1`` long), then :func:`fft` along the others. Complex inputs
    raise a ``RuntimeError``. The transform runs on the host (numpy's pocketfft), copying tensors of other
    devices there and back; autograd goes through it.

    Args:
        input (Tensor): the real input.
        s (sequence of int, optional): the signal's length in each dimension
            of ``dim`` (``-1``: that dimension's size); ``input`` is cut or
            zero-padded to it. Default: the sizes of ``input``.
        dim (int or sequence of int, optional): the dimensions to transform.
            Default: the last ``len(s)`` dimensions, all of them without ``s``.
        norm (str, optional): the scaling, with ``n`` the product of the
            transformed sizes: ``"backward"`` (the default, same as ``None``)
            scales the inverse transform by ``1/n``, ``"forward"`` scales this
            transform by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``.

    Returns:
        Tensor: the complex half spectrum.

    Example::

        >>> flow.fft.rfftn(flow.tensor([[1., 2.], [3., 4.]]))
        tensor([[10.+0.j, -2.+0.j],
                [-4.+0.j,  0.+0.j]])
        >>> flow.fft.rfftn(flow.ones(2, 3, 4)).shape
        monoflow.Size([2, 3, 3])
    """
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
    """Inverse of :func:`rfftn`: the real N-dimensional signal whose half
    spectrum is ``input``.

    It is :func:`ifft` along all dimensions of ``dim`` but the last, then
    :func:`irfft` along the last, whose output length is
    ``2 * (input.shape[dim[-1]] - 1)`` unless ``s`` gives it. The transform runs on the host (numpy's pocketfft), copying tensors of other
    devices there and back; autograd goes through it.

    Args:
        input (Tensor): the half spectrum, complex or real.
        s (sequence of int, optional): the output's length in each dimension
            of ``dim`` (``-1``: that dimension's size; for the last, the
            default above). Give it when the signal's last length was odd.
        dim (int or sequence of int, optional): the dimensions to transform.
            Default: the last ``len(s)`` dimensions, all of them without ``s``.
        norm (str, optional): the scaling, with ``n`` the product of the
            transformed sizes: ``"backward"`` (the default, same as ``None``)
            scales the inverse transform by ``1/n``, ``"forward"`` scales this
            transform by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``.

    Returns:
        Tensor: a real tensor.

    Example::

        >>> x = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.fft.irfftn(flow.fft.rfftn(x), s=(2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """
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
    """Two-dimensional discrete Fourier transform: :func:`fftn` over ``dim``,
    the last two dimensions by default.

    Args:
        input (Tensor): the input, real or complex.
        s (sequence of int, optional): the length of the transform in each
            dimension of ``dim``; ``input`` is cut or zero-padded to it.
            Default: the sizes of ``input``.
        dim (sequence of int): the dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): the scaling, with ``n`` the product of the
            transformed sizes: ``"backward"`` (the default, same as ``None``)
            scales the inverse transform by ``1/n``, ``"forward"`` scales this
            transform by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``.

    Returns:
        Tensor: the complex spectrum.

    Example::

        >>> flow.fft.fft2(flow.tensor([[1., 2.], [3., 4.]]))
        tensor([[10.+0.j, -2.+0.j],
                [-4.+0.j,  0.+0.j]])
    """
    return fftn(input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional inverse discrete Fourier transform: :func:`ifftn` over
    ``dim``, the last two dimensions by default.

    Args:
        input (Tensor): the spectrum, real or complex.
        s (sequence of int, optional): the length of the transform in each
            dimension of ``dim``; ``input`` is cut or zero-padded to it.
            Default: the sizes of ``input``.
        dim (sequence of int): the dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): the scaling, with ``n`` the product of the
            transformed sizes: ``"backward"`` (the default, same as ``None``)
            scales the inverse transform by ``1/n``, ``"forward"`` scales this
            transform by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``.

    Returns:
        Tensor: a complex tensor.

    Example::

        >>> X = flow.fft.fft2(flow.tensor([[1., 2.], [3., 4.]]))
        >>> flow.fft.ifft2(X)
        tensor([[1.+0.j, 2.+0.j],
                [3.+0.j, 4.+0.j]])
    """
    return ifftn(input, s, dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional Fourier transform of a real input, keeping the
    non-negative frequencies of the last dimension: :func:`rfftn` over ``dim``,
    the last two dimensions by default.

    Args:
        input (Tensor): the real input.
        s (sequence of int, optional): the signal's length in each dimension
            of ``dim``; ``input`` is cut or zero-padded to it.
            Default: the sizes of ``input``.
        dim (sequence of int): the dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): the scaling, with ``n`` the product of the
            transformed sizes: ``"backward"`` (the default, same as ``None``)
            scales the inverse transform by ``1/n``, ``"forward"`` scales this
            transform by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``.

    Returns:
        Tensor: the complex half spectrum.

    Example::

        >>> flow.fft.rfft2(flow.ones(4, 6)).shape
        monoflow.Size([4, 4])
        >>> flow.fft.rfft2(flow.tensor([[1., 2.], [3., 4.]]))
        tensor([[10.+0.j, -2.+0.j],
                [-4.+0.j,  0.+0.j]])
    """
    return rfftn(input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """Inverse of :func:`rfft2`: :func:`irfftn` over ``dim``, the last two
    dimensions by default.

    Args:
        input (Tensor): the half spectrum, complex or real.
        s (sequence of int, optional): the output's length in each dimension
            of ``dim``. Default: the sizes of ``input``, except the last:
            ``2 * (input.shape[dim[-1]] - 1)``.
        dim (sequence of int): the dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): the scaling, with ``n`` the product of the
            transformed sizes: ``"backward"`` (the default, same as ``None``)
            scales the inverse transform by ``1/n``, ``"forward"`` scales this
            transform by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``.

    Returns:
        Tensor: a real tensor.

    Example::

        >>> x = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.fft.irfft2(flow.fft.rfft2(x), s=(2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """
    return irfftn(input, s, dim, norm)


# Note [Hermitian transforms]
#   A Hermitian spectrum's transform is real, so fft(X) = conj(fft(X)) = n * ifft(conj(X)): hfft is irfft
#   of the conjugate with the dual norm, and ihfft (the inverse transform of a real signal, half kept) is the
#   conjugate of rfft with the dual norm. The same holds per dim for the n-dim ones.

_NORM_DOC = """norm (str, optional): the scaling: ``"backward"`` (the default, same as
            ``None``) scales the inverse transform (``ihfft``) by ``1/n``, ``"forward"``
            scales the forward one (``hfft``) by ``1/n``, ``"ortho"`` scales both by ``1/sqrt(n)``."""


def hfft(input, n=None, dim=-1, norm=None):
    """One-dimensional Fourier transform of a Hermitian-symmetric signal given by its first half: a real tensor.

    ``input`` holds the non-negative-frequency half of a signal whose
    element ``n - k`` is the conjugate of element ``k`` (as :func:`ihfft`
    returns); the transform of such a signal is real. It is :func:`irfft` of
    the conjugate with the dual scaling (Note [Hermitian transforms]).

    Args:
        input (Tensor): the half signal, complex or real.
        n (int, optional): the output's length along ``dim`` (the full signal's).
            Default: ``2 * (input.shape[dim] - 1)``.
        dim (int): the dimension to transform. Default: ``-1``.
        NORM

    Returns:
        Tensor: a real tensor, ``n`` long along ``dim``.

    Example::

        >>> flow.fft.hfft(flow.fft.ihfft(flow.tensor([1., 2., 3., 4.])), n=4)
        tensor([1., 2., 3., 4.])
    """
    x = _input(input, "hfft", True)
    d = _dim(x, dim, "hfft")
    n = _length(n, "hfft") or 2 * (x.shape[d] - 1)
    if n < 1:
        raise RuntimeError(f"hfft(): Invalid number of data points ({n}) specified")
    return _C2R.apply(x.conj(), d, n, _DUAL[_norm(norm, "hfft")])


def ihfft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`hfft`: the inverse Fourier transform of a real ``input``, non-negative frequencies only.

    It is the conjugate of :func:`rfft` with the dual scaling (Note [Hermitian transforms]).

    Args:
        input (Tensor): the real signal (integers in the default dtype).
        n (int, optional): the signal's length: ``input`` is cut or zero-padded
            along ``dim`` to ``n``. Default: ``input.shape[dim]``.
        dim (int): the dimension to transform. Default: ``-1``.
        NORM

    Returns:
        Tensor: a complex tensor, ``n // 2 + 1`` long along ``dim``.

    Example::

        >>> flow.fft.ihfft(flow.tensor([1., 2., 3., 4.]))
        tensor([ 2.5000-0.0000j, -0.5000-0.5000j, -0.5000-0.0000j])
    """
    x = _input(input, "ihfft", False)
    return _R2C.apply(x, _dim(x, dim, "ihfft"), _length(n, "ihfft"), _DUAL[_norm(norm, "ihfft")]).conj()


def hfftn(input, s=None, dim=None, norm=None):
    """N-dimensional :func:`hfft`: the real transform of a Hermitian-symmetric signal, the last dim of ``dim`` halved.

    It is :func:`irfftn` of the conjugate with the dual scaling (Note [Hermitian transforms]).

    Args:
        input (Tensor): the half signal, complex or real.
        s (sequence of int, optional): the output's length in each dimension
            of ``dim`` (``-1``: that dimension's size; for the last,
            ``2 * (input.shape[dim[-1]] - 1)``). Default: those sizes.
        dim (int or sequence of int, optional): the dimensions to transform.
            Default: the last ``len(s)`` dimensions, all of them without ``s``.
        NORM

    Returns:
        Tensor: a real tensor.

    Example::

        >>> x = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.fft.hfftn(flow.fft.ihfftn(x), s=(2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """
    x = _input(input, "hfftn", True)
    norm = _DUAL[_norm(norm, "hfftn")]
    dims, sizes = _plan(x, s, dim, "hfftn")
    if not dims:
        raise RuntimeError("hfftn(): must transform at least one axis")
    x = x.conj()
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _C2C.apply(x, d, n, norm, True)
    last = sizes[-1] or 2 * (x.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"hfftn(): Invalid number of data points ({last}) specified")
    return _C2R.apply(x, dims[-1], last, norm)


def ihfftn(input, s=None, dim=None, norm=None):
    """N-dimensional :func:`ihfft`: the inverse transform of a real ``input``, the last dim of ``dim`` halved.

    It is the conjugate of :func:`rfftn` with the dual scaling (Note [Hermitian transforms]).

    Args:
        input (Tensor): the real signal.
        s (sequence of int, optional): the signal's length in each dimension
            of ``dim`` (``-1``: that dimension's size); ``input`` is cut or
            zero-padded to it. Default: the sizes of ``input``.
        dim (int or sequence of int, optional): the dimensions to transform.
            Default: the last ``len(s)`` dimensions, all of them without ``s``.
        NORM

    Returns:
        Tensor: the complex half spectrum.

    Example::

        >>> flow.fft.ihfftn(flow.ones(2, 3, 4)).shape
        monoflow.Size([2, 3, 3])
    """
    x = _input(input, "ihfftn", False)
    norm = _DUAL[_norm(norm, "ihfftn")]
    dims, sizes = _plan(x, s, dim, "ihfftn")
    if not dims:
        raise RuntimeError("ihfftn(): must transform at least one axis")
    x = _R2C.apply(x, dims[-1], sizes[-1], norm)
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _C2C.apply(x, d, n, norm, False)
    return x.conj()


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`hfft`: :func:`hfftn` over ``dim``, the last two dimensions by default.

    Args:
        input (Tensor): the half signal, complex or real.
        s (sequence of int, optional): the output's length in each dimension
            of ``dim``. Default: the sizes of ``input``, except the last:
            ``2 * (input.shape[dim[-1]] - 1)``.
        dim (sequence of int): the dimensions to transform. Default: ``(-2, -1)``.
        NORM

    Returns:
        Tensor: a real tensor.

    Example::

        >>> x = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.fft.hfft2(flow.fft.ihfft2(x), s=(2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`ihfft`: :func:`ihfftn` over ``dim``, the last two dimensions by default.

    Args:
        input (Tensor): the real signal.
        s (sequence of int, optional): the signal's length in each dimension
            of ``dim``. Default: the sizes of ``input``.
        dim (sequence of int): the dimensions to transform. Default: ``(-2, -1)``.
        NORM

    Returns:
        Tensor: the complex half spectrum.

    Example::

        >>> flow.fft.ihfft2(flow.ones(3, 4)).shape
        monoflow.Size([3, 3])
    """
    return ihfftn(input, s, dim, norm)


for _fn in (hfft, ihfft, hfftn, ihfftn, hfft2, ihfft2):
    _fn.__doc__ = _fn.__doc__.replace("NORM", _NORM_DOC)
del _fn


def _freq_tensor(values, dtype, device, requires_grad):
    from monoflow import _creation

    out = _creation.tensor(values, dtype=dtype or _C.get_default_dtype(), device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """The sample frequencies of a length-``n`` :func:`fft`, in cycles per
    unit of the sample spacing ``d``.

    The result is ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``:
    the non-negative frequencies first, as :func:`fft` orders its bins.

    Args:
        n (int): the length of the transform.
        d (float): the sample spacing (the inverse of the sampling rate).
            Default: ``1.0``.
        dtype (monoflow.dtype, optional): the result's dtype. Default: the
            default floating dtype.
        device (monoflow.device, optional): where the result lives. Default: CPU.
        requires_grad (bool): whether autograd records operations on the
            result. Default: ``False``.
        layout: accepted for torch compatibility; only the strided layout exists.
        pin_memory (bool): accepted for torch compatibility, ignored.

    Returns:
        Tensor: a one-dimensional tensor of ``n`` frequencies.

    Example::

        >>> flow.fft.fftfreq(4)
        tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
        >>> flow.fft.fftfreq(5, d=0.5)
        tensor([ 0.0000,  0.4000,  0.8000, -0.8000, -0.4000])
    """
    n = _C.check_int(n, "fftfreq", "n", 1)
    if n < 0:
        raise RuntimeError(f"fftfreq: Trying to create tensor with negative dimension {n}: [{n}]")
    with np.errstate(all="ignore"):  # (n = 0: an empty result, as torch's)
        values = np.fft.fftfreq(n, d) if n else np.zeros(0)
    return _freq_tensor(values, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """The sample frequencies of a length-``n`` :func:`rfft`, in cycles per
    unit of the sample spacing ``d``.

    The result is ``[0, 1, ..., n // 2] / (d * n)``, the non-negative
    frequencies only.

    Args:
        n (int): the length of the real signal.
        d (float): the sample spacing (the inverse of the sampling rate).
            Default: ``1.0``.
        dtype (monoflow.dtype, optional): the result's dtype. Default: the
            default floating dtype.
        device (monoflow.device, optional): where the result lives. Default: CPU.
        requires_grad (bool): whether autograd records operations on the
            result. Default: ``False``.
        layout: accepted for torch compatibility; only the strided layout exists.
        pin_memory (bool): accepted for torch compatibility, ignored.

    Returns:
        Tensor: a one-dimensional tensor of ``n // 2 + 1`` frequencies.

    Example::

        >>> flow.fft.rfftfreq(4)
        tensor([0.0000, 0.2500, 0.5000])
        >>> flow.fft.rfftfreq(5, d=0.5)
        tensor([0.0000, 0.4000, 0.8000])
    """
    n = _C.check_int(n, "rfftfreq", "n", 1)
    if n < 0:
        raise RuntimeError(f"rfftfreq: Trying to create tensor with negative dimension {n // 2 + 1}: [{n // 2 + 1}]")
    values = np.fft.rfftfreq(n, d) if n else np.array([np.nan])  # (n = 0: [0 / 0], torch's answer)
    return _freq_tensor(values, dtype, device, requires_grad)


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
    """Moves the zero-frequency bin of a spectrum to the centre of each
    dimension of ``dim``.

    It rolls each dimension of size ``n`` by ``n // 2``, so that the bins of
    :func:`fft` (or :func:`fftfreq`) run from the most negative frequency to
    the most positive. :func:`ifftshift` undoes it. Returns a new tensor of
    ``input``'s shape and dtype (complex ones included).

    Args:
        input (Tensor): the spectrum, in :func:`fft`'s order.
        dim (int or sequence of int, optional): the dimensions to shift.
            Default: all of them.

    Returns:
        Tensor: the shifted tensor.

    Example::

        >>> flow.fft.fftshift(flow.fft.fftfreq(4))
        tensor([-0.5000, -0.2500,  0.0000,  0.2500])
        >>> flow.fft.fftshift(flow.arange(5))
        tensor([3, 4, 0, 1, 2])
        >>> flow.fft.fftshift(flow.arange(6).reshape(2, 3), dim=1)
        tensor([[2, 0, 1],
                [5, 3, 4]])
    """
    return _shift(input, dim, "fftshift", 1)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`: moves the centre bin of each dimension
    of ``dim`` back to index 0.

    It rolls each dimension of size ``n`` by ``-(n // 2)``; for even sizes it
    is the same as :func:`fftshift`, for odd sizes it differs by one place.
    Returns a new tensor of ``input``'s shape and dtype.

    Args:
        input (Tensor): the centred spectrum.
        dim (int or sequence of int, optional): the dimensions to shift.
            Default: all of them.

    Returns:
        Tensor: the shifted tensor.

    Example::

        >>> flow.fft.ifftshift(flow.arange(5))
        tensor([2, 3, 4, 0, 1])
        >>> flow.fft.ifftshift(flow.fft.fftshift(flow.arange(5)))
        tensor([0, 1, 2, 3, 4])
    """
    return _shift(input, dim, "ifftshift", -1)
