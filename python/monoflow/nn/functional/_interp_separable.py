"""interpolate's antialiased resampling (bilinear/bicubic, ``antialias=True``) and its uint8 bilinear/bicubic
resampling, as torch's separable CPU kernels compute them.

Each output position ``i`` of a dim is a normalized weighted sum of a window
of input positions around ``center = scale * (i + 0.5)``: the filter
(triangle for bilinear, Keys' cubic for bicubic) is stretched by ``scale``
when downsampling with antialias, so every input pixel under the output pixel
contributes. The window width varies by position; it is padded to the widest
with zero weights, so one index_select and one multiply per tap resample a
whole dim (and autograd gives the gradient). uint8 images take torch's
fixed-point path: the weights are rounded to int16 with as many fraction
bits as the largest weight allows, each pass sums integers, rounds, shifts
and clamps to 0..255, and the pass's result is uint8 again (PIL's scheme).
Dims are resampled last first and a dim whose size does not change is
skipped, as torch's kernel does.
"""
import math

import numpy as np

from monoflow import _creation
from monoflow._dtypes import float64, int64, uint8


def _triangle(x):
    x = np.abs(x)
    return np.where(x < 1.0, 1.0 - x, 0.0)


def _cubic(a):
    def filt(x):
        x = np.abs(x)
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))
    return filt


def _cubic_taps(in_size, out_size, scale, align_corners):
    """(indices (out, 4), weights (out, 4)) of plain bicubic (a = -0.75, border taps clamped): the float kernel's
    weights, which torch's uint8 kernel also uses when it does not antialias."""
    i = np.arange(out_size, dtype=np.float64)
    real = i * scale if align_corners else scale * (i + 0.5) - 0.5
    i0 = np.floor(real).astype(np.int64)
    t = real - i0
    w = np.stack([_cubic(-0.75)(t + 1), _cubic(-0.75)(t), _cubic(-0.75)(1 - t), _cubic(-0.75)(2 - t)], axis=1)
    index = np.clip(i0[:, None] - 1 + np.arange(4)[None, :], 0, in_size - 1)
    # a window of distinct positions: taps clamped onto the same border pixel add their weights
    start = index[:, :1]
    merged = np.zeros_like(w)
    np.add.at(merged, (np.arange(out_size)[:, None].repeat(4, 1), index - start), w)
    return np.minimum(start + np.arange(4)[None, :], in_size - 1), merged


def _window_weights(in_size, out_size, scale, mode, antialias, align_corners_delta, acc):
    """(indices (out, taps), weights (out, taps)) in the precision `acc`, torch's window arithmetic."""
    interp_size = 2 if mode == "bilinear" else 4
    filt = _triangle if mode == "bilinear" else _cubic(-0.5)
    scale = acc(scale)
    if antialias:
        support = acc(interp_size * 0.5) * scale if scale >= 1.0 else acc(interp_size * 0.5)
        taps = int(math.ceil(support)) * 2 + 1
    else:
        support, taps = acc(interp_size * 0.5), interp_size
    invscale = acc(1.0) / scale if (scale >= 1.0 and antialias) else acc(1.0)
    i = np.arange(out_size, dtype=acc)
    center = (scale * (i + acc(0.5 - align_corners_delta))).astype(acc)
    xmin = np.maximum(np.trunc(center - support + acc(0.5 + align_corners_delta)).astype(np.int64), 0)
    xsize = np.minimum(np.trunc(center + support + acc(0.5 + align_corners_delta)).astype(np.int64), in_size) - xmin
    xsize = np.clip(xsize, 0, taps)
    j = np.arange(taps)
    w = filt(((j[None, :] + xmin[:, None]).astype(acc) - center[:, None] + acc(0.5 - align_corners_delta))
             * invscale).astype(acc)
    w = np.where(j[None, :] < xsize[:, None], w, acc(0))
    total = w.sum(axis=1, dtype=acc)  # torch sums tap by tap; float rounding may differ in the last bit
    w = np.where(total[:, None] != 0, w / np.where(total == 0, 1, total)[:, None], w).astype(acc)
    return np.minimum(xmin[:, None] + j[None, :], in_size - 1), w


def _select(x, dim, index):
    return x.index_select(dim, _creation.tensor(index, device=x.device))


def _shaped(values, x, dim, dtype):
    shape = [1] * x.dim()
    shape[dim] = len(values)
    return _creation.tensor(values, dtype=dtype, device=x.device).reshape(shape)


def _float_pass(x, dim, out_size, scale, mode, antialias):
    acc = np.float64 if x.dtype == float64 else np.float32
    in_size = x.shape[dim]
    index, w = _window_weights(in_size, out_size, scale, mode, antialias, 0.0, acc)
    out = None
    for k in range(w.shape[1]):
        if not w[:, k].any():
            continue
        term = _select(x, dim, index[:, k]) * _shaped(w[:, k], x, dim, x.dtype)
        out = term if out is None else out + term
    return out


def _uint8_pass(x, dim, out_size, scale, mode, antialias, align_corners):
    in_size = x.shape[dim]
    if mode == "bicubic" and not antialias:
        index, w = _cubic_taps(in_size, out_size, scale, align_corners)
    else:
        delta = 0.5 if (align_corners and not antialias) else 0.0
        index, w = _window_weights(in_size, out_size, scale, mode, antialias, delta, np.float64)
    w_max = w.max() if w.size else 0.0
    precision = 0
    while precision < 22 and int(0.5 + w_max * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    scaled = w * (1 << precision)
    w16 = np.where(scaled < 0, np.trunc(-0.5 + scaled), np.trunc(0.5 + scaled)).astype(np.int64)
    wide = x.to(int64)
    out = _creation.full([1] * x.dim(), 1 << (precision - 1) if precision else 0, dtype=int64, device=x.device)
    for k in range(w16.shape[1]):
        if not w16[:, k].any():
            continue
        out = out + _select(wide, dim, index[:, k]) * _shaped(w16[:, k], x, dim, int64)
    return (out >> precision).clamp(0, 255).to(uint8)


def resample(x, sizes, scales, mode, antialias, align_corners):
    """``x`` (N, C, H, W) resampled to ``sizes`` with the per-dim ``scales`` (input/output ratio), by the separable
    scheme of this module's note."""
    for k in range(len(sizes) - 1, -1, -1):
        dim = 2 + k
        if x.shape[dim] == sizes[k]:
            continue
        if x.dtype == uint8:
            x = _uint8_pass(x, dim, sizes[k], scales[k], mode, antialias, align_corners)
        else:
            x = _float_pass(x, dim, sizes[k], scales[k], mode, antialias)
    return x
