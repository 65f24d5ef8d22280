"""Indexing: getitem/setitem, diagonal, unfold, outer, gather, index_select."""
import math

from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S
from monoflow._global.signatures.base import (  # noqa: F401
    Signature, _broadcast_shape, _is_number, _is_tensor, _wrap_dim, elementwise_signatures, rule,
)
from monoflow._global.signatures.elementwise import _positions


def _index_items(op, idx):
    """Expands an index into per-item kinds: ('int'|'slice'|'none'|'adv', item)."""
    import numpy as np

    if isinstance(idx, list) and any(x is None or x is Ellipsis or isinstance(x, slice) for x in idx):
        idx = tuple(idx)  # the deprecated list-as-tuple form
    items = idx if isinstance(idx, tuple) else (idx,)
    out = []
    for it in items:
        if it is None:
            out.append(("none", it))
        elif it is Ellipsis:
            out.append(("ellipsis", it))
        elif isinstance(it, slice):
            out.append(("slice", it))
        elif isinstance(it, (int, np.integer)) and not isinstance(it, (bool, np.bool_)):
            out.append(("int", int(it)))
        else:
            out.append(("adv", it))
    return out


def _index_layout(op, shape, idx):
    """(result shape, {input dim: result dim} of the dims taken whole), the
    map None for advanced indexing (tensors, lists, bools)."""
    import numpy as np

    items = _index_items(op, idx)
    n = len(shape)
    dummy = np.broadcast_to(np.int8(0), shape)  # computes the result shape, no memory
    kinds = [k for k, _ in items]
    if "adv" in kinds:
        np_items = []
        for k, v in items:
            if k == "adv" and _is_tensor(v):
                if v.dtype.name == "bool":
                    op.fail("indexing a global tensor with a boolean mask gives a data-dependent shape and is not "
                            "supported; use where() or masked_fill()")
                np_items.append(np.zeros(tuple(v._shape) if hasattr(v, "_shape") else tuple(v.shape), np.int64))
            else:
                np_items.append(v)
        try:
            return dummy[tuple(np_items)].shape, None
        except IndexError as e:
            op.fail(str(e), IndexError)
    if kinds.count("ellipsis") > 1:
        op.fail("an index can only have a single ellipsis ('...')", IndexError)
    try:
        out = dummy[tuple(v for _, v in items)].shape
    except IndexError as e:
        op.fail(str(e), IndexError)
    used = sum(1 for k in kinds if k in ("int", "slice"))
    expanded = []
    for k, v in items:
        if k == "ellipsis":
            expanded += [("slice", slice(None))] * (n - used)
        else:
            expanded.append((k, v))
    expanded += [("slice", slice(None))] * (n - sum(1 for k, _ in expanded if k in ("int", "slice")))
    whole = {}
    d = od = 0
    for k, v in expanded:
        if k == "none":
            od += 1
            continue
        if k == "slice":
            if v.step in (None, 1) and v.start in (None, 0) and (v.stop is None or v.stop >= shape[d]):
                whole[d] = od
            od += 1
        d += 1
    return tuple(out), whole


