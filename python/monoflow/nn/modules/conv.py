"""Convolution layers: Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d (torch.nn's parameters,
shapes and initialisation)."""
import math

from monoflow import _creation
from monoflow.autograd import no_grad
from monoflow.nn.functional import conv as F
from monoflow.nn.module import Module
from monoflow.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _tuple(v, n, what):
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    if len(v) != n:
        raise ValueError(f"{what} must be an int or a {n}-tuple, but got {v!r}")
    return v


class _ConvNd(Module):
    """Shared parameters and checks; `transposed` weights are [in, out/groups, *k]."""

    def __init__(self, n, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                 padding_mode, output_padding=0, transposed=False, device=None, dtype=None):
        super().__init__()
        name = type(self).__name__
        if groups <= 0:
            raise ValueError(f"{name}: groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError(f"{name}: in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError(f"{name}: out_channels must be divisible by groups")
        valid_modes = ("zeros", "reflect", "replicate", "circular")
        if padding_mode not in valid_modes:
            raise ValueError(f"padding_mode must be one of {list(valid_modes)}, but got padding_mode='{padding_mode}'")
        if transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"{name}: invalid padding string {padding!r}, should be one of 'valid' or 'same'")
            if padding == "same" and any(s != 1 for s in _tuple(stride, n, "stride")):
                raise ValueError(f"{name}: padding='same' is not supported for strided convolutions")
            if transposed:
                raise ValueError(f"{name}: padding must be an int or a tuple of ints")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, n, "kernel_size")
        self.stride = _tuple(stride, n, "stride")
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n, "padding")
        self.dilation = _tuple(dilation, n, "dilation")
        self.output_padding = _tuple(output_padding, n, "output_padding")
        self.transposed = transposed
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last dimension first), as torch: the padding done by F.pad for the other modes
        if isinstance(self.padding, str):
            pads = []
            for d, k in zip(self.dilation, self.kernel_size):
                total = 0 if self.padding == "valid" else d * (k - 1)
                pads.append((total // 2, total - total // 2))
        else:
            pads = [(p, p) for p in self.padding]
        self._reversed_padding_repeated_twice = [x for pair in reversed(pads) for x in pair]
        shape = ((in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups))
        kw = {}
        if device is not None:
            kw["device"] = device
        if dtype is not None:
            kw["dtype"] = dtype
        self.weight = Parameter(_creation.empty(*shape, *self.kernel_size, **kw))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # torch's kaiming_uniform_(a=sqrt(5)) reduces to U(-1/sqrt(fan_in), 1/sqrt(fan_in));
        # fan_in is computed from weight dim 1 (also for transposed weights, as torch does).
        fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        with no_grad():
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                self.bias.uniform_(-bound, bound)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        n = len(self.kernel_size)
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, conv, input, weight, bias):
        if self.padding_mode != "zeros":
            from monoflow.nn.functional import pad

            return conv(pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, (0,) * len(self.kernel_size), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """Applies a 1-D convolution (cross-correlation) over an input of shape ``(N, C_in, L)``.

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros added to both sides of each spatial dim, or ``'valid'``
            (none) or ``'same'`` (output the input's size; only with stride 1). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): split the channels into this many groups convolved separately; ``in_channels`` and
            ``out_channels`` must be divisible by it. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``.
            Default: ``'zeros'``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C_in, L)`` or ``(C_in, L)``.
        - Output: ``(N, C_out, L_out)`` or ``(C_out, L_out)``, ``out = floor((in + 2 * padding -
          dilation * (kernel_size - 1) - 1) / stride) + 1`` per spatial dim.
        - Weight: ``(C_out, C_in / groups, k)``; bias: ``(C_out,)``. Both start as ``U(-1/sqrt(fan_in),
          1/sqrt(fan_in))``, as in torch.

    Example::

        >>> m = nn.Conv1d(3, 8, 3, padding=1)
        >>> m(flow.randn(4, 3, 16)).shape
        monoflow.Size([4, 8, 16])
        >>> m.weight.shape
        monoflow.Size([8, 3, 3])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def forward(self, input):
        return self._conv_forward(F.conv1d, input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """Applies a 2-D convolution (cross-correlation) over an input of shape ``(N, C_in, H, W)``.

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros added to both sides of each spatial dim, or ``'valid'``
            (none) or ``'same'`` (output the input's size; only with stride 1). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): split the channels into this many groups convolved separately; ``in_channels`` and
            ``out_channels`` must be divisible by it. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``.
            Default: ``'zeros'``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C_in, H, W)`` or ``(C_in, H, W)``.
        - Output: ``(N, C_out, H_out, W_out)`` or ``(C_out, H_out, W_out)``, ``out = floor((in + 2 *
          padding - dilation * (kernel_size - 1) - 1) / stride) + 1`` per spatial dim.
        - Weight: ``(C_out, C_in / groups, kH, kW)``; bias: ``(C_out,)``. Both start as
          ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``, as in torch.

    Example::

        >>> m = nn.Conv2d(3, 8, 3, padding=1)
        >>> m(flow.randn(4, 3, 16, 16)).shape
        monoflow.Size([4, 8, 16, 16])
        >>> m.weight.shape
        monoflow.Size([8, 3, 3, 3])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def forward(self, input):
        return self._conv_forward(F.conv2d, input, self.weight, self.bias)


class Conv3d(_ConvNd):
    """Applies a 3-D convolution (cross-correlation) over an input of shape ``(N, C_in, D, H, W)``.

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros added to both sides of each spatial dim, or ``'valid'``
            (none) or ``'same'`` (output the input's size; only with stride 1). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): split the channels into this many groups convolved separately; ``in_channels`` and
            ``out_channels`` must be divisible by it. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``.
            Default: ``'zeros'``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        - Output: ``(N, C_out, D_out, H_out, W_out)`` or ``(C_out, D_out, H_out, W_out)``, ``out =
          floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1`` per spatial dim.
        - Weight: ``(C_out, C_in / groups, kD, kH, kW)``; bias: ``(C_out,)``. Both start as
          ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``, as in torch.

    Example::

        >>> m = nn.Conv3d(3, 8, 3, padding=1)
        >>> m(flow.randn(2, 3, 8, 8, 8)).shape
        monoflow.Size([2, 8, 8, 8, 8])
        >>> m.weight.shape
        monoflow.Size([8, 3, 3, 3, 3])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(3, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def forward(self, input):
        return self._conv_forward(F.conv3d, input, self.weight, self.bias)


class ConvTranspose1d(_ConvNd):
    """Applies a 1-D transposed convolution (the gradient of :class:`Conv1d` with respect to its input),
    often used to upsample.

    ``forward(input, output_size=...)`` is not supported: pass ``output_padding`` instead.

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are implicitly added to
            both sides of the input. Default: ``0``.
        output_padding (int or tuple): extra size added to one side of the output, to pick among the
            sizes a strided convolution maps to the same input size. Default: ``0``.
        groups (int): blocked connections from input to output channels. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        padding_mode (str): only ``'zeros'`` (others raise ``ValueError``, as in torch).
            Default: ``'zeros'``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C_in, L)`` or ``(C_in, L)``.
        - Output: ``(N, C_out, L_out)`` or ``(C_out, L_out)``, ``out = (in - 1) * stride - 2 * padding +
          dilation * (kernel_size - 1) + output_padding + 1`` per spatial dim.
        - Weight: ``(C_in, C_out / groups, k)``; bias: ``(C_out,)``. Both start as ``U(-1/sqrt(fan_in),
          1/sqrt(fan_in))``, as in torch.

    Example::

        >>> m = nn.ConvTranspose1d(3, 8, 2, stride=2)
        >>> m(flow.randn(4, 3, 16)).shape
        monoflow.Size([4, 8, 32])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding=output_padding, transposed=True, device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        if output_size is not None:
            raise NotImplementedError("ConvTranspose1d.forward: output_size is not supported; pass output_padding")
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                  self.groups, self.dilation)


