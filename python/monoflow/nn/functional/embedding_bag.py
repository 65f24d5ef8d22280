"""embedding_bag (torch.nn.functional.embedding_bag): sums, means or maxima
of bags of embedding rows, without materialising the (bag, index, dim)
lookups of every bag separately.

Bags come as rows of a 2-D index tensor, or as a 1-D index tensor cut by
``offsets``. Both become one padded (bags, longest bag) index matrix and a
mask of its real entries (the offsets are read on the host once); the
reduction is then over the padded dim, masked, with per_sample_weights
(sum mode) as a factor. Entries equal to padding_idx take no part, and an
empty bag gives zeros, as in torch.
"""
import numpy as np

from monoflow import _C, _creation
from monoflow import ops_math as _m
from monoflow.nn.functional.sparse import lookup

__all__ = ["embedding_bag"]


def _padded_bags(input, offsets, include_last_offset):
    """(index matrix (B, L), mask (B, L) of real entries, positions (B, L) into the flat input)."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("embedding_bag(): if input is 2D, then offsets has to be None, as input is treated is a "
                             "mini-batch of fixed length sequences.")
        b, length = input.shape
        pos = np.arange(b * length).reshape(b, length)
        return input, _creation.ones((b, length), dtype=_bool(), device=input.device), pos
    if input.dim() != 1:
        raise ValueError(f"embedding_bag(): input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is None:
        raise ValueError("embedding_bag(): offsets has to be a 1D Tensor but got None")
    starts = np.asarray(offsets.reshape(-1).tolist(), dtype=np.int64)
    n = input.shape[0]
    if len(starts) and starts[0] != 0:
        raise ValueError(f"embedding_bag(): offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
                         f"to start from position 0. However, got {starts[0]}")
    if include_last_offset:
        ends, starts = starts[1:], starts[:-1]
    else:
        ends = np.append(starts[1:], n)
    sizes = np.maximum(ends - starts, 0)
    length = max(int(sizes.max()) if len(sizes) else 0, 1)
    steps = np.arange(length, dtype=np.int64)
    mask = steps[None, :] < sizes[:, None]
    pos = np.where(mask, starts[:, None] + steps[None, :], 0)
    flat_pos = _creation.tensor(pos.reshape(-1), device=input.device)
    index = input.index_select(0, flat_pos).reshape(len(starts), length) if n else \
        _creation.zeros((len(starts), length), dtype=input.dtype, device=input.device)
    return index, _creation.tensor(mask, device=input.device), pos


def _bool():
    from monoflow._dtypes import bool_

    return bool_


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Reduces bags of rows of ``weight`` with a sum, mean or max. See :class:`~monoflow.nn.EmbeddingBag`.

    Args:
        input (Tensor): indices, ``(B, L)`` (B bags of L) or ``(T,)`` with ``offsets``.
        weight (Tensor): the table ``(num_embeddings, D)``.
        offsets (Tensor, optional): for a 1-d ``input``, the start of each bag. Default: ``None``.
        max_norm (float, optional): renormalise looked-up rows above this norm. Default: ``None``.
        norm_type (float): the p of that norm. Default: ``2``.
        scale_grad_by_freq (bool): not supported. Default: ``False``.
        mode (str): ``'sum'``, ``'mean'`` or ``'max'`` (else ``ValueError``). Default: ``'mean'``.
        sparse (bool): give ``weight`` a sparse gradient over the rows in the bags (see
            :func:`embedding`). Default: ``False``.
        per_sample_weights (Tensor, optional): a weight per index, the shape of ``input``; only with
            ``mode='sum'``. Default: ``None``.
        include_last_offset (bool): ``offsets`` ends with the end of the last bag. Default: ``False``.
        padding_idx (int, optional): indices equal to it are left out of the reductions. Default:
            ``None``.

    Example::

        >>> w = flow.tensor([[1.0, 1.0], [2.0, 0.0], [0.0, 4.0]])
        >>> F.embedding_bag(flow.tensor([0, 1, 2]), w, flow.tensor([0, 1]), mode='sum')
        tensor([[1., 1.],
                [2., 4.]])
    """
    _C.check_tensor(input, "embedding_bag", "input", 1)
    _C.check_optional_tensor(offsets, "embedding_bag", "offsets", 3)
    if not isinstance(input, _C.TensorBase) or not isinstance(weight, _C.TensorBase):
        raise TypeError("embedding_bag(): input and weight must be Tensors")
    if not isinstance(mode, str) or mode not in ("sum", "mean", "max"):
        raise ValueError(f"embedding_bag(): mode has to be one of sum, mean or max, got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag(): per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    index, mask, pos = _padded_bags(input, offsets, include_last_offset)
    if padding_idx is not None:
        mask = mask & (index != padding_idx)
    rows = lookup(index, weight, max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq,
                  sparse=sparse, counted=mask)  # (B, L, D)
    keep = mask.unsqueeze(-1)
    if mode == "max":
        masked = _m.where(keep, rows, float("-inf"))
        out = masked.amax(1)
        return _m.where(mask.any(1, keepdim=True), out, 0.0)
    rows = _m.where(keep, rows, 0.0)
    if per_sample_weights is not None:
        w = per_sample_weights.reshape(-1).index_select(0, _creation.tensor(pos.reshape(-1), device=input.device))
        rows = rows * w.reshape(*index.shape, 1)
    out = rows.sum(1)
    if mode == "mean":
        counts = mask.to(weight.dtype).sum(1, keepdim=True)
        out = out / counts.clamp(min=1)
    return out
