"""Pooling: max_pool1d/2d/3d, avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d,
adaptive_max_pool1d/2d/3d (torch.nn.functional's API). The kernels and
derivatives are the C++ core's 2-D ones; 1-D variants run as 2-D pooling over
a unit height, 3-D ones as a 2-D pool then a 1-D pool (see below)."""
import operator

from monoflow import _C, _autocast
from monoflow._composite import flag as _flag

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices",
           "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _refused(exc_type, message):
    # exc_type(message) naming the public op in progress: the *_with_indices
    # spelling the user called, or max_pool3d over the max_pool1d it runs
    # (Note [Naming the op in progress], _args.pxi).
    return exc_type(_C.name_op_in_progress(message))


def _ints(v, name, allow_none=False):
    """v, an int or a sequence of ints (None entries too when allow_none), as
    a tuple; else torch's TypeError for argument `name`."""
    if isinstance(v, int) or getattr(v, "ndim", None) == 0:  # (a 0-d array or tensor: one int)
        try:
            return (operator.index(v),)
        except TypeError:
            raise _refused(TypeError, f"argument '{name}' must be tuple of ints, not {type(v).__name__}") from None
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise _refused(TypeError, f"argument '{name}' must be tuple of ints, not {type(v).__name__}")
    out = []
    for i, e in enumerate(v):
        if e is None and allow_none:
            out.append(None)
            continue
        try:
            out.append(operator.index(e))
        except TypeError:
            raise _refused(TypeError, f"argument '{name}' must be tuple of ints, but found element of type "
                                      f"{type(e).__name__} at pos {i}") from None
    return tuple(out)


def _n_ints(v, n, name):
    """A pooling parameter of n dims (an int, a 1-tuple or an n-tuple) as an n-tuple."""
    t = _ints(v, name)
    if len(t) == 1:
        return t * n
    if len(t) != n:
        raise _refused(ValueError, f"{name} must be an int or a {n}-tuple, but got {tuple(v)!r}")
    return t


def _one(v, name):
    """A 1-D pooling parameter (int or 1-tuple) as an int."""
    return _n_ints(v, 1, name)[0]


def _stride(stride, kernel, n):
    # torch takes None or an empty stride as "the kernel size"
    if stride is None:
        return kernel
    t = _ints(stride, "stride")
    return kernel if not t else _n_ints(t, n, "stride")


