"""interpolate / upsample (torch.nn.functional's): nearest, nearest-exact,
linear, bilinear, trilinear, bicubic and area resampling of the trailing
1-3 spatial dims.

Every mode but area is separable: the output is resampled one spatial dim
at a time, last dim first, each time as a weighted sum of rows picked by
index_select. That is the nesting torch's kernels use (the innermost sum is
over the width), so results agree to rounding, and autograd gets the
gradients (index_select's is a scatter-add) with no kernel of its own. Area
is adaptive average pooling, as in torch.
"""
import math

import numpy as np

from monoflow import _C, _creation
from monoflow._dtypes import float64, uint8
from monoflow.nn.functional import _interp_separable, pooling

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}
_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area")


def _output_size(input, n, size, scale_factor, recompute):
    """(output sizes, scales handed to the index computation: 1/scale_factor or None)."""
    if (size is None) == (scale_factor is None):
        raise ValueError(_C.name_op_in_progress("only one of size or scale_factor should be defined"))
    spatial = tuple(input.shape[2:])
    if size is not None:
        sizes = tuple(size) if isinstance(size, (list, tuple)) else (size,) * n
        if len(sizes) != n:
            raise ValueError(_C.name_op_in_progress(
                f"Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(spatial)} and output size of {list(sizes)}. Please provide input tensor in "
                f"(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."))
        return _positive(spatial, tuple(_C.check_int(s, "interpolate", "size") for s in sizes)), (None,) * n
    factors = tuple(scale_factor) if isinstance(scale_factor, (list, tuple)) else (scale_factor,) * n
    if len(factors) != n:
        raise ValueError(_C.name_op_in_progress(
            f"Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
            f"dimensions of {list(spatial)} and scale_factor of shape {list(factors)}."))
    factors = tuple(_C.check_float(f, "interpolate", "scale_factor") for f in factors)
    if not all(math.isfinite(f) for f in factors):
        raise ValueError(_C.name_op_in_progress(f"scale_factor must be finite, got {list(factors)}"))
    sizes = _positive(spatial, tuple(int(math.floor(s * f)) for s, f in zip(spatial, factors)))
    if recompute:
        return sizes, (None,) * n
    return sizes, tuple(float(f) for f in factors)


def _positive(spatial, sizes):
    """`sizes`, refused (torch's wording) when a size of the input or of the output is not positive."""
    if min(spatial + sizes) <= 0:
        names = "DHW"[3 - len(sizes):] if len(sizes) <= 3 else "?" * len(sizes)
        shown = lambda v: ", ".join(f"{c}: {x}" for c, x in zip(names, v))  # noqa: E731
        raise RuntimeError(_C.name_op_in_progress(
            f"Input and output sizes should be greater than 0, but got input ({shown(spatial)}) output "
            f"({shown(sizes)})"))
    return sizes


def _scale(in_size, out_size, align_corners, scale_factor):
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if scale_factor is not None and scale_factor > 0:
        return 1.0 / scale_factor
    return in_size / out_size


def _select(x, dim, index):
    return x.index_select(dim, _creation.tensor(index, device=x.device))


def _weights(w, x, dim):
    """A weight per output position, shaped to broadcast along ``dim`` of x."""
    shape = [1] * x.dim()
    shape[dim] = len(w)
    return _creation.tensor(w, dtype=x.dtype, device=x.device).reshape(shape)


