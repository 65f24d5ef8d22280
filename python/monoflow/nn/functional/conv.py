"""Convolutions: conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
conv_transpose3d (torch.nn.functional's API).

The work is the C++ core's (im2col + BLAS kernels, derivatives of every
order); this module sorts out argument forms: ints or pairs, string
padding ('valid', 'same'), unbatched inputs, and the 1-D variants as 2-D
convolutions over a unit height. conv3d is a sum over the kernel's depth of
2-D convolutions (one per depth offset, all output depths batched into one
call), so it rides on the 2-D kernels and their derivatives.
"""
from monoflow import _C, _autocast

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _same_padding(input, weight, stride, dilation, n, op):
    """'same' padding: per dim (symmetric pad, extra right pad) for the last n dims."""
    strides = (stride,) * n if isinstance(stride, int) else tuple(stride)
    if any(s != 1 for s in strides):
        raise ValueError(f"{op}: padding='same' is not supported for strided convolutions")
    dil = (dilation,) * n if isinstance(dilation, int) else tuple(dilation)
    if len(dil) == 1:
        dil = dil * n
    sym, extra = [], []
    for k, d in zip(weight.shape[-n:], dil):
        total = d * (k - 1)
        sym.append(total // 2)
        extra.append(total - 2 * (total // 2))
    return sym, extra


def _string_padding(input, weight, stride, padding, dilation, n, op):
    """(input, numeric padding) for padding given as 'valid'/'same'."""
    if padding == "valid":
        return input, 0
    if padding != "same":
        raise ValueError(f"{op}: invalid padding string {padding!r}, should be one of 'valid' or 'same'")
    sym, extra = _same_padding(input, weight, stride, dilation, n, op)
    if any(extra):
        # An odd total pad: the extra row/column goes at the end (as PyTorch does).
        from monoflow.ops_shape import pad
        pads = []
        for e in reversed(extra):
            pads += [0, e]
        input = pad(input, pads)
    return input, sym


@_autocast.lower
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Applies a 2-D convolution (cross-correlation). See :class:`~monoflow.nn.Conv2d`.

    Args:
        input (Tensor): ``(N, C_in, H, W)`` or ``(C_in, H, W)``.
        weight (Tensor): ``(C_out, C_in / groups, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: ``None``.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros on both sides, or ``'valid'`` / ``'same'``. Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): the number of channel groups. Default: ``1``.

    Example::

        >>> F.conv2d(flow.randn(4, 3, 16, 16), flow.randn(8, 3, 3, 3), padding=1).shape
        monoflow.Size([4, 8, 16, 16])
    """
    if isinstance(padding, str):
        input, padding = _string_padding(input, weight, stride, padding, dilation, 2, "conv2d")
    return _C.nn_conv2d(input, weight, bias, stride, padding, dilation, groups)


def _to_2d(v, fill):
    """A 1-D parameter (int or 1-tuple) as its 2-D form over a unit height."""
    if isinstance(v, int):
        return (fill, v)
    # (conv1d and conv_transpose1d: named after the one running)
    if not isinstance(v, (tuple, list)) or not all(hasattr(e, "__index__") for e in v):
        raise TypeError(_C.name_op_in_progress(f"expected a single integer or a 1-tuple of ints, not {v!r}"))
    if len(v) != 1:
        raise ValueError(_C.name_op_in_progress(f"expected a single integer or a 1-tuple, but got {tuple(v)!r}"))
    return (fill, v[0])


@_autocast.lower
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Applies a 1-D convolution (cross-correlation). See :class:`~monoflow.nn.Conv1d`.

    Args:
        input (Tensor): ``(N, C_in, L)`` or ``(C_in, L)``.
        weight (Tensor): ``(C_out, C_in / groups, k)``.
        bias (Tensor, optional): ``(C_out,)``. Default: ``None``.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros on both sides, or ``'valid'`` / ``'same'``. Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): the number of channel groups. Default: ``1``.

    Example::

        >>> F.conv1d(flow.randn(4, 3, 16), flow.randn(8, 3, 3), padding=1).shape
        monoflow.Size([4, 8, 16])
        >>> F.conv1d(flow.tensor([[[1.0, 2.0, 3.0, 4.0]]]), flow.tensor([[[1.0, -1.0]]]))
        tensor([[[-1., -1., -1.]]])
    """
    _C.check_tensor(weight, "conv1d", "weight", 2)
    _C.check_optional_tensor(bias, "conv1d", "bias", 3)
    _C.check_tensor(input, "conv1d", "input", 1)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: {list(input.shape)}")
    if weight.dim() != 3:
        raise RuntimeError(f"conv1d: expected a 3-D weight, but got weight of size {list(weight.shape)}")
    if isinstance(padding, str):
        input, padding = _string_padding(input, weight, stride, padding, dilation, 1, "conv1d")
    out = _C.nn_conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, _to_2d(stride, 1), _to_2d(padding, 0),
                       _to_2d(dilation, 1), groups)
    return out.squeeze(-2)


@_autocast.lower
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Applies a 2-D transposed convolution (the adjoint of :func:`conv2d`). See
    :class:`~monoflow.nn.ConvTranspose2d`.

    Args:
        input (Tensor): ``(N, C_in, H, W)`` or ``(C_in, H, W)``.
        weight (Tensor): ``(C_in, C_out / groups, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: ``None``.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` implicit zeros on both sides.
            Default: ``0``.
        output_padding (int or tuple): extra size on one side of the output. Default: ``0``.
        groups (int): the number of channel groups. Default: ``1``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.

    Example::

        >>> F.conv_transpose2d(flow.randn(4, 3, 16, 16), flow.randn(3, 8, 2, 2), stride=2).shape
        monoflow.Size([4, 8, 32, 32])
    """
    if isinstance(padding, str):
        raise ValueError("conv_transpose2d: padding must be an int or a tuple of ints, not a string")
    return _C.nn_conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


@_autocast.lower
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Applies a 1-D transposed convolution (the adjoint of :func:`conv1d`). See
    :class:`~monoflow.nn.ConvTranspose1d`.

    Args:
        input (Tensor): ``(N, C_in, L)`` or ``(C_in, L)``.
        weight (Tensor): ``(C_in, C_out / groups, k)``.
        bias (Tensor, optional): ``(C_out,)``. Default: ``None``.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` implicit zeros on both sides.
            Default: ``0``.
        output_padding (int or tuple): extra size on one side of the output. Default: ``0``.
        groups (int): the number of channel groups. Default: ``1``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.

    Example::

        >>> F.conv_transpose1d(flow.randn(4, 3, 16), flow.randn(3, 8, 2), stride=2).shape
        monoflow.Size([4, 8, 32])
    """
    _C.check_tensor(weight, "conv_transpose1d", "weight", 2)
    _C.check_optional_tensor(bias, "conv_transpose1d", "bias", 3)
    _C.check_tensor(input, "conv_transpose1d", "input", 1)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of "
                           f"size: {list(input.shape)}")
    if isinstance(padding, str):
        raise ValueError("conv_transpose1d: padding must be an int or a tuple of ints, not a string")
    out = _C.nn_conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, _to_2d(stride, 1),
                                 _to_2d(padding, 0), _to_2d(output_padding, 0), groups, _to_2d(dilation, 1))
    return out.squeeze(-2)


def _check_kernel_3d(weight, op):
    # (the 2-D kernels check theirs in the core; conv3d slices the depth itself)
    if weight.dim() == 5 and min(weight.shape[2:]) <= 0:
        kd, kh, kw = weight.shape[2:]
        raise RuntimeError(f"{op}: kernel size should be greater than zero, but got: {kd} x {kh} x {kw} (TxHxW)")


def _triple(v, what):
    if isinstance(v, int):
        return (v, v, v)
    v = tuple(v)
    if len(v) == 1:
        v = v * 3
    if len(v) != 3:
        raise ValueError(f"conv3d: {what} must be an int or a 3-tuple, but got {v!r}")
    return v


@_autocast.lower
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Applies a 3-D convolution (cross-correlation). See :class:`~monoflow.nn.Conv3d`.

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        weight (Tensor): ``(C_out, C_in / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: ``None``.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros on both sides, or ``'valid'`` / ``'same'``. Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): the number of channel groups. Default: ``1``.

    Example::

        >>> F.conv3d(flow.randn(2, 3, 8, 8, 8), flow.randn(8, 3, 3, 3, 3), padding=1).shape
        monoflow.Size([2, 8, 8, 8, 8])
    """
    _C.check_tensor(input, "conv3d", "input", 1)
    from monoflow.ops_shape import pad

    if input.dim() not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: "
                           f"{list(input.shape)}")
    if weight.dim() != 5:
        raise RuntimeError(f"conv3d: expected a 5-D weight, but got weight of size {list(weight.shape)}")
    _check_kernel_3d(weight, "conv3d")
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    (sd, sh, sw), (dd, dh, dw) = _triple(stride, "stride"), _triple(dilation, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            if (sd, sh, sw) != (1, 1, 1):
                raise ValueError("conv3d: padding='same' is not supported for strided convolutions")
            totals = [d * (k - 1) for k, d in zip(weight.shape[2:], (dd, dh, dw))]
            x = pad(x, [p for t in reversed(totals) for p in (t // 2, t - t // 2)])
            padding = 0
        else:
            raise ValueError(f"conv3d: invalid padding string {padding!r}, should be one of 'valid' or 'same'")
    pd, ph, pw = _triple(padding, "padding")
    if pd:
        x = pad(x, (0, 0, 0, 0, pd, pd))
    n, c, depth = x.shape[0], x.shape[1], x.shape[2]
    kd = weight.shape[2]
    out_d = (depth - dd * (kd - 1) - 1) // sd + 1
    if out_d <= 0:
        raise RuntimeError(f"conv3d: the kernel's depth {kd} (dilation {dd}) is larger than the padded input's "
                           f"depth {depth}")
    out = None
    for k in range(kd):
        start = k * dd
        planes = x[:, :, start:start + sd * (out_d - 1) + 1:sd]  # (n, c, out_d, H, W)
        planes = planes.transpose(1, 2).reshape(n * out_d, c, x.shape[3], x.shape[4])
        y = _C.nn_conv2d(planes, weight[:, :, k], None, (sh, sw), (ph, pw), (dh, dw), groups)
        out = y if out is None else out + y
    out = out.reshape(n, out_d, *out.shape[1:]).transpose(1, 2)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


def _dilate(x, dim, stride):
    """x with stride - 1 zeros between neighbours along dim (differentiable: stack and reshape)."""
    if stride == 1 or x.shape[dim] <= 1:
        return x
    from monoflow import cat

    zeros = x.new_zeros(x.shape[:dim + 1] + (stride - 1,) + x.shape[dim + 1:])
    spread = cat([x.unsqueeze(dim + 1), zeros], dim + 1)  # (..., n, stride, ...)
    merged = spread.reshape(x.shape[:dim] + (x.shape[dim] * stride,) + x.shape[dim + 1:])
    return merged.narrow(dim, 0, (x.shape[dim] - 1) * stride + 1)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Applies a 3-D transposed convolution (the adjoint of :func:`conv3d`). See
    :class:`~monoflow.nn.ConvTranspose3d`.

    Composed from :func:`conv3d`: the input with ``stride - 1`` zeros inserted between elements,
    padded by ``dilation * (kernel_size - 1) - padding`` (plus ``output_padding`` at the end; a
    negative amount crops), convolved with the kernel flipped and its channel axes swapped.

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        weight (Tensor): ``(C_in, C_out / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: ``None``.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` implicit zeros on both sides.
            Default: ``0``.
        output_padding (int or tuple): extra size on one side of the output. Default: ``0``.
        groups (int): the number of channel groups. Default: ``1``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.

    Example::

        >>> F.conv_transpose3d(flow.randn(2, 3, 4, 4, 4), flow.randn(3, 5, 2, 2, 2), stride=2).shape
        monoflow.Size([2, 5, 8, 8, 8])
    """
    _C.check_tensor(input, "conv_transpose3d", "input", 1)
    _C.check_tensor(weight, "conv_transpose3d", "weight", 2)
    _C.check_optional_tensor(bias, "conv_transpose3d", "bias", 3)
    if isinstance(padding, str):
        raise ValueError("conv_transpose3d: padding must be an int or a tuple of ints, not a string")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of "
                           f"size: {list(input.shape)}")
    if weight.dim() != 5:
        raise RuntimeError(f"conv_transpose3d: expected a 5-D weight, but got weight of size {list(weight.shape)}")
    _check_kernel_3d(weight, "conv_transpose3d")
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    strides, pads = _triple(stride, "stride"), _triple(padding, "padding")
    outs, dils = _triple(output_padding, "output_padding"), _triple(dilation, "dilation")
    c_in, c_out_g = weight.shape[0], weight.shape[1]
    if x.shape[1] != c_in or c_in % groups:
        raise RuntimeError(f"conv_transpose3d: expected input with {c_in} channels (weight {list(weight.shape)}, "
                           f"groups={groups}), but got input of size {list(input.shape)}")
    for o, s, d in zip(outs, strides, dils):
        if o >= max(s, d):
            raise RuntimeError(f"conv_transpose3d: output padding must be smaller than either stride or dilation, "
                               f"got output_padding={outs}, stride={strides}, dilation={dils}")
    from monoflow.ops_shape import pad as _pad

    for i, s in enumerate(strides):
        x = _dilate(x, 2 + i, s)
    widths = []
    for k, p, o, d in zip(weight.shape[2:], pads, outs, dils):
        edge = d * (k - 1) - p
        widths.append((edge, edge + o))
    x = _pad(x, [w for lo_hi in reversed(widths) for w in lo_hi])  # negative widths crop
    k = weight.shape[2:]
    w = weight.flip((2, 3, 4)).reshape(groups, c_in // groups, c_out_g, *k).transpose(1, 2)
    w = w.reshape(groups * c_out_g, c_in // groups, *k)
    out = conv3d(x, w, bias, 1, 0, dils, groups)
    return out.squeeze(0) if unbatched else out
