"""nn ops under the top-level names torch (and OneFlow) also give them:
``monoflow.conv2d``, ``monoflow.layer_norm``, ``monoflow.adaptive_avg_pool2d``...

Most are monoflow.nn.functional's own functions. The few whose top-level form
in torch is the ATen signature (``torch.dropout(input, p, train)``, pools
whose empty stride means the kernel size, ``adaptive_max_pool1d`` returning
the indices too) are thin wrappers that translate it."""
from monoflow.nn import functional as F
from monoflow.nn.functional import (  # noqa: F401  (re-exported: same signature as torch.<name>)
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, avg_pool1d, bilinear, celu_, channel_shuffle,
    conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, cosine_similarity, hardshrink, pairwise_distance,
    pdist, pixel_shuffle, pixel_unshuffle, prelu, relu_, rrelu_, selu_, threshold_,
)

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "avg_pool1d", "bilinear", "celu_",
    "channel_shuffle", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "cosine_similarity",
    "hardshrink", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_", "rrelu_",
    "selu_", "threshold_",
    "adaptive_max_pool1d", "alpha_dropout", "dropout", "group_norm", "layer_norm", "max_pool1d", "max_pool2d",
    "max_pool3d", "rrelu", "threshold",
]


def dropout(input, p, train):
    """torch.dropout: ``nn.functional.dropout(input, p, training=train)``."""
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    """torch.alpha_dropout: ``nn.functional.alpha_dropout(input, p, training=train)``."""
    return F.alpha_dropout(input, p, train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """torch.layer_norm (`cudnn_enable` is accepted and has no meaning here)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """torch.group_norm (`cudnn_enabled` is accepted and has no meaning here)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def _pool_stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool1d: an empty `stride` means the kernel size; returns the values only."""
    return F.max_pool1d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool2d: an empty `stride` means the kernel size; returns the values only."""
    return F.max_pool2d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool3d: an empty `stride` means the kernel size; returns the values only."""
    return F.max_pool3d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d: returns ``(values, indices)``."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def threshold(input, threshold, value):
    """torch.threshold: `value` where ``input <= threshold``, else `input`."""
    return F.threshold(input, threshold, value)


def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """torch.rrelu (a `generator` other than None is not supported yet)."""
    if generator is not None:
        raise NotImplementedError("rrelu(): the generator argument is not implemented in monoflow yet")
    return F.rrelu(input, lower, upper, training)