def _check_1d(input):
    if input.dim() not in (2, 3):
        raise _refused(RuntimeError, f"expected a 2D or 3D (batch mode) tensor, but got input of size "
                                     f"{list(input.shape)}")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling over kH x kW windows. See :class:`~monoflow.nn.MaxPool2d`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        return_indices (bool): also return the argmax indices (flat into each spatial plane), for
            :class:`MaxUnpool2d`. Default: ``False``.

    Example::

        >>> F.max_pool2d(flow.randn(1, 2, 8, 8), 2).shape
        monoflow.Size([1, 2, 4, 4])
    """
    ceil_mode = _flag(None, "ceil_mode", ceil_mode)
    if stride is not None and not isinstance(stride, int) and not _ints(stride, "stride"):
        stride = None  # torch accepts an empty stride as "the kernel size"
    out, idx = _C.nn_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling over k windows. See :class:`~monoflow.nn.MaxPool1d`.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or 1-tuple): the window size.
        stride (int or 1-tuple): the window step. Default: ``kernel_size``.
        padding (int or 1-tuple): implicit padding on both sides (``-inf`` for max, zeros for average);
            at most half the kernel. Default: ``0``.
        dilation (int or 1-tuple): the spacing between window elements. Default: ``1``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        return_indices (bool): also return the argmax indices (flat into each spatial plane), for
            :class:`MaxUnpool1d`. Default: ``False``.

    Example::

        >>> F.max_pool1d(flow.randn(1, 2, 8), 2).shape
        monoflow.Size([1, 2, 4])
        >>> F.max_pool1d(flow.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
        tensor([[3., 2.]])
    """
    _C.check_tensor(input, "max_pool1d", "input", 1)
    ceil_mode = _flag(None, "ceil_mode", ceil_mode)
    _check_1d(input)
    k = _one(kernel_size, "kernel_size")
    s = _stride(stride, (k,), 1)[0]
    out, idx = _C.nn_max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "padding")),
                                (1, _one(dilation, "dilation")), ceil_mode)
    out = out.squeeze(-2)
    return (out, idx.squeeze(-2)) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling over kH x kW windows. See :class:`~monoflow.nn.AvgPool2d`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        count_include_pad (bool): count the zero padding in the divisor. Default: ``True``.
        divisor_override (int, optional): divide by this number instead of the window size. Default:
            ``None``.

    Example::

        >>> F.avg_pool2d(flow.randn(1, 2, 8, 8), 2).shape
        monoflow.Size([1, 2, 4, 4])
    """
    ceil_mode = _flag(None, "ceil_mode", ceil_mode)
    count_include_pad = _flag(None, "count_include_pad", count_include_pad)
    if divisor_override is not None:  # (an array's == would ask its truth value)
        divisor_override = _C.check_int(divisor_override, "avg_pool2d", "divisor_override")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool2d: divisor must be not zero")
    if stride is not None and not isinstance(stride, int) and not _ints(stride, "stride"):
        stride = None
    return _C.nn_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            0 if divisor_override is None else divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling over k windows. See :class:`~monoflow.nn.AvgPool1d`.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or 1-tuple): the window size.
        stride (int or 1-tuple): the window step. Default: ``kernel_size``.
        padding (int or 1-tuple): implicit padding on both sides (``-inf`` for max, zeros for average);
            at most half the kernel. Default: ``0``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        count_include_pad (bool): count the zero padding in the divisor. Default: ``True``.

    Example::

        >>> F.avg_pool1d(flow.randn(1, 2, 8), 2).shape
        monoflow.Size([1, 2, 4])
        >>> F.avg_pool1d(flow.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
        tensor([[2., 1.]])
    """
    _C.check_tensor(input, "avg_pool1d", "input", 1)
    ceil_mode = _flag(None, "ceil_mode", ceil_mode)
    count_include_pad = _flag(None, "count_include_pad", count_include_pad)
    _check_1d(input)
    k = _one(kernel_size, "kernel_size")
    s = _stride(stride, (k,), 1)[0]
    out = _C.nn_avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "padding")),
                           ceil_mode, count_include_pad, 0)
    return out.squeeze(-2)


def _adaptive_size(input, output_size, n):
    """output_size with None entries replaced by the input's size."""
    size = _ints(output_size, "output_size", allow_none=True)
    if len(size) == 1:
        size = size * n
    if len(size) != n:
        raise _refused(RuntimeError, f"output_size must have {n} element{'s' if n > 1 else ''}, but got "
                                     f"{len(size)}")
    if None in size and input.dim() < n:
        raise _refused(ValueError, f"Input dimension should be at least {n}")
    return tuple(input.shape[input.dim() - n + i] if v is None else v for i, v in enumerate(size))


def _global_average(input, n):
    # An output size of all ones is the mean over the last `n` dims, whatever
    # the leading dims are: torch (and OneFlow) accept any rank for it.
    return input.mean(dim=tuple(range(input.dim() - n, input.dim())), keepdim=True)


