"""Reductions, scans, softmax, sort/topk, flip/roll/tril and layer norm: the
split dims an op looks across are not kept split."""
from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S
from monoflow._global.signatures.base import (  # noqa: F401
    Signature, _broadcast_shape, _is_tensor, _wrap_dim, elementwise_signatures, rule,
)


# ---------------------------------------------------------------- reductions

def _reduced_dims(op, ndim, dim, empty_is_all=True):
    """Sorted non-negative dims reduced; dim None (or () where `empty_is_all`) is every dim."""
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not dims:
        return list(range(ndim)) if empty_is_all else []
    return sorted({_wrap_dim(op, d, ndim) for d in dims})


def _keepdim(op, pos):
    return bool(op.arg("keepdim", pos, False))


def reduction_signatures(shape, dims, keepdim, partial_ok):
    """Splits of kept dims survive (renumbered); a split of a reduced dim
    gives partial results: P for a sum, nothing otherwise (max of the maxes
    would be right, but there is no 'partial max' SBP)."""
    out_shape = [1 if d in dims else n for d, n in enumerate(shape)] if keepdim else \
        [n for d, n in enumerate(shape) if d not in dims]
    sigs = []
    for d in range(len(shape)):
        if d in dims:
            if partial_ok and shape[d] > 1:
                sigs.append(Signature([S(d)], [P]))
        elif shape[d] > 1:
            od = d if keepdim else d - sum(1 for r in dims if r < d)
            sigs.append(Signature([S(d)], [S(od)]))
    sigs.append(Signature([B], [B]))
    if partial_ok:
        sigs.append(Signature([P], [P]))
    return sigs, tuple(out_shape)


@rule("sum")
def sum_(op):
    shape = op.shapes[0]
    dims = _reduced_dims(op, len(shape), op.arg("dim", 1))
    sigs, out = reduction_signatures(shape, dims, _keepdim(op, 2), True)
    return sigs, [out]


@rule("mean", "prod", "logsumexp")
def reduce_keepdim2(op):
    # mean over a split dim is not a sum of local means (uneven pieces):
    # dispatch composes mean = sum / count; this rule is its fallback
    shape = op.shapes[0]
    dims = _reduced_dims(op, len(shape), op.arg("dim", 1))
    sigs, out = reduction_signatures(shape, dims, _keepdim(op, 2), False)
    return sigs, [out]


@rule("amax", "amin")
def amax(op):
    shape = op.shapes[0]
    dims = _reduced_dims(op, len(shape), op.arg("dim", 1, ()))
    sigs, out = reduction_signatures(shape, dims, _keepdim(op, 2), False)
    return sigs, [out]


@rule("all", "any")
def all_any(op):
    shape = op.shapes[0]
    dims = _reduced_dims(op, len(shape), op.arg("dim", 1), empty_is_all=False)
    sigs, out = reduction_signatures(shape, dims, _keepdim(op, 2), False)
    return sigs, [out]


@rule("max", "min")
def max_min(op):
    dim = op.arg("dim", 1)
    if _is_tensor(dim):  # max(x, y): the elementwise maximum
        out = _broadcast_shape(op, op.shapes)
        return elementwise_signatures(op.shapes, out), [out]
    shape = op.shapes[0]
    if dim is None:
        sigs, out = reduction_signatures(shape, list(range(len(shape))), False, False)
        return sigs, [out]
    sigs, out = reduction_signatures(shape, [_wrap_dim(op, dim, len(shape))], _keepdim(op, 2), False)
    return sigs, [out, out]  # (values, indices)


@rule("argmax", "argmin")
def argmax(op):
    shape = op.shapes[0]
    dim = op.arg("dim", 1)
    keepdim = _keepdim(op, 2)
    if dim is None:  # an index into the flattened tensor
        return [Signature([B], [B])], [tuple(1 for _ in shape) if keepdim else ()]
    sigs, out = reduction_signatures(shape, [_wrap_dim(op, dim, len(shape))], keepdim, False)
    return sigs, [out]


