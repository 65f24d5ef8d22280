"""Converters of the tensor functions and methods: shapes and indexing, casts,
arithmetic and elementwise math, comparisons and logic, where/clamp/masked_fill,
and reductions (sum/mean/max/min/amax/argmax/prod/logsumexp/norm/var/std)."""

import math

import numpy as np

from ._common import (INT_MAX, _as_int64, _dims, _norm_dim, _pair, as_bool, as_type, dtype_name, is_tensor,
                      np_dtype, onnx_type, promoted, reduce)
from ._errors import OnnxExporterError


# ---- shapes and indexing

def identity(b, out, input, *args, **kwargs):
    return b.node("Identity", [b.name(input)])


def _reshape_to(b, input, shape):
    # a dim equal to the input's at the same position is written 0 ("copy"):
    # a batch dim read by x.size(0) then stays dynamic in the exported graph
    in_shape = list(input.shape)
    dims = [0 if i < len(in_shape) and d == in_shape[i] and d != 0 else int(d) for i, d in enumerate(shape)]
    return b.node("Reshape", [b.name(input), b.ints(dims)])


def _sizes(sizes):
    """A shape given as varargs or as one sequence (torch accepts both), as a list of ints."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) or len(sizes) == 1 and hasattr(sizes[0], "__len__"):
        return [int(s) for s in sizes[0]]
    return [int(s) for s in sizes]


def view(b, out, input, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)) and not hasattr(shape[0], "__len__"):
        raise OnnxExporterError("view: a dtype view is not supported by the ONNX exporter")
    return _reshape_to(b, input, list(out.shape) if -1 not in _sizes(shape) else _sizes(shape))


def reshape(b, out, input, *shape):
    return _reshape_to(b, input, _sizes(shape))


def flatten(b, out, input, start_dim=0, end_dim=-1):
    nd = input.dim()
    s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
    if nd and e == nd - 1:
        y = b.node("Flatten", [b.name(input)], axis=s)
        return y if s > 0 else b.node("Reshape", [y, b.ints([-1])])
    return _reshape_to(b, input, list(out.shape))


def permute(b, out, input, *dims):
    dims = _sizes(dims)
    return b.node("Transpose", [b.name(input)], perm=[_norm_dim(d, input.dim()) for d in dims])


def transpose(b, out, input, dim0, dim1):
    perm = list(range(input.dim()))
    d0, d1 = _norm_dim(dim0, input.dim()), _norm_dim(dim1, input.dim())
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return b.node("Transpose", [b.name(input)], perm=perm)


def t(b, out, input):
    return b.node("Transpose", [b.name(input)], perm=list(range(input.dim()))[::-1])


def cat(b, out, tensors, dim=0, **kwargs):
    nd = tensors[0].dim()
    return b.node("Concat", [b.name(x) for x in tensors], axis=_norm_dim(dim, nd))


def squeeze(b, out, input, dim=None):
    if dim is None:
        dims = [i for i, s in enumerate(input.shape) if s == 1]
    else:
        dims = [_norm_dim(d, input.dim()) for d in _pair(dim, 1) if input.shape[d] == 1]
    return b.node("Squeeze", [b.name(input), b.ints(dims)]) if dims else identity(b, out, input)


def unsqueeze(b, out, input, dim):
    return b.node("Unsqueeze", [b.name(input), b.ints([_norm_dim(dim, input.dim() + 1)])])


def gather(b, out, input, dim, index, **kwargs):
    return b.node("GatherElements", [b.name(input), _as_int64(b, index)], axis=_norm_dim(dim, input.dim()))


def getitem(b, out, input, key):
    """Basic indexing (ints, slices with a positive step, None, ...) as one Slice, then a Squeeze
    of the int axes, a Gather for one integer tensor index, and Unsqueezes for the Nones."""
    from ._common import is_tensor
    key = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis for k in key):
        i = key.index(Ellipsis)
        used = sum(1 for k in key if k is not None and k is not Ellipsis)
        key = key[:i] + (slice(None),) * (input.dim() - used) + key[i + 1:]
    starts, ends, axes, steps, squeeze_axes, nones = [], [], [], [], [], []
    gather = None  # (input axis, index tensor)
    axis = out_pos = 0
    for k in key:
        if k is None:
            nones.append(out_pos)
            out_pos += 1
            continue
        if isinstance(k, slice):
            if k != slice(None):
                step = 1 if k.step is None else int(k.step)
                if step <= 0:
                    raise OnnxExporterError("__getitem__: a non-positive slice step is not supported")
                starts.append(0 if k.start is None else int(k.start))
                ends.append(INT_MAX if k.stop is None else int(k.stop))
                axes.append(axis)
                steps.append(step)
            out_pos += 1
        elif isinstance(k, int) and not isinstance(k, bool):
            starts.append(k)
            ends.append(k + 1 if k != -1 else INT_MAX)
            axes.append(axis)
            steps.append(1)
            squeeze_axes.append(axis)
        elif is_tensor(k) and dtype_name(k) in ("int64", "int32") and gather is None:
            gather = (axis, k)
            out_pos += k.dim()
        else:
            raise OnnxExporterError(f"__getitem__: index {type(k).__name__} is not supported by the ONNX "
                                    "exporter (ints, slices, None and one integer tensor)")
        axis += 1
    y = b.name(input)
    if axes:
        y = b.node("Slice", [y, b.ints(starts), b.ints(ends), b.ints(axes), b.ints(steps)])
    if squeeze_axes:
        y = b.node("Squeeze", [y, b.ints(squeeze_axes)])
    if gather is not None:
        g_axis = gather[0] - sum(1 for a in squeeze_axes if a < gather[0])
        y = b.node("Gather", [y, _as_int64(b, gather[1])], axis=g_axis)
    if nones:
        y = b.node("Unsqueeze", [y, b.ints(nones)])
    return y if y != b.name(input) else identity(b, out, input)


def T(b, out, input):
    return b.node("Transpose", [b.name(input)], perm=list(range(input.dim()))[::-1])


def mT(b, out, input):
    return transpose(b, out, input, -2, -1)


def cast(b, out, input, *args, **kwargs):
    return b.node("Cast", [b.name(input)], to=onnx_type(out))


def _split_like(b, out, input, dim):
    # the pieces' sizes are read from the results: chunk and split share one node
    d = _norm_dim(dim, input.dim())
    sizes = [o.shape[d] for o in out]
    names = b.node("Split", [b.name(input), b.ints(sizes)], n_out=len(sizes), axis=d)
    return names if isinstance(names, list) else [names]


def chunk(b, out, input, chunks, dim=0):
    return _split_like(b, out, input, dim)


def split(b, out, input, split_size_or_sections, dim=0):
    return _split_like(b, out, input, dim)


def expand(b, out, input, *sizes):
    # a size equal to the input's (or -1) is written 1, which Expand broadcasts to the input's
    # own size: a batch dim stays dynamic in the exported graph
    sizes = _sizes(sizes)
    lead = len(sizes) - input.dim()
    dims = []
    for i, s in enumerate(sizes):
        j = i - lead
        if j >= 0 and (s == -1 or s == input.shape[j]):
            dims.append(1)
        else:
            dims.append(s)
    return b.node("Expand", [b.name(input), b.ints(dims)])


def expand_as(b, out, input, other):
    return b.node("Expand", [b.name(input), b.node("Shape", [b.name(other)])])


def _tile(b, input, reps):
    x = b.name(input)
    if len(reps) > input.dim():  # new leading dims of size 1, then tiled
        x = b.node("Unsqueeze", [x, b.ints(range(len(reps) - input.dim()))])
    elif len(reps) < input.dim():
        reps = [1] * (input.dim() - len(reps)) + reps
    return b.node("Tile", [x, b.ints(reps)])


def repeat(b, out, input, *sizes):
    return _tile(b, input, _sizes(sizes))


def tile(b, out, input, dims):
    return _tile(b, input, _sizes((dims,)))


def stack(b, out, tensors, dim=0, **kwargs):
    d = _norm_dim(dim, tensors[0].dim() + 1)
    axes = b.ints([d])
    return b.node("Concat", [b.node("Unsqueeze", [as_type(b, t, out.dtype), axes]) for t in tensors], axis=d)


def narrow(b, out, input, dim, start, length):
    if is_tensor(start):
        start = int(start)
    d = _norm_dim(dim, input.dim())
    start = start + input.shape[d] if start < 0 else start
    return b.node("Slice", [b.name(input), b.ints([start]), b.ints([start + int(length)]), b.ints([d])])


def select(b, out, input, dim, index):
    idx = b.const(np.array(int(index), np.int64), "index")
    return b.node("Gather", [b.name(input), idx], axis=_norm_dim(dim, input.dim()))


def unbind(b, out, input, dim=0):
    d = _norm_dim(dim, input.dim())
    n = input.shape[d]
    parts = b.node("Split", [b.name(input), b.ints([1] * n)], n_out=n, axis=d)
    parts = parts if isinstance(parts, list) else [parts]
    return [b.node("Squeeze", [p, b.ints([d])]) for p in parts]


def index_select(b, out, input, dim, index):
    return b.node("Gather", [b.name(input), _as_int64(b, index)], axis=_norm_dim(dim, input.dim()))


def flip(b, out, input, *dims):
    axes = _dims(_sizes(dims), input.dim())
    n = len(axes)
    return b.node("Slice", [b.name(input), b.ints([-1] * n), b.ints([-INT_MAX] * n), b.ints(axes), b.ints([-1] * n)])


def _like(fill):
    def conv(b, out, input, *args, **kwargs):
        # the input's shape read in the graph: a dynamic batch dim carries over
        value = fill if fill is not None else (args[0] if args else kwargs["fill_value"])
        if is_tensor(value):
            value = value.item()
        from onnx import numpy_helper
        t = numpy_helper.from_array(np.array([value], np_dtype(out)))
        return b.node("ConstantOfShape", [b.node("Shape", [b.name(input)])], value=t)
    return conv


# ---- arithmetic and elementwise math

def _binary(op, reverse=False):
    def conv(b, out, input, other, *args, alpha=1, **kwargs):
        if args or kwargs.get("rounding_mode") is not None:
            raise OnnxExporterError(f"{op.lower()}: extra arguments are not supported by the ONNX exporter")
        x, y = (other, input) if reverse else (input, other)
        # both operands in the result's type: an int tensor plus a float, an int tensor divided
        xn, yn = as_type(b, x, out.dtype), as_type(b, y, out.dtype)
        if alpha != 1:
            yn = b.node("Mul", [yn, as_type(b, alpha, out.dtype)])
        return b.node(op, [xn, yn])
    return conv


def pow_(b, out, input, exponent):
    return b.node("Pow", [b.name(input), b.name(exponent, input)])


def neg(b, out, input):
    return b.node("Neg", [b.name(input)])


def matmul(b, out, input, other):
    return b.node("MatMul", [b.name(input), b.name(other)])


def _unary(op, result_type=False):
    def conv(b, out, input, *args, **kwargs):
        # an int input of a float op (sin of an int tensor) is computed in the result's float type
        x = as_type(b, input, out.dtype) if result_type else b.name(input)
        return b.node(op, [x])
    return conv


def _composed(build):
    """A unary op written as a few nodes from the input in the result's type."""
    def conv(b, out, input, *args, **kwargs):
        return build(b, as_type(b, input, out.dtype), lambda v: as_type(b, v, out.dtype))
    return conv


