"""unfold (im2col) and fold (col2im) of (N, C, H, W) tensors, torch's layout:
column ``c * kh * kw + i * kw + j`` holds channel c at kernel offset (i, j),
one row per sliding-window position in row-major order.

unfold is pad + one strided slice per kernel offset, stacked; fold, its
adjoint, scatter-adds the columns into a zero image. Both are
differentiable through the ops they are made of.
"""
import numpy as np

from monoflow import _C, _creation
from monoflow._composite import int_pair
from monoflow.ops_shape import pad, stack

__all__ = ["unfold", "fold"]


def _check_geometry(op, k, d, p, s):
    # torch's checks, before any block count is computed (a zero stride would divide by zero)
    for what, (a, b), short, ok in (("kernel size", k, "kernel", lambda v: v > 0),
                                    ("dilation", d, "dilation", lambda v: v > 0),
                                    ("padding", p, "pad", lambda v: v >= 0),
                                    ("stride", s, "stride", lambda v: v > 0)):
        if not (ok(a) and ok(b)):
            need = "non-negative" if what == "padding" else "greater than zero"
            raise RuntimeError(f"{op}(): {what} should be {need}, but got {short}_height: {a} {short}_width: {b}")


def _blocks(size, k, d, p, s):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding local blocks: ``(N, C, H, W) -> (N, C * kH * kW, L)`` (or without the batch dim).
    See :class:`~monoflow.nn.Unfold`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the size of the sliding blocks.
        dilation (int or tuple): the spacing between block elements. Default: ``1``.
        padding (int or tuple): implicit zeros on both sides of the spatial dims. Default: ``0``.
        stride (int or tuple): the step of the blocks. Default: ``1``.

    Example::

        >>> F.unfold(flow.arange(9.0).reshape(1, 1, 3, 3), 2)
        tensor([[[0., 1., 3., 4.],
                 [1., 2., 4., 5.],
                 [3., 4., 6., 7.],
                 [4., 5., 7., 8.]]])
    """
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"unfold(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() not in (3, 4):
        raise RuntimeError(f"unfold(): Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    (kh, kw), (dh, dw) = int_pair("unfold", "kernel_size", kernel_size), int_pair("unfold", "dilation", dilation)
    (ph, pw), (sh, sw) = int_pair("unfold", "padding", padding), int_pair("unfold", "stride", stride)
    _check_geometry("unfold", (kh, kw), (dh, dw), (ph, pw), (sh, sw))
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    oh, ow = _blocks(h, kh, dh, ph, sh), _blocks(w, kw, dw, pw, sw)
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"unfold(): Given input with spatial size ({h}, {w}), kernel_size=({kh}, {kw}), "
                           f"dilation=({dh}, {dw}), padding=({ph}, {pw}), calculated shape of the array of sliding "
                           f"blocks as ({oh}, {ow}), which is too small (non-positive)")
    if ph or pw:
        x = pad(x, (pw, pw, ph, ph))
    # one strided slice per kernel offset: (n, c, oh, ow) each, stacked as (n, c, kh * kw, oh, ow)
    offsets = [x[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
               for i in range(kh) for j in range(kw)]
    cols = stack(offsets, 2).reshape(n, c * kh * kw, oh * ow)
    return cols.squeeze(0) if unbatched else cols


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums sliding local blocks back into an image: ``(N, C * kH * kW, L) -> (N, C, H, W)``. See
    :class:`~monoflow.nn.Fold`.

    Args:
        input (Tensor): ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)``.
        output_size (int or tuple): the output's ``(H, W)``.
        kernel_size (int or tuple): the size of the sliding blocks.
        dilation (int or tuple): the spacing between block elements. Default: ``1``.
        padding (int or tuple): implicit zeros on both sides of the spatial dims. Default: ``0``.
        stride (int or tuple): the step of the blocks. Default: ``1``.

    Example::

        >>> F.fold(flow.ones(1, 4, 4), (3, 3), 2)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
    """
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"fold(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"fold(): Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                           f"(got {input.dim()}D)")
    (h, w), (kh, kw) = int_pair("fold", "output_size", output_size), int_pair("fold", "kernel_size", kernel_size)
    (dh, dw), (ph, pw) = int_pair("fold", "dilation", dilation), int_pair("fold", "padding", padding)
    sh, sw = int_pair("fold", "stride", stride)
    _check_geometry("fold", (kh, kw), (dh, dw), (ph, pw), (sh, sw))
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ckk, length = x.shape
    if ckk % (kh * kw):
        raise RuntimeError(f"fold(): Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={ckk} and kernel_size=({kh}, {kw})")
    oh, ow = _blocks(h, kh, dh, ph, sh), _blocks(w, kw, dw, pw, sw)
    if oh * ow != length:
        raise RuntimeError(f"fold(): Given output_size=({h}, {w}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
                           f"padding=({ph}, {pw}), stride=({sh}, {sw}), expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
                           f"input.size(2)={length}.")
    c = ckk // (kh * kw)
    hp, wp = h + 2 * ph, w + 2 * pw
    # the flat position in the padded image of each (kernel row, kernel col, block)
    rows = (np.arange(kh)[:, None, None, None] * dh + np.arange(oh)[None, None, :, None] * sh)
    cols = (np.arange(kw)[None, :, None, None] * dw + np.arange(ow)[None, None, None, :] * sw)
    target = (rows * wp + cols).reshape(1, 1, kh * kw * length)
    index = _creation.tensor(target, device=x.device).expand(n, c, kh * kw * length)
    image = _creation.zeros((n, c, hp * wp), dtype=x.dtype, device=x.device)
    image = image.scatter_add(2, index, x.reshape(n, c, kh * kw * length))
    image = image.reshape(n, c, hp, wp)[:, :, ph:ph + h, pw:pw + w]
    return image.squeeze(0) if unbatched else image
