"""Small helpers the converter files share: argument normalisation, dtypes,
and the few node patterns (casts, shapes, additive masks) several ops write."""

import numpy as np

from ._builder import _NP_TO_ONNX

INT_MAX = 2 ** 62  # an open slice end (ONNX clamps it to the dim)


def _pair(v, n=2):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


def _norm_dim(d, ndim):
    return d + ndim if d < 0 else d


def _dims(dim, ndim):
    """A dim argument (int, sequence, None or ()) as a sorted list of axes; None and () mean all."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return list(range(ndim))
    return sorted(_norm_dim(int(d), ndim) for d in _pair(dim, 1))


def _batched(b, input, n, build):
    """Runs ``build`` on an (N, C, *spatial) value: an unbatched (C, *spatial) input gets a
    batch dim of 1 for the ONNX pooling and convolution ops, removed again after."""
    if input.dim() == n + 2:
        return build(b.name(input))
    y = build(b.node("Unsqueeze", [b.name(input), b.ints([0])]))
    return b.node("Squeeze", [y, b.ints([0])])


def dtype_name(t):
    """The numpy name of a monoflow tensor's or dtype's element type ('float32', 'int64', ...)."""
    dt = t.dtype if hasattr(t, "dtype") else t
    return str(dt).replace("monoflow.", "")


def np_dtype(t):
    return np.dtype(dtype_name(t))


def onnx_type(t):
    return _NP_TO_ONNX[dtype_name(t)]


def is_tensor(v):
    from .._tensor import Tensor
    return isinstance(v, Tensor)


def as_type(b, v, dtype):
    """The value name of a tensor or Python number as element type ``dtype`` (a monoflow dtype):
    a scalar becomes a constant of that type, a tensor of another type gets a Cast."""
    if not is_tensor(v):
        return b.const(np.array(v, dtype=np_dtype(dtype)), "scalar")
    name = b.name(v)
    return name if dtype_name(v) == dtype_name(dtype) else b.node("Cast", [name], to=onnx_type(dtype))


def promoted(x, y):
    """The dtype torch's type promotion gives an op on x and y (tensors or numbers)."""
    from ..ops_extra_names import result_type
    return result_type(x, y)


def _as_int64(b, t):
    name = b.name(t)
    return name if dtype_name(t) == "int64" else b.node("Cast", [name], to=7)


def as_bool(b, t):
    name = b.name(t)
    return name if dtype_name(t) == "bool" else b.node("Cast", [name], to=9)


def additive_mask(b, mask, dtype, true_is_masked=True):
    """A boolean mask as an additive float mask (-inf where masked, 0 elsewhere);
    a float mask as itself."""
    if dtype_name(mask) != "bool":
        return as_type(b, mask, dtype)
    ninf = b.const(np.array(-np.inf, np_dtype(dtype)), "ninf")
    zero = b.const(np.array(0, np_dtype(dtype)), "zero")
    pair = [ninf, zero] if true_is_masked else [zero, ninf]
    return b.node("Where", [b.name(mask)] + pair)


def reduce(b, op, x, axes, keepdims):
    """A Reduce* node over ``axes`` of the value named ``x``: axes are an input from opset 18
    (ReduceSum: 13), an attribute before."""
    if op == "ReduceSum" or b.opset >= 18:
        return b.node(op, [x, b.ints(axes)], keepdims=int(bool(keepdims)))
    return b.node(op, [x], axes=list(axes), keepdims=int(bool(keepdims)))
