"""Fractional max pooling (Graham, 2014; torch.nn.functional.fractional_max_pool2d/3d).

Each (sample, channel) plane draws one number u in [0, 1) per spatial dimension; with
``alpha = (in - k) / (out - 1)`` the windows of that dimension start at
``floor((i + u) * alpha) - floor(u * alpha)`` for i < out - 1 and the last at ``in - k``, so the
windows overlap irregularly and cover the input. The maxima are gathered from the input's
windows (``unfold``), so autograd routes each gradient to the element a maximum came from.
"""
import numpy as np

from monoflow import _C
from monoflow._creation import tensor as _tensor

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]


def _tuple(v, n, what, op):
    if v is None:
        return None
    t = tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
    if len(t) != n:
        raise ValueError(f"{op}(): {what} must be a number or a tuple of {n}, got {v!r}")
    return t


def _starts(samples, in_size, k, out, np_dtype):
    # window starts of one dimension, per plane: (planes, out), computed in the input's floating type
    u = samples.astype(np_dtype)
    if out == 1:
        return np.full((u.shape[0], 1), in_size - k, dtype=np.int64)
    alpha = np_dtype((in_size - k) / (out - 1))
    i = np.arange(out - 1, dtype=np_dtype)
    seq = np.floor((i[None, :] + u[:, None]) * alpha).astype(np.int64) - np.floor(u * alpha).astype(np.int64)[:, None]
    return np.concatenate([seq, np.full((u.shape[0], 1), in_size - k, dtype=np.int64)], axis=1)


