"""SBP signatures: for each op, the ways its inputs may be laid out on one
hierarchy axis and the layout of its outputs that follows.

A rule gets an `Op` (the op's name, its arguments and the logical shapes of
its global tensor operands, in the order dispatch finds them) and returns
the valid 1-D signatures and the logical output shapes, and optionally a
`localize` hook that rewrites the call for this rank's shards (ops whose
arguments are sizes: reshape, expand...). On an n-D hierarchy each axis
picks one of the signatures (dispatch.py). A rule lists signatures from most
to least preferred; the cheapest by the cost model wins and the order breaks
ties.

A wrong signature is a silent wrong answer, so each one below is justified
by what the local op computes on the shards:
- S(d) -> S(d') holds when output piece i depends only on input piece i:
  the op must not look across dimension d (a reduction, softmax, norm, scan,
  flip or sort over d does), and must not depend on the absolute position
  along d (tril over d does).
- P -> P holds only for maps that are linear in that operand (sums, scaling
  by a broadcast factor, views, index selection); never for anything with a
  constant term (x + 2), a nonlinearity, or a truncating cast.
- Random ops never take B: every rank would draw a different sample of what
  must be one value.
"""
import math
import numbers

from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S


class Signature:
    __slots__ = ("inputs", "outputs")

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = tuple(inputs), tuple(outputs)

    def __repr__(self):
        return f"({', '.join(s.short() for s in self.inputs)}) -> ({', '.join(s.short() for s in self.outputs)})"


class Op:
    """One call of an op on global operands, as a rule sees it."""

    __slots__ = ("name", "args", "kwargs", "tensors", "method", "nonempty")

    def __init__(self, name, args, kwargs, tensors, method=False):
        self.name, self.args, self.kwargs, self.tensors, self.method = name, args, kwargs, tensors, method
        # set by rules whose local kernels refuse empty inputs (pooling):
        # dispatch then avoids splits that leave a rank an empty piece
        self.nonempty = False

    @property
    def shapes(self):
        return [tuple(t._shape) for t in self.tensors]

    def arg(self, key, pos, default=None):
        """The argument named `key`, or at position `pos` (self/input is 0)."""
        if key in self.kwargs:
            return self.kwargs[key]
        if pos is not None and len(self.args) > pos:
            return self.args[pos]
        return default

    def fail(self, message, kind=RuntimeError):
        raise kind(f"{self.name}: {message}")


RULES = {}


def rule(*names):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


def with_inplace(*names):
    """The names and their in-place forms (add -> add, add_)."""
    return tuple(names) + tuple(n + "_" for n in names)


def _broadcast_shape(op, shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, d in enumerate(s):
            j = nd - len(s) + i
            if d != 1:
                if out[j] not in (1, d):
                    op.fail(f"the shapes {[list(x) for x in shapes]} cannot be broadcast together")
                out[j] = d
    return tuple(out)


def _wrap_dim(op, dim, ndim):
    n = max(ndim, 1)
    if isinstance(dim, bool) or not isinstance(dim, int):
        op.fail(f"dim must be an int, got {type(dim).__name__}", TypeError)
    if not -n <= dim < n:
        op.fail(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})", IndexError)
    return dim % n


def _is_number(v):
    # Python and numpy scalars (np.float32 is not a float)
    return isinstance(v, numbers.Number)


def _is_tensor(v):
    from monoflow._tensor import Tensor

    return isinstance(v, Tensor)


def elementwise_signatures(shapes, out_shape, linear=()):
    """Split on any output dim (operands that broadcast along it stay whole),
    all broadcast, and one P form per set in `linear`: the operand positions
    the op is jointly linear in (they are P, the others B)."""
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
    for group in linear:
        sigs.append(Signature([P if i in group else B for i in range(len(shapes))], [P]))
    return sigs


# ---------------------------------------------------------------- elementwise

_UNARY = ("abs", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan",
          "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc",
          "reciprocal", "sign", "relu", "floor", "ceil", "round", "trunc", "square", "bitwise_not", "logical_not",
          "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "absolute", "fix",
          "clamp", "clip", "clamp_min", "clamp_max")


