"""SBP signatures: for each op, the ways its inputs may be laid out on one
hierarchy axis and the layout of its outputs that follows.

A rule gets the logical shapes of the op's global tensor operands (in the
order dispatch finds them) and the call's arguments; it returns the valid
1-D signatures and the logical output shapes. On an n-D hierarchy each axis
picks one of them (dispatch.py). A rule lists signatures from most to least
preferred; the cheapest by the cost model wins and the order breaks ties.
"""
import math

from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S


class Signature:
    __slots__ = ("inputs", "outputs")

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = tuple(inputs), tuple(outputs)

    def __repr__(self):
        return f"({', '.join(s.short() for s in self.inputs)}) -> ({', '.join(s.short() for s in self.outputs)})"


RULES = {}


def rule(*names):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


def _broadcast_shape(shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, d in enumerate(s):
            j = nd - len(s) + i
            if d != 1:
                if out[j] not in (1, d):
                    raise ValueError(f"shapes {[list(x) for x in shapes]} cannot be broadcast together")
                out[j] = d
    return tuple(out)


def elementwise_signatures(shapes, out_shape, partial=None):
    """Split on any output dim (operands that broadcast along it stay whole),
    all broadcast, and the partial-sum forms `partial` allows: "all" (every
    operand P: sums, differences), or a set of operand positions of which
    exactly one may be P while the others are B (products, quotients)."""
    sigs = []
    nd = len(out_shape)
    for d in range(nd):
        if out_shape[d] == 1:
            continue
        ins = []
        for s in shapes:
            j = d - (nd - len(s))
            ins.append(S(j) if j >= 0 and s[j] == out_shape[d] else B)
        sigs.append(Signature(ins, [S(d)]))
    sigs.append(Signature([B] * len(shapes), [B]))
    if partial == "all":
        sigs.append(Signature([P] * len(shapes), [P]))
    elif partial:
        for k in partial:
            if k < len(shapes):
                sigs.append(Signature([P if i == k else B for i in range(len(shapes))], [P]))
    return sigs


def _is_number(v):
    return isinstance(v, (int, float, bool)) and not hasattr(v, "placement")


# ---------------------------------------------------------------- elementwise

_LINEAR_UNARY = {"neg", "negative", "__neg__", "clone", "contiguous", "float", "double", "half", "to"}


@rule("abs", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "asin",
      "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "reciprocal",
      "sign", "relu", "floor", "ceil", "round", "trunc", "square", "bitwise_not", "logical_not", "isnan", "isinf",
      "isfinite", "gelu", "silu", "softplus", "leaky_relu", "elu", "hardtanh", "relu6", "mish", "hardswish",
      "hardsigmoid", "logsigmoid", "selu", "celu", "dropout", "neg", "negative", "__neg__", "clone", "contiguous",
      "float", "double", "half", "clamp", "clip", "clamp_min", "clamp_max", "nan_to_num", "pow_scalar_base")
def unary(name, shapes, args, kwargs):
    shape = shapes[0]
    return elementwise_signatures(shapes, shape, "all" if name in _LINEAR_UNARY else None), [shape]


_ADDITIVE = {"add", "sub", "subtract", "__add__", "__radd__", "__sub__", "__rsub__", "__iadd__", "__isub__",
             "add_", "sub_"}
_MULTIPLICATIVE = {"mul", "multiply", "__mul__", "__rmul__", "__imul__", "mul_"}
_DIVISION = {"div", "divide", "true_divide", "__truediv__", "__itruediv__", "div_"}


@rule("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "__add__", "__radd__", "__sub__",
      "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__iadd__", "__isub__", "__imul__",
      "__itruediv__", "add_", "sub_", "mul_", "div_", "pow", "__pow__", "__rpow__", "maximum", "minimum", "atan2",
      "remainder", "fmod", "__mod__", "floor_divide", "__floordiv__", "eq", "ne", "lt", "le", "gt", "ge", "__eq__",
      "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "logical_and", "logical_or", "logical_xor", "bitwise_and",
      "bitwise_or", "bitwise_xor", "__and__", "__or__", "__xor__", "where", "lerp", "addcmul", "addcdiv", "masked_fill")
def binary(name, shapes, args, kwargs):
    out = _broadcast_shape(shapes)
    numbers = [a for a in args[1:] if _is_number(a)]
    alpha = kwargs.get("alpha", 1)
    if name in _ADDITIVE:
        # P + P is P; P + a number is not (each rank would add it)
        partial = "all" if not numbers and _is_number(alpha) else None
    elif name in _MULTIPLICATIVE:
        partial = {0, 1}
    elif name in _DIVISION:
        partial = {0}
    else:
        partial = None
    if name.endswith("_") or name.startswith("__i"):
        out = shapes[0]  # in place: the result keeps self's shape
    return elementwise_signatures(shapes, out, partial), [out]


# ---------------------------------------------------------------- reductions

def _reduced_dims(ndim, dim):
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted({d + ndim if d < 0 else d for d in dims}) if ndim else []


def _dim_arg(args, kwargs, pos=1):
    if "dim" in kwargs:
        return kwargs["dim"]
    if len(args) > pos and not isinstance(args[pos], bool) and (args[pos] is None or isinstance(args[pos], (int, tuple, list))):
        return args[pos]
    return None


def _keepdim(args, kwargs, pos=2):
    if "keepdim" in kwargs:
        return bool(kwargs["keepdim"])
    return bool(args[pos]) if len(args) > pos and isinstance(args[pos], bool) else False


def reduction_signatures(shape, dims, keepdim, partial_ok):
    out_shape = [1 if d in dims else n for d, n in enumerate(shape)] if keepdim else \
        [n for d, n in enumerate(shape) if d not in dims]
    sigs = []
    for d in range(len(shape)):
        if d in dims:
            if partial_ok:
                sigs.append(Signature([S(d)], [P]))
        else:
            od = d if keepdim else d - sum(1 for r in dims if r < d)
            sigs.append(Signature([S(d)], [S(od)]))
    sigs.append(Signature([B], [B]))
    if partial_ok:
        sigs.append(Signature([P], [P]))
    return sigs, tuple(out_shape)


@rule("sum", "amax", "amin", "logsumexp", "prod", "all", "any", "norm", "var", "std")
def reduce(name, shapes, args, kwargs):
    shape = shapes[0]
    dims = _reduced_dims(len(shape), _dim_arg(args, kwargs))
    sigs, out = reduction_signatures(shape, dims, _keepdim(args, kwargs), name == "sum")
    return sigs, [out]


@rule("mean")
def mean(name, shapes, args, kwargs):
    # a mean over a split dimension is not a sum of the local means (uneven
    # pieces), so it gathers; dispatch composes mean = sum / count instead
    shape = shapes[0]
    dims = _reduced_dims(len(shape), _dim_arg(args, kwargs))
    sigs, out = reduction_signatures(shape, dims, _keepdim(args, kwargs), False)
    return sigs, [out]


@rule("softmax", "log_softmax", "cumsum", "cumprod", "argsort", "sort", "flip")
def along_dim(name, shapes, args, kwargs):
    shape = shapes[0]
    dim = _dim_arg(args, kwargs)
    if isinstance(dim, (tuple, list)):
        dims = [d % max(len(shape), 1) for d in dim]
    else:
        dims = [(dim if dim is not None else -1) % max(len(shape), 1)]
    sigs = [Signature([S(d)], [S(d)]) for d in range(len(shape)) if d not in dims]
    return sigs + [Signature([B], [B])], [shape]


@rule("layer_norm")
def layer_norm(name, shapes, args, kwargs):
    x = shapes[0]
    normalized = args[1] if len(args) > 1 else kwargs["normalized_shape"]
    k = 1 if isinstance(normalized, int) else len(normalized)
    lead = len(x) - k
    sigs = [Signature([S(d)] + [B] * (len(shapes) - 1), [S(d)]) for d in range(lead)]
    return sigs + [Signature([B] * len(shapes), [B])], [x]


# ---------------------------------------------------------------- matmul

@rule("matmul", "mm", "__matmul__", "__rmatmul__")
def matmul(name, shapes, args, kwargs):
    a, b = shapes
    if len(a) < 1 or len(b) < 1:
        raise ValueError(f"{name}: both arguments need at least 1 dimension")
    if len(a) == 2 and len(b) == 2:
        out = (a[0], b[1])
        return [Signature([S(0), B], [S(0)]), Signature([B, S(1)], [S(1)]), Signature([S(1), S(0)], [P]),
                Signature([P, B], [P]), Signature([B, P], [P]), Signature([B, B], [B])], [out]
    if len(b) == 2 and len(a) > 2:  # (..., n, k) @ (k, m): batch and row splits of a
        out = tuple(a[:-1]) + (b[1],)
        sigs = [Signature([S(d), B], [S(d)]) for d in range(len(a) - 1)]
        sigs += [Signature([B, S(1)], [S(len(out) - 1)]), Signature([S(len(a) - 1), S(0)], [P]),
                 Signature([P, B], [P]), Signature([B, P], [P]), Signature([B, B], [B])]
        return sigs, [out]
    if len(a) == len(b) and len(a) > 2:
        batch = _broadcast_shape([a[:-2], b[:-2]])
        out = tuple(batch) + (a[-2], b[-1])
        n = len(a)
        sigs = [Signature([S(d), S(d)], [S(d)]) for d in range(n - 2) if a[d] == b[d] and a[d] > 1]
        sigs += [Signature([S(n - 2), B], [S(n - 2)]), Signature([B, S(n - 1)], [S(n - 1)]),
                 Signature([S(n - 1), S(n - 2)], [P]), Signature([B, B], [B])]
        return sigs, [out]
    # vectors and other mixes: whole operands only
    import numpy as np

    out = np.matmul(np.empty(a, dtype=np.int8), np.empty(b, dtype=np.int8)).shape
    return [Signature([B, B], [B])], [tuple(out)]


@rule("linear")
def linear(name, shapes, args, kwargs):
    x, w = shapes[0], shapes[1]
    has_bias = len(shapes) > 2
    out = tuple(x[:-1]) + (w[0],)
    last = len(out) - 1
    bias = lambda s: [s] if has_bias else []  # noqa: E731
    sigs = [Signature([S(d), B] + bias(B), [S(d)]) for d in range(len(x) - 1)]
    sigs.append(Signature([B, S(0)] + bias(S(0)), [S(last)]))         # column parallel
    sigs.append(Signature([S(len(x) - 1), S(1)] + bias(P), [P]))      # row parallel
    sigs.append(Signature([P, B] + bias(P), [P]))
    sigs.append(Signature([B, B] + bias(B), [B]))
    return sigs, [out]


# ---------------------------------------------------------------- shape ops

def _shape_args(args, kwargs, start=1):
    rest = args[start:]
    if "shape" in kwargs:
        rest = (kwargs["shape"],)
    if len(rest) == 1 and not isinstance(rest[0], int):
        rest = tuple(rest[0])
    return [int(d) for d in rest]


def _infer_reshape(shape, target):
    numel = math.prod(shape)
    if target.count(-1) == 1:
        known = math.prod(d for d in target if d != -1)
        target = [numel // known if d == -1 else d for d in target]
    if math.prod(target) != numel:
        raise RuntimeError(f"shape '{list(target)}' is invalid for input of size {numel}")
    return tuple(target)


def reshape_signatures(shape, out):
    """A split survives a reshape when its dimension keeps its size and what
    lies before it keeps its element count (so each piece stays one block)."""
    sigs = []
    for d in range(len(shape)):
        before = math.prod(shape[:d])
        for od in range(len(out)):
            if out[od] == shape[d] and math.prod(out[:od]) == before and shape[d] > 1:
                sigs.append(Signature([S(d)], [S(od)]))
                break
    return sigs + [Signature([B], [B]), Signature([P], [P])]


@rule("reshape", "view")
def reshape(name, shapes, args, kwargs):
    out = _infer_reshape(shapes[0], _shape_args(args, kwargs))
    return reshape_signatures(shapes[0], out), [out]


@rule("flatten")
def flatten(name, shapes, args, kwargs):
    shape = shapes[0]
    start = kwargs.get("start_dim", args[1] if len(args) > 1 else 0)
    end = kwargs.get("end_dim", args[2] if len(args) > 2 else -1)
    n = len(shape)
    if n == 0:
        return [Signature([B], [B]), Signature([P], [P])], [(1,)]
    start, end = start % n, end % n
    out = tuple(shape[:start]) + (math.prod(shape[start:end + 1]),) + tuple(shape[end + 1:])
    return reshape_signatures(shape, out), [out]


@rule("transpose", "swapaxes", "permute", "t", "T", "movedim")
def permute(name, shapes, args, kwargs):
    shape = shapes[0]
    n = len(shape)
    if name in ("t", "T"):
        perm = list(range(n))[::-1]
    elif name in ("transpose", "swapaxes"):
        a, b = (args[1] % n, args[2] % n) if len(args) > 2 else (kwargs["dim0"] % n, kwargs["dim1"] % n)
        perm = list(range(n))
        perm[a], perm[b] = perm[b], perm[a]
    elif name == "movedim":
        src, dst = args[1] % n, args[2] % n
        perm = [d for d in range(n) if d != src]
        perm.insert(dst, src)
    else:
        perm = _shape_args(args, kwargs)
        perm = [p % n for p in perm]
    out = tuple(shape[p] for p in perm)
    sigs = [Signature([S(perm[od])], [S(od)]) for od in range(n)]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("cat", "concat")
def cat(name, shapes, args, kwargs):
    dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
    n = len(shapes[0])
    dim %= n
    out = list(shapes[0])
    out[dim] = sum(s[dim] for s in shapes)
    k = len(shapes)
    sigs = [Signature([S(d)] * k, [S(d)]) for d in range(n) if d != dim]
    return sigs + [Signature([B] * k, [B]), Signature([P] * k, [P])], [tuple(out)]


# ---------------------------------------------------------------- nn

@rule("embedding")
def embedding(name, shapes, args, kwargs):
    idx, w = shapes[0], shapes[1]
    out = tuple(idx) + (w[1],)
    sigs = [Signature([S(d), B], [S(d)]) for d in range(len(idx))]
    sigs.append(Signature([B, S(1)], [S(len(out) - 1)]))
    return sigs + [Signature([B, B], [B])], [out]


def _reduction(args, kwargs, pos):
    return kwargs.get("reduction", args[pos] if len(args) > pos and isinstance(args[pos], str) else "mean")


@rule("cross_entropy", "nll_loss")
def classification_loss(name, shapes, args, kwargs):
    # dispatch runs 'mean' as 'sum' divided by the global count so that batch
    # splits give P
    x = shapes[0]
    red = kwargs.get("reduction", "mean")
    k = len(shapes)
    if red == "none":
        out = (x[0],) if len(x) > 1 else ()
        return [Signature([S(0)] * 2 + [B] * (k - 2), [S(0)]), Signature([B] * k, [B])], [out]
    sigs = [Signature([S(0)] * 2 + [B] * (k - 2), [P])] if red == "sum" else []
    return sigs + [Signature([B] * k, [B])], [()]


@rule("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
      "binary_cross_entropy_with_logits")
def pointwise_loss(name, shapes, args, kwargs):
    red = kwargs.get("reduction", "mean")
    shape = _broadcast_shape(shapes[:2])
    k = len(shapes)
    if red == "none":
        return elementwise_signatures(shapes, shape), [shape]
    sigs = [Signature([S(d)] * 2 + [B] * (k - 2), [P]) for d in range(len(shape))] if red == "sum" else []
    return sigs + [Signature([B] * k, [B])], [()]
