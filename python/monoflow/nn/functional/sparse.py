"""Embedding lookups and one_hot (torch.nn.functional.embedding / one_hot)."""
from monoflow import _C
from monoflow import ops_math as _m
from monoflow.autograd.grad_mode import no_grad
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
        sparse (bool): not supported: ``True`` raises ``NotImplementedError``. Default: ``False``.

    Example::

        >>> w = flow.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
        >>> F.embedding(flow.tensor([[2, 1]]), w)
        tensor([[[3., 4.],
                 [1., 2.]]])
    """
    _C.check_tensor(weight, "embedding", "weight", 2)
    _C.check_tensor(input, "embedding", "input", 1)
    # (embedding_bag reaches these checks: named after the op the user called)
    if input.dtype.is_floating_point or input.dtype.name == "bool":
        raise RuntimeError(_C.name_op_in_progress(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
            f"got {input.dtype} instead"))
    if weight.dim() != 2:
        raise RuntimeError(_C.name_op_in_progress("'weight' must be 2-D"))
    if sparse:
        raise NotImplementedError("embedding(): sparse gradients are not supported")
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
    out = weight.index_select(0, input.reshape(-1)).reshape(*input.shape, weight.shape[1])
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
