"""nn ops under the top-level names torch (and OneFlow) also give them:
``monoflow.conv2d``, ``monoflow.layer_norm``, ``monoflow.adaptive_avg_pool2d``...

Most are monoflow.nn.functional's own functions. The few whose top-level form
in torch is the ATen signature (``torch.dropout(input, p, train)``, pools
whose empty stride means the kernel size, ``adaptive_max_pool1d`` returning
the indices too) are thin wrappers that translate it."""
from monoflow.nn import functional as F
from monoflow.nn.functional import (  # noqa: F401  (re-exported: same signature as torch.<name>)
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, avg_pool1d, bilinear, celu_, channel_shuffle,
    conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, cosine_similarity, hardshrink,
    pairwise_distance,
    pdist, pixel_shuffle, pixel_unshuffle, prelu, relu_, rrelu_, selu_, threshold_,
)

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "avg_pool1d", "bilinear", "celu_",
    "channel_shuffle", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "cosine_similarity",
    "hardshrink", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_", "rrelu_",
    "selu_", "threshold_",
    "adaptive_max_pool1d", "alpha_dropout", "dropout", "group_norm", "layer_norm", "max_pool1d", "max_pool2d",
    "max_pool3d", "rrelu", "threshold",
]


def dropout(input, p, train):
    """torch.dropout: ``nn.functional.dropout(input, p, training=train)``.

    Args:
        input (Tensor): the activations.
        p (float): the probability of zeroing an element.
        train (bool): False returns `input` unchanged.

    Example::

        >>> import monoflow as flow
        >>> flow.dropout(flow.ones(3), 0.5, False)
        tensor([1., 1., 1.])
    """
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    """torch.alpha_dropout: ``nn.functional.alpha_dropout(input, p, training=train)``.

    Args:
        input (Tensor): the activations.
        p (float): the drop probability.
        train (bool): False returns `input` unchanged.

    Example::

        >>> import monoflow as flow
        >>> flow.alpha_dropout(flow.ones(2), 0.2, False)
        tensor([1., 1.])
    """
    return F.alpha_dropout(input, p, train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """torch.layer_norm: ``nn.functional.layer_norm``.

    Args:
        input (Tensor): normalised over its last ``len(normalized_shape)`` dims.
        normalized_shape (sequence of int): those dims' sizes.
        weight, bias (Tensor, optional): the affine transform after normalising.
        eps (float): added to the variance.
        cudnn_enable (bool): accepted; no meaning here.

    Example::

        >>> import monoflow as flow
        >>> flow.layer_norm(flow.tensor([[1.0, 3.0]]), [2])
        tensor([[-1.0000,  1.0000]])
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """torch.group_norm: ``nn.functional.group_norm``.

    Args:
        input (Tensor): ``(N, C, *)``.
        num_groups (int): groups of channels normalised together (divides C).
        weight, bias (Tensor, optional): per-channel affine transform.
        eps (float): added to the variance.
        cudnn_enabled (bool): accepted; no meaning here.

    Example::

        >>> import monoflow as flow
        >>> flow.group_norm(flow.tensor([[[1.0], [3.0]]]), 1).flatten()
        tensor([-1.0000,  1.0000])
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def _pool_stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool1d: ``nn.functional.max_pool1d`` without indices; an empty `stride` means `kernel_size`.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size, stride, padding, dilation, ceil_mode: as in ``nn.functional.max_pool1d``.

    Example::

        >>> import monoflow as flow
        >>> flow.max_pool1d(flow.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
        tensor([[3., 2.]])
    """
    return F.max_pool1d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool2d: ``nn.functional.max_pool2d`` without indices; an empty `stride` means `kernel_size`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size, stride, padding, dilation, ceil_mode: as in ``nn.functional.max_pool2d``.

    Example::

        >>> import monoflow as flow
        >>> flow.max_pool2d(flow.arange(16.0).reshape(1, 4, 4), 2)
        tensor([[[ 5.,  7.],
                 [13., 15.]]])
    """
    return F.max_pool2d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool3d: ``nn.functional.max_pool3d`` without indices; an empty `stride` means `kernel_size`.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size, stride, padding, dilation, ceil_mode: as in ``nn.functional.max_pool3d``.

    Example::

        >>> import monoflow as flow
        >>> flow.max_pool3d(flow.arange(8.0).reshape(1, 2, 2, 2), 2)
        tensor([[[[7.]]]])
    """
    return F.max_pool3d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d: the maxima of `output_size` windows over the last dim, with their indices.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): windows per row.

    Returns:
        (Tensor, Tensor): the values and their indices.

    Example::

        >>> import monoflow as flow
        >>> flow.adaptive_max_pool1d(flow.tensor([[1.0, 5.0, 2.0, 0.0]]), 2)
        (tensor([[5., 2.]]), tensor([[1, 2]]))
    """
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def threshold(input, threshold, value):
    """torch.threshold: `value` where ``input <= threshold``, else `input`.

    Example::

        >>> import monoflow as flow
        >>> flow.threshold(flow.tensor([0.5, 2.0]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    return F.threshold(input, threshold, value)


def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """torch.rrelu: ``nn.functional.rrelu`` (a `generator` other than None is not supported yet).

    Args:
        input (Tensor): the activations.
        lower, upper (float): the range of the random negative slope (training), whose mean is used otherwise.
        training (bool): draw the slopes.
        generator: must be None.

    Example::

        >>> import monoflow as flow
        >>> flow.rrelu(flow.tensor([-1.0, 2.0]), 0.25, 0.25)
        tensor([-0.2500,  2.0000])
    """
    if generator is not None:
        raise NotImplementedError("rrelu(): the generator argument is not implemented in monoflow yet")
    return F.rrelu(input, lower, upper, training)