def _fractional_max_pool(op, n, input, kernel_size, output_size, output_ratio, return_indices, _random_samples):
    _C.check_tensor(input, op, "input")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{op}(): expected a {n + 1}D or {n + 2}D input, got {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): expected a floating-point input, got {input.dtype}")
    unbatched = input.dim() == n + 1
    x = input.unsqueeze(0) if unbatched else input
    spatial = tuple(x.shape[2:])
    k = _tuple(kernel_size, n, "kernel_size", op)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op}(): requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        out = _tuple(output_size, n, "output_size", op)
    else:
        ratio = _tuple(output_ratio, n, "output_ratio", op)
        if not all(0 < r < 1 for r in ratio):
            raise ValueError(f"{op}(): output_ratio must be between 0 and 1 (exclusive), got {output_ratio}")
        out = tuple(int(s * r) for s, r in zip(spatial, ratio))
    for d in range(n):
        if k[d] <= 0 or out[d] <= 0:
            raise RuntimeError(f"{op}(): kernel_size and output_size must be positive, got {k} and {out}")
        if out[d] + k[d] - 1 > spatial[d]:
            raise RuntimeError(f"{op}(): output_size {out[d]} + kernel_size {k[d]} - 1 is too large for input size "
                               f"{spatial[d]} in spatial dimension {d}")
    nb, c = x.shape[0], x.shape[1]
    if _random_samples is None:
        samples = _C._empty((nb, c, n), x.dtype, x.device).uniform_(0.0, 1.0)
    else:
        samples = _random_samples
        if tuple(samples.shape) != (nb, c, n):
            raise RuntimeError(f"{op}(): _random_samples must have shape {[nb, c, n]}, got {list(samples.shape)}")
    u = samples.detach().to(dtype=x.dtype).numpy().reshape(nb * c, n)
    np_dtype = np.float32 if x.element_size() <= 4 else np.float64
    # torch's sample order: (W, H) in 2-d, (T, H, W) in 3-d
    sample_dim = [1, 0] if n == 2 else [0, 1, 2]
    starts = [_starts(u[:, sample_dim[d]], spatial[d], k[d], out[d], np_dtype) for d in range(n)]

    windows = x
    for d in range(n):
        windows = windows.unfold(2 + d, k[d], 1)  # (N, C, *positions, *k)
    positions = tuple(windows.shape[2:2 + n])
    windows = windows.reshape(nb, c, *positions, -1)
    # pick each dimension's starts in turn, with an index broadcast over the other dims
    picked = windows
    for d in range(n):
        idx_shape = [nb, c] + [1] * n + [1]
        idx_shape[2 + d] = out[d]
        idx = _tensor(starts[d].reshape(nb, c, out[d]), device=x.device).reshape(idx_shape)
        full = list(picked.shape)
        full[2 + d] = out[d]
        picked = picked.gather(2 + d, idx.expand(*full))
    values, arg = picked.max(-1)
    if not return_indices:
        return values.squeeze(0) if unbatched else values
    # flat index into the plane: the window's start plus the argmax's offset inside the window, per dim
    flat = None
    rem = arg
    offsets = []
    for d in reversed(range(n)):
        offsets.append(rem % k[d])
        rem = rem // k[d]
    offsets.reverse()
    for d in range(n):
        shape = [nb, c] + [1] * n
        shape[2 + d] = out[d]
        pos = _tensor(starts[d].reshape(nb, c, out[d]), device=x.device).reshape(shape) + offsets[d]
        flat = pos if flat is None else flat * spatial[d] + pos
    if unbatched:
        values, flat = values.squeeze(0), flat.squeeze(0)
    return values, flat


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """2-d fractional max pooling: ``kernel_size`` windows at pseudo-random, overlapping positions chosen
    so that the output has ``output_size`` (or ``output_ratio`` of the input size). See
    :class:`~monoflow.nn.FractionalMaxPool2d`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's ``(H, W)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the input's, in (0, 1).
        return_indices (bool): also return the flat index (``h * W + w``) of each maximum. Default:
            ``False``.
        _random_samples (Tensor, optional): ``(N, C, 2)`` numbers in [0, 1) placing the windows (width
            first, as torch); drawn from the default generator when ``None``.

    Example::

        >>> x = flow.arange(25.0).reshape(1, 1, 5, 5)
        >>> F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=flow.tensor([[[0.3, 0.7]]]))
        tensor([[[[ 6.,  7.,  9.],
                  [11., 12., 14.],
                  [21., 22., 24.]]]])
    """
    return _fractional_max_pool("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                                return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """3-d fractional max pooling (see :func:`fractional_max_pool2d` and
    :class:`~monoflow.nn.FractionalMaxPool3d`).

    Args:
        input (Tensor): ``(N, C, T, H, W)`` or ``(C, T, H, W)``.
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's ``(T, H, W)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the input's, in (0, 1).
        return_indices (bool): also return the flat index of each maximum. Default: ``False``.
        _random_samples (Tensor, optional): ``(N, C, 3)`` numbers in [0, 1) placing the windows (T, H, W).

    Example::

        >>> F.fractional_max_pool3d(flow.randn(1, 2, 5, 5, 5), 2, output_size=3).shape
        monoflow.Size([1, 2, 3, 3, 3])
    """
    return _fractional_max_pool("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                                return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d` returning ``(values, indices)`` always.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's ``(H, W)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the input's.
        return_indices (bool): ignored: indices are always returned.
        _random_samples (Tensor, optional): ``(N, C, 2)`` numbers in [0, 1).

    Example::

        >>> v, i = F.fractional_max_pool2d_with_indices(flow.randn(1, 1, 4, 4), 2, output_size=2)
        >>> i.dtype
        monoflow.int64
    """
    return _fractional_max_pool("fractional_max_pool2d_with_indices", 2, input, kernel_size, output_size,
                                output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool3d` returning ``(values, indices)`` always.

    Args:
        input (Tensor): ``(N, C, T, H, W)`` or ``(C, T, H, W)``.
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's ``(T, H, W)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the input's.
        return_indices (bool): ignored: indices are always returned.
        _random_samples (Tensor, optional): ``(N, C, 3)`` numbers in [0, 1).

    Example::

        >>> v, i = F.fractional_max_pool3d_with_indices(flow.randn(1, 1, 4, 4, 4), 2, output_size=2)
        >>> v.shape
        monoflow.Size([1, 1, 2, 2, 2])
    """
    return _fractional_max_pool("fractional_max_pool3d_with_indices", 3, input, kernel_size, output_size,
                                output_ratio, True, _random_samples)
