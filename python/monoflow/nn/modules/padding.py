"""Padding layers: constant/zero, reflection, replication and circular
padding of the last 1, 2 or 3 dims (torch.nn's API), over F.pad."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _pads(padding, n, name):
    """An int or a 2n-tuple (left, right, top, bottom, front, back) as a 2n-tuple."""
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    padding = tuple(padding)
    if len(padding) != 2 * n or not all(isinstance(p, int) for p in padding):
        raise ValueError(f"{name}: padding must be an int or a tuple of {2 * n} ints, but got {padding!r}")
    return padding


def _circular(input, padding):
    """Wrap-around padding, one dim at a time from the last (the core's pad has no circular mode)."""
    from monoflow.ops_shape import cat

    x = input
    for k in range(len(padding) // 2):
        dim = x.dim() - 1 - k
        left, right = padding[2 * k], padding[2 * k + 1]
        size = x.shape[dim]
        if left > size or right > size:
            raise ValueError(f"Padding value causes wrapping around more than once: padding ({left}, {right}) for "
                             f"a dim of size {size}")
        parts = ([x.narrow(dim, size - left, left)] if left else []) + [x] + (
            [x.narrow(dim, 0, right)] if right else [])
        x = cat(parts, dim) if len(parts) > 1 else x
    return x


class _PadNd(Module):
    _dims = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _pads(padding, self._dims, type(self).__name__)

    def _check(self, input):
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"{type(self).__name__}: expected {self._dims + 1}D or {self._dims + 2}D input, "
                             f"but got {input.dim()}D input")

    def forward(self, input):
        self._check(input)
        if self._mode == "circular":
            return _circular(input, self.padding)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        self._check(input)
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last 1 dim with a constant ``value``.

    Negative padding crops.

    Args:
        padding (int or tuple): the same size on every side, or a 2-tuple ``(left, right)``.
        value (float): the fill value.

    Shape:
        - Input: ``(N, C, W)`` or ``(C, W)``.
        - Output: ``(N, C, W_out)`` or ``(C, W_out)``, ``W_out = W + left + right``.

    Example::

        >>> m = nn.ConstantPad1d(1, 3.5)
        >>> m(flow.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[3.5000, 1.0000, 2.0000, 3.0000, 3.5000]]])
    """

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with a constant ``value``.

    Negative padding crops.

    Args:
        padding (int or tuple): the same size on every side, or a 4-tuple ``(left, right, top,
            bottom)``.
        value (float): the fill value.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, ``H_out = H + top + bottom``,
          ``W_out = W + left + right``.

    Example::

        >>> m = nn.ConstantPad2d(1, 3.5)
        >>> m(flow.arange(4.0).reshape(1, 1, 2, 2))
        tensor([[[[3.5000, 3.5000, 3.5000, 3.5000],
                  [3.5000, 0.0000, 1.0000, 3.5000],
                  [3.5000, 2.0000, 3.0000, 3.5000],
                  [3.5000, 3.5000, 3.5000, 3.5000]]]])
    """

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with a constant ``value``.

    Negative padding crops.

    Args:
        padding (int or tuple): the same size on every side, or a 6-tuple ``(left, right, top, bottom,
            front, back)``.
        value (float): the fill value.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, ``D_out = D + front +
          back``, ``H_out = H + top + bottom``, ``W_out = W + left + right``.

    Example::

        >>> nn.ConstantPad3d(1, 3.5)(flow.ones(1, 1, 2, 2, 2)).shape
        monoflow.Size([1, 1, 4, 4, 4])
    """

    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pads the last 1 dim with zeros.

    Negative padding crops.

    Args:
        padding (int or tuple): the same size on every side, or a 2-tuple ``(left, right)``.

    Shape:
        - Input: ``(N, C, W)`` or ``(C, W)``.
        - Output: ``(N, C, W_out)`` or ``(C, W_out)``, ``W_out = W + left + right``.

    Example::

        >>> m = nn.ZeroPad1d(1)
        >>> m(flow.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[0., 1., 2., 3., 0.]]])
    """

    _dims = 1


class ZeroPad2d(_ZeroPadNd):
    """Pads the last 2 dims with zeros.

    Negative padding crops.

    Args:
        padding (int or tuple): the same size on every side, or a 4-tuple ``(left, right, top,
            bottom)``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, ``H_out = H + top + bottom``,
          ``W_out = W + left + right``.

    Example::

        >>> m = nn.ZeroPad2d(1)
        >>> m(flow.arange(4.0).reshape(1, 1, 2, 2))
        tensor([[[[0., 0., 0., 0.],
                  [0., 0., 1., 0.],
                  [0., 2., 3., 0.],
                  [0., 0., 0., 0.]]]])
    """

    _dims = 2


class ZeroPad3d(_ZeroPadNd):
    """Pads the last 3 dims with zeros.

    Negative padding crops.

    Args:
        padding (int or tuple): the same size on every side, or a 6-tuple ``(left, right, top, bottom,
            front, back)``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, ``D_out = D + front +
          back``, ``H_out = H + top + bottom``, ``W_out = W + left + right``.

    Example::

        >>> nn.ZeroPad3d(1)(flow.ones(1, 1, 2, 2, 2)).shape
        monoflow.Size([1, 1, 4, 4, 4])
    """

    _dims = 3


