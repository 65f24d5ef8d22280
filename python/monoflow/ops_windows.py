"""Window functions (torch.hann_window & co., oneflow.hann_window): 1-D tensors
of the classic tapers, computed in float64 and rounded once to `dtype`."""
import numpy as np

from monoflow import _C
from monoflow._creation import tensor
from monoflow._global.creation import accepts_placement

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


def _window(op, window_length, periodic, symmetric, dtype, device, requires_grad):
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'window_length' must be int, not {type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{op} requires non-negative window_length, got window_length={window_length}")
    if window_length >= 2 ** 63:  # (torch's type)
        raise ValueError(f"{op}(): window_length {window_length} is out of the int64 range")
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"{op}(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    if not dtype.is_floating_point:
        raise RuntimeError(f"{op} expects floating point dtypes, got: {dtype!r}")
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        n = window_length + 1 if periodic else window_length  # periodic: the symmetric one, last point dropped
        try:
            values = symmetric(n)[:window_length]
        except (ValueError, MemoryError) as e:  # numpy's "array is too big" names no op
            raise RuntimeError(f"{op}(): cannot allocate a window of {window_length} elements ({e})") from None
    return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def _cosine_sum(*coefficients):
    def symmetric(n):
        k = np.arange(n) * (2 * np.pi / (n - 1))
        return sum(((-1) ** i) * a * np.cos(i * k) for i, a in enumerate(coefficients))
    return symmetric


@accepts_placement()
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))``.

    Args:
        window_length (int): its size.
        periodic (bool): True (default) gives the window for spectral analysis (the
            symmetric window of ``window_length + 1`` points, last dropped).
        dtype: a floating point dtype (default: the default dtype).
        layout: accepted for torch's signature (strided only).
        device: where the result lives.
        requires_grad (bool): whether autograd records operations on the result.
        placement, sbp: (OneFlow, keywords) make a global tensor laid out as ``sbp``
            on ``placement`` instead of a local one (as every creation function).

    Returns:
        Tensor: shape ``(window_length,)``.

    Example::

        >>> import monoflow as flow
        >>> flow.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, _cosine_sum(0.5, 0.5), dtype, device, requires_grad)


@accepts_placement()
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """The Hamming window ``alpha - beta cos(2 pi n / (N - 1))`` (arguments as in ``hann_window``).

    Args:
        window_length (int): its size.
        periodic (bool): True (default) gives the window for spectral analysis (the
            symmetric window of ``window_length + 1`` points, last dropped).
        dtype: a floating point dtype (default: the default dtype).
        layout: accepted for torch's signature (strided only).
        device: where the result lives.
        requires_grad (bool): whether autograd records operations on the result.
        alpha, beta (float): the coefficients.

    Returns:
        Tensor: shape ``(window_length,)``.

    Example::

        >>> import monoflow as flow
        >>> flow.hamming_window(4)
        tensor([0.0800, 0.5400, 1.0000, 0.5400])
    """
    alpha = _C.check_float(alpha, "hamming_window", "alpha", 3)  # (numpy's ufunc message otherwise)
    beta = _C.check_float(beta, "hamming_window", "beta", 4)
    return _window("hamming_window", window_length, periodic, _cosine_sum(alpha, beta), dtype, device,
                   requires_grad)


@accepts_placement()
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    Args:
        window_length (int): its size.
        periodic (bool): True (default) gives the window for spectral analysis (the
            symmetric window of ``window_length + 1`` points, last dropped).
        dtype: a floating point dtype (default: the default dtype).
        layout: accepted for torch's signature (strided only).
        device: where the result lives.
        requires_grad (bool): whether autograd records operations on the result.

    Returns:
        Tensor: shape ``(window_length,)``.

    Example::

        >>> import monoflow as flow
        >>> flow.blackman_window(4)[1:]
        tensor([0.3400, 1.0000, 0.3400])
    """
    return _window("blackman_window", window_length, periodic, _cosine_sum(0.42, 0.5, 0.08), dtype, device,
                   requires_grad)


@accepts_placement()
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The Bartlett (triangular) window ``1 - |2n / (N - 1) - 1|``.

    Args:
        window_length (int): its size.
        periodic (bool): True (default) gives the window for spectral analysis (the
            symmetric window of ``window_length + 1`` points, last dropped).
        dtype: a floating point dtype (default: the default dtype).
        layout: accepted for torch's signature (strided only).
        device: where the result lives.
        requires_grad (bool): whether autograd records operations on the result.

    Returns:
        Tensor: shape ``(window_length,)``.

    Example::

        >>> import monoflow as flow
        >>> flow.bartlett_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    def symmetric(n):
        return 1 - np.abs(2 * np.arange(n) / (n - 1) - 1)
    return _window("bartlett_window", window_length, periodic, symmetric, dtype, device, requires_grad)


@accepts_placement()
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """The Kaiser window ``I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)``.

    Args:
        window_length (int): its size.
        periodic (bool): True (default) gives the window for spectral analysis (the
            symmetric window of ``window_length + 1`` points, last dropped).
        dtype: a floating point dtype (default: the default dtype).
        layout: accepted for torch's signature (strided only).
        device: where the result lives.
        requires_grad (bool): whether autograd records operations on the result.
        beta (float): the shape parameter.

    Returns:
        Tensor: shape ``(window_length,)``.

    Example::

        >>> import monoflow as flow
        >>> flow.kaiser_window(3, False, 2.0)
        tensor([0.4387, 1.0000, 0.4387])
    """
    def symmetric(n):
        return np.kaiser(n, beta)
    return _window("kaiser_window", window_length, periodic, symmetric, dtype, device, requires_grad)