_UNARY = {"log": "Log", "erf": "Erf", "reciprocal": "Reciprocal", "sin": "Sin", "cos": "Cos", "tan": "Tan",
          "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh", "asinh": "Asinh",
          "acosh": "Acosh", "atanh": "Atanh", "floor": "Floor", "ceil": "Ceil", "round": "Round",
          "exp": "Exp", "sqrt": "Sqrt", "sigmoid": "Sigmoid", "tanh": "Tanh"}

_COMPOSED = {
    "rsqrt": lambda b, x, c: b.node("Reciprocal", [b.node("Sqrt", [x])]),
    "log1p": lambda b, x, c: b.node("Log", [b.node("Add", [x, c(1.0)])]),
    "expm1": lambda b, x, c: b.node("Sub", [b.node("Exp", [x]), c(1.0)]),
    "log2": lambda b, x, c: b.node("Div", [b.node("Log", [x]), c(math.log(2.0))]),
    "log10": lambda b, x, c: b.node("Div", [b.node("Log", [x]), c(math.log(10.0))]),
    "exp2": lambda b, x, c: b.node("Pow", [c(2.0), x]),
    "square": lambda b, x, c: b.node("Mul", [x, x]),
}


def sign(b, out, input):
    return b.node("Sign", [b.name(input)])