@rule("__getitem__")
def getitem(op):
    """Basic indexing (ints, slices, None, ...) keeps the splits of the dims
    it takes whole; anything else gathers. Indexing is linear (P stays P)."""
    shape = op.shapes[0]
    out, whole = _index_layout(op, shape, op.args[1])
    k = len(op.tensors)
    if whole is None:
        return [Signature([B] * k, [B]), Signature([P] + [B] * (k - 1), [P])], [out]
    sigs = [Signature([S(d)], [S(od)]) for d, od in whole.items() if shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("__setitem__")
def setitem(op):
    """x[idx] = value, in place. x[idx] = v is linear in (x, v) together: P
    with P (a number only when it is 0)."""
    shape = op.shapes[0]
    idx, value = op.args[1], op.args[2]
    k = len(op.tensors)
    vpos = _positions(op, [value])
    zero = _is_number(value) and value == 0
    linear = [{0} | vpos] if (vpos or zero) else []
    items = idx if isinstance(idx, tuple) else (idx,)
    if len(items) == 1 and _is_tensor(items[0]) and items[0].dtype.name == "bool" and \
            tuple(items[0]._shape) == tuple(shape):
        # x[mask] = v with a mask of x's shape: elementwise
        vshape = op.shapes[-1] if vpos else None
        if vshape is not None and len(vshape) and any(d != 1 for d in vshape):
            op.fail("x[mask] = tensor needs a single value (a number or a one-element tensor) on global tensors")
        return elementwise_signatures(op.shapes, shape, linear), [shape]
    view, whole = _index_layout(op, shape, idx)
    sigs = []
    if whole is not None:
        for d, od in whole.items():
            if shape[d] <= 1:
                continue
            ins = [S(d)]
            if vpos:
                v = op.shapes[-1]
                j = od - (len(view) - len(v))
                ins.append(S(j) if j >= 0 and v[j] == view[od] else B)
            sigs.append(Signature(ins, [S(d)]))
    sigs.append(Signature([B] * k, [B]))
    for group in linear:
        sigs.append(Signature([P if i in group else B for i in range(k)], [P]))
    return sigs, [shape]


@rule("diagonal")
def diagonal(op):
    # the diagonal of the (dim1, dim2) planes: the other dims keep their splits
    shape = op.shapes[0]
    n = len(shape)
    if n < 2:
        op.fail(f"expected a tensor of at least 2 dimensions, got {n}")
    offset = op.arg("offset", 1, 0)
    d1, d2 = _wrap_dim(op, op.arg("dim1", 2, 0), n), _wrap_dim(op, op.arg("dim2", 3, 1), n)
    if d1 == d2:
        op.fail(f"dimensions cannot be identical {d1}, {d2}")
    n1, n2 = shape[d1], shape[d2]
    length = max(min(n1, n2 - offset), 0) if offset >= 0 else max(min(n1 + offset, n2), 0)
    keep = [d for d in range(n) if d not in (d1, d2)]
    out = tuple(shape[d] for d in keep) + (length,)
    sigs = [Signature([S(d)], [S(i)]) for i, d in enumerate(keep) if shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("unfold")
def unfold(op):
    # windows along `dimension`: the other dims keep their splits
    shape = op.shapes[0]
    dim = _wrap_dim(op, op.arg("dimension", 1), len(shape))
    size, step = op.arg("size", 2), op.arg("step", 3)
    out = list(shape)
    if shape:
        if size > shape[dim] or step <= 0:
            op.fail(f"maximum size for tensor at dimension {dim} is {shape[dim]} but size is {size}")
        out[dim] = (shape[dim] - size) // step + 1
    out = tuple(out) + (size,)
    sigs = [Signature([S(d)], [S(d)]) for d in range(len(shape)) if d != dim and shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("nonzero", "argwhere")
def nonzero(op):
    # the positions of the non-zeros: a data-dependent shape that only the
    # whole tensor gives (as_tuple=True: one index tensor per dim, alike)
    return [Signature([B], [B])], [lambda local: tuple(local)]


@rule("im2col")
def im2col(op):
    # nn.functional.unfold, (N, C, H, W) -> (N, C*kH*kW, L): each sample's
    # blocks come from that sample alone, and the copy is linear. (Channels
    # are not split: C*kH*kW's balanced pieces are not the pieces of C.)
    x = op.shapes[0]
    sigs = [Signature([S(0)], [S(0)])] if len(x) == 4 and x[0] > 1 else []
    op.nonempty = True
    out = lambda local: (tuple(x[:1]) if len(x) == 4 else ()) + tuple(local[-2:])  # noqa: E731
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("fold")
def fold(op):
    # nn.functional.fold, (N, C*kH*kW, L) -> (N, C, H, W): the blocks of each
    # sample are summed into that sample alone (linear)
    x = op.shapes[0]
    sigs = [Signature([S(0)], [S(0)])] if len(x) == 3 and x[0] > 1 else []
    op.nonempty = True
    out = lambda local: (tuple(x[:1]) if len(x) == 3 else ()) + tuple(local[-3:])  # noqa: E731
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("outer", "ger")
def outer(op):
    a, b = op.shapes
    out = (a[0], b[0])
    sigs = ([Signature([S(0), B], [S(0)])] if a[0] > 1 else []) + ([Signature([B, S(0)], [S(1)])] if b[0] > 1 else [])
    return sigs + [Signature([P, B], [P]), Signature([B, P], [P]), Signature([B, B], [B])], [out]


@rule("gather", "take_along_dim")
def gather(op):
    x, idx = op.shapes
    dim = op.arg("dim", 1 if op.name == "gather" else 2)
    if dim is None:
        return [Signature([B, B], [B]), Signature([P, B], [P])], [(math.prod(idx),)]
    dim = _wrap_dim(op, dim, len(x))
    out = tuple(idx) if op.name == "gather" else _broadcast_shape(op, [tuple(x[:dim]) + (1,) + tuple(x[dim + 1:]),
                                                                       idx])
    sigs = []
    if op.name == "gather":
        # out[..i..j..] = x[..i..idx[..i..j..]..]: along `dim` index pieces
        # pick from the whole input; along another dim the position i is
        # shared, so both split it alike (equal sizes, equal pieces)
        sigs += [Signature([S(d), S(d)], [S(d)]) for d in range(len(x)) if d != dim and x[d] == idx[d] > 1]
        if idx and idx[dim] > 1:
            sigs.append(Signature([B, S(dim)], [S(dim)]))
    else:
        # input and index broadcast against each other off `dim`
        for d in range(len(out)):
            if out[d] <= 1:
                continue
            if d == dim:
                sigs.append(Signature([B, S(d)], [S(d)]))
            else:
                sigs.append(Signature([S(d) if x[d] == out[d] else B, S(d) if idx[d] == out[d] else B], [S(d)]))
    return sigs + [Signature([B, B], [B]), Signature([P, B], [P])], [out]


@rule("index_select")
def index_select(op):
    x, idx = op.shapes
    dim = _wrap_dim(op, op.arg("dim", 1), len(x))
    out = list(x)
    if x:
        out[dim] = idx[0] if idx else 1
    sigs = [Signature([S(d), B], [S(d)]) for d in range(len(x)) if d != dim and x[d] > 1]
    if idx and idx[0] > 1:
        sigs.append(Signature([B, S(0)], [S(dim)]))
    return sigs + [Signature([B, B], [B]), Signature([P, B], [P])], [tuple(out)]