class ReflectionPad1d(_PadNd):
    """Pads the last 1 dim with the reflection of the input at its border (the edge not repeated).

    Each padding must be smaller than the size of its dim.

    Args:
        padding (int or tuple): the same size on every side, or a 2-tuple ``(left, right)``.

    Shape:
        - Input: ``(N, C, W)`` or ``(C, W)``.
        - Output: ``(N, C, W_out)`` or ``(C, W_out)``, ``W_out = W + left + right``.

    Example::

        >>> m = nn.ReflectionPad1d(1)
        >>> m(flow.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[2., 1., 2., 3., 2.]]])
    """

    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pads the last 2 dims with the reflection of the input at its border (the edge not repeated).

    Each padding must be smaller than the size of its dim.

    Args:
        padding (int or tuple): the same size on every side, or a 4-tuple ``(left, right, top,
            bottom)``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, ``H_out = H + top + bottom``,
          ``W_out = W + left + right``.

    Example::

        >>> m = nn.ReflectionPad2d(1)
        >>> m(flow.arange(4.0).reshape(1, 1, 2, 2))
        tensor([[[[3., 2., 3., 2.],
                  [1., 0., 1., 0.],
                  [3., 2., 3., 2.],
                  [1., 0., 1., 0.]]]])
    """

    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pads the last 3 dims with the reflection of the input at its border (the edge not repeated).

    Each padding must be smaller than the size of its dim.

    Args:
        padding (int or tuple): the same size on every side, or a 6-tuple ``(left, right, top, bottom,
            front, back)``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, ``D_out = D + front +
          back``, ``H_out = H + top + bottom``, ``W_out = W + left + right``.

    Example::

        >>> nn.ReflectionPad3d(1)(flow.ones(1, 1, 2, 2, 2)).shape
        monoflow.Size([1, 1, 4, 4, 4])
    """

    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pads the last 1 dim by repeating the input's edge values.

    Args:
        padding (int or tuple): the same size on every side, or a 2-tuple ``(left, right)``.

    Shape:
        - Input: ``(N, C, W)`` or ``(C, W)``.
        - Output: ``(N, C, W_out)`` or ``(C, W_out)``, ``W_out = W + left + right``.

    Example::

        >>> m = nn.ReplicationPad1d(1)
        >>> m(flow.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[1., 1., 2., 3., 3.]]])
    """

    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pads the last 2 dims by repeating the input's edge values.

    Args:
        padding (int or tuple): the same size on every side, or a 4-tuple ``(left, right, top,
            bottom)``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, ``H_out = H + top + bottom``,
          ``W_out = W + left + right``.

    Example::

        >>> m = nn.ReplicationPad2d(1)
        >>> m(flow.arange(4.0).reshape(1, 1, 2, 2))
        tensor([[[[0., 0., 1., 1.],
                  [0., 0., 1., 1.],
                  [2., 2., 3., 3.],
                  [2., 2., 3., 3.]]]])
    """

    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pads the last 3 dims by repeating the input's edge values.

    Args:
        padding (int or tuple): the same size on every side, or a 6-tuple ``(left, right, top, bottom,
            front, back)``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, ``D_out = D + front +
          back``, ``H_out = H + top + bottom``, ``W_out = W + left + right``.

    Example::

        >>> nn.ReplicationPad3d(1)(flow.ones(1, 1, 2, 2, 2)).shape
        monoflow.Size([1, 1, 4, 4, 4])
    """

    _dims, _mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Pads the last 1 dim circularly: wraps the input around, as for periodic data.

    A padding larger than its dim (wrapping more than once) raises ``ValueError``.

    Args:
        padding (int or tuple): the same size on every side, or a 2-tuple ``(left, right)``.

    Shape:
        - Input: ``(N, C, W)`` or ``(C, W)``.
        - Output: ``(N, C, W_out)`` or ``(C, W_out)``, ``W_out = W + left + right``.

    Example::

        >>> m = nn.CircularPad1d(1)
        >>> m(flow.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[3., 1., 2., 3., 1.]]])
    """

    _dims, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    """Pads the last 2 dims circularly: wraps the input around, as for periodic data.

    A padding larger than its dim (wrapping more than once) raises ``ValueError``.

    Args:
        padding (int or tuple): the same size on every side, or a 4-tuple ``(left, right, top,
            bottom)``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, ``H_out = H + top + bottom``,
          ``W_out = W + left + right``.

    Example::

        >>> m = nn.CircularPad2d(1)
        >>> m(flow.arange(4.0).reshape(1, 1, 2, 2))
        tensor([[[[3., 2., 3., 2.],
                  [1., 0., 1., 0.],
                  [3., 2., 3., 2.],
                  [1., 0., 1., 0.]]]])
    """

    _dims, _mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Pads the last 3 dims circularly: wraps the input around, as for periodic data.

    A padding larger than its dim (wrapping more than once) raises ``ValueError``.

    Args:
        padding (int or tuple): the same size on every side, or a 6-tuple ``(left, right, top, bottom,
            front, back)``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, ``D_out = D + front +
          back``, ``H_out = H + top + bottom``, ``W_out = W + left + right``.

    Example::

        >>> nn.CircularPad3d(1)(flow.ones(1, 1, 2, 2, 2)).shape
        monoflow.Size([1, 1, 4, 4, 4])
    """

    _dims, _mode = 3, "circular"
