"""local_response_norm (AlexNet's LRN): each channel divided by
(k + alpha / n * sum of squares over n neighbouring channels) ** beta."""
from monoflow import _C
from monoflow.nn.functional.pooling import avg_pool2d
from monoflow.ops_shape import pad

__all__ = ["local_response_norm"]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response normalisation across channels: ``x / (k + alpha / size * sum of x ** 2 over size
    neighbouring channels) ** beta``. See :class:`~monoflow.nn.LocalResponseNorm`.

    Args:
        input (Tensor): ``(N, C, *)``, at least 3-d.
        size (int): the number of neighbouring channels.
        alpha (float): the multiplicative factor. Default: ``1e-4``.
        beta (float): the exponent. Default: ``0.75``.
        k (float): the additive constant. Default: ``1.0``.

    Example::

        >>> F.local_response_norm(flow.ones(1, 3, 2, 2), 2).shape
        monoflow.Size([1, 3, 2, 2])
    """
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"local_response_norm(): argument 'input' must be Tensor, not {type(input).__name__}")
    size = _C.check_int(size, "local_response_norm", "size", 2)
    for pos, (name, v) in enumerate((("alpha", alpha), ("beta", beta), ("k", k)), 3):
        _C.check_float(v, "local_response_norm", name, pos)
    if input.dim() < 3:
        raise ValueError(f"local_response_norm(): Expected 3D or higher dimensionality input (got {input.dim()} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    n, c = input.shape[0], input.shape[1]
    sq = (input * input).reshape(n, 1, c, -1)
    # the mean over a window of `size` channels, zero-padded as torch: size // 2 before, (size - 1) // 2 after
    sq = pad(sq, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(sq, (size, 1), stride=1).reshape(input.shape)
    return input / div.mul(alpha).add(k).pow(beta)