@rule(*with_inplace(*_UNARY), "isnan", "isinf", "isfinite", "silu", "gelu", "softplus", "leaky_relu", "elu", "hardtanh",
      "relu6", "mish", "hardswish", "hardsigmoid", "logsigmoid", "selu", "celu", "softsign", "tanhshrink",
      "threshold", "hardshrink", "softshrink", "__abs__", "__invert__")
def unary(op):
    # clamp's bounds may be tensors: they broadcast like a binary op's operands
    out = _broadcast_shape(op, op.shapes)
    if op.name.endswith("_"):
        out = op.shapes[0]
    return elementwise_signatures(op.shapes, out), [out]


@rule("neg", "__neg__", "__pos__", "clone", "contiguous")
def linear_unary(op):
    shape = op.shapes[0]
    return elementwise_signatures([shape], shape, [{0}]), [shape]


def _target_dtype(op):
    """The dtype a cast produces (to/type/float/int...), or None for no change."""
    import monoflow as flow

    named = {"float": flow.float32, "double": flow.float64, "half": flow.float16, "bfloat16": flow.bfloat16,
             "int": flow.int32, "long": flow.int64, "short": flow.int16, "byte": flow.uint8, "char": flow.int8,
             "bool": flow.bool}
    if op.name in named:
        return named[op.name]
    if op.name == "cpu" and op.tensors[0].placement.type != "cpu":
        op.fail(f"a global tensor on {op.tensors[0].placement!r} cannot move to the CPU; move it with "
                ".to_global(placement=...)")
    found = op.kwargs.get("dtype")
    for a in op.args[1:]:
        if isinstance(a, flow.dtype):
            found = a
        elif isinstance(a, str) and op.name == "type":
            found = a
        elif isinstance(a, (str, flow.device)) or (isinstance(a, int) and not isinstance(a, bool)):
            dev = flow.device(a) if not isinstance(a, flow.device) else a
            if dev.type != op.tensors[0].placement.type:
                op.fail(f"a global tensor on {op.tensors[0].placement!r} cannot move to device '{dev}'; move it "
                        "with .to_global(placement=...)")
    dev = op.kwargs.get("device")
    if dev is not None and flow.device(dev).type != op.tensors[0].placement.type:
        op.fail(f"a global tensor on {op.tensors[0].placement!r} cannot move to device '{dev}'; move it with "
                ".to_global(placement=...)")
    if isinstance(found, str):
        return None
    return found


@rule("to", "type", "float", "double", "half", "bfloat16", "int", "long", "short", "byte", "char", "bool", "cpu")
def cast(op):
    # A cast is linear (P stays P) when it keeps sums: into a floating type
    # (up to rounding, as any float sum), or between integer types (two's
    # complement wraps modulo 2^k, a ring map). Truncating a float into an
    # integer, or anything into bool, is not.
    shape = op.shapes[0]
    src = op.tensors[0].dtype
    dst = _target_dtype(op) or src
    linear = dst.is_floating_point or (not src.is_floating_point and src.name != "bool" and dst.name != "bool")
    return elementwise_signatures([shape], shape, [{0}] if linear else ()), [shape]


_ADDITIVE = {"add", "sub", "__add__", "__radd__", "__sub__", "__iadd__", "__isub__", "add_", "sub_"}
_MULTIPLICATIVE = {"mul", "__mul__", "__rmul__", "__imul__", "mul_"}
_DIVISION = {"div", "__truediv__", "__itruediv__", "div_"}
_INPLACE_OPERATORS = {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__ipow__", "__imod__",
                      "__iand__", "__ior__", "__ixor__"}


def is_inplace(name):
    return name in _INPLACE_OPERATORS or (name.endswith("_") and not name.startswith("_"))


