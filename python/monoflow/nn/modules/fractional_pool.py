"""FractionalMaxPool2d/3d: max pooling over pseudo-random overlapping windows (see
monoflow.nn.functional.fractional_pool)."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPoolNd(Module):
    _n = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        n = self._n
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio if output_ratio is None or isinstance(output_ratio, (tuple, list)) \
            else (output_ratio,) * n
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, output_size={self.output_size}, output_ratio={self.output_ratio}"


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling (Graham, 2014): ``kernel_size`` windows at pseudo-random, overlapping
    positions, drawn per forward and per (sample, channel), giving an output of ``output_size`` or
    ``output_ratio`` of the input size.

    Args:
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's ``(H, W)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the input's, in (0, 1).
        return_indices (bool): also return each maximum's flat index. Default: ``False``.
        _random_samples (Tensor, optional): fixed ``(N, C, 2)`` window placements, for tests.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example::

        >>> m = nn.FractionalMaxPool2d(3, output_ratio=0.5)
        >>> m(flow.randn(2, 4, 10, 10)).shape
        monoflow.Size([2, 4, 5, 5])
    """

    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling (see :class:`FractionalMaxPool2d`).

    Args:
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's ``(T, H, W)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the input's, in (0, 1).
        return_indices (bool): also return each maximum's flat index. Default: ``False``.
        _random_samples (Tensor, optional): fixed ``(N, C, 3)`` window placements, for tests.

    Shape:
        - Input: ``(N, C, T, H, W)`` or ``(C, T, H, W)``.
        - Output: ``(N, C, T_out, H_out, W_out)`` or ``(C, T_out, H_out, W_out)``.

    Example::

        >>> m = nn.FractionalMaxPool3d(2, output_size=(2, 3, 3))
        >>> m(flow.randn(1, 2, 5, 6, 6)).shape
        monoflow.Size([1, 2, 2, 3, 3])
    """

    _n = 3
