"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d
(torch.nn's API)."""
import os

from monoflow.nn.functional import pooling as F
from monoflow.nn.module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d",
           "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


def _nhwc_env():
    # OneFlow's ONEFLOW_ENABLE_NHWC=1, read when a 2-D pooling module is built:
    # that module then takes channels-last (N, H, W, C) input and returns (N, H_out, W_out, C).
    return os.getenv("ONEFLOW_ENABLE_NHWC") == "1"


def _channels_last_call(name, fn, input):
    if input.ndim != 4:
        raise ValueError(f"{name}: with ONEFLOW_ENABLE_NHWC=1 the input must be 4-D (N, H, W, C), "
                         f"got {input.ndim}-D")
    out = fn(input.permute(0, 3, 1, 2))
    if isinstance(out, tuple):
        return tuple(o.permute(0, 2, 3, 1) for o in out)
    return out.permute(0, 2, 3, 1)


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling: the maximum over each k window of the input's last 1 dim.

    Args:
        kernel_size (int or 1-tuple): the window size.
        stride (int or 1-tuple): the window step. Default: ``kernel_size``.
        padding (int or 1-tuple): implicit padding on both sides (``-inf`` for max, zeros for average);
            at most half the kernel. Default: ``0``.
        dilation (int or 1-tuple): the spacing between window elements. Default: ``1``.
        return_indices (bool): also return the argmax indices (flat into each spatial plane), for
            :class:`MaxUnpool1d`. Default: ``False``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.

    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``, where each ``out = floor((in + 2 * padding -
          dilation * (kernel_size - 1) - 1) / stride) + 1`` (``ceil`` with ``ceil_mode``).

    Example::

        >>> m = nn.MaxPool1d(2)
        >>> m(flow.randn(1, 2, 8)).shape
        monoflow.Size([1, 2, 4])
    """

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling: the maximum over each kH x kW window of the input's last 2 dims.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        return_indices (bool): also return the argmax indices (flat into each spatial plane), for
            :class:`MaxUnpool2d`. Default: ``False``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, where each ``out = floor((in + 2 *
          padding - dilation * (kernel_size - 1) - 1) / stride) + 1`` (``ceil`` with ``ceil_mode``).
        - As in OneFlow, a module built while the environment variable ``ONEFLOW_ENABLE_NHWC`` is ``"1"``
          is channels-last: it takes ``(N, H, W, C)`` and returns ``(N, H_out, W_out, C)``.

    Example::

        >>> m = nn.MaxPool2d(2)
        >>> m(flow.randn(1, 2, 8, 8)).shape
        monoflow.Size([1, 2, 4, 4])
        >>> out, idx = nn.MaxPool2d(2, return_indices=True)(flow.arange(16.0).reshape(1, 1, 4, 4))
        >>> out
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
        >>> idx
        tensor([[[[ 5,  7],
                  [13, 15]]]])
    """

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, stride, padding, dilation, return_indices, ceil_mode)
        self.channels_last = _nhwc_env()

    def _pool(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)

    def forward(self, input):
        if getattr(self, "channels_last", False):
            return _channels_last_call(type(self).__name__, self._pool, input)
        return self._pool(input)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling: the maximum over each kD x kH x kW window of the input's last 3 dims.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        return_indices (bool): also return the argmax indices (flat into each spatial plane), for
            :class:`MaxUnpool3d`. Default: ``False``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, where each ``out =
          floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1`` (``ceil`` with
          ``ceil_mode``).

    Example::

        >>> m = nn.MaxPool3d(2)
        >>> m(flow.randn(1, 2, 4, 8, 8)).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class _AvgPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling: the mean over each k window of the input's last 1 dim.

    Args:
        kernel_size (int or 1-tuple): the window size.
        stride (int or 1-tuple): the window step. Default: ``kernel_size``.
        padding (int or 1-tuple): implicit padding on both sides (``-inf`` for max, zeros for average);
            at most half the kernel. Default: ``0``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        count_include_pad (bool): count the zero padding in the divisor. Default: ``True``.

    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``, where each ``out = floor((in + 2 * padding -
          kernel_size) / stride) + 1`` (``ceil`` with ``ceil_mode``).

    Example::

        >>> m = nn.AvgPool1d(2)
        >>> m(flow.randn(1, 2, 8)).shape
        monoflow.Size([1, 2, 4])
        >>> nn.AvgPool1d(2)(flow.tensor([[[1.0, 2.0, 3.0, 4.0]]]))
        tensor([[[1.5000, 3.5000]]])
    """

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling: the mean over each kH x kW window of the input's last 2 dims.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        count_include_pad (bool): count the zero padding in the divisor. Default: ``True``.
        divisor_override (int, optional): divide by this number instead of the window size. Default:
            ``None``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, where each ``out = floor((in + 2 *
          padding - kernel_size) / stride) + 1`` (``ceil`` with ``ceil_mode``).
        - As in OneFlow, a module built while the environment variable ``ONEFLOW_ENABLE_NHWC`` is ``"1"``
          is channels-last: it takes ``(N, H, W, C)`` and returns ``(N, H_out, W_out, C)``.

    Example::

        >>> m = nn.AvgPool2d(2)
        >>> m(flow.randn(1, 2, 8, 8)).shape
        monoflow.Size([1, 2, 4, 4])
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override
        self.channels_last = _nhwc_env() and type(self) is AvgPool2d

    def _pool(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def forward(self, input):
        if getattr(self, "channels_last", False):
            return _channels_last_call(type(self).__name__, self._pool, input)
        return self._pool(input)


class AvgPool3d(AvgPool2d):
    """3-D average pooling: the mean over each kD x kH x kW window of the input's last 3 dims.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        padding (int or tuple): implicit padding on both sides (``-inf`` for max, zeros for average); at
            most half the kernel. Default: ``0``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size. Default: ``False``.
        count_include_pad (bool): count the zero padding in the divisor. Default: ``True``.
        divisor_override (int, optional): divide by this number instead of the window size. Default:
            ``None``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, where each ``out =
          floor((in + 2 * padding - kernel_size) / stride) + 1`` (``ceil`` with ``ceil_mode``).

    Example::

        >>> m = nn.AvgPool3d(2)
        >>> m(flow.randn(1, 2, 4, 8, 8)).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptivePool(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """1-D adaptive average pooling: splits the last 1 dim into ``output_size`` near-equal windows and
    averages each.

    Args:
        output_size (int or tuple): the output's spatial size; an int or 1-tuple.

    Shape:
        - Input: ``(N, C, L)`` or without the batch dim.
        - Output: ``(N, C, out)`` given by ``output_size``.

    Example::

        >>> nn.AdaptiveAvgPool1d(4)(flow.randn(1, 2, 8)).shape
        monoflow.Size([1, 2, 4])
    """

    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    """2-D adaptive average pooling: splits the last 2 dims into ``output_size`` near-equal windows and
    averages each.

    Args:
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.

    Shape:
        - Input: ``(N, C, H, W)`` or without the batch dim.
        - Output: ``(N, C, H_out, W_out)`` given by ``output_size``.

    Example::

        >>> nn.AdaptiveAvgPool2d((4, 2))(flow.randn(1, 2, 8, 8)).shape
        monoflow.Size([1, 2, 4, 2])
    """

    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool1d(_AdaptivePool):
    """1-D adaptive max pooling: splits the last 1 dim into ``output_size`` near-equal windows and takes
    each maximum.

    Args:
        output_size (int or tuple): the output's spatial size; an int or 1-tuple.
        return_indices (bool): also return the argmax indices. Default: ``False``.

    Shape:
        - Input: ``(N, C, L)`` or without the batch dim.
        - Output: ``(N, C, out)`` given by ``output_size``.

    Example::

        >>> nn.AdaptiveMaxPool1d(4)(flow.randn(1, 2, 8)).shape
        monoflow.Size([1, 2, 4])
    """

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptivePool):
    """2-D adaptive max pooling: splits the last 2 dims into ``output_size`` near-equal windows and takes
    each maximum.

    Args:
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.
        return_indices (bool): also return the argmax indices. Default: ``False``.

    Shape:
        - Input: ``(N, C, H, W)`` or without the batch dim.
        - Output: ``(N, C, H_out, W_out)`` given by ``output_size``.

    Example::

        >>> nn.AdaptiveMaxPool2d((4, 2))(flow.randn(1, 2, 8, 8)).shape
        monoflow.Size([1, 2, 4, 2])
    """

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool3d(_AdaptivePool):
    """3-D adaptive average pooling: splits the last 3 dims into ``output_size`` near-equal windows and
    averages each.

    Args:
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.

    Shape:
        - Input: ``(N, C, D, H, W)`` or without the batch dim.
        - Output: ``(N, C, D_out, H_out, W_out)`` given by ``output_size``.

    Example::

        >>> nn.AdaptiveAvgPool3d((2, 4, 4))(flow.randn(1, 2, 4, 8, 8)).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """

    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptivePool):
    """3-D adaptive max pooling: splits the last 3 dims into ``output_size`` near-equal windows and takes
    each maximum.

    Args:
        output_size (int or tuple): the output's spatial size; an int means the same size on every dim,
            ``None`` entries keep the input's size.
        return_indices (bool): also return the argmax indices. Default: ``False``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or without the batch dim.
        - Output: ``(N, C, D_out, H_out, W_out)`` given by ``output_size``.

    Example::

        >>> nn.AdaptiveMaxPool3d((2, 4, 4))(flow.randn(1, 2, 4, 8, 8)).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, " \
               f"ceil_mode={self.ceil_mode}"


class LPPool1d(_LPPoolNd):
    """1-D power-average pooling: ``(sum over each window of x ** p) ** (1 / p)``, ``p = norm_type``.

    Args:
        norm_type (float): the power ``p``; ``1`` gives sum pooling, large values approach max pooling.
        kernel_size (int or 1-tuple): the window size.
        stride (int or 1-tuple): the window step. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` for the output size. Default: ``False``.

    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``, where each ``out = floor((in + 2 * padding -
          kernel_size) / stride) + 1`` (``ceil`` with ``ceil_mode``).

    Example::

        >>> nn.LPPool1d(2, 2)(flow.randn(1, 2, 8)).shape
        monoflow.Size([1, 2, 4])
    """

    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """2-D power-average pooling: ``(sum over each window of x ** p) ** (1 / p)``, ``p = norm_type``.

    Args:
        norm_type (float): the power ``p``; ``1`` gives sum pooling, large values approach max pooling.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` for the output size. Default: ``False``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, where each ``out = floor((in + 2 *
          padding - kernel_size) / stride) + 1`` (``ceil`` with ``ceil_mode``).

    Example::

        >>> nn.LPPool2d(2, 2)(flow.randn(1, 2, 8, 8)).shape
        monoflow.Size([1, 2, 4, 4])
    """

    _fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """3-D power-average pooling: ``(sum over each window of x ** p) ** (1 / p)``, ``p = norm_type``.

    Args:
        norm_type (float): the power ``p``; ``1`` gives sum pooling, large values approach max pooling.
        kernel_size (int or tuple): the window size.
        stride (int or tuple): the window step. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` for the output size. Default: ``False``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, where each ``out =
          floor((in + 2 * padding - kernel_size) / stride) + 1`` (``ceil`` with ``ceil_mode``).

    Example::

        >>> nn.LPPool3d(2, 2)(flow.randn(1, 2, 4, 8, 8)).shape
        monoflow.Size([1, 2, 2, 4, 4])
    """

    _fn = staticmethod(F.lp_pool3d)


class _MaxUnpoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of :class:`MaxPool1d`: puts each value at its argmax index and zeros elsewhere.

    Call it as ``m(input, indices, output_size=None)``, ``indices`` being what the max pooling returned
    with ``return_indices=True``; ``output_size`` resolves the ambiguity of the inverse size.

    Args:
        kernel_size (int or 1-tuple): the pooling's window size.
        stride (int or 1-tuple): the pooling's stride. Default: ``kernel_size``.
        padding (int or 1-tuple): the pooling's padding. Default: ``0``.

    Shape:
        - Input: ``(N, C, L)`` or without the batch dim; indices of the same shape.
        - Output: ``out = (in - 1) * stride - 2 * padding + kernel_size`` on each spatial dim, or
          ``output_size``.

    Example::

        >>> pool, unpool = nn.MaxPool1d(2, return_indices=True), nn.MaxUnpool1d(2)
        >>> out, idx = pool(flow.randn(1, 2, 8))
        >>> unpool(out, idx).shape
        monoflow.Size([1, 2, 8])
        >>> unpool(*pool(flow.tensor([[[1.0, 3.0, 2.0, 0.0]]])))
        tensor([[[0., 3., 2., 0.]]])
    """

    _fn = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of :class:`MaxPool2d`: puts each value at its argmax index and zeros elsewhere.

    Call it as ``m(input, indices, output_size=None)``, ``indices`` being what the max pooling returned
    with ``return_indices=True``; ``output_size`` resolves the ambiguity of the inverse size.

    Args:
        kernel_size (int or tuple): the pooling's window size.
        stride (int or tuple): the pooling's stride. Default: ``kernel_size``.
        padding (int or tuple): the pooling's padding. Default: ``0``.

    Shape:
        - Input: ``(N, C, H, W)`` or without the batch dim; indices of the same shape.
        - Output: ``out = (in - 1) * stride - 2 * padding + kernel_size`` on each spatial dim, or
          ``output_size``.

    Example::

        >>> pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
        >>> out, idx = pool(flow.randn(1, 2, 8, 8))
        >>> unpool(out, idx).shape
        monoflow.Size([1, 2, 8, 8])
    """

    _fn = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of :class:`MaxPool3d`: puts each value at its argmax index and zeros elsewhere.

    Call it as ``m(input, indices, output_size=None)``, ``indices`` being what the max pooling returned
    with ``return_indices=True``; ``output_size`` resolves the ambiguity of the inverse size.

    Args:
        kernel_size (int or tuple): the pooling's window size.
        stride (int or tuple): the pooling's stride. Default: ``kernel_size``.
        padding (int or tuple): the pooling's padding. Default: ``0``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or without the batch dim; indices of the same shape.
        - Output: ``out = (in - 1) * stride - 2 * padding + kernel_size`` on each spatial dim, or
          ``output_size``.

    Example::

        >>> pool, unpool = nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)
        >>> out, idx = pool(flow.randn(1, 2, 4, 8, 8))
        >>> unpool(out, idx).shape
        monoflow.Size([1, 2, 4, 8, 8])
    """

    _fn = staticmethod(F.max_unpool3d)
