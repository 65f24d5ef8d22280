"""rms_norm (torch.nn.functional.rms_norm): x / sqrt(mean(x^2) + eps) over the
trailing ``normalized_shape`` dims, times an optional weight."""

from monoflow import _C, _composite
from monoflow._dtypes import bfloat16, float16, float64

__all__ = ["rms_norm"]


def _eps_of(dtype):
    # the machine epsilon of the dtype torch computes in: float64's, else float32's (float16/bfloat16
    # inputs are computed in float32, and torch takes that dtype's epsilon, not the input's)
    return 2.0 ** -52 if dtype == float64 else 2.0 ** -23


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims: ``x / sqrt(mean(x ** 2)
    + eps) * weight``. See :class:`~monoflow.nn.RMSNorm`.

    Args:
        input (Tensor): ``(*, *normalized_shape)``.
        normalized_shape (sequence of int): the trailing dims.
        weight (Tensor, optional): the elementwise scale. Default: ``None``.
        eps (float, optional): added to the mean square; ``None`` is the machine epsilon of float32
            (float64 for a float64 input), as torch. Default: ``None``.

    Example::

        >>> F.rms_norm(flow.tensor([[3.0, -3.0]]), (2,))
        tensor([[ 1., -1.]])
    """
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"rms_norm(): argument 'input' must be Tensor, not {type(input).__name__}")
    shape = _composite.int_tuple("rms_norm", "normalized_shape", normalized_shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape:
        raise RuntimeError(f"rms_norm(): expected input with shape [*, {', '.join(map(str, shape))}], but got "
                           f"input of size {list(input.shape)}")
    if weight is not None and not isinstance(weight, _C.TensorBase):
        raise TypeError(f"rms_norm(): argument 'weight' (position 3) must be Tensor, not {type(weight).__name__}")
    eps = _eps_of(input.dtype) if eps is None else eps
    if input.dtype in (float16, bfloat16):  # computed in float32 as torch, in the input's dtype after
        return rms_norm(input.float(), shape, weight, eps).to(input.dtype)
    dims = tuple(range(input.dim() - len(shape), input.dim()))
    out = input * (input * input).mean(dims, keepdim=True).add(eps).rsqrt()
    return out * weight if weight is not None else out
