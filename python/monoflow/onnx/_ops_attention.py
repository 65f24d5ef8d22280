"""F.scaled_dot_product_attention and F.multi_head_attention_forward (what
nn.MultiheadAttention and the Transformer layers call) as MatMul / Softmax
graphs.

Written here rather than recorded call by call: the recorded reshape of
multi_head_attention_forward to (L, N * heads, head_dim) would fix the batch
size in the graph; these reshapes copy the batch dim (0) instead, so the
exported attention keeps a dynamic batch."""

import math

import numpy as np

from ._common import additive_mask, as_type, np_dtype, reduce
from ._errors import OnnxExporterError


def _causal(b, L, S, dtype):
    """The (L, S) additive causal mask: -inf above the diagonal."""
    return b.const(np.triu(np.full((L, S), -np.inf, np_dtype(dtype)), 1), "causal")


def _last_two_swapped(nd):
    return list(range(nd - 2)) + [nd - 1, nd - 2]


def scaled_dot_product_attention(b, out, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    if enable_gqa and key.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        raise OnnxExporterError("scaled_dot_product_attention: enable_gqa with fewer key/value heads is not "
                                "supported by the ONNX exporter")
    if dropout_p > 0:
        raise OnnxExporterError("scaled_dot_product_attention: dropout_p > 0 (random) is not supported by the ONNX "
                                "exporter")
    L, S = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    kt = b.node("Transpose", [b.name(key)], perm=_last_two_swapped(key.dim()))
    scores = b.node("Mul", [b.node("MatMul", [b.name(query), kt]), as_type(b, float(scale), query.dtype)])
    if is_causal:
        scores = b.node("Add", [scores, _causal(b, L, S, query.dtype)])
    if attn_mask is not None:  # a boolean mask marks with True the positions that take part
        scores = b.node("Add", [scores, additive_mask(b, attn_mask, query.dtype, true_is_masked=False)])
    weights = b.node("Softmax", [scores], axis=-1)
    return b.node("MatMul", [weights, b.name(value)])


def _project(b, x, w, bias):
    y = b.node("MatMul", [x, b.node("Transpose", [w], perm=[1, 0])])
    return b.node("Add", [y, bias]) if bias is not None else y


def _pad_last(b, x, rank, dtype):
    """One more zero column at the end of the last dim (torch's _pad_last of an additive mask)."""
    pads = [0] * rank + [0] * (rank - 1) + [1]
    return b.node("Pad", [x, b.ints(pads), b.const(np.array(0, np_dtype(dtype)), "zero")])


def multi_head_attention_forward(b, out, query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
                                 out_proj_bias, training=True, key_padding_mask=None, need_weights=True,
                                 attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
                                 average_attn_weights=True, is_causal=False):
    if training and dropout_p > 0:
        raise OnnxExporterError("multi_head_attention_forward: dropout in training mode (random) is not supported "
                                "by the ONNX exporter")
    dt = query.dtype
    batched = query.dim() == 3
    E, H = embed_dim_to_check, num_heads
    hd = E // H
    L, S = query.shape[0], key.shape[0]
    q_in, k_in, v_in = b.name(query), b.name(key), b.name(value)
    if not batched:
        q_in, k_in, v_in = (b.node("Unsqueeze", [n, b.ints([1])]) for n in (q_in, k_in, v_in))
    # projections: (L, N, E) @ W^T + b
    if use_separate_proj_weight:
        ws = [b.name(w) for w in (q_proj_weight, k_proj_weight, v_proj_weight)]
    else:
        ws = b.node("Split", [b.name(in_proj_weight), b.ints([E, E, E])], n_out=3, axis=0)
    bs = b.node("Split", [b.name(in_proj_bias), b.ints([E, E, E])], n_out=3, axis=0) if in_proj_bias is not None \
        else [None] * 3
    q, k, v = (_project(b, x, w, bb) for x, w, bb in zip((q_in, k_in, v_in), ws, bs))

    # masks as one additive (.., L, S) term, built as torch does: bool -> -inf where True
    mask = None
    if attn_mask is not None:
        mask = additive_mask(b, attn_mask, dt)
        if attn_mask.dim() == 3:  # (N * H, L, S) -> (N, H, L, S)
            mask = b.node("Reshape", [mask, b.ints([-1, H, L, S])])
    elif is_causal:
        mask = _causal(b, L, S, dt)
    mask_rank = 2 if attn_mask is None or attn_mask.dim() == 2 else 4
    kpm = None
    if key_padding_mask is not None:
        kpm = additive_mask(b, key_padding_mask, dt)
        if not batched:
            kpm = b.node("Unsqueeze", [kpm, b.ints([0])])
    if bias_k is not None and bias_v is not None:  # one more key/value position: the learnt biases
        n_of = b.node("Slice", [b.node("Shape", [k]), b.ints([1]), b.ints([2])])
        shape = b.node("Concat", [b.ints([1]), n_of, b.ints([E])], axis=0)
        k = b.node("Concat", [k, b.node("Expand", [b.name(bias_k), shape])], axis=0)
        v = b.node("Concat", [v, b.node("Expand", [b.name(bias_v), shape])], axis=0)
        mask = _pad_last(b, mask, mask_rank, dt) if mask is not None else None
        kpm = _pad_last(b, kpm, 2, dt) if kpm is not None else None

    # heads: (len, N, E) -> (N, H, len, hd)
    def heads(x):
        return b.node("Transpose", [b.node("Reshape", [x, b.ints([0, 0, H, hd])])], perm=[1, 2, 0, 3])
    q, k, v = heads(q), heads(k), heads(v)
    if add_zero_attn:  # one more all-zero key/value position
        zeros_at_end = b.ints([0, 0, 0, 0, 0, 0, 1, 0])
        k = b.node("Pad", [k, zeros_at_end])
        v = b.node("Pad", [v, zeros_at_end])
        mask = _pad_last(b, mask, mask_rank, dt) if mask is not None else None
        kpm = _pad_last(b, kpm, 2, dt) if kpm is not None else None

    scores = b.node("MatMul", [q, b.node("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.node("Mul", [scores, as_type(b, 1.0 / math.sqrt(hd), dt)])
    if mask is not None:
        scores = b.node("Add", [scores, mask])
    if kpm is not None:  # (N, S) -> (N, 1, 1, S)
        scores = b.node("Add", [scores, b.node("Unsqueeze", [kpm, b.ints([1, 2])])])
    weights = b.node("Softmax", [scores], axis=-1)
    y = b.node("MatMul", [weights, v])                                   # (N, H, L, hd)
    y = b.node("Reshape", [b.node("Transpose", [y], perm=[2, 0, 1, 3]), b.ints([0, 0, E])])
    y = _project(b, y, b.name(out_proj_weight), b.name(out_proj_bias) if out_proj_bias is not None else None)
    if not batched:
        y = b.node("Squeeze", [y, b.ints([1])])
    if not need_weights:
        return [y, None]
    w = reduce(b, "ReduceMean", weights, [1], False) if average_attn_weights else weights
    if not batched:
        w = b.node("Squeeze", [w, b.ints([0])])
    return [y, w]


FUNCTIONS = {"scaled_dot_product_attention": scaled_dot_product_attention,
             "multi_head_attention_forward": multi_head_attention_forward}
