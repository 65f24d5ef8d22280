"""Convolutions: conv1d, conv2d, conv_transpose2d (torch.nn.functional's API).

The work is the C++ core's (im2col + BLAS kernels, derivatives of every
order); this module sorts out argument forms: ints or pairs, string
padding ('valid', 'same'), unbatched inputs, and the 1-D variant as a 2-D
convolution over a unit height.
"""
from monoflow import _C

__all__ = ["conv1d", "conv2d", "conv_transpose2d"]


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


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of input [N, C, H, W] (or [C, H, W]) with weight [O, C/groups, kH, kW]."""
    if isinstance(padding, str):
        input, padding = _string_padding(input, weight, stride, padding, dilation, 2, "conv2d")
    return _C.nn_conv2d(input, weight, bias, stride, padding, dilation, groups)


def _to_2d(v, fill):
    """A 1-D parameter (int or 1-tuple) as its 2-D form over a unit height."""
    if isinstance(v, int):
        return (fill, v)
    v = tuple(v)
    if len(v) != 1:
        raise ValueError(f"conv1d: expected a single integer or a 1-tuple, but got {v!r}")
    return (fill, v[0])


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of input [N, C, L] (or [C, L]) with weight [O, C/groups, k]."""
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


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-D convolution (the adjoint of conv2d) with weight [C_in, C_out/groups, kH, kW]."""
    if isinstance(padding, str):
        raise ValueError("conv_transpose2d: padding must be an int or a tuple of ints, not a string")
    return _C.nn_conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)