def remainder(b, out, input, other):
    # torch's remainder takes the divisor's sign: x - floor(x / y) * y
    x, y = as_type(b, input, out.dtype), as_type(b, other, out.dtype)
    if dtype_name(out).startswith("int"):
        return b.node("Mod", [x, y], fmod=0)
    return b.node("Sub", [x, b.node("Mul", [b.node("Floor", [b.node("Div", [x, y])]), y])])


def rpow(b, out, input, other):
    return b.node("Pow", [as_type(b, other, out.dtype), as_type(b, input, out.dtype)])


# ---- comparisons and logic

def _compare(op, negate=False):
    def conv(b, out, input, other, *args, **kwargs):
        dt = promoted(input, other)
        y = b.node(op, [as_type(b, input, dt), as_type(b, other, dt)])
        return b.node("Not", [y]) if negate else y
    return conv


def _logical(op):
    def conv(b, out, input, other=None, *args, **kwargs):
        if op == "Not":
            return b.node("Not", [as_bool(b, input)])
        return b.node(op, [as_type(b, input, out.dtype), as_type(b, other, out.dtype)])
    return conv


def _bitwise(op):
    # on bool tensors (masks) &, |, ^, ~ are the logical ops; on ints they are bit ops ONNX has from opset 18
    def conv(b, out, input, other=None, *args, **kwargs):
        if dtype_name(out) != "bool":
            raise OnnxExporterError(f"bitwise {op.lower()} of integer tensors is not supported by the ONNX exporter "
                                    "(only of bool tensors)")
        if op == "Not":
            return b.node("Not", [b.name(input)])
        return b.node(op, [as_type(b, input, out.dtype), as_type(b, other, out.dtype)])
    return conv