def _resample_dim(x, dim, out_size, mode, align_corners, scale_factor):
    in_size = x.shape[dim]
    # the index arithmetic in the input's precision, as torch's kernels
    acc = np.float64 if x.dtype == float64 else np.float32
    scale = acc(_scale(in_size, out_size, align_corners, scale_factor))
    dst = np.arange(out_size, dtype=acc)
    if mode == "nearest":
        src = np.minimum(np.floor(dst * scale).astype(np.int64), in_size - 1)
        return _select(x, dim, src)
    if mode == "nearest-exact":
        src = np.minimum(np.floor((dst + acc(0.5)) * scale).astype(np.int64), in_size - 1)
        return _select(x, dim, src)
    if align_corners:
        real = dst * scale
    else:
        real = scale * (dst + acc(0.5)) - acc(0.5)
    if mode == "bicubic":
        i0 = np.floor(real).astype(np.int64)
        t = (real - i0).astype(acc)
        a = acc(-0.75)
        near = lambda s: ((a + 2) * s - (a + 3)) * s * s + 1  # noqa: E731  |s| <= 1
        far = lambda s: ((a * s - 5 * a) * s + 8 * a) * s - 4 * a  # noqa: E731  1 < |s| < 2
        coeffs = (far(t + 1), near(t), near(1 - t), far(2 - t))
        out = None
        for k, c in enumerate(coeffs):
            term = _select(x, dim, np.clip(i0 - 1 + k, 0, in_size - 1)) * _weights(c, x, dim)
            out = term if out is None else out + term
        return out
    real = np.maximum(real, acc(0))
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    lam1 = np.clip(real - i0, 0, 1).astype(acc)
    lam0 = (acc(1) - lam1).astype(acc)
    return _select(x, dim, i0) * _weights(lam0, x, dim) + _select(x, dim, i1) * _weights(lam1, x, dim)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the trailing spatial dims of ``(N, C, *spatial)`` (1 to 3 spatial dims) to ``size`` or by
    ``scale_factor``. See :class:`~monoflow.nn.Upsample`.

    The separable modes resample one dim at a time, as torch's kernels, so the results agree to
    rounding; ``'area'`` is adaptive average pooling.

    Args:
        input (Tensor): a 3-d, 4-d or 5-d tensor.
        size (int or tuple, optional): the output spatial size. Give ``size`` or ``scale_factor``, not
            both.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
        mode (str): ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-d input), ``'bilinear'`` (4-d),
            ``'trilinear'`` (5-d), ``'bicubic'`` (4-d) or ``'area'``. Default: ``'nearest'``.
        align_corners (bool, optional): for the interpolating modes, align the corner pixels' centres of
            input and output (``True``) or their edges (``False``); must stay ``None`` for nearest and
            area. Default: ``None`` (``False``).
        recompute_scale_factor (bool, optional): compute the sampling from the output size rather than
            from ``scale_factor``. Default: ``None``.
        antialias (bool): for ``'bilinear'`` and ``'bicubic'`` on 4-d input, widen the filter when
            downsampling so that every input pixel contributes (torch's and PIL's antialiasing). Default:
            ``False``.

    uint8 input is resampled in fixed point for ``'bilinear'`` and ``'bicubic'`` (as torch's CPU kernel),
    and by index for the nearest modes.

    Example::

        >>> x = flow.tensor([[[1.0, 2.0, 4.0]]])
        >>> F.interpolate(x, scale_factor=2, mode='linear')
        tensor([[[1.0000, 1.2500, 1.7500, 2.5000, 3.5000, 4.0000]]])
        >>> F.interpolate(x, size=5, mode='linear', align_corners=True)
        tensor([[[1.0000, 1.5000, 2.0000, 3.0000, 4.0000]]])
    """
    # (upsample* reach it: the messages are named after the op the user called)
    _C.check_tensor(input, "interpolate", "input", 1)
    if not isinstance(mode, str) or mode not in _MODES:
        raise NotImplementedError(_C.name_op_in_progress(
            f"mode {mode!r} is not supported (one of {', '.join(_MODES)})"))
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError(_C.name_op_in_progress(
            "Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input"))
    n = input.dim() - 2
    if n < 1 or n > 3:
        raise NotImplementedError(_C.name_op_in_progress(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: nearest | "
            f"linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})"))
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError(_C.name_op_in_progress("align_corners option can only be set with the interpolating "
                                                    "modes: linear | bilinear | bicubic | trilinear"))
        align_corners = False
    elif align_corners is None:
        align_corners = False
    if mode in _LINEAR and _LINEAR[mode] != n:
        raise NotImplementedError(_C.name_op_in_progress(
            f"Got {input.dim()}D input, but {mode} mode needs {_LINEAR[mode] + 2}D input"))
    if mode == "bicubic" and n != 2:
        raise NotImplementedError(_C.name_op_in_progress(f"Got {input.dim()}D input, but bicubic mode needs 4D input"))
    if input.dtype == uint8 and mode not in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        raise NotImplementedError(_C.name_op_in_progress(f"mode {mode!r} is not implemented for uint8 input"))
    sizes, factors = _output_size(input, n, size, scale_factor, recompute_scale_factor)
    if antialias or (input.dtype == uint8 and mode in ("bilinear", "bicubic")):
        scales = [_scale(s_in, s_out, align_corners, f) for s_in, s_out, f in zip(input.shape[2:], sizes, factors)]
        return _interp_separable.resample(input, sizes, scales, mode, antialias, align_corners)
    if mode == "area":
        if n == 1:
            return pooling.adaptive_avg_pool1d(input, sizes)
        if n == 2:
            return pooling.adaptive_avg_pool2d(input, sizes)
        return pooling.adaptive_avg_pool3d(input, sizes)
    x = input
    for k in range(n - 1, -1, -1):
        x = _resample_dim(x, 2 + k, sizes[k], mode, align_corners, factors[k])
    return x


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of :func:`interpolate` (the same resampling).

    Args:
        input (Tensor): a 3-d, 4-d or 5-d tensor.
        size (int or tuple, optional): the output spatial size. Give ``size`` or ``scale_factor``, not
            both.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
        mode (str): ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-d input), ``'bilinear'`` (4-d),
            ``'trilinear'`` (5-d), ``'bicubic'`` (4-d) or ``'area'``. Default: ``'nearest'``.
        align_corners (bool, optional): for the interpolating modes, align the corner pixels' centres of
            input and output (``True``) or their edges (``False``); must stay ``None`` for nearest and
            area. Default: ``None`` (``False``).

    Example::

        >>> F.upsample(flow.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Nearest-neighbour upsampling: :func:`interpolate` with ``mode='nearest'`` (deprecated in torch).

    Args:
        input (Tensor): a 3-d, 4-d or 5-d tensor.
        size (int or tuple, optional): the output spatial size. Give ``size`` or ``scale_factor``, not
            both.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.

    Example::

        >>> F.upsample_nearest(flow.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Bilinear upsampling with ``align_corners=True``: :func:`interpolate` with ``mode='bilinear'``
    (deprecated in torch).

    Args:
        input (Tensor): ``(N, C, H, W)``.
        size (int or tuple, optional): the output spatial size. Give ``size`` or ``scale_factor``, not
            both.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.

    Example::

        >>> F.upsample_bilinear(flow.tensor([[[[1.0, 2.0]]]]), scale_factor=2)
        tensor([[[[1.0000, 1.3333, 1.6667, 2.0000],
                  [1.0000, 1.3333, 1.6667, 2.0000]]]])
    """
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
