"""OneFlow's top-level detection and metric ops: roi_align (Mask R-CNN's RoIAlign, as
torchvision.ops.roi_align) and roc_auc_score. roi_align is a composition of monoflow ops
(bilinear gathers), so its input gradient comes from autograd."""
import math

from monoflow import _C, _creation, _dtypes, ops_math, ops_shape

__all__ = ["roi_align", "roc_auc_score"]


def _axis_samples(start, bin_size, pooled, grid, size):
    """The sample coordinates of one axis, (K, pooled, grid), and the bilinear corners:
    (low index, high index, low weight, high weight, valid mask), each (K, pooled, grid)."""
    p = _creation.arange(pooled, dtype=start.dtype, device=start.device).reshape(1, pooled, 1)
    g = _creation.arange(grid, dtype=start.dtype, device=start.device).reshape(1, 1, grid)
    c = start.reshape(-1, 1, 1) + (p + (g + 0.5) / grid) * bin_size.reshape(-1, 1, 1)
    valid = (c >= -1.0) & (c <= size)
    c = c.clamp(min=0.0)
    low = c.floor().clamp(max=size - 1)
    at_edge = low >= size - 1
    c = ops_math.where(at_edge, low, c)
    high = (low + 1).clamp(max=size - 1)
    frac = c - low
    return low.long(), high.long(), 1.0 - frac, frac, valid


def _roi_align_grid(feat, batch, x1, y1, bin_w, bin_h, pooled_h, pooled_w, grid_h, grid_w):
    # feat: (N, H, W, C); the rois' samples averaged per bin -> (K, C, pooled_h, pooled_w)
    H, W = feat.shape[1], feat.shape[2]
    yl, yh, wyl, wyh, vy = _axis_samples(y1, bin_h, pooled_h, grid_h, H)
    xl, xh, wxl, wxh, vx = _axis_samples(x1, bin_w, pooled_w, grid_w, W)
    K = batch.shape[0]
    b = batch.reshape(K, 1, 1, 1, 1)

    def ydim(t):
        return t.reshape(K, pooled_h, grid_h, 1, 1)

    def xdim(t):
        return t.reshape(K, 1, 1, pooled_w, grid_w)

    out = 0
    for yi, wy in ((yl, wyl), (yh, wyh)):
        for xi, wx in ((xl, wxl), (xh, wxh)):
            w = (ydim(wy) * xdim(wx) * (ydim(vy) & xdim(vx)).to(feat.dtype)).unsqueeze(-1)
            out = out + feat[b, ydim(yi), xdim(xi)] * w
    # (K, PH, gh, PW, gw, C) -> mean over the grid -> (K, C, PH, PW)
    return out.mean(dim=(2, 4)).permute(0, 3, 1, 2)