def isnan(b, out, input):
    return b.node("IsNaN", [b.name(input)])


def isinf(b, out, input):
    return b.node("IsInf", [b.name(input)])


def where(b, out, condition, input=None, other=None):
    if input is None or other is None:
        raise OnnxExporterError("where(condition) (the indices of the true elements: a data-dependent shape) is not "
                                "supported by the ONNX exporter")
    return b.node("Where", [as_bool(b, condition), as_type(b, input, out.dtype), as_type(b, other, out.dtype)])


def masked_fill(b, out, input, mask, value):
    return b.node("Where", [as_bool(b, mask), as_type(b, value, out.dtype), b.name(input)])


def clamp(b, out, input, min=None, max=None):  # noqa: A002
    x = b.name(input)
    if any(is_tensor(v) and v.dim() > 0 for v in (min, max)):  # elementwise bounds: Max then Min
        if min is not None:
            x = b.node("Max", [x, as_type(b, min, out.dtype)])
        if max is not None:
            x = b.node("Min", [x, as_type(b, max, out.dtype)])
        return x
    if min is None and max is None:
        raise OnnxExporterError("clamp: at least one of min and max must be given")
    lo = as_type(b, min, out.dtype) if min is not None else ""
    hi = as_type(b, max, out.dtype) if max is not None else ""
    return b.node("Clip", [x, lo, hi] if hi else [x, lo])


def clamp_min(b, out, input, min):  # noqa: A002
    return clamp(b, out, input, min, None)


def clamp_max(b, out, input, max):  # noqa: A002
    return clamp(b, out, input, None, max)


def _maximum(op):
    def conv(b, out, input, other):
        return b.node(op, [as_type(b, input, out.dtype), as_type(b, other, out.dtype)])
    return conv


# ---- reductions

def _reduce(op):
    def conv(b, out, input, dim=None, keepdim=False, *args, dtype=None, **kwargs):
        if args:
            raise OnnxExporterError(f"{op}: extra arguments are not supported by the ONNX exporter")
        # sum of a bool or int tensor, or dtype=: reduced in the result's type, as torch does
        return reduce(b, op, as_type(b, input, out.dtype), _dims(dim, input.dim()), keepdim)
    return conv


