"""Elementwise ops: unary, binary with broadcasting, where/masked_fill/lerp,
fills, casts, random fills and dropout."""
from monoflow import _C, _dtypes
from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S
from monoflow._global.signatures.base import (  # noqa: F401
    Signature, _broadcast_shape, _is_number, _is_tensor, elementwise_signatures, rule, with_inplace,
)


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
    named = {"float": _dtypes.float32, "double": _dtypes.float64, "half": _dtypes.float16,
             "bfloat16": _dtypes.bfloat16, "int": _dtypes.int32, "long": _dtypes.int64, "short": _dtypes.int16,
             "byte": _dtypes.uint8, "char": _dtypes.int8, "bool": _dtypes.bool_}
    if op.name in named:
        return named[op.name]
    if op.name == "cpu" and op.tensors[0].placement.type != "cpu":
        op.fail(f"a global tensor on {op.tensors[0].placement!r} cannot move to the CPU; move it with "
                ".to_global(placement=...)")
    found = op.kwargs.get("dtype")
    for a in op.args[1:]:
        if isinstance(a, _C.dtype):
            found = a
        elif isinstance(a, str) and op.name == "type":
            found = a
        elif isinstance(a, (str, _C.device)) or (isinstance(a, int) and not isinstance(a, bool)):
            dev = _C.device(a) if not isinstance(a, _C.device) else a
            if dev.type != op.tensors[0].placement.type:
                op.fail(f"a global tensor on {op.tensors[0].placement!r} cannot move to device '{dev}'; move it "
                        "with .to_global(placement=...)")
    dev = op.kwargs.get("device")
    if dev is not None and _C.device(dev).type != op.tensors[0].placement.type:
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
    # a number in any position: flow.add(2, x) has it first
    scalars = [a for a in list(op.args) + [op.kwargs.get("input"), op.kwargs.get("other")] if _is_number(a)]
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
            # where(condition) is nonzero(condition, as_tuple=True): a data-dependent
            # shape that only the whole condition gives
            return [Signature([B], [B])], [lambda local: tuple(local)]
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
