"""nn ops: embedding, losses, convolution, padding, one_hot, pooling, attention."""
from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S
from monoflow._global.signatures.base import Signature, _broadcast_shape, rule
from monoflow._global.signatures.reductions import _along


# ---------------------------------------------------------------- nn

@rule("embedding")
def embedding(op):
    idx, w = op.shapes[0], op.shapes[1]
    if op.arg("max_norm", 3) is not None:
        op.fail("max_norm renormalises the weight in place and is not supported on global tensors")
    out = tuple(idx) + (w[1],)
    sigs = [Signature([S(d), B], [S(d)]) for d in range(len(idx)) if idx[d] > 1]
    sigs.append(Signature([B, S(1)], [S(len(out) - 1)]))   # embedding dim parallel
    sigs.append(Signature([B, P], [P]))                     # a lookup is linear in the table
    return sigs + [Signature([B, B], [B])], [out]


def _loss_reduction(op, pos_size_average, pos_reduce, pos_reduction):
    from monoflow._losses import _legacy_reduction

    size_average, reduce = op.arg("size_average", pos_size_average), op.arg("reduce", pos_reduce)
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    return op.arg("reduction", pos_reduction, "mean")


@rule("cross_entropy", "nll_loss")
def classification_loss(op):
    # per-sample losses over class dim 1 (dim 0 for a single sample): the
    # batch and spatial dims may be split, the class dim may not
    x, target = tuple(op.shapes[0]), tuple(op.shapes[1])
    red = _loss_reduction(op, 3, 5, 6)
    rest = len(op.shapes) - 2  # the class weights
    if not x:
        op.fail("input must have at least 1 dimension (the classes)")
    # class indices: target is input's shape without the class dim;
    # probabilities: target has input's shape
    batched = len(x) > 1
    samples = (x[0],) + x[2:] if batched else x[1:]
    probs = target == x and op.tensors[1].is_floating_point()
    if target != samples and not probs:
        op.fail(f"expected target of shape {list(samples)} (class indices) or {list(x)} (probabilities) for input "
                f"of shape {list(x)}, got {list(target)}")
    out = samples
    pairs = []
    if batched:
        # (dim of x, dim of target) holding the same samples
        pairs = [(d, d if probs else (d if d == 0 else d - 1)) for d in range(len(x)) if d != 1 and x[d] > 1]
    else:
        pairs = [(d, d if probs else d - 1) for d in range(1, len(x)) if x[d] > 1]
    # pairs: (dim of x, dim of target) holding the same samples
    sigs = []
    for dx, dt in pairs:
        od = dx if batched and dx == 0 else dx - 1
        sigs.append(Signature([S(dx), S(dt)] + [B] * rest, [S(od) if red == "none" else P]))
    if red == "mean":
        sigs = []  # dispatch composes the mean from the sum; this is its fallback
    return sigs + [Signature([B] * len(op.shapes), [B])], [out if red == "none" else ()]


@rule("conv1d", "conv2d")
def conv(op):
    # a convolution mixes the spatial dims and, within a group, the
    # channels: samples (dim 0) may be split; with one group, output
    # channels (weight dim 0) too, and input channels give partial sums
    x, w = op.shapes[0], op.shapes[1]
    op.nonempty = True
    rest = len(op.shapes) - 2
    groups = op.arg("groups", 6, 1)
    batched = len(x) == len(w)
    # the spatial output size comes from the local result (never split)
    if not batched:
        return [Signature([B] * len(op.shapes), [B])], [lambda local: tuple(local)]
    out = lambda local: (x[0], w[0]) + tuple(local[2:])  # noqa: E731
    sigs = [Signature([S(0), B] + [B] * rest, [S(0)])] if x[0] > 1 else []
    if groups == 1:
        if w[0] > 1:
            sigs.append(Signature([B, S(0)] + [S(0)] * rest, [S(1)]))
        if w[1] > 1:
            sigs.append(Signature([S(1), S(1)] + [P] * rest, [P]))
    sigs.append(Signature([P, B] + [P] * rest, [P]))
    return sigs + [Signature([B] * len(op.shapes), [B])], [out]


