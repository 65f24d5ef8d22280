"""Unfold and Fold layers (over F.unfold / F.fold)."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module

__all__ = ["Unfold", "Fold"]


class Unfold(Module):
    """Extracts sliding local blocks (im2col): each column of the output is one flattened ``C * kH * kW``
    block of the input.

    Args:
        kernel_size (int or tuple): the size of the sliding blocks.
        dilation (int or tuple): the spacing between block elements. Default: ``1``.
        padding (int or tuple): implicit zeros on both sides of the spatial dims. Default: ``0``.
        stride (int or tuple): the step of the blocks. Default: ``1``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)``, ``L`` the number of blocks.

    Example::

        >>> nn.Unfold(kernel_size=2)(flow.randn(1, 3, 4, 4)).shape
        monoflow.Size([1, 12, 9])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Fold(Module):
    """Combines sliding local blocks into an image (col2im), summing where blocks overlap: the inverse
    layout of :class:`Unfold`.

    Args:
        output_size (int or tuple): the spatial size ``(H, W)`` of the output.
        kernel_size (int or tuple): the size of the sliding blocks.
        dilation (int or tuple): the spacing between block elements. Default: ``1``.
        padding (int or tuple): implicit zeros on both sides of the spatial dims. Default: ``0``.
        stride (int or tuple): the step of the blocks. Default: ``1``.

    Shape:
        - Input: ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)``.
        - Output: ``(N, C, H, W)`` or ``(C, H, W)``.

    Example::

        >>> fold = nn.Fold(output_size=(4, 4), kernel_size=2, stride=2)
        >>> fold(nn.Unfold(2, stride=2)(flow.ones(1, 3, 4, 4))).shape
        monoflow.Size([1, 3, 4, 4])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
