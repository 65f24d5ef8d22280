"""PixelShuffle, PixelUnshuffle and ChannelShuffle (channel/space rearrangements)."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


class PixelShuffle(Module):
    """Rearranges ``(*, C * r * r, H, W)`` into ``(*, C, H * r, W * r)`` (sub-pixel convolution
    upsampling), ``r = upscale_factor``.

    Args:
        upscale_factor (int, optional): the factor ``r`` of the spatial size.
        h_upscale_factor (int, optional): OneFlow's form: the height factor ``rh``, with
            ``w_upscale_factor``; the channels ``C * rh * rw`` become ``(*, C, H * rh, W * rw)``.
            Default: ``None``.
        w_upscale_factor (int, optional): the width factor ``rw`` of OneFlow's form. Default: ``None``.

    Give ``upscale_factor`` or both ``h_upscale_factor`` and ``w_upscale_factor``.

    Shape:
        - Input: ``(*, C * r * r, H, W)``.
        - Output: ``(*, C, H * r, W * r)``.

    Example::

        >>> nn.PixelShuffle(3)(flow.randn(1, 9, 4, 4)).shape
        monoflow.Size([1, 1, 12, 12])
        >>> nn.PixelShuffle(h_upscale_factor=2, w_upscale_factor=3)(flow.randn(1, 12, 4, 4)).shape
        monoflow.Size([1, 2, 8, 12])
    """

    def __init__(self, upscale_factor=None, h_upscale_factor=None, w_upscale_factor=None):
        super().__init__()
        if upscale_factor is not None:
            if h_upscale_factor is not None or w_upscale_factor is not None:
                raise ValueError("PixelShuffle: give upscale_factor or h_upscale_factor and w_upscale_factor, "
                                 "not both")
            h_upscale_factor = w_upscale_factor = upscale_factor  # (checked by pixel_shuffle, as torch)
        elif h_upscale_factor is None or w_upscale_factor is None:
            raise ValueError("PixelShuffle: upscale_factor, or both h_upscale_factor and w_upscale_factor, "
                             "must be given")
        else:
            for name, v in (("h_upscale_factor", h_upscale_factor), ("w_upscale_factor", w_upscale_factor)):
                if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                    raise ValueError(f"PixelShuffle: {name} must be a positive int, got {v!r}")
        self.upscale_factor = upscale_factor
        self.h_upscale_factor = h_upscale_factor
        self.w_upscale_factor = w_upscale_factor

    def forward(self, input):
        rh, rw = self.h_upscale_factor, self.w_upscale_factor
        if self.upscale_factor is not None or rh == rw:
            return F.pixel_shuffle(input, rh)
        if input.dim() < 3:
            raise RuntimeError(f"PixelShuffle: expected an input of at least 3 dims, got {input.dim()}")
        *batch, c, h, w = input.shape
        if c % (rh * rw) != 0:
            raise RuntimeError(f"PixelShuffle: the channels ({c}) must be divisible by "
                               f"h_upscale_factor * w_upscale_factor ({rh * rw})")
        n = len(batch)
        out = input.reshape(*batch, c // (rh * rw), rh, rw, h, w)
        out = out.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
        return out.reshape(*batch, c // (rh * rw), h * rh, w * rw)

    def extra_repr(self):
        if self.h_upscale_factor == self.w_upscale_factor and self.upscale_factor is not None:
            return f"upscale_factor={self.upscale_factor}"
        return f"h_upscale_factor={self.h_upscale_factor}, w_upscale_factor={self.w_upscale_factor}"


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