def _max_min(kind):
    red, arg, elem = ("ReduceMax", "ArgMax", "Max") if kind == "max" else ("ReduceMin", "ArgMin", "Min")

    def conv(b, out, input, dim=None, keepdim=False, *args, **kwargs):
        if is_tensor(dim):  # max(x, y): elementwise
            return b.node(elem, [as_type(b, input, out.dtype), as_type(b, dim, out.dtype)])
        x = b.name(input)
        if dim is None:
            return reduce(b, red, x, list(range(input.dim())), False)
        d = _norm_dim(int(dim), input.dim())
        values = reduce(b, red, x, [d], keepdim)
        return [values, b.node(arg, [x], axis=d, keepdims=int(bool(keepdim)))]
    return conv


def _amax(op):
    def conv(b, out, input, dim=(), keepdim=False):
        return reduce(b, op, b.name(input), _dims(dim, input.dim()), keepdim)
    return conv


def _argmax(op):
    def conv(b, out, input, dim=None, keepdim=False):
        if dim is None:  # over the flattened input
            flat = b.node("Reshape", [b.name(input), b.ints([-1])])
            y = b.node(op, [flat], axis=0, keepdims=0)
            return b.node("Reshape", [y, b.ints([1] * input.dim())]) if keepdim else y
        return b.node(op, [b.name(input)], axis=_norm_dim(int(dim), input.dim()), keepdims=int(bool(keepdim)))
    return conv


def prod(b, out, input, dim=None, keepdim=False, *, dtype=None):
    return reduce(b, "ReduceProd", as_type(b, input, out.dtype), _dims(dim, input.dim()), keepdim)


def logsumexp(b, out, input, dim, keepdim=False):
    return reduce(b, "ReduceLogSumExp", b.name(input), _dims(dim, input.dim()), keepdim)


def norm(b, out, input, p="fro", dim=None, keepdim=False, dtype=None):
    axes = _dims(dim, input.dim())
    if p in ("fro", 2, 2.0):
        return reduce(b, "ReduceL2", b.name(input), axes, keepdim)
    if p in (1, 1.0):
        return reduce(b, "ReduceL1", b.name(input), axes, keepdim)
    raise OnnxExporterError(f"norm: p={p!r} is not supported by the ONNX exporter (p=2, 'fro' or 1)")


def _count(b, input, axes):
    """The number of elements over ``axes`` as a float value, read from the input's shape in the
    graph (a reduction over a dynamic batch dim divides by the batch's own size)."""
    shape = b.node("Shape", [b.name(input)])
    sizes = b.node("Gather", [shape, b.ints(axes)], axis=0)
    n = reduce(b, "ReduceProd", sizes, [0], False)
    return b.node("Cast", [n], to=onnx_type(input))


def _var(b, input, dim, unbiased, keepdim, correction):
    if correction is None:
        correction = 0 if unbiased is False else 1
    axes = _dims(dim, input.dim())
    x = b.name(input)
    centred = b.node("Sub", [x, reduce(b, "ReduceMean", x, axes, True)])
    ss = reduce(b, "ReduceSum", b.node("Mul", [centred, centred]), axes, keepdim)
    n = _count(b, input, axes)
    if correction:
        n = b.node("Sub", [n, as_type(b, float(correction), input.dtype)])
    return b.node("Div", [ss, n])


def _var_args(dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):  # var(x, False): torch's (input, unbiased) form
        dim, unbiased = None, dim
    return dim, unbiased, keepdim, correction


def var(b, out, input, *args, **kwargs):
    return _var(b, input, *_var_args(*args, **kwargs))


def std(b, out, input, *args, **kwargs):
    return b.node("Sqrt", [_var(b, input, *_var_args(*args, **kwargs))])


def var_mean(b, out, input, *args, **kwargs):
    dim, unbiased, keepdim, correction = _var_args(*args, **kwargs)
    return [_var(b, input, dim, unbiased, keepdim, correction),
            reduce(b, "ReduceMean", b.name(input), _dims(dim, input.dim()), keepdim)]


def std_mean(b, out, input, *args, **kwargs):
    v, m = var_mean(b, out, input, *args, **kwargs)
    return [b.node("Sqrt", [v]), m]