class ConvTranspose2d(_ConvNd):
    """Applies a 2-D transposed convolution (the gradient of :class:`Conv2d` with respect to its input),
    often used to upsample.

    Call it as ``m(input, output_size=None)``; ``output_size`` chooses the ``output_padding`` that gives
    that size.

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are implicitly added to
            both sides of the input. Default: ``0``.
        output_padding (int or tuple): extra size added to one side of the output, to pick among the
            sizes a strided convolution maps to the same input size. Default: ``0``.
        groups (int): blocked connections from input to output channels. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        padding_mode (str): only ``'zeros'`` (others raise ``ValueError``, as in torch).
            Default: ``'zeros'``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C_in, H, W)`` or ``(C_in, H, W)``.
        - Output: ``(N, C_out, H_out, W_out)`` or ``(C_out, H_out, W_out)``, ``out = (in - 1) * stride -
          2 * padding + dilation * (kernel_size - 1) + output_padding + 1`` per spatial dim.
        - Weight: ``(C_in, C_out / groups, kH, kW)``; bias: ``(C_out,)``. Both start as
          ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``, as in torch.

    Example::

        >>> m = nn.ConvTranspose2d(3, 8, 2, stride=2)
        >>> m(flow.randn(4, 3, 16, 16)).shape
        monoflow.Size([4, 8, 32, 32])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding=output_padding, transposed=True, device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        """The output_padding that makes the output spatially `output_size` (as torch's forward(output_size=))."""
        size = tuple(output_size)[-2:]
        pads = []
        for d in range(2):
            base = ((input.shape[input.dim() - 2 + d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            extra = size[d] - base
            if not 0 <= extra < max(self.stride[d], self.dilation[d]):
                raise ValueError(f"ConvTranspose2d: requested an output size of {size}, but valid sizes range "
                                 f"from {base} to {base + max(self.stride[d], self.dilation[d]) - 1} in dim {d}")
            pads.append(extra)
        return tuple(pads)


class ConvTranspose3d(ConvTranspose2d):
    """Applies a 3-D transposed convolution (the gradient of :class:`Conv3d` with respect to its input),
    often used to upsample volumes (3-D U-Nets, video decoders).

    Call it as ``m(input, output_size=None)``; ``output_size`` chooses the ``output_padding`` that gives
    that size. Computed by :func:`~monoflow.nn.functional.conv_transpose3d` from :func:`conv3d`.

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are implicitly added to
            both sides of the input. Default: ``0``.
        output_padding (int or tuple): extra size added to one side of the output. Default: ``0``.
        groups (int): blocked connections from input to output channels. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        padding_mode (str): only ``'zeros'``. Default: ``'zeros'``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        - Output: ``(N, C_out, D_out, H_out, W_out)``, ``out = (in - 1) * stride - 2 * padding +
          dilation * (kernel_size - 1) + output_padding + 1`` per spatial dim.
        - Weight: ``(C_in, C_out / groups, kD, kH, kW)``; bias: ``(C_out,)``.

    Example::

        >>> m = nn.ConvTranspose3d(3, 8, 2, stride=2)
        >>> m(flow.randn(2, 3, 4, 4, 4)).shape
        monoflow.Size([2, 8, 8, 8, 8])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        _ConvNd.__init__(self, 3, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding=output_padding, transposed=True, device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = self._output_padding(input, output_size)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        size = tuple(output_size)[-3:]
        pads = []
        for d in range(3):
            base = ((input.shape[input.dim() - 3 + d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            extra = size[d] - base
            if not 0 <= extra < max(self.stride[d], self.dilation[d]):
                raise ValueError(f"ConvTranspose3d: requested an output size of {size}, but valid sizes range "
                                 f"from {base} to {base + max(self.stride[d], self.dilation[d]) - 1} in dim {d}")
            pads.append(extra)
        return tuple(pads)
