"""Pooling: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d, adaptive_max_pool1d/2d
(torch.nn.functional's API). The kernels and derivatives are the C++ core's;
1-D variants run as 2-D pooling over a unit height."""
from monoflow import _C

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d"]


def _one(v, op, what):
    """A 1-D pooling parameter (int or 1-tuple) as an int."""
    if isinstance(v, int):
        return v
    v = tuple(v)
    if len(v) != 1:
        raise ValueError(f"{op}: {what} must be a single int or a 1-tuple, but got {v!r}")
    return v[0]


def _check_1d(input, op):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"{op}: expected a 2D or 3D (batch mode) tensor, but got input of size {list(input.shape)}")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over kH x kW windows of [N, C, H, W] (or [C, H, W]); indices are flat into each H*W plane."""
    if stride is not None and not isinstance(stride, int) and len(tuple(stride)) == 0:
        stride = None  # torch accepts an empty stride as "the kernel size"
    out, idx = _C.nn_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over windows of [N, C, L] (or [C, L])."""
    _check_1d(input, "max_pool1d")
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) else _one(
        stride, "max_pool1d", "stride")
    out, idx = _C.nn_max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "max_pool1d", "padding")),
                                (1, _one(dilation, "max_pool1d", "dilation")), ceil_mode)
    out = out.squeeze(-2)
    return (out, idx.squeeze(-2)) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over kH x kW windows of [N, C, H, W] (or [C, H, W])."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool2d: divisor must be not zero")
    if stride is not None and not isinstance(stride, int) and len(tuple(stride)) == 0:
        stride = None
    return _C.nn_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            0 if divisor_override is None else divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Mean over windows of [N, C, L] (or [C, L])."""
    _check_1d(input, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) else _one(
        stride, "avg_pool1d", "stride")
    out = _C.nn_avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "avg_pool1d", "padding")),
                           ceil_mode, count_include_pad, 0)
    return out.squeeze(-2)


def _adaptive_size(input, output_size, n):
    """output_size with None entries replaced by the input's size."""
    if isinstance(output_size, int):
        return (output_size,) * n
    size = tuple(output_size)
    if len(size) == 1:
        size = size * n
    return tuple(input.shape[input.dim() - n + i] if v is None else v for i, v in enumerate(size))


def adaptive_avg_pool2d(input, output_size):
    """Mean over the adaptive windows that split H x W into output_size cells."""
    return _C.nn_adaptive_avg_pool2d(input, _adaptive_size(input, output_size, 2))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over the adaptive windows that split H x W into output_size cells."""
    out, idx = _C.nn_adaptive_max_pool2d(input, _adaptive_size(input, output_size, 2))
    return (out, idx) if return_indices else out


def adaptive_avg_pool1d(input, output_size):
    _check_1d(input, "adaptive_avg_pool1d")
    (o,) = _adaptive_size(input, output_size, 1)
    return _C.nn_adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    _check_1d(input, "adaptive_max_pool1d")
    (o,) = _adaptive_size(input, output_size, 1)
    out, idx = _C.nn_adaptive_max_pool2d(input.unsqueeze(-2), (1, o))
    out = out.squeeze(-2)
    return (out, idx.squeeze(-2)) if return_indices else out
