"""Attention: scaled_dot_product_attention and multi_head_attention_forward
(torch.nn.functional's), as compositions of matmul, softmax and dropout."""
import math

from monoflow import _C
from monoflow._creation import ones as _ones, zeros as _zeros
from monoflow.nn.functional.dropout import dropout
from monoflow.nn.functional.linear import linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _neg_inf_where(mask, dtype, device):
    """A boolean 'masked out' tensor as an additive float mask (-inf where True)."""
    zeros = _zeros(tuple(mask.shape), dtype=dtype, device=device)
    return zeros.masked_fill(mask, float("-inf"))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v over the last two dims. A boolean
    attn_mask says which positions take part (True = attend), a float one is
    added to the scores; is_causal masks the upper triangle."""
    _C.check_tensor(query, "scaled_dot_product_attention", "query", 1)
    if not all(isinstance(t, _C.TensorBase) for t in (query, key, value)):
        raise TypeError("scaled_dot_product_attention(): query, key and value must be Tensors")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
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
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


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


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """torch's multi-head attention on (L, N, E) query and (S, N, E) key/value
    (or unbatched (L, E) / (S, E)). Returns (output, weights or None)."""
    _C.check_tensor(query, "multi_head_attention_forward", "query", 1)
    _C.check_tensor(key, "multi_head_attention_forward", "key", 2)
    _C.check_tensor(value, "multi_head_attention_forward", "value", 3)
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
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    if E % num_heads:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
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

