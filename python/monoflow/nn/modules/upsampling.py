"""Upsample, UpsamplingNearest2d and UpsamplingBilinear2d (over F.interpolate)."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resamples the spatial dims of ``(N, C, *spatial)`` inputs (1 to 3 of them) to ``size`` or by
    ``scale_factor``.

    Args:
        size (int or tuple, optional): the output spatial size. Give ``size`` or ``scale_factor``, not
            both.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
        mode (str): ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-d input), ``'bilinear'`` (4-d),
            ``'trilinear'`` (5-d), ``'bicubic'`` (4-d) or ``'area'``. Default: ``'nearest'``.
        align_corners (bool, optional): for the interpolating modes, align the corner pixels' centres of
            input and output (``True``) or their edges (``False``); must stay ``None`` for nearest and
            area. Default: ``None`` (``False``).
        recompute_scale_factor (bool, optional): compute the sampling from the output size rather than
            from ``scale_factor``. Default: ``None``.

    Shape:
        - Input: ``(N, C, W)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        - Output: the input with the spatial sizes resampled.

    Example::

        >>> m = nn.Upsample(scale_factor=2, mode='nearest')
        >>> m(flow.tensor([[[1.0, 2.0]]]))
        tensor([[[1., 1., 2., 2.]]])
        >>> nn.Upsample(size=(4, 4), mode='bilinear')(flow.randn(1, 3, 2, 2)).shape
        monoflow.Size([1, 3, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) else (
            tuple(float(f) for f in scale_factor) if scale_factor is not None else None)
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of ``(N, C, H, W)`` inputs: :class:`Upsample` with ``mode='nearest'``.

    Args:
        size (int or tuple, optional): the output spatial size. Give ``size`` or ``scale_factor``, not
            both.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.

    Shape:
        - Input: ``(N, C, H, W)``.
        - Output: ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.UpsamplingNearest2d(scale_factor=2)(flow.tensor([[[[1.0, 2.0]]]]))
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of ``(N, C, H, W)`` inputs with ``align_corners=True``: :class:`Upsample` with
    ``mode='bilinear'``.

    Args:
        size (int or tuple, optional): the output spatial size. Give ``size`` or ``scale_factor``, not
            both.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.

    Shape:
        - Input: ``(N, C, H, W)``.
        - Output: ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.UpsamplingBilinear2d(scale_factor=2)(flow.tensor([[[[1.0, 2.0]]]]))
        tensor([[[[1.0000, 1.3333, 1.6667, 2.0000],
                  [1.0000, 1.3333, 1.6667, 2.0000]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