def roi_align(input, rois, spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned):
    """RoIAlign (OneFlow's ``oneflow.roi_align``): average-pools each region of interest of a
    feature map into a ``pooled_h x pooled_w`` grid, each bin the mean of bilinearly interpolated
    samples (``sampling_ratio`` per bin side; ``<= 0``: ``ceil(roi size / pooled size)``). A sample
    more than one pixel outside the map counts as 0; one within a pixel of the border takes the
    border's value. Values and the input's gradient are those of ``torchvision.ops.roi_align``.

    Args:
        input (Tensor): the feature map, ``(N, C, H, W)``.
        rois (Tensor): ``(K, 5)`` rows ``[batch_index, x1, y1, x2, y2]`` in input coordinates
            before ``spatial_scale``.
        spatial_scale (float): multiplies the box coordinates.
        pooled_h (int): the output height.
        pooled_w (int): the output width.
        sampling_ratio (int): samples per bin side; ``<= 0`` adapts to the box size.
        aligned (bool): shift the boxes by -0.5 pixel (pixel centres); ``False`` also makes every box
            at least 1x1.

    Returns:
        Tensor: ``(K, C, pooled_h, pooled_w)``.

    Example::

        >>> import monoflow as flow
        >>> x = flow.arange(16.0).reshape(1, 1, 4, 4)
        >>> flow.roi_align(x, flow.tensor([[0.0, 0.0, 0.0, 2.0, 2.0]]), 1.0, 2, 2, 2, True)
        tensor([[[[0.6250, 1.5000],
                  [4.1250, 5.0000]]]])
    """
    input = _C.check_tensor(input, "roi_align", "input", 1)
    rois = _C.check_tensor(rois, "roi_align", "rois", 2)
    # (OneFlow's wording, its spelling kept: OneFlow programs look for these phrases)
    if input.dim() != 4:
        raise RuntimeError(f"roi_align(): expected a 4-D input (N, C, H, W): The demensions of x tensor must be equal "
                           f"to 4, but got {input.dim()}")
    if rois.dim() != 2:
        raise RuntimeError(f"roi_align(): expected rois of shape (K, 5): The demensions of rois tensor must be equal "
                           f"to 2, but got {rois.dim()}")
    if rois.shape[1] != 5:
        raise RuntimeError(f"roi_align(): expected rois of shape (K, 5): The size of rois tensor must be equal to 5 at "
                           f"dimension 1, but got {rois.shape[1]}")
    pooled_h, pooled_w = int(pooled_h), int(pooled_w)
    if pooled_h <= 0 or pooled_w <= 0:
        raise ValueError(f"roi_align(): pooled_h and pooled_w must be positive, got {pooled_h}, {pooled_w}")
    r = rois.detach().to(input.dtype)
    offset = 0.5 if aligned else 0.0
    batch = r[:, 0].long()
    x1, y1 = r[:, 1] * spatial_scale - offset, r[:, 2] * spatial_scale - offset
    roi_w, roi_h = r[:, 3] * spatial_scale - offset - x1, r[:, 4] * spatial_scale - offset - y1
    if not aligned:
        roi_w, roi_h = roi_w.clamp(min=1.0), roi_h.clamp(min=1.0)
    bin_w, bin_h = roi_w / pooled_w, roi_h / pooled_h
    feat = input.permute(0, 2, 3, 1)
    K = rois.shape[0]
    if sampling_ratio > 0:
        if K == 0:
            return input.new_zeros((0, input.shape[1], pooled_h, pooled_w))
        return _roi_align_grid(feat, batch, x1, y1, bin_w, bin_h, pooled_h, pooled_w,
                               int(sampling_ratio), int(sampling_ratio))
    outs = []
    for k in range(K):  # the grid differs per box
        gh = max(int(math.ceil(float(bin_h[k]))), 0)
        gw = max(int(math.ceil(float(bin_w[k]))), 0)
        if gh == 0 or gw == 0:
            outs.append(input.new_zeros((1, input.shape[1], pooled_h, pooled_w)) + 0 * input.sum())
            continue
        s = slice(k, k + 1)
        outs.append(_roi_align_grid(feat, batch[s], x1[s], y1[s], bin_w[s], bin_h[s], pooled_h, pooled_w, gh, gw))
    if not outs:
        return input.new_zeros((0, input.shape[1], pooled_h, pooled_w))
    return ops_shape.cat(outs, 0)


def roc_auc_score(label, pred):
    """The area under the ROC curve of binary ``label`` for the scores ``pred`` (OneFlow's
    ``oneflow.roc_auc_score``; as ``sklearn.metrics.roc_auc_score``): the probability that a random
    positive scores above a random negative, ties counting one half.

    Args:
        label (Tensor): 1-D, nonzero for positives (any dtype).
        pred (Tensor): 1-D scores, of ``label``'s length.

    Returns:
        Tensor: shape ``(1,)``, float32. Not differentiable.

    Example::

        >>> import monoflow as flow
        >>> flow.roc_auc_score(flow.tensor([0, 0, 1, 1]), flow.tensor([0.1, 0.4, 0.35, 0.8]))
        tensor([0.7500])
    """
    import numpy as np

    label = _C.check_tensor(label, "roc_auc_score", "label", 1)
    pred = _C.check_tensor(pred, "roc_auc_score", "pred", 2)
    y = label.detach().cpu().numpy().reshape(-1) != 0
    s = pred.detach().cpu().numpy().reshape(-1).astype(np.float64)
    if y.shape != s.shape:
        raise RuntimeError(f"roc_auc_score(): label has {y.size} elements, pred {s.size}")
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("roc_auc_score(): only one class present in label; the ROC AUC is not defined")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(s.size, np.float64)
    sorted_s = s[order]
    # average ranks over ties (1-based)
    _, first, counts = np.unique(sorted_s, return_index=True, return_counts=True)
    avg = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(avg, counts)
    auc = (ranks[y].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
    return _creation.tensor([auc], dtype=_dtypes.float32, device=pred.device)
