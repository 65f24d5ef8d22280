"""PixelShuffle, PixelUnshuffle and ChannelShuffle (channel/space rearrangements)."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


class PixelShuffle(Module):
    """Rearranges ``(*, C * r * r, H, W)`` into ``(*, C, H * r, W * r)`` (sub-pixel convolution
    upsampling), ``r = upscale_factor``.

    Args:
        upscale_factor (int): the factor ``r`` of the spatial size.

    Shape:
        - Input: ``(*, C * r * r, H, W)``.
        - Output: ``(*, C, H * r, W * r)``.

    Example::

        >>> nn.PixelShuffle(3)(flow.randn(1, 9, 4, 4)).shape
        monoflow.Size([1, 1, 12, 12])
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearranges ``(*, C, H * r, W * r)`` into ``(*, C * r * r, H, W)``, the inverse of
    :class:`PixelShuffle`, ``r = downscale_factor``.

    Args:
        downscale_factor (int): the factor ``r`` the spatial size is divided by.

    Shape:
        - Input: ``(*, C, H * r, W * r)``.
        - Output: ``(*, C * r * r, H, W)``.

    Example::

        >>> nn.PixelUnshuffle(3)(flow.randn(1, 1, 12, 12)).shape
        monoflow.Size([1, 9, 4, 4])
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Shuffles the channels of ``(N, C, *)`` (ShuffleNet): splits them into ``groups`` groups and
    interleaves the groups.

    Args:
        groups (int): the number of groups; must divide ``C``.

    Shape:
        - Input: ``(N, C, *)``.
        - Output: the shape of the input.

    Example::

        >>> nn.ChannelShuffle(2)(flow.arange(4.0).reshape(1, 4, 1, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
