"""linear and bilinear maps (torch.nn.functional.linear / bilinear)."""
from monoflow import _C, _autocast

__all__ = ["linear", "bilinear"]


@_autocast.lower
def linear(input, weight, bias=None):
    """Affine map of the last dimension: ``input @ weight.T + bias``, over any leading dims. See
    :class:`~monoflow.nn.Linear`.

    Args:
        input (Tensor): ``(*, in_features)``.
        weight (Tensor): ``(out_features, in_features)``.
        bias (Tensor, optional): ``(out_features,)``. Default: ``None``.

    Example::

        >>> F.linear(flow.tensor([[1.0, 2.0]]), flow.tensor([[1.0, 1.0], [0.0, 1.0]]), flow.tensor([0.5, 0.0]))
        tensor([[3.5000, 2.0000]])
    """
    _C.check_tensor(input, "linear", "input", 1)
    _C.check_tensor(weight, "linear", "weight", 2)
    _C.check_optional_tensor(bias, "linear", "bias", 3)
    wdim, idim = weight.dim(), input.dim()
    if wdim not in (1, 2):
        raise RuntimeError(f"linear(): weight must be 1-D or 2-D, but got {wdim}-D")
    # (size(d), not shape[d]: this runs for every layer call, and a Size index is Python code)
    if idim == 0 or input.size(-1) != weight.size(-1):
        rows = input.numel() // input.size(-1) if idim and input.size(-1) else 1
        wt = tuple(weight.shape)[::-1]
        raise RuntimeError(f"linear(): mat1 and mat2 shapes cannot be multiplied ({rows}x"
                           f"{input.size(-1) if idim else 1} and {'x'.join(map(str, wt))})")
    # the product, then the bias: addmm's order (another bias shape: `+` broadcasts it, or
    # refuses it by linear's name)
    out = input.matmul(weight.transpose(0, 1) if wdim == 2 else weight)
    return out if bias is None else out + bias


@_autocast.lower
def bilinear(input1, input2, weight, bias=None):
    """Bilinear map ``y[..., k] = input1 @ weight[k] @ input2 + bias[k]``. See
    :class:`~monoflow.nn.Bilinear`.

    Args:
        input1 (Tensor): ``(*, in1_features)``.
        input2 (Tensor): ``(*, in2_features)``, the same leading dims.
        weight (Tensor): ``(out_features, in1_features, in2_features)``.
        bias (Tensor, optional): ``(out_features,)``. Default: ``None``.

    Example::

        >>> F.bilinear(flow.randn(8, 5), flow.randn(8, 6), flow.randn(3, 5, 6)).shape
        monoflow.Size([8, 3])
    """
    _C.check_tensor(input1, "bilinear", "input1", 1)
    _C.check_tensor(input2, "bilinear", "input2", 2)
    _C.check_tensor(weight, "bilinear", "weight", 3)
    _C.check_optional_tensor(bias, "bilinear", "bias", 4)
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D, got {weight.dim()}-D")
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1 or input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input sizes {input1.shape[-1]}, {input2.shape[-1]} do not match the "
                           f"weight's {in1}, {in2}")
    # x1 @ W laid out as (in1, out*in2), then contract the in2 axis with x2.
    w = weight.permute(1, 0, 2).reshape(in1, out_f * in2)
    t = input1.matmul(w).reshape(*input1.shape[:-1], out_f, in2)
    out = (t * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias
