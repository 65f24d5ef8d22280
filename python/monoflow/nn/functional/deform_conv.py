"""deform_conv2d (OneFlow's ``nn.functional.deform_conv2d``, torchvision's
``ops.deform_conv2d``): a convolution whose kernel taps read the input at
learned fractional offsets, each tap optionally scaled by a mask (v2).

A composite: every tap's position (its place in the ordinary convolution
plus its offset) is sampled bilinearly with grid_sample, zero outside the
image as torchvision's kernel reads it, and the sampled columns are
multiplied by the weight as in im2col. grid_sample differentiates with
respect to both the image and the positions, so autograd gives the
gradients of input, offset, mask, weight and bias with no kernel of its own.
"""
from monoflow import _C, _creation
from monoflow._C import ValueRuntimeError
from monoflow._composite import int_pair
from monoflow.nn.functional.grid_sample import grid_sample
from monoflow.ops_shape import stack

__all__ = ["deform_conv2d"]


def deform_conv2d(input, offset, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), mask=None):
    """Deformable convolution over a batch of images.

    Args:
        input (Tensor): ``(N, C, H, W)``.
        offset (Tensor): ``(N, 2 * G * kh * kw, Ho, Wo)``: for offset group ``g`` and kernel tap
            ``k`` (row-major over ``kh x kw``), channels ``2 * (g * kh * kw + k)`` and ``+ 1`` are
            the row and column offsets. The input's channels split evenly into the ``G`` groups.
        weight (Tensor): ``(C_out, C / groups, kh, kw)``; ``groups`` is ``C // weight.shape[1]``.
        bias (Tensor, optional): ``(C_out,)``.
        stride, padding, dilation (int or pair of ints): as in :func:`conv2d`.
        mask (Tensor, optional): ``(N, G * kh * kw, Ho, Wo)``, scaling each sampled tap
            (modulated, "v2", deformable convolution).

    Returns:
        Tensor: ``(N, C_out, Ho, Wo)``.

    Example::

        >>> x, w = flow.ones(1, 1, 3, 3), flow.ones(1, 1, 2, 2)
        >>> offset = flow.zeros(1, 8, 2, 2)  # no deformation: a plain convolution
        >>> F.deform_conv2d(x, offset, w)
        tensor([[[[4., 4.],
                  [4., 4.]]]])
        >>> F.deform_conv2d(x, offset + 0.5, w)  # every tap half a pixel down and right
        tensor([[[[4.0000, 3.0000],
                  [3.0000, 2.2500]]]])
    """
    for name, t in (("input", input), ("offset", offset), ("weight", weight)):
        _C.check_tensor(t, "deform_conv2d", name)
    for name, t in (("bias", bias), ("mask", mask)):
        if t is not None:
            _C.check_tensor(t, "deform_conv2d", name)
    (sh, sw), (ph, pw), (dh, dw) = (int_pair("deform_conv2d", name, v) for name, v in
                                    (("stride", stride), ("padding", padding), ("dilation", dilation)))
    # ValueError as before, and RuntimeError as OneFlow's and torchvision's checks; OneFlow's wording
    for name, t in (("input", input), ("offset", offset), ("weight", weight), ("mask", mask)):
        if t is not None and t.dim() != 4:
            raise ValueRuntimeError(f"deform_conv2d(): expected a 4-D {name}, got {t.dim()}-D (The dimension of "
                                    f"{name} tensor weight must be 4, but got {t.dim()})")
    for name, (a, b), least in (("stride", (sh, sw), 1), ("pad", (ph, pw), 0), ("dilation", (dh, dw), 1)):
        if a < least or b < least:
            bound = "0" if least else "or equal to 0"
            raise ValueRuntimeError(f"deform_conv2d(): The {name} must be greater than {bound}, but got ({a}, {b})")
    n, c, h, w = input.shape
    c_out, c_per_group, kh, kw = weight.shape
    if c_per_group == 0 or c % c_per_group or c_out % (c // c_per_group):
        raise ValueRuntimeError(f"deform_conv2d(): weight of shape {tuple(weight.shape)} does not fit an input with "
                                f"{c} channels (input channels must be a multiple of weight.shape[1], and the output "
                                "channels of the groups)")
    groups, taps = c // c_per_group, kh * kw
    ho, wo = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if ho <= 0 or wo <= 0:
        raise ValueRuntimeError(f"deform_conv2d(): the output would be empty ({ho} x {wo}) for an input of "
                                f"{h} x {w} and a kernel of {kh} x {kw}")
    if offset.dim() != 4 or offset.shape[0] != n or offset.shape[1] % (2 * taps) or tuple(offset.shape[2:]) != (ho, wo):
        raise ValueRuntimeError(f"deform_conv2d(): offset must be (N, 2 * offset_groups * {taps}, {ho}, {wo}) = "
                                f"(N, 2 * G * kh * kw, Ho, Wo), got {tuple(offset.shape)}")
    off_groups = offset.shape[1] // (2 * taps)
    if off_groups == 0 or c % off_groups:
        raise ValueRuntimeError(f"deform_conv2d(): {c} input channels do not split into {off_groups} offset groups")
    if mask is not None and tuple(mask.shape) != (n, off_groups * taps, ho, wo):
        raise ValueRuntimeError(f"deform_conv2d(): mask must be {(n, off_groups * taps, ho, wo)}, got "
                                f"{tuple(mask.shape)}")

    # Where each tap reads in the undeformed convolution: (taps, Ho, 1) rows and (taps, 1, Wo) columns.
    kw_ = dict(dtype=offset.dtype, device=offset.device)
    tap_rows = (_creation.arange(kh, **kw_) * dh).repeat_interleave(kw).view(taps, 1, 1)
    tap_cols = (_creation.arange(kw, **kw_) * dw).repeat(kh).view(taps, 1, 1)
    rows = tap_rows + (_creation.arange(ho, **kw_) * sh - ph).view(1, ho, 1)
    cols = tap_cols + (_creation.arange(wo, **kw_) * sw - pw).view(1, 1, wo)
    off = offset.view(n, off_groups, taps, 2, ho, wo)
    y, x = rows + off[:, :, :, 0], cols + off[:, :, :, 1]
    # grid_sample's normalised coordinates, align_corners=False: pixel p is at (2p + 1) / size - 1.
    grid = stack([(2 * x + 1) / w - 1, (2 * y + 1) / h - 1], -1).view(n * off_groups, taps * ho, wo, 2)
    sampled = grid_sample(input.reshape(n * off_groups, c // off_groups, h, w), grid.to(input.dtype),
                          mode="bilinear", padding_mode="zeros", align_corners=False)
    columns = sampled.view(n, off_groups, c // off_groups, taps, ho, wo)
    if mask is not None:
        columns = columns * mask.view(n, off_groups, 1, taps, ho, wo)
    columns = columns.reshape(n, groups, c_per_group * taps, ho * wo)
    out = weight.reshape(groups, c_out // groups, c_per_group * taps).matmul(columns).reshape(n, c_out, ho, wo)
    return out if bias is None else out + bias.view(1, c_out, 1, 1)