def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling to ``output_size``. See :class:`~monoflow.nn.AdaptiveAvgPool2d`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.

    Example::

        >>> F.adaptive_avg_pool2d(flow.randn(1, 2, 8, 8), (4, 2)).shape
        monoflow.Size([1, 2, 4, 2])
    """
    _C.check_tensor(input, "adaptive_avg_pool2d", "input", 1)
    size = _adaptive_size(input, output_size, 2)
    if size == (1, 1) and input.dim() > 4:
        return _global_average(input, 2)
    return _C.nn_adaptive_avg_pool2d(input, size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D adaptive max pooling to ``output_size``. See :class:`~monoflow.nn.AdaptiveMaxPool2d`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.
        return_indices (bool): also return the argmax indices. Default: ``False``.

    Example::

        >>> F.adaptive_max_pool2d(flow.randn(1, 2, 8, 8), (4, 2)).shape
        monoflow.Size([1, 2, 4, 2])
    """
    _C.check_tensor(input, "adaptive_max_pool2d", "input", 1)
    out, idx = _C.nn_adaptive_max_pool2d(input, _adaptive_size(input, output_size, 2))
    return (out, idx) if return_indices else out


def adaptive_avg_pool1d(input, output_size):
    """1-D adaptive average pooling to ``output_size``. See :class:`~monoflow.nn.AdaptiveAvgPool1d`.

    Args:
        input (Tensor): ``(N, C, L)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int or 1-tuple.

    Example::

        >>> F.adaptive_avg_pool1d(flow.randn(1, 2, 8), 4).shape
        monoflow.Size([1, 2, 4])
    """
    _C.check_tensor(input, "adaptive_avg_pool1d", "input", 1)
    _check_1d(input)
    (o,) = _adaptive_size(input, output_size, 1)
    return _C.nn_adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D adaptive max pooling to ``output_size``. See :class:`~monoflow.nn.AdaptiveMaxPool1d`.

    Args:
        input (Tensor): ``(N, C, L)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int or 1-tuple.
        return_indices (bool): also return the argmax indices. Default: ``False``.

    Example::

        >>> F.adaptive_max_pool1d(flow.randn(1, 2, 8), 4).shape
        monoflow.Size([1, 2, 4])
    """
    _C.check_tensor(input, "adaptive_max_pool1d", "input", 1)
    _check_1d(input)
    (o,) = _adaptive_size(input, output_size, 1)
    out, idx = _C.nn_adaptive_max_pool2d(input.unsqueeze(-2), (1, o))
    out = out.squeeze(-2)
    return (out, idx.squeeze(-2)) if return_indices else out


# -- 3-D pooling. Max and average over a box are separable: the pool over
# (H, W) runs as the 2-D kernel, then the pool over D as a 1-D pool of the
# result (its windows along D do not depend on H or W), so the 2-D kernels
# and their derivatives serve. The divisors of average pooling are products
# of per-dim counts, so they separate too.

def _check_3d(input):
    if input.dim() not in (4, 5):
        raise _refused(RuntimeError, f"expected a 4D or 5D (batch mode) tensor, but got input of size "
                                     f"{list(input.shape)}")


def _pool_3d(input, pool_hw, pool_d):
    """Runs ``pool_hw`` on (B, D, H, W) -> (B, D, H', W') [, indices into H*W]
    and ``pool_d`` on (B, H'*W', D) -> (B, H'*W', D') [, indices into D];
    returns (output, flat indices into D*H*W or None)."""
    _check_3d(input)
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    n, c, d, h, w = x.shape
    y, idx_hw = pool_hw(x.reshape(n * c, d, h, w))
    oh, ow = y.shape[-2], y.shape[-1]
    z, idx_d = pool_d(y.permute(0, 2, 3, 1).reshape(n * c, oh * ow, d))
    od = z.shape[-1]
    out = z.reshape(n, c, oh, ow, od).permute(0, 1, 4, 2, 3)
    indices = None
    if idx_hw is not None:
        hw = idx_hw.permute(0, 2, 3, 1).reshape(n * c, oh * ow, d).gather(2, idx_d)
        indices = (idx_d * (h * w) + hw).reshape(n, c, oh, ow, od).permute(0, 1, 4, 2, 3)
    if unbatched:
        out = out.squeeze(0)
        indices = indices.squeeze(0) if indices is not None else None
    return out, indices


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling over kD x kH x kW windows. See :class:`~monoflow.nn.MaxPool3d`.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        return_indices (bool): also return the argmax indices (flat into each spatial plane), for
            :class:`MaxUnpool3d`. Default: ``False``.

    Example::

        >>> F.max_pool3d(flow.randn(1, 2, 4, 8, 8), 2).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """
    _C.check_tensor(input, "max_pool3d", "input", 1)
    ceil_mode = _flag(None, "ceil_mode", ceil_mode)
    k = _n_ints(kernel_size, 3, "kernel_size")
    s = _stride(stride, k, 3)
    p = _n_ints(padding, 3, "padding")
    dl = _n_ints(dilation, 3, "dilation")
    out, idx = _pool_3d(input, lambda t: _C.nn_max_pool2d(t, k[1:], s[1:], p[1:], dl[1:], ceil_mode),
        lambda t: max_pool1d(t, k[0], s[0], p[0], dl[0], ceil_mode, return_indices=True))
    return (out, idx) if return_indices else out


@_autocast.fp32
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-D average pooling over kD x kH x kW windows. See :class:`~monoflow.nn.AvgPool3d`.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        count_include_pad (bool): count the zero padding in the divisor. Default: ``True``.
        divisor_override (int, optional): divide by this number instead of the window size. Default:
            ``None``.

    Example::

        >>> F.avg_pool3d(flow.randn(1, 2, 4, 8, 8), 2).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """
    _C.check_tensor(input, "avg_pool3d", "input", 1)
    ceil_mode = _flag(None, "ceil_mode", ceil_mode)
    count_include_pad = _flag(None, "count_include_pad", count_include_pad)
    if divisor_override is not None:  # (an array's == would ask its truth value)
        divisor_override = _C.check_int(divisor_override, "avg_pool3d", "divisor_override")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool3d: divisor must be not zero")
    k = _n_ints(kernel_size, 3, "kernel_size")
    s = _stride(stride, k, 3)
    p = _n_ints(padding, 3, "padding")
    # with a divisor override both passes sum (divisor 1), and the total is divided once
    div = 0 if divisor_override is None else 1
    out, _ = _pool_3d(
        input, lambda t: (_C.nn_avg_pool2d(t, k[1:], s[1:], p[1:], ceil_mode, count_include_pad, div), None),
        lambda t: (_C.nn_avg_pool2d(t.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode,
                                    count_include_pad, div).squeeze(-2), None))
    return out if divisor_override is None else out / divisor_override


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling to ``output_size``. See :class:`~monoflow.nn.AdaptiveAvgPool3d`.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.

    Example::

        >>> F.adaptive_avg_pool3d(flow.randn(1, 2, 4, 8, 8), (2, 4, 4)).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """
    _C.check_tensor(input, "adaptive_avg_pool3d", "input", 1)
    if input.dim() > 5 and _adaptive_size(input, output_size, 3) == (1, 1, 1):  # (rank first: None sizes read it)
        return _global_average(input, 3)
    _check_3d(input)
    od, oh, ow = _adaptive_size(input, output_size, 3)
    out, _ = _pool_3d(input, lambda t: (_C.nn_adaptive_avg_pool2d(t, (oh, ow)), None),
                      lambda t: (adaptive_avg_pool1d(t, od), None))
    return out


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D adaptive max pooling to ``output_size``. See :class:`~monoflow.nn.AdaptiveMaxPool3d`.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.
        return_indices (bool): also return the argmax indices. Default: ``False``.

    Example::

        >>> F.adaptive_max_pool3d(flow.randn(1, 2, 4, 8, 8), (2, 4, 4)).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """
    _C.check_tensor(input, "adaptive_max_pool3d", "input", 1)
    _check_3d(input)
    od, oh, ow = _adaptive_size(input, output_size, 3)
    out, idx = _pool_3d(input, lambda t: _C.nn_adaptive_max_pool2d(t, (oh, ow)),
                        lambda t: adaptive_max_pool1d(t, od, return_indices=True))
    return (out, idx) if return_indices else out


# -- torch's explicit "_with_indices" spellings
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """1-D max pooling that returns ``(output, indices)``: :func:`max_pool1d` with ``return_indices=True``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or 1-tuple): the window size.
        stride (int or 1-tuple): the window step. Default: ``kernel_size``.
        padding (int or 1-tuple): implicit padding on both sides (``-inf`` for max, zeros for average);
            at most half the kernel. Default: ``0``.
        dilation (int or 1-tuple): the spacing between window elements. Default: ``1``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        return_indices (bool): ignored; the indices are always returned. Default: ``False``.

    Example::

        >>> out, idx = F.max_pool1d_with_indices(flow.randn(1, 2, 8), 2)
        >>> idx.dtype
        monoflow.int64
    """
    _C.check_tensor(input, "max_pool1d_with_indices", "input", 1)
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """2-D max pooling that returns ``(output, indices)``: :func:`max_pool2d` with ``return_indices=True``.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        return_indices (bool): ignored; the indices are always returned. Default: ``False``.

    Example::

        >>> out, idx = F.max_pool2d_with_indices(flow.randn(1, 2, 8, 8), 2)
        >>> idx.dtype
        monoflow.int64
    """
    _C.check_tensor(input, "max_pool2d_with_indices", "input", 1)
    for name, v in (("kernel_size", kernel_size), ("padding", padding), ("dilation", dilation)):
        _ints(v, name)  # (refused here: the binding's message would name max_pool2d)
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """3-D max pooling that returns ``(output, indices)``: :func:`max_pool3d` with ``return_indices=True``.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        return_indices (bool): ignored; the indices are always returned. Default: ``False``.

    Example::

        >>> out, idx = F.max_pool3d_with_indices(flow.randn(1, 2, 4, 8, 8), 2)
        >>> idx.dtype
        monoflow.int64
    """
    _C.check_tensor(input, "max_pool3d_with_indices", "input", 1)
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """1-D adaptive max pooling that returns ``(output, indices)``.

    Args:
        input (Tensor): ``(N, C, L)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int or 1-tuple.
        return_indices (bool): kept for torch compatibility. Default: ``True``.

    Example::

        >>> out, idx = F.adaptive_max_pool1d_with_indices(flow.randn(1, 2, 8), 4)
        >>> out.shape == idx.shape
        True
    """
    _C.check_tensor(input, "adaptive_max_pool1d_with_indices", "input", 1)
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """2-D adaptive max pooling that returns ``(output, indices)``.

    Args:
        input (Tensor): ``(N, C, H, W)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.
        return_indices (bool): kept for torch compatibility. Default: ``True``.

    Example::

        >>> out, idx = F.adaptive_max_pool2d_with_indices(flow.randn(1, 2, 8, 8), (4, 2))
        >>> out.shape == idx.shape
        True
    """
    _C.check_tensor(input, "adaptive_max_pool2d_with_indices", "input", 1)
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """3-D adaptive max pooling that returns ``(output, indices)``.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or without the batch dim.
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.
        return_indices (bool): kept for torch compatibility. Default: ``True``.

    Example::

        >>> out, idx = F.adaptive_max_pool3d_with_indices(flow.randn(1, 2, 4, 8, 8), (2, 4, 4))
        >>> out.shape == idx.shape
        True
    """
    _C.check_tensor(input, "adaptive_max_pool3d_with_indices", "input", 1)
    return adaptive_max_pool3d(input, output_size, return_indices=True)


# -- power-average pooling: (sum of x^p over the window) ^ (1/p), as torch:
# avg_pool of x^p, times the window size, through sign(.) * relu(|.|).
def _lp(avg, kernel_elems, norm_type):
    from monoflow import ops_math as _m

    return (_m.sign(avg) * _m.relu(avg.abs())).mul(kernel_elems).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-D power-average pooling ``(sum of x ** p) ** (1 / p)`` over each window. See
    :class:`~monoflow.nn.LPPool1d`.

    Args:
        input (Tensor): ``(N, C, L)`` or without the batch dim.
        norm_type (float): the power ``p``.
        kernel_size (int or 1-tuple): the window size.
        stride (int or 1-tuple): the window step. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` for the output size. Default: ``False``.

    Example::

        >>> F.lp_pool1d(flow.ones(1, 2, 8), 2, 2).shape
        monoflow.Size([1, 2, 4])
        >>> F.lp_pool1d(flow.tensor([[3.0, 4.0]]), 2, 2)
        tensor([[5.]])
    """
    _C.check_tensor(input, "lp_pool1d", "input", 1)
    _C.check_float(norm_type, "lp_pool1d", "norm_type", 2)
    k = _one(kernel_size, "kernel_size")
    return _lp(avg_pool1d(input.pow(norm_type), k, stride, 0, ceil_mode), k, norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-D power-average pooling ``(sum of x ** p) ** (1 / p)`` over each window. See
    :class:`~monoflow.nn.LPPool2d`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or without the batch dim.
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` for the output size. Default: ``False``.

    Example::

        >>> F.lp_pool2d(flow.ones(1, 2, 8, 8), 2, 2).shape
        monoflow.Size([1, 2, 4, 4])
    """
    _C.check_tensor(input, "lp_pool2d", "input", 1)
    _C.check_float(norm_type, "lp_pool2d", "norm_type", 2)
    kh, kw = _n_ints(kernel_size, 2, "kernel_size")
    return _lp(avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode), kh * kw, norm_type)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-D power-average pooling ``(sum of x ** p) ** (1 / p)`` over each window. See
    :class:`~monoflow.nn.LPPool3d`.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or without the batch dim.
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` for the output size. Default: ``False``.

    Example::

        >>> F.lp_pool3d(flow.ones(1, 2, 4, 8, 8), 2, 2).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """
    _C.check_tensor(input, "lp_pool3d", "input", 1)
    _C.check_float(norm_type, "lp_pool3d", "norm_type", 2)
    kd, kh, kw = _n_ints(kernel_size, 3, "kernel_size")
    return _lp(avg_pool3d(input.pow(norm_type), (kd, kh, kw), stride, 0, ceil_mode), kd * kh * kw, norm_type)


# -- max_unpool: the inverse of max pooling's selection. Every pooled value
# goes back to the position its index names, zeros elsewhere: a scatter
# (assignment, as torch) into zeros. Overlapping windows (stride < kernel)
# repeat an index, always with the same value (the one element both windows
# selected), which is written once, not summed; the backward gathers the
# gradient at each index, so every repeat gets it (as torch).
def _unpool(input, indices, spatial_out):
    from monoflow._creation import zeros
    import math

    n_spatial = len(spatial_out)
    unbatched = input.dim() == n_spatial + 1
    x = input.unsqueeze(0) if unbatched else input
    idx = indices.unsqueeze(0) if unbatched else indices
    if tuple(idx.shape) != tuple(x.shape):
        raise _refused(RuntimeError, f"expected shape of indices to be same as that of the input tensor "
                                     f"({list(x.shape)}) but got indices tensor with shape: {list(idx.shape)}")
    n, c = x.shape[0], x.shape[1]
    plane = math.prod(spatial_out)
    flat = zeros((n, c, plane), dtype=x.dtype, device=x.device)
    out = flat.scatter(2, idx.reshape(n, c, -1), x.reshape(n, c, -1)).reshape(n, c, *spatial_out)
    return out.squeeze(0) if unbatched else out


def _unpool_size(input, kernel_size, stride, padding, output_size, n):
    if input.dim() not in (n + 1, n + 2):
        raise _refused(RuntimeError, f"expected a {n + 1}D or {n + 2}D (batch mode) input, but got input of size "
                                     f"{list(input.shape)}")
    ks = _n_ints(kernel_size, n, "kernel_size")
    st = ks if stride is None else _n_ints(stride, n, "stride")
    pd = _n_ints(padding, n, "padding")
    spatial = input.shape[input.dim() - n:]
    default = tuple((spatial[i] - 1) * st[i] - 2 * pd[i] + ks[i] for i in range(n))
    if output_size is None:
        return default
    size = _ints(output_size, "output_size")[-n:]
    if len(size) != n:
        raise _refused(ValueError, f"output_size must have at least {n} elements, but got {list(output_size)}")
    for i in range(n):
        lo, hi = default[i] - st[i], default[i] + st[i]
        if not lo < size[i] < hi:
            raise _refused(ValueError, f"invalid output_size {list(output_size)} (dim {i} must be between "
                                       f"{lo + 1} and {hi - 1})")
    return size


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of :func:`max_pool1d`: scatters ``input`` to ``indices`` in a zero tensor. See
    :class:`~monoflow.nn.MaxUnpool1d`.

    Args:
        input (Tensor): the pooled values.
        indices (Tensor): the indices the pooling returned.
        kernel_size (int or 1-tuple): the pooling's window size.
        stride (int or 1-tuple): the pooling's stride. Default: ``kernel_size``.
        padding (int or 1-tuple): the pooling's padding. Default: ``0``.
        output_size (sequence of int, optional): the exact output size. Default: ``None`` (computed).

    Example::

        >>> out, idx = F.max_pool1d(flow.randn(1, 2, 8), 2, return_indices=True)
        >>> F.max_unpool1d(out, idx, 2).shape
        monoflow.Size([1, 2, 8])
    """
    _C.check_tensor(indices, "max_unpool1d", "indices", 2)
    _C.check_tensor(input, "max_unpool1d", "input", 1)
    return _unpool(input, indices, _unpool_size(input, kernel_size, stride, padding, output_size, 1))


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of :func:`max_pool2d`: scatters ``input`` to ``indices`` in a zero tensor. See
    :class:`~monoflow.nn.MaxUnpool2d`.

    Args:
        input (Tensor): the pooled values.
        indices (Tensor): the indices the pooling returned.
        kernel_size (int or tuple): the pooling's window size.
        stride (int or tuple): the pooling's stride. Default: ``kernel_size``.
        padding (int or tuple): the pooling's padding. Default: ``0``.
        output_size (sequence of int, optional): the exact output size. Default: ``None`` (computed).

    Example::

        >>> out, idx = F.max_pool2d(flow.randn(1, 2, 8, 8), 2, return_indices=True)
        >>> F.max_unpool2d(out, idx, 2).shape
        monoflow.Size([1, 2, 8, 8])
    """
    _C.check_tensor(indices, "max_unpool2d", "indices", 2)
    _C.check_tensor(input, "max_unpool2d", "input", 1)
    return _unpool(input, indices, _unpool_size(input, kernel_size, stride, padding, output_size, 2))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of :func:`max_pool3d`: scatters ``input`` to ``indices`` in a zero tensor. See
    :class:`~monoflow.nn.MaxUnpool3d`.

    Args:
        input (Tensor): the pooled values.
        indices (Tensor): the indices the pooling returned.
        kernel_size (int or tuple): the pooling's window size.
        stride (int or tuple): the pooling's stride. Default: ``kernel_size``.
        padding (int or tuple): the pooling's padding. Default: ``0``.
        output_size (sequence of int, optional): the exact output size. Default: ``None`` (computed).

    Example::

        >>> out, idx = F.max_pool3d(flow.randn(1, 2, 4, 8, 8), 2, return_indices=True)
        >>> F.max_unpool3d(out, idx, 2).shape
        monoflow.Size([1, 2, 4, 8, 8])
    """
    _C.check_tensor(indices, "max_unpool3d", "indices", 2)
    _C.check_tensor(input, "max_unpool3d", "input", 1)
    return _unpool(input, indices, _unpool_size(input, kernel_size, stride, padding, output_size, 3))
