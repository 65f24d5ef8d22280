"""Embedding lookups and one_hot (torch.nn.functional.embedding / one_hot)."""
from monoflow import _C, ops_sparse
from monoflow import ops_math as _m
from monoflow._composite import flag
from monoflow.autograd.engine_callbacks import current_pass_id, try_queue_callback
from monoflow.autograd.function import Function
from monoflow.autograd.grad_mode import is_grad_enabled, no_grad
from monoflow.ops_shape import one_hot  # noqa: F401 - re-exported

__all__ = ["embedding", "one_hot"]


def _renorm_rows(weight, index, max_norm, norm_type):
    # torch's max_norm: the looked-up rows whose norm exceeds max_norm are
    # rescaled in place (outside autograd) before the lookup.
    with no_grad():
        rows = index.reshape(-1)  # duplicates rewrite the same values
        sel = weight.index_select(0, rows)
        norms = sel.norm(norm_type, dim=1, keepdim=True)
        scale = _m.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = sel * scale


class _SparseRowLookup(Function):
    """``weight.index_select(0, index)`` whose backward also notes, for the end of the pass, the
    rows that ``counted`` marks as looked up (Note [Sparse row gradients] in ops_sparse)."""

    @staticmethod
    def forward(ctx, weight, index, counted):
        ctx.save_for_backward(index, counted)
        ctx.table = weight
        return weight.index_select(0, index)

    @staticmethod
    def backward(ctx, grad):
        index, counted = ctx.saved_tensors
        table = ctx.table
        if table.is_leaf:
            rows = index if counted is None else index[counted]
            # every lookup of the table in this pass is noted at once: the accumulated gradient is
            # sparse over the union of their rows (two lookups, e.g. word2vec's positive and
            # negative samples, each checked alone found the other's rows nonzero)
            pass_id, pending = table.__dict__.get("_pending_sparse_rows", (None, None))
            if pending is not None and pass_id == current_pass_id():
                pending.append(rows)
            elif try_queue_callback(lambda: _note_pending_rows(table)):  # (False outside a pass)
                table.__dict__["_pending_sparse_rows"] = (current_pass_id(), [rows])
        dense = _C.zeros_like(table).index_add_(0, index, grad)
        return dense, None, None


def _note_pending_rows(table):
    _, rows = table.__dict__.pop("_pending_sparse_rows", (None, None))
    if rows:
        ops_sparse.note_row_gradient(table, _C.cat(rows) if len(rows) > 1 else rows[0])


def lookup_rows(weight, index, sparse, counted):
    """``weight.index_select(0, index)`` (``index`` 1-D); with ``sparse``, the table's gradient
    becomes a sparse one over the rows where ``counted`` is true (``None``: every row looked up)."""
    if sparse and weight.requires_grad and is_grad_enabled():
        return _SparseRowLookup.apply(weight, index, counted)
    return weight.index_select(0, index)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Looks up rows of ``weight``: ``weight[input]``, one row per index. See
    :class:`~monoflow.nn.Embedding`.

    Args:
        input (Tensor): int64 or int32 indices of any shape (a floating or bool tensor raises
            ``RuntimeError``).
        weight (Tensor): the 2-d table ``(num_embeddings, embedding_dim)``.
        padding_idx (int, optional): the row at this index gets no gradient. Default: ``None``.
        max_norm (float, optional): looked-up rows with a larger norm are rescaled in place (in
            ``weight``) to this norm. Default: ``None``.
        norm_type (float): the p of that norm. Default: ``2.0``.
        scale_grad_by_freq (bool): each row's gradient is divided by how often its index occurs in
            ``input``. Default: ``False``.
        sparse (bool): give ``weight`` a sparse gradient over the rows looked up (for
            ``optim.SparseAdam``; stored densely, see :mod:`monoflow.ops_sparse`). Default: ``False``.

    Example::

        >>> w = flow.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
        >>> F.embedding(flow.tensor([[2, 1]]), w)
        tensor([[[3., 4.],
                 [1., 2.]]])
    """
    return lookup(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def lookup(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False,
           counted=None):
    """:func:`embedding`, where a sparse gradient counts the lookups that ``counted`` (a bool
    tensor of ``input``'s shape) marks (default: those of rows other than ``padding_idx``)."""
    _C.check_tensor(weight, "embedding", "weight", 2)
    _C.check_tensor(input, "embedding", "input", 1)
    # (embedding_bag reaches these checks: named after the op the user called)
    if input.dtype.is_floating_point or input.dtype.name == "bool":
        raise RuntimeError(_C.name_op_in_progress(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
            f"got {input.dtype} instead"))
    if weight.dim() != 2:
        raise RuntimeError(_C.name_op_in_progress("'weight' must be 2-D"))
    sparse = flag("embedding", "sparse", sparse)
    if padding_idx is not None:
        padding_idx = _C.check_int(padding_idx, "embedding", "padding_idx", 3)
        if padding_idx < 0:
            if padding_idx < -weight.shape[0]:
                raise AssertionError(_C.name_op_in_progress("embedding(): Padding_idx must be within num_embeddings"))
            padding_idx += weight.shape[0]
        elif padding_idx >= weight.shape[0]:
            raise AssertionError(_C.name_op_in_progress("embedding(): Padding_idx must be within num_embeddings"))
    if max_norm is not None:
        max_norm = _C.check_float(max_norm, "embedding", "max_norm", 4)
        norm_type = _C.check_float(norm_type, "embedding", "norm_type", 5)
        _renorm_rows(weight, input, max_norm, norm_type)
    flat = input.reshape(-1)
    if sparse and counted is not None:
        counted = counted.reshape(-1)
    elif sparse and padding_idx is not None:
        counted = flat != padding_idx
    out = lookup_rows(weight, flat, sparse, counted).reshape(*input.shape, weight.shape[1])
    if padding_idx is not None and out.requires_grad:
        # Same values, but the padding rows' gradient is cut off.
        keep = (input != padding_idx).unsqueeze(-1)
        out = _m.where(keep, out, out.detach())
    if scale_grad_by_freq and out.requires_grad:
        # each looked-up row's gradient divided by how often its index occurs in this input: the values are
        # out's exactly (out - out.detach() is 0), the gradient is scaled (a static-shape count: traceable)
        flat = input.reshape(-1).long()
        counts = _C._full((weight.shape[0],), 0.0, weight.dtype, weight.device).index_add_(
            0, flat, _C._full((flat.shape[0],), 1.0, weight.dtype, weight.device))
        scale = (1.0 / counts.index_select(0, flat)).reshape(*input.shape, 1)
        detached = out.detach()
        out = detached + (out - detached) * scale
    return out
