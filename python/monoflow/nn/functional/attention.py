"""Attention: scaled_dot_product_attention and multi_head_attention_forward
(torch.nn.functional's), as compositions of matmul, softmax and dropout."""
import math

from monoflow import _C, _autocast
from monoflow._creation import ones as _ones, zeros as _zeros
from monoflow.nn.functional.dropout import dropout
from monoflow.nn.functional.linear import linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _neg_inf_where(mask, dtype, device):
    """A boolean 'masked out' tensor as an additive float mask (-inf where True)."""
    zeros = _zeros(tuple(mask.shape), dtype=dtype, device=device)
    return zeros.masked_fill(mask, float("-inf"))


@_autocast.lower
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """Attention over the last two dims: ``softmax(query @ key.T * scale + mask) @ value``, as a
    composition of matmul, softmax and dropout.

    Args:
        query (Tensor): ``(*, L, E)``.
        key (Tensor): ``(*, S, E)``.
        value (Tensor): ``(*, S, Ev)``.
        attn_mask (Tensor, optional): a boolean mask (``True`` = take part) or a float mask added to the
            scores, broadcastable to ``(*, L, S)``. Default: ``None``.
        dropout_p (float): the dropout probability of the attention weights. Default: ``0.0``.
        is_causal (bool): mask the upper triangle (position ``i`` attends to ``j <= i``). With an
            ``attn_mask`` too, both apply, as torch's CPU kernel does: only for 4-D inputs with
            ``dropout_p=0``, value's last dim equal to query's and a mask that does not require grad
            (else ``RuntimeError``, as torch). Default: ``False``.
        scale (float, optional): the score scale. Default: ``1 / sqrt(E)``.
        enable_gqa (bool): grouped-query attention: ``key``/``value`` with fewer heads (dim -3) are
            repeated to the query's heads. Default: ``False``.

    Returns:
        Tensor: ``(*, L, Ev)``. A query row that every key is masked out for gives zeros, as torch.

    Example::

        >>> q, k, v = flow.randn(2, 4, 5, 8), flow.randn(2, 4, 6, 8), flow.randn(2, 4, 6, 3)
        >>> F.scaled_dot_product_attention(q, k, v).shape
        monoflow.Size([2, 4, 5, 3])
        >>> q = flow.randn(1, 3, 4)
        >>> F.scaled_dot_product_attention(q, q, flow.eye(3).unsqueeze(0), is_causal=True)[0, 0]
        tensor([1., 0., 0.])
    """
    _C.check_tensor(query, "scaled_dot_product_attention", "query", 1)
    if not all(isinstance(t, _C.TensorBase) for t in (query, key, value)):
        raise TypeError("scaled_dot_product_attention(): query, key and value must be Tensors")
    _C.check_optional_tensor(attn_mask, "scaled_dot_product_attention", "attn_mask", 4)
    _C.check_float(dropout_p, "scaled_dot_product_attention", "dropout_p", 5)
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(f"scaled_dot_product_attention(): Expected query, key, and value to all be at least 2 "
                           f"dimensional, but got query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: "
                           f"{value.dim()} instead.")
    if is_causal and attn_mask is not None and not _fused_cpu_path(query, key, value, attn_mask, dropout_p):
        raise RuntimeError("scaled_dot_product_attention(): Explicit attn_mask should not be set when is_causal=True")
    L, S = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and key.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.unsqueeze(-3).expand(*key.shape[:-2], rep, S, key.shape[-1]).reshape(
                *key.shape[:-3], key.shape[-3] * rep, S, key.shape[-1])
        value = value.unsqueeze(-3).expand(*value.shape[:-2], rep, S, value.shape[-1]).reshape(
            *value.shape[:-3], value.shape[-3] * rep, S, value.shape[-1])
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        causal = _ones((L, S), dtype=query.dtype, device=query.device).tril().to(dtype=_bool_dtype()).logical_not()
        scores = scores.masked_fill(causal, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == _bool_dtype():
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    if is_causal or attn_mask is not None:
        # rows masked out entirely give zeros, not softmax's NaN (and no NaN gradient)
        dead = (scores == float("-inf")).all(-1, keepdim=True)
        weights = scores.masked_fill(dead, 0.0).softmax(-1).masked_fill(dead, 0.0)
    else:
        weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out = weights.matmul(value)
    if out.dim() == 4 and query.stride(1) < query.stride(2):
        # query is a (B, L, H, D) buffer seen as (B, H, L, D): the output is laid out the same way, as
        # torch's, so the usual out.transpose(1, 2).view(B, L, H * D) works (and .contiguous() there is free)
        out = out.transpose(1, 2).contiguous().transpose(1, 2)
    return out


def _fused_cpu_path(query, key, value, attn_mask, dropout_p):
    """Whether torch would run its fused CPU kernel, the one that takes attn_mask and is_causal together
    (its reference path refuses them)."""
    return (query.dim() == key.dim() == value.dim() == 4 and dropout_p == 0.0
            and value.shape[-1] == query.shape[-1] and not attn_mask.requires_grad)


def _bool_dtype():
    from monoflow._dtypes import bool_

    return bool_


def _canonical_mask(mask, name, dtype, device):
    # Bool masks (True = masked out) become additive float masks.
    if mask is None:
        return None
    if mask.dtype == _bool_dtype():
        return _neg_inf_where(mask, dtype, device)
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _check_mha_args(embed_dim, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, dropout_p, out_proj_weight,
                    out_proj_bias, key_padding_mask, attn_mask, q_proj_weight, k_proj_weight, v_proj_weight):
    # multi_head_attention_forward's arguments, by torch's names and positions
    op = "multi_head_attention_forward"
    _C.check_int(embed_dim, op, "embed_dim_to_check", 4)
    _C.check_int(num_heads, op, "num_heads", 5)
    for pos, name, v in ((6, "in_proj_weight", in_proj_weight), (7, "in_proj_bias", in_proj_bias),
                         (8, "bias_k", bias_k), (9, "bias_v", bias_v), (13, "out_proj_bias", out_proj_bias),
                         (15, "key_padding_mask", key_padding_mask), (17, "attn_mask", attn_mask),
                         (19, "q_proj_weight", q_proj_weight), (20, "k_proj_weight", k_proj_weight),
                         (21, "v_proj_weight", v_proj_weight)):
        _C.check_optional_tensor(v, op, name, pos)
    _C.check_float(dropout_p, op, "dropout_p", 11)
    _C.check_tensor(out_proj_weight, op, "out_proj_weight", 12)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """The functional form of :class:`~monoflow.nn.MultiheadAttention` (torch's signature): projects
    ``query``/``key``/``value``, attends per head and projects the result.

    Args:
        query (Tensor): ``(L, N, E)`` or unbatched ``(L, E)``.
        key (Tensor): ``(S, N, E)`` or ``(S, E)``.
        value (Tensor): ``(S, N, E)`` or ``(S, E)``.
        embed_dim_to_check (int): the expected ``E`` (a mismatch raises ``AssertionError``).
        num_heads (int): the number of heads; must divide ``E``.
        in_proj_weight (Tensor): the packed ``(3E, E)`` q/k/v projection (unless
            ``use_separate_proj_weight``).
        in_proj_bias (Tensor, optional): the packed ``(3E,)`` bias.
        bias_k (Tensor, optional): a bias ``(1, 1, E)`` appended to the keys.
        bias_v (Tensor, optional): a bias ``(1, 1, E)`` appended to the values.
        add_zero_attn (bool): append a zero key/value position.
        dropout_p (float): the dropout probability of the attention weights.
        out_proj_weight (Tensor): the ``(E, E)`` output projection.
        out_proj_bias (Tensor, optional): the ``(E,)`` output bias.
        training (bool): apply dropout. Default: ``True``.
        key_padding_mask (Tensor, optional): ``(N, S)``; ``True`` (or a float added to the scores) marks
            keys to ignore. Default: ``None``.
        need_weights (bool): also return the attention weights. Default: ``True``.
        attn_mask (Tensor, optional): ``(L, S)`` or ``(N * num_heads, L, S)``; a boolean ``True`` masks
            a position out, a float one is added. Default: ``None``.
        use_separate_proj_weight (bool): use ``q_proj_weight``/``k_proj_weight``/``v_proj_weight``
            instead of ``in_proj_weight``. Default: ``False``.
        q_proj_weight (Tensor, optional): ``(E, E)``. Default: ``None``.
        k_proj_weight (Tensor, optional): ``(E, kdim)``. Default: ``None``.
        v_proj_weight (Tensor, optional): ``(E, vdim)``. Default: ``None``.
        static_k (Tensor, optional): not supported (raises ``NotImplementedError``). Default: ``None``.
        static_v (Tensor, optional): not supported (raises ``NotImplementedError``). Default: ``None``.
        average_attn_weights (bool): average the returned weights over the heads. Default: ``True``.
        is_causal (bool): with no ``attn_mask``, apply a causal mask. Default: ``False``.

    Returns:
        tuple: ``(output (L, N, E), weights (N, L, S) or None)``.

    Example::

        >>> E, L, N = 8, 5, 2
        >>> x = flow.randn(L, N, E)
        >>> out, w = F.multi_head_attention_forward(x, x, x, E, 2, flow.randn(3 * E, E), flow.zeros(3 * E), None, None, False, 0.0,
        ...                                         flow.randn(E, E), flow.zeros(E))
        >>> out.shape, w.shape
        (monoflow.Size([5, 2, 8]), monoflow.Size([2, 5, 5]))
    """
    _C.check_tensor(query, "multi_head_attention_forward", "query", 1)
    _C.check_tensor(key, "multi_head_attention_forward", "key", 2)
    _C.check_tensor(value, "multi_head_attention_forward", "value", 3)
    _check_mha_args(embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, dropout_p,
                    out_proj_weight, out_proj_bias, key_padding_mask, attn_mask, q_proj_weight, k_proj_weight,
                    v_proj_weight)
    if query.dim() not in (2, 3) or key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"multi_head_attention_forward(): query, key and value should be all unbatched 2D or "
                             f"all batched 3D tensors, but received {query.dim()}-D, {key.dim()}-D and "
                             f"{value.dim()}-D tensors")
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k/static_v are not supported")
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    S = key.shape[0]
    if E != embed_dim_to_check:
        raise AssertionError(f"multi_head_attention_forward(): was expecting embedding dimension of "
                             f"{embed_dim_to_check}, but got {E}")
    if num_heads <= 0 or E % num_heads:
        raise AssertionError(f"multi_head_attention_forward(): embed_dim {E} not divisible by num_heads {num_heads}")
    hd = E // num_heads

    if is_causal and attn_mask is None:
        attn_mask = _ones((L, S), dtype=query.dtype, device=query.device).tril().to(dtype=_bool_dtype()).logical_not()

    # input projections
    if not use_separate_proj_weight:
        wq, wk, wv = in_proj_weight.chunk(3, 0)
    else:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = in_proj_bias.chunk(3, 0)
    if query is key and key is value and not use_separate_proj_weight:
        q, k, v = linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    else:
        q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)

    attn_mask = _canonical_mask(attn_mask, "attn_mask", q.dtype, q.device)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (L, S):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(L, S)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (N * num_heads, L, S):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(N * num_heads, L, S)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", q.dtype, q.device)

    if bias_k is not None and bias_v is not None:
        k = _cat([k, bias_k.reshape(1, 1, E).expand(1, N, E)], 0)
        v = _cat([v, bias_v.reshape(1, 1, E).expand(1, N, E)], 0)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)

    # (len, N, E) -> (N * H, len, hd)
    q = q.reshape(L, N * num_heads, hd).transpose(0, 1)
    k = k.reshape(k.shape[0], N * num_heads, hd).transpose(0, 1)
    v = v.reshape(v.shape[0], N * num_heads, hd).transpose(0, 1)

    if add_zero_attn:
        k = _cat([k, _zeros((N * num_heads, 1, hd), dtype=k.dtype, device=k.device)], 1)
        v = _cat([v, _zeros((N * num_heads, 1, hd), dtype=v.dtype, device=v.device)], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    S = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (N, S):
            raise AssertionError(f"expecting key_padding_mask shape of {(N, S)}, but got {key_padding_mask.shape}")
        kpm = key_padding_mask.reshape(N, 1, 1, S).expand(N, num_heads, 1, S).reshape(N * num_heads, 1, S)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if not training:
        dropout_p = 0.0
    scores = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out = weights.matmul(v)  # (N * H, L, hd)
    out = out.transpose(0, 1).reshape(L, N, E)
    out = linear(out, out_proj_weight, out_proj_bias)
    if not batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.reshape(N, num_heads, L, S)
    if average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        weights = weights.squeeze(0)
    return out, weights


def _cat(tensors, dim):
    from monoflow.ops_shape import cat

    return cat(tensors, dim)


def _pad_last(mask):
    # One more key column that every query may attend (zero additive mask).
    zero = _zeros((*mask.shape[:-1], 1), dtype=mask.dtype, device=mask.device)
    return _cat([mask, zero], -1)