FUNCTIONS = {
    # shapes and indexing
    "view": view, "reshape": reshape, "flatten": flatten, "permute": permute, "transpose": transpose,
    "t": t, "T": T, "mT": mT, "cat": cat, "concat": cat, "concatenate": cat, "squeeze": squeeze,
    "unsqueeze": unsqueeze, "gather": gather, "__getitem__": getitem, "chunk": chunk, "split": split,
    "expand": expand, "expand_as": expand_as, "repeat": repeat, "tile": tile, "stack": stack,
    "narrow": narrow, "select": select, "unbind": unbind, "index_select": index_select, "flip": flip,
    "contiguous": identity, "clone": identity, "detach": identity,
    "zeros_like": _like(0), "ones_like": _like(1), "full_like": _like(None),
    # casts
    "float": cast, "double": cast, "half": cast, "long": cast, "int": cast, "to": cast, "type_as": cast,
    # arithmetic; in place ops rebind the tensor's name to the new value (no aliasing views are tracked)
    "add": _binary("Add"), "sub": _binary("Sub"), "mul": _binary("Mul"), "div": _binary("Div"),
    "__add__": _binary("Add"), "__radd__": _binary("Add", True), "__sub__": _binary("Sub"),
    "__rsub__": _binary("Sub", True), "__mul__": _binary("Mul"), "__rmul__": _binary("Mul", True),
    "__truediv__": _binary("Div"), "__rtruediv__": _binary("Div", True),
    "__iadd__": _binary("Add"), "__isub__": _binary("Sub"), "__imul__": _binary("Mul"),
    "__itruediv__": _binary("Div"), "add_": _binary("Add"), "sub_": _binary("Sub"),
    "mul_": _binary("Mul"), "div_": _binary("Div"),
    "matmul": matmul, "mm": matmul, "bmm": matmul, "__matmul__": matmul, "neg": neg, "__neg__": neg,
    "pow": pow_, "__pow__": pow_, "__rpow__": rpow, "abs": _unary("Abs"), "sign": sign,
    "remainder": remainder, "__mod__": remainder, "maximum": _maximum("Max"), "minimum": _maximum("Min"),
    # comparisons and logic
    "eq": _compare("Equal"), "ne": _compare("Equal", True), "lt": _compare("Less"), "le": _compare("LessOrEqual"),
    "gt": _compare("Greater"), "ge": _compare("GreaterOrEqual"), "greater": _compare("Greater"),
    "less": _compare("Less"), "greater_equal": _compare("GreaterOrEqual"), "less_equal": _compare("LessOrEqual"),
    "not_equal": _compare("Equal", True),
    "__eq__": _compare("Equal"), "__ne__": _compare("Equal", True), "__lt__": _compare("Less"),
    "__le__": _compare("LessOrEqual"), "__gt__": _compare("Greater"), "__ge__": _compare("GreaterOrEqual"),
    "logical_not": _logical("Not"), "logical_and": _logical("And"), "logical_or": _logical("Or"),
    "logical_xor": _logical("Xor"), "__and__": _bitwise("And"), "__or__": _bitwise("Or"),
    "__xor__": _bitwise("Xor"), "__invert__": _bitwise("Not"), "bitwise_not": _bitwise("Not"),
    "isnan": isnan, "isinf": isinf,
    "where": where, "masked_fill": masked_fill, "masked_fill_": masked_fill, "clamp": clamp, "clip": clamp,
    "clamp_": clamp, "clip_": clamp, "clamp_min": clamp_min, "clamp_max": clamp_max,
    # reductions
    "mean": _reduce("ReduceMean"), "sum": _reduce("ReduceSum"),
    "max": _max_min("max"), "min": _max_min("min"), "amax": _amax("ReduceMax"), "amin": _amax("ReduceMin"),
    "argmax": _argmax("ArgMax"), "argmin": _argmax("ArgMin"), "prod": prod, "logsumexp": logsumexp,
    "norm": norm, "var": var, "std": std, "var_mean": var_mean, "std_mean": std_mean,
}
# elementwise math, each with its in-place form (x.exp_())
for _name, _op in _UNARY.items():
    FUNCTIONS[_name] = FUNCTIONS[_name + "_"] = _unary(_op, result_type=True)
for _name, _build in _COMPOSED.items():
    FUNCTIONS[_name] = FUNCTIONS[_name + "_"] = _composed(_build)