@rule("var", "std", "var_mean", "std_mean")
def var(op):
    shape = op.shapes[0]
    dim = op.arg("dim", 1)
    if isinstance(dim, bool):  # var(x, unbiased)
        dim = None
    sigs, out = reduction_signatures(shape, _reduced_dims(op, len(shape), dim), _keepdim(op, 3), False)
    return sigs, [out, out] if op.name.endswith("_mean") else [out]


@rule("norm")
def norm(op):
    shape = op.shapes[0]
    sigs, out = reduction_signatures(shape, _reduced_dims(op, len(shape), op.arg("dim", 2)), _keepdim(op, 3), False)
    return sigs, [out]


def _softmax_dim(op):
    dim = op.arg("dim", 1)
    if dim is None:  # nn.functional's legacy implicit dim
        n = len(op.shapes[0])
        return 0 if n in (0, 1, 3) else 1
    return dim


def _along(op, shape, dims, out=None, linear=False):
    """Ops that look along `dims` (and nowhere else): splits of other dims survive."""
    out = shape if out is None else out
    sigs = [Signature([S(d)], [S(d)]) for d in range(len(shape)) if d not in dims and shape[d] > 1]
    sigs.append(Signature([B], [B]))
    if linear:
        sigs.append(Signature([P], [P]))
    return sigs, out


@rule("softmax", "log_softmax", "softmin")
def softmax(op):
    shape = op.shapes[0]
    sigs, out = _along(op, shape, [_wrap_dim(op, _softmax_dim(op), len(shape))])
    return sigs, [out]


@rule("cumsum", "cumsum_", "cumprod", "cumprod_")
def scan(op):
    shape = op.shapes[0]
    sigs, out = _along(op, shape, [_wrap_dim(op, op.arg("dim", 1), len(shape))], linear=op.name.startswith("cumsum"))
    return sigs, [out]


@rule("sort", "argsort")
def sort(op):
    shape = op.shapes[0]
    sigs, out = _along(op, shape, [_wrap_dim(op, op.arg("dim", 1, -1), len(shape))])
    return sigs, [out, out] if op.name == "sort" else [out]


@rule("topk")
def topk(op):
    shape = op.shapes[0]
    dim = _wrap_dim(op, op.arg("dim", 2, -1), len(shape))
    out = list(shape)
    if shape:
        out[dim] = int(op.arg("k", 1))
    sigs, out = _along(op, shape, [dim], tuple(out))
    return sigs, [out, out]


@rule("flip", "fliplr", "flipud")
def flip(op):
    shape = op.shapes[0]
    if op.name == "fliplr":
        dims = [1]
    elif op.name == "flipud":
        dims = [0]
    else:
        dims = op.kwargs.get("dims", op.args[1:])
        if len(dims) == 1 and not isinstance(dims[0], int):
            dims = dims[0]
        dims = [_wrap_dim(op, d, len(shape)) for d in dims]
    # reversing a split dim would need the pieces swapped between ranks
    sigs, out = _along(op, shape, dims, linear=True)
    return sigs, [out]


@rule("roll")
def roll(op):
    shape = op.shapes[0]
    dims = op.arg("dims", 2)
    if dims is None:  # rolls the flattened tensor
        return [Signature([B], [B]), Signature([P], [P])], [shape]
    dims = [dims] if isinstance(dims, int) else list(dims)
    sigs, out = _along(op, shape, [_wrap_dim(op, d, len(shape)) for d in dims], linear=True)
    return sigs, [out]


@rule("tril", "triu", "tril_", "triu_")
def tril(op):
    # the mask depends on the position along the last two dims
    shape = op.shapes[0]
    n = len(shape)
    sigs, out = _along(op, shape, [n - 2, n - 1], linear=True)
    return sigs, [out]


@rule("layer_norm")
def layer_norm(op):
    # normalises over the trailing dims: only the leading ones may be split
    x = op.shapes[0]
    normalized = op.arg("normalized_shape", 1)
    k = 1 if isinstance(normalized, int) else len(normalized)
    lead = len(x) - k
    rest = len(op.shapes) - 1  # weight, bias
    sigs = [Signature([S(d)] + [B] * rest, [S(d)]) for d in range(lead) if x[d] > 1]
    return sigs + [Signature([B] * len(op.shapes), [B])], [x]