@rule("conv_transpose2d")
def conv_transpose(op):
    # as conv: samples may be split; with one group, output channels
    # (weight dim 1) and input channels (weight dim 0, partial sums) too
    x, w = op.shapes[0], op.shapes[1]
    op.nonempty = True
    rest = len(op.shapes) - 2
    groups = op.arg("groups", 6, 1)
    if len(x) != 4:
        return [Signature([B] * len(op.shapes), [B])], [lambda local: tuple(local)]
    out = lambda local: (x[0], w[1] * groups) + tuple(local[2:])  # noqa: E731
    sigs = [Signature([S(0), B] + [B] * rest, [S(0)])] if x[0] > 1 else []
    if groups == 1:
        if w[1] > 1:
            sigs.append(Signature([B, S(1)] + [S(0)] * rest, [S(1)]))
        if w[0] > 1:
            sigs.append(Signature([S(1), S(0)] + [P] * rest, [P]))
    sigs.append(Signature([P, B] + [P] * rest, [P]))
    return sigs + [Signature([B] * len(op.shapes), [B])], [out]


@rule("pad")
def pad(op):
    # padding looks along the padded dims only; zero padding (and the
    # reflect/replicate copies) is linear, a nonzero fill is not
    shape = op.shapes[0]
    amounts = list(op.arg("pad", 1))
    mode = op.arg("mode", 2, "constant")
    value = op.arg("value", 3)
    out = list(shape)
    padded = []
    for i in range(len(amounts) // 2):
        d = len(shape) - 1 - i
        if d < 0:
            op.fail(f"padding length {len(amounts)} is too large for a {len(shape)}-D input")
        out[d] += amounts[2 * i] + amounts[2 * i + 1]
        if amounts[2 * i] or amounts[2 * i + 1]:
            padded.append(d)
    linear = mode != "constant" or not value
    sigs, out = _along(op, shape, padded, tuple(out), linear=linear)
    return sigs, [out]


@rule("one_hot")
def one_hot(op):
    # elementwise over the indices; with num_classes=-1 the class count is
    # the largest index, which only a whole (broadcast) tensor knows
    shape = op.shapes[0]
    classes = op.arg("num_classes", 1, -1)
    if classes == -1:
        return [Signature([B], [B])], [lambda local: tuple(local)]
    out = tuple(shape) + (int(classes),)
    sigs = [Signature([S(d)], [S(d)]) for d in range(len(shape)) if shape[d] > 1]
    return sigs + [Signature([B], [B])], [out]


@rule("max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
      "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d")
def pool(op):
    # pooling looks only along the spatial dims: samples and channels may be
    # split; averaging is linear
    x = op.shapes[0]
    op.nonempty = True
    spatial = int(op.name[-2])  # max_pool3d -> 3
    lead = len(x) - spatial
    sigs = [Signature([S(d)], [S(d)]) for d in range(lead) if x[d] > 1] + [Signature([B], [B])]
    if "avg" in op.name:
        sigs.append(Signature([P], [P]))
    out = lambda local: tuple(x[:lead]) + tuple(local[lead:])  # noqa: E731
    return sigs, [out, out]  # max pools may return (values, indices)


@rule("scaled_dot_product_attention")
def attention(op):
    # softmax(q k^T) v mixes the key positions and the features: batch (and
    # head) dims may be split on all operands, query positions on q alone
    # (without a causal mask, which depends on the absolute position)
    shapes = op.shapes
    q, _, v = shapes[0], shapes[1], shapes[2]
    has_mask = len(shapes) > 3
    causal = bool(op.arg("is_causal", 5, False))
    dropout_p = op.arg("dropout_p", 4, 0.0) or 0.0
    gqa = bool(op.arg("enable_gqa", 7, False))
    batch = _broadcast_shape(op, [s[:-2] for s in shapes[:3]] + ([shapes[3][:-2]] if has_mask else []))
    out = tuple(batch) + (q[-2], v[-1])
    nb = len(batch)
    sigs = []
    for d in range(nb - (1 if gqa else 0)):
        if batch[d] == 1:
            continue
        ins = []
        for s in shapes:
            j = d - (nb - (len(s) - 2))
            ins.append(S(j) if j >= 0 and s[j] == batch[d] else B)
        sigs.append(Signature(ins, [S(d)]))
    if not causal and q[-2] > 1:
        ins = [S(len(q) - 2), B, B]
        if has_mask:
            m = shapes[3]
            ins.append(S(len(m) - 2) if m[-2] == q[-2] else B)
        sigs.append(Signature(ins, [S(len(out) - 2)]))
    if not dropout_p:
        sigs.append(Signature([B] * len(shapes), [B]))
    elif not sigs:
        op.fail("with dropout_p > 0 the attention weights get a random mask, which must be drawn on split pieces; "
                "split the batch (or heads) across ranks")
    return sigs, [out]
