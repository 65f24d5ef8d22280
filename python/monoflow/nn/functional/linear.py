"""linear and bilinear maps (torch.nn.functional.linear / bilinear)."""
from monoflow import _C

__all__ = ["linear", "bilinear"]


def linear(input, weight, bias=None):
    """input @ weight.T + bias, over any leading dims of input."""
    _C.check_tensor(input, "linear", "input", 1)
    if not isinstance(input, _C.TensorBase) or not isinstance(weight, _C.TensorBase):
        raise TypeError("linear(): input and weight must be Tensors")
    if input.dim() == 0 or input.shape[-1] != weight.shape[-1]:
        rows = input.numel() // input.shape[-1] if input.dim() and input.shape[-1] else 1
        wt = tuple(weight.shape)[::-1]
        raise RuntimeError(f"linear(): mat1 and mat2 shapes cannot be multiplied ({rows}x"
                           f"{input.shape[-1] if input.dim() else 1} and {'x'.join(map(str, wt))})")
    if input.dim() == 2 and weight.dim() == 2 and bias is not None:
        return bias.addmm(input, weight.t())
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]."""
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