@rule("add", "sub", "mul", "div", "add_", "sub_", "mul_", "div_", "__add__", "__radd__", "__sub__", "__rsub__",
      "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
      *with_inplace("pow", "atan2", "arctan2", "remainder", "fmod", "floor_divide", "logical_and", "logical_or",
                    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"),
      "__pow__", "__rpow__", "__ipow__", "__mod__", "__rmod__", "__imod__", "__floordiv__", "__rfloordiv__",
      "__ifloordiv__", "__and__", "__rand__", "__iand__", "__or__", "__ror__", "__ior__", "__xor__", "__rxor__",
      "__ixor__", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "__eq__", "__ne__", "__lt__", "__le__",
      "__gt__", "__ge__")
def binary(op):
    shapes = op.shapes
    out = _broadcast_shape(op, shapes)
    scalars = [a for a in list(op.args[1:]) + [op.kwargs.get("other")] if _is_number(a)]
    name = op.name
    if name in _ADDITIVE:
        # P + P is P; P + a number is not (each rank would add it)
        linear = [set(range(len(shapes)))] if not scalars else []
    elif name in _MULTIPLICATIVE:
        linear = [{i} for i in range(len(shapes))]  # one factor P, the others B
    elif name in _DIVISION:
        linear = [{0}] if shapes and op.args[0] is op.tensors[0] else []  # the numerator only
    else:
        linear = []
    if is_inplace(name):
        out = shapes[0]  # in place: the result keeps self's shape
    return elementwise_signatures(shapes, out, linear), [out]


def _positions(op, values):
    """Positions among op.tensors of the argument objects `values`."""
    return {i for i, t in enumerate(op.tensors) if any(t is v for v in values)}


@rule("where")
def where(op):
    # where(c, x, y) is linear in (x, y) together for a broadcast condition;
    # a number branch keeps it linear only when it is 0
    if op.method:  # x.where(condition, y)
        cond, x, y = op.arg("condition", 1), op.args[0], op.arg("other", 2)
    else:
        if len(op.args) + len(op.kwargs) == 1:
            op.fail("where(condition) (nonzero) has a data-dependent shape and is not supported on global tensors")
        cond, x, y = op.arg("condition", 0), op.arg("input", 1), op.arg("other", 2)
    shapes = op.shapes
    out = _broadcast_shape(op, shapes)
    branches = [v for v in (x, y) if _is_tensor(v)]
    zero = all(_is_tensor(v) or (_is_number(v) and v == 0) for v in (x, y))
    linear = [_positions(op, branches)] if zero and branches and not _positions(op, [cond]) & \
        _positions(op, branches) else []
    return elementwise_signatures(shapes, out, linear), [out]


@rule("masked_fill", "masked_fill_")
def masked_fill(op):
    value = op.arg("value", 2)
    shapes = op.shapes
    out = shapes[0] if op.name.endswith("_") else _broadcast_shape(op, shapes)
    if _is_tensor(value):
        linear = [_positions(op, [op.args[0], value])]
    else:
        linear = [{0}] if _is_number(value) and value == 0 else []
    return elementwise_signatures(shapes, out, linear), [out]


@rule("lerp", "lerp_")
def lerp(op):
    # start + w (end - start): linear in (start, end) together
    shapes = op.shapes
    out = shapes[0] if op.name.endswith("_") else _broadcast_shape(op, shapes)
    return elementwise_signatures(shapes, out, [_positions(op, [op.args[0], op.arg("end", 1)])]), [out]


@rule("addcmul", "addcmul_", "addcdiv", "addcdiv_")
def addc(op):
    # input + v t1 * t2 is linear in (input, t1) and in (input, t2);
    # input + v t1 / t2 only in (input, t1)
    shapes = op.shapes
    out = shapes[0] if op.name.endswith("_") else _broadcast_shape(op, shapes)
    inp, t1, t2 = op.args[0], op.arg("tensor1", 1), op.arg("tensor2", 2)
    linear = [_positions(op, [inp, t1])]
    if op.name.startswith("addcmul"):
        linear.append(_positions(op, [inp, t2]))
    return elementwise_signatures(shapes, out, linear), [out]


@rule("zero_", "fill_")
def fill(op):
    # every rank writes the value: P only for zero (the sum of zeros)
    shape = op.shapes[0]
    value = op.arg("value", 1, 0) if op.name == "fill_" else 0
    if len(op.shapes) > 1:  # a one-element tensor value: P with P (the parts add up)
        return elementwise_signatures(op.shapes, shape, [{0, 1}]), [shape]
    zero = _is_number(value) and value == 0
    return elementwise_signatures([shape], shape, [{0}] if zero else []), [shape]


@rule("copy_")
def copy_(op):
    # self takes src's value: the same layout on both sides (src broadcast
    # along the dims it lacks)
    shapes = op.shapes
    return elementwise_signatures(shapes, shapes[0], [{0, 1}]), [shapes[0]]


@rule("zeros_like", "ones_like", "full_like", "empty_like")
def like(op):
    # the result depends only on the shape: a zero tensor may be P, others not
    shape = op.shapes[0]
    zero = op.name == "zeros_like" or (op.name == "full_like" and _is_number(op.arg("fill_value", 1)) and
                                       op.arg("fill_value", 1) == 0)
    sigs = [Signature([S(d)], [S(d)]) for d in range(len(shape)) if shape[d] > 1] + [Signature([B], [B])]
    if zero:
        sigs.append(Signature([P], [P]))
    return sigs, [shape]


@rule("bernoulli", "bernoulli_", "normal_", "uniform_", "random_", "rand_like", "randn_like",
      "randint_like")
def random(op):
    # Each rank samples its own piece, which is a sample of the whole; a
    # broadcast result would differ between ranks, partial sums would add
    # samples up. So only splits (in place on a B or P tensor, dispatch fills
    # a split copy and writes it back to the tensor's layout).
    shape = op.shapes[0]
    sigs = [Signature([S(d)], [S(d)]) for d in range(len(shape)) if shape[d] > 1]
    if not sigs:
        op.fail(f"a random global tensor of shape {list(shape)} cannot be split across ranks, and each rank would "
                "draw a different value of a broadcast one")
    return sigs, [shape]


@rule("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout")
def dropout(op):
    # A mask is drawn per rank. Split inputs get independent masks for
    # disjoint pieces, which is dropout of the whole; a broadcast input would
    # get a different mask on every rank (no longer one value), and partial
    # sums masked differently are not a masked sum. So training mode is
    # split-only (a broadcast input is sliced, which costs nothing).
    shape = op.shapes[0]
    p = op.arg("p", 1, 0.5)
    training = op.arg("training", 2, op.name != "alpha_dropout")
    if not training or p == 0:
        return [Signature([S(d)], [S(d)]) for d in range(len(shape)) if shape[d] > 1] + \
            [Signature([B], [B]), Signature([P], [P])], [shape]
    dims = range(len(shape)) if op.name in ("dropout", "alpha_dropout") else \
        range(len(shape) - {"dropout1d": 1, "dropout2d": 2, "dropout3d": 3}[op.name])
    sigs = [Signature([S(d)], [S(d)]) for d in dims if shape[d] > 1]
    if not sigs:
        op.fail(f"a global input of shape {list(shape)} cannot be split across ranks, and a broadcast one would get "
                "a different random mask on each rank; split it along a dimension of size > 1 (the batch), or "
                "apply dropout to its local tensor")
    return sigs, [shape]


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


# ---------------------------------------------------------------- matmul

def _matmul_signatures(a, b):
    """(..., n, k) @ (..., k, m) with broadcast batch dims, and the 1-D forms
    (a vector is a row for the left operand, a column for the right one)."""
    a2 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
    b2 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
    batch = []
    na, nb = len(a2) - 2, len(b2) - 2
    nbatch = max(na, nb)
    for i in range(nbatch):
        da = a2[i - (nbatch - na)] if i >= nbatch - na else 1
        db = b2[i - (nbatch - nb)] if i >= nbatch - nb else 1
        if da != db and 1 not in (da, db):
            return None
        batch.append(max(da, db) if 1 not in (da, db) else da * db)
    if a2[-1] != b2[-2]:
        return None
    out_full = tuple(batch) + (a2[-2], b2[-1])
    # the output's dims after the vector forms drop theirs
    drop_n, drop_m = len(a) == 1, len(b) == 1
    out = tuple(batch) + (() if drop_n else (a2[-2],)) + (() if drop_m else (b2[-1],))

    def out_dim(full_dim):
        od = full_dim
        if drop_n and full_dim > nbatch:
            od -= 1
        return od

    sigs = []
    for i in range(nbatch):  # batch dims: operands holding the dim split it
        if out_full[i] == 1:
            continue
        ins = []
        for shape, nx, real in ((a2, na, a), (b2, nb, b)):
            j = i - (nbatch - nx)
            ins.append(S(j) if j >= 0 and shape[j] == out_full[i] else B)
        sigs.append(Signature(ins, [S(out_dim(i))]))
    if not drop_n and a2[-2] > 1:  # rows of a
        sigs.append(Signature([S(len(a) - 2), B], [S(out_dim(nbatch))]))
    if not drop_m and b2[-1] > 1:  # columns of b
        sigs.append(Signature([B, S(len(b) - 1)], [S(out_dim(nbatch + 1))]))
    if a2[-1] > 1:  # the contracted dim: each rank's product is a partial sum
        sigs.append(Signature([S(len(a) - 1), S(len(b) - 2 if len(b) > 1 else 0)], [P]))
    sigs += [Signature([P, B], [P]), Signature([B, P], [P]), Signature([B, B], [B])]
    return sigs, out


@rule("matmul", "mm", "bmm", "mv", "dot", "__matmul__", "__rmatmul__")
def matmul(op):
    a, b = op.shapes
    if op.name == "__rmatmul__":  # other @ self, found as (self, other)
        sigs, out = _matmul_or_fail(op, b, a)
        return [Signature(s.inputs[::-1], s.outputs) for s in sigs], [out]
    sigs, out = _matmul_or_fail(op, a, b)
    return sigs, [out]


def _matmul_or_fail(op, a, b):
    if not a or not b:
        op.fail("both arguments need at least 1 dimension")
    found = _matmul_signatures(a, b)
    if found is None:
        op.fail(f"shapes {list(a)} and {list(b)} cannot be multiplied")
    return found


@rule("addmm")
def addmm(op):
    # beta input + alpha m1 @ m2: linear in (input, m1) and in (input, m2)
    inp, m1, m2 = op.shapes
    sigs, out = _matmul_or_fail(op, m1, m2)
    full = []
    for s in sigs:
        o = s.outputs[0]
        if o.is_split():
            j = o.dim - (len(out) - len(inp))
            first = S(j) if j >= 0 and inp[j] == out[o.dim] else B
        else:
            first = o  # P with P, B with B
        full.append(Signature([first, *s.inputs], s.outputs))
    return full, [out]


@rule("linear")
def linear(op):
    x, w = op.shapes[0], op.shapes[1]
    has_bias = len(op.shapes) > 2
    if not x or len(w) not in (1, 2):
        op.fail(f"input {list(x)} and weight {list(w)} cannot be multiplied")
    out = tuple(x[:-1]) + ((w[0],) if len(w) == 2 else ())
    bias = (lambda s: [s]) if has_bias else (lambda s: [])  # noqa: E731
    sigs = [Signature([S(d), B] + bias(B), [S(d)]) for d in range(len(x) - 1) if x[d] > 1]
    if len(w) == 2:
        sigs.append(Signature([B, S(0)] + bias(S(0)), [S(len(out) - 1)]))  # column parallel
        sigs.append(Signature([S(len(x) - 1), S(1)] + bias(P), [P]))       # row parallel
    else:
        sigs.append(Signature([S(len(x) - 1), S(0)] + bias(P), [P]))
    sigs.append(Signature([P, B] + bias(P), [P]))
    sigs.append(Signature([B, P] + bias(P), [P]))
    sigs.append(Signature([B, B] + bias(B), [B]))
    return sigs, [out]


# ---------------------------------------------------------------- shape ops

def _shape_args(op, start=1):
    rest = op.args[start:]
    for key in ("shape", "size", "sizes", "dims"):
        if key in op.kwargs:
            rest = (op.kwargs[key],)
    if len(rest) == 1 and not isinstance(rest[0], int):
        rest = tuple(rest[0])
    if any(isinstance(d, bool) or not isinstance(d, int) for d in rest):
        op.fail(f"sizes must be ints, got {list(rest)}", TypeError)
    return [int(d) for d in rest]


def _infer_reshape(op, shape, target):
    numel = math.prod(shape)
    if target.count(-1) > 1:
        op.fail("only one dimension can be inferred")
    if target.count(-1) == 1:
        known = math.prod(d for d in target if d != -1)
        if known == 0 or numel % known:
            op.fail(f"shape '{list(target)}' is invalid for input of size {numel}")
        target = [numel // known if d == -1 else d for d in target]
    if math.prod(target) != numel or any(d < 0 for d in target):
        op.fail(f"shape '{list(target)}' is invalid for input of size {numel}")
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


def _localize_sizes(fn, args, kwargs, local_out):
    # the local call gets this rank's output shape instead of the logical one
    # (where the call passed it, so that a bad keyword fails as it would locally)
    for key in ("shape", "size", "sizes"):
        if key in kwargs:
            return fn, [args[0]], dict(kwargs, **{key: tuple(local_out[0])})
    return fn, [args[0], tuple(local_out[0])], kwargs


@rule("reshape", "view")
def reshape(op):
    out = _infer_reshape(op, op.shapes[0], _shape_args(op))
    return reshape_signatures(op.shapes[0], out), [out], _localize_sizes


@rule("flatten")
def flatten(op):
    shape = op.shapes[0]
    n = len(shape)
    if n == 0:
        return [Signature([B], [B]), Signature([P], [P])], [(1,)]
    start = _wrap_dim(op, op.arg("start_dim", 1, 0), n)
    end = _wrap_dim(op, op.arg("end_dim", 2, -1), n)
    out = tuple(shape[:start]) + (math.prod(shape[start:end + 1]),) + tuple(shape[end + 1:])
    return reshape_signatures(shape, out), [out]


@rule("squeeze")
def squeeze(op):
    shape = op.shapes[0]
    dim = op.arg("dim", 1)
    n = len(shape)
    if dim is None:
        cand = list(range(n))
    else:
        cand = [_wrap_dim(op, d, n) for d in ([dim] if isinstance(dim, int) else dim)] if n else []
    gone = sorted(d for d in cand if shape[d] == 1)
    out = tuple(s for d, s in enumerate(shape) if d not in gone)
    sigs = [Signature([S(d)], [S(d - sum(1 for g in gone if g < d))]) for d in range(n)
            if d not in gone and shape[d] > 1]

    def localize(fn, args, kwargs, local_out):
        # squeeze exactly the logical size-1 dims: a shard may hold one
        # element of a longer split dim, which must stay
        def squeeze_logical(x):
            for d in reversed(gone):
                x = x.squeeze(d)
            return x if gone else x.view(tuple(x.shape))
        return squeeze_logical, [args[0]], {}

    return sigs + [Signature([B], [B]), Signature([P], [P])], [out], localize


@rule("unsqueeze")
def unsqueeze(op):
    shape = op.shapes[0]
    dim = _wrap_dim(op, op.arg("dim", 1), len(shape) + 1)
    out = tuple(shape[:dim]) + (1,) + tuple(shape[dim:])
    sigs = [Signature([S(d)], [S(d if d < dim else d + 1)]) for d in range(len(shape)) if shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("expand")
def expand(op):
    shape = op.shapes[0]
    sizes = _shape_args(op)
    lead = len(sizes) - len(shape)
    if lead < 0:
        op.fail(f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                f"in the tensor ({len(shape)})")
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            out.append(s)
        else:
            d = shape[i - lead]
            if s == -1:
                s = d
            elif d != 1 and s != d:
                op.fail(f"the expanded size of the tensor ({s}) must match the existing size ({d}) at non-singleton "
                        f"dimension {i}.  Target sizes: {sizes}.  Tensor sizes: {list(shape)}")
            out.append(s)
    out = tuple(out)
    # an expanded dim is a repetition of one value: only an unexpanded one may be split
    sigs = [Signature([S(d)], [S(d + lead)]) for d in range(len(shape)) if shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out], _localize_sizes


@rule("expand_as")
def expand_as(op):
    x, other = op.shapes
    out = _broadcast_shape(op, [x, other])
    if out != tuple(other):
        op.fail(f"cannot expand {list(x)} to {list(other)}")
    lead = len(other) - len(x)
    sigs = []
    for d in range(len(other)):
        if other[d] == 1:
            continue
        j = d - lead
        sigs.append(Signature([S(j) if j >= 0 and x[j] == other[d] else B, S(d)], [S(d)]))
    return sigs + [Signature([B, B], [B]), Signature([P, B], [P])], [tuple(other)]


@rule("repeat", "tile")
def repeat(op):
    shape = op.shapes[0]
    reps = _shape_args(op)
    if op.name == "tile" and len(reps) < len(shape):
        reps = [1] * (len(shape) - len(reps)) + reps
    lead = len(reps) - len(shape)
    if lead < 0:
        op.fail("number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    out = tuple(reps[:lead]) + tuple(s * r for s, r in zip(shape, reps[lead:]))
    # a dim repeated once keeps its pieces
    sigs = [Signature([S(d)], [S(d + lead)]) for d in range(len(shape)) if reps[d + lead] == 1 and shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


def _permutation(op, n):
    name = op.name
    if name in ("t", "T"):
        if name == "t" and n > 2:
            op.fail(f"expects a tensor with <= 2 dimensions, but self is {n}D")
        return list(range(n))[::-1]
    if name == "mT":
        if n < 2:
            op.fail("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
        return list(range(n - 2)) + [n - 1, n - 2]
    if name in ("transpose", "swapaxes", "swapdims"):
        keys = ("dim0", "dim1") if name == "transpose" else ("axis0", "axis1") if name == "swapaxes" else \
            ("dim0", "dim1")
        a = _wrap_dim(op, op.arg(keys[0], 1), n)
        b = _wrap_dim(op, op.arg(keys[1], 2), n)
        perm = list(range(n))
        perm[a], perm[b] = perm[b], perm[a]
        return perm
    if name in ("movedim", "moveaxis"):
        src, dst = op.arg("source", 1), op.arg("destination", 2)
        src = [src] if isinstance(src, int) else list(src)
        dst = [dst] if isinstance(dst, int) else list(dst)
        src = [_wrap_dim(op, d, n) for d in src]
        dst = [_wrap_dim(op, d, n) for d in dst]
        perm = [None] * n
        for s, d in zip(src, dst):
            perm[d] = s
        rest = iter(d for d in range(n) if d not in src)
        return [p if p is not None else next(rest) for p in perm]
    perm = [_wrap_dim(op, p, n) for p in _shape_args(op)]
    if sorted(perm) != list(range(n)):
        op.fail(f"dims {perm} is not a permutation of {n} dims")
    return perm


@rule("transpose", "swapaxes", "swapdims", "permute", "t", "T", "mT", "movedim", "moveaxis")
def permute(op):
    shape = op.shapes[0]
    perm = _permutation(op, len(shape))
    out = tuple(shape[p] for p in perm)
    sigs = [Signature([S(perm[od])], [S(od)]) for od in range(len(perm)) if out[od] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("cat", "concat", "concatenate")
def cat(op):
    shapes = [s for s in op.shapes]
    dim = op.arg("dim", 1, 0)
    n = max(len(s) for s in shapes)
    dim = _wrap_dim(op, dim, n)
    # torch skips 1-D empty tensors in cat
    out = list(next(s for s in shapes if len(s) == n))
    out[dim] = sum(s[dim] for s in shapes if len(s) == n)
    k = len(shapes)
    sigs = [Signature([S(d)] * k, [S(d)]) for d in range(n) if d != dim and out[d] > 1 and
            all(len(s) == n for s in shapes)]
    return sigs + [Signature([B] * k, [B]), Signature([P] * k, [P])], [tuple(out)]


@rule("stack")
def stack(op):
    shapes = op.shapes
    dim = _wrap_dim(op, op.arg("dim", 1, 0), len(shapes[0]) + 1)
    if any(s != shapes[0] for s in shapes):
        op.fail(f"stack expects each tensor to be equal size, but got {[list(s) for s in shapes]}")
    shape = shapes[0]
    out = tuple(shape[:dim]) + (len(shapes),) + tuple(shape[dim:])
    k = len(shapes)
    sigs = [Signature([S(d)] * k, [S(d if d < dim else d + 1)]) for d in range(len(shape)) if shape[d] > 1]
    return sigs + [Signature([B] * k, [B]), Signature([P] * k, [P])], [out]


@rule("narrow")
def narrow(op):
    shape = op.shapes[0]
    dim = _wrap_dim(op, op.arg("dim", 1), len(shape))
    start, length = op.arg("start", 2), op.arg("length", 3)
    if start < 0:
        start += shape[dim]
    if not (0 <= start and length >= 0 and start + length <= shape[dim]):
        op.fail(f"start ({start}) + length ({length}) exceeds dimension size ({shape[dim]}).", IndexError)
    out = list(shape)
    out[dim] = length
    sigs, out = _along(op, shape, [dim], tuple(out), linear=True)
    return sigs, [out]


@rule("select")
def select(op):
    shape = op.shapes[0]
    dim = _wrap_dim(op, op.arg("dim", 1), len(shape))
    index = op.arg("index", 2)
    if not -shape[dim] <= index < shape[dim]:
        op.fail(f"index {index} out of range for tensor of size {list(shape)} at dimension {dim}", IndexError)
    out = tuple(s for d, s in enumerate(shape) if d != dim)
    sigs = [Signature([S(d)], [S(d if d < dim else d - 1)]) for d in range(len(shape)) if d != dim and shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


def _pieces(op, size, how, dim_name):
    if op.name == "chunk":
        chunks = int(how)
        if chunks <= 0:
            op.fail("chunk expects `chunks` to be greater than 0")
        each = -(-size // chunks) if size else 0
        if each == 0:
            return [0] * (1 if size == 0 else chunks)
        return [min(each, size - i) for i in range(0, size, each)]
    if isinstance(how, int):
        if how <= 0 and size:
            op.fail("split_size can only be 0 if dimension size is 0")
        if how == 0:
            return [0]
        return [min(how, size - i) for i in range(0, size, how)] or [0]
    how = list(how)
    if sum(how) != size:
        op.fail(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension "
                f"{dim_name}), but got split_sizes={how}")
    return how


@rule("split", "chunk", "unbind")
def split(op):
    shape = op.shapes[0]
    if op.name == "unbind":
        dim = _wrap_dim(op, op.arg("dim", 1, 0), len(shape))
        out = tuple(s for d, s in enumerate(shape) if d != dim)
        sigs = [Signature([S(d)], [S(d if d < dim else d - 1)]) for d in range(len(shape)) if d != dim and shape[d] > 1]
        return sigs + [Signature([B], [B]), Signature([P], [P])], [out] * shape[dim]
    how = op.arg("chunks" if op.name == "chunk" else "split_size_or_sections", 1)
    if how is None:
        how = op.arg("split_size", 1)
    dim = _wrap_dim(op, op.arg("dim", 2, 0), len(shape))
    outs = []
    for n in _pieces(op, shape[dim], how, dim):
        o = list(shape)
        o[dim] = n
        outs.append(tuple(o))
    sigs, _ = _along(op, shape, [dim], linear=True)
    return sigs, outs


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


@rule("max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
      "adaptive_max_pool1d", "adaptive_max_pool2d")
def pool(op):
    # pooling looks only along the spatial dims: samples and channels may be
    # split; averaging is linear
    x = op.shapes[0]
    op.nonempty = True
    spatial = 2 if op.name.endswith("2d") else 1
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
    q, k, v = shapes[0], shapes[1], shapes[2]
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
