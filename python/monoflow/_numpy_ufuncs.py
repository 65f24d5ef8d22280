"""NumPy ufuncs applied to monoflow tensors (``Tensor.__array_ufunc__``; Note [NumPy operands] in _tensor.py)."""
import operator

import numpy as np

from monoflow import _creation
from monoflow._tensor import Tensor

# ufunc name -> monoflow function name (a twin computing the same values)
_TWINS = {
    "add": "add", "subtract": "sub", "multiply": "mul", "true_divide": "div", "divide": "div",
    "floor_divide": "floor_divide", "remainder": "remainder", "power": "pow", "float_power": "float_power",
    "equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt", "greater_equal": "ge",
    "maximum": "maximum", "minimum": "minimum", "fmax": "fmax", "fmin": "fmin", "fmod": "fmod",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift", "arctan2": "atan2",
    "hypot": "hypot", "copysign": "copysign", "nextafter": "nextafter", "logaddexp": "logaddexp",
    "logaddexp2": "logaddexp2", "heaviside": "heaviside", "ldexp": "ldexp",
    "negative": "neg", "positive": "positive", "absolute": "abs", "sign": "sign", "exp": "exp", "exp2": "exp2",
    "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt",
    "square": "square", "reciprocal": "reciprocal", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin",
    "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "round",
    "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "signbit": "signbit", "logical_not": "logical_not",
    "invert": "bitwise_not", "deg2rad": "deg2rad", "rad2deg": "rad2deg",
}


# ufunc name -> the Python operator it stands for in `numpy_scalar op tensor`
_OPERATORS = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "true_divide": operator.truediv,
    "divide": operator.truediv, "floor_divide": operator.floordiv, "remainder": operator.mod,
    "power": operator.pow, "equal": operator.eq, "not_equal": operator.ne, "less": operator.lt,
    "less_equal": operator.le, "greater": operator.gt, "greater_equal": operator.ge,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
    "left_shift": operator.lshift, "right_shift": operator.rshift,
}


def twin(ufunc_name):
    """The monoflow function computing what NumPy's ufunc `ufunc_name` computes, or None (see _TWINS)."""
    import monoflow  # the public namespace itself: the twins are named there, not in one sibling module

    name = _TWINS.get(ufunc_name)
    return getattr(monoflow, name, None) if name is not None else None


def _as_tensor_operand(v):
    if isinstance(v, Tensor):
        return v
    if isinstance(v, np.generic):  # a NumPy scalar is a Python number to the op (as torch treats it)
        return v.item()
    if isinstance(v, np.ndarray):
        return _creation.from_numpy(np.asarray(v, order="C")) if v.dtype != object else _creation.tensor(v.tolist())
    return v


def _is_scalar(v):
    # NumPy hands a scalar operand (`np.uint64(2) == t`) to the ufunc as a 0-d array
    return isinstance(v, np.generic) or (isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype != object)


def _as_array(v):
    return v.numpy() if isinstance(v, Tensor) else v


def array_ufunc(ufunc, method, inputs, kwargs):
    op = _OPERATORS.get(ufunc.__name__)
    if (method == "__call__" and not kwargs and op is not None and len(inputs) == 2
            and any(_is_scalar(v) for v in inputs) and any(isinstance(v, Tensor) for v in inputs)):
        # `np.float32(2) - t`, `np.complex128(1j) < t`: the scalar as the Python number it holds, through the
        # tensor's own (reflected) operator, so it promotes and errs as that number does. (The twin below
        # would make it a 0-d tensor, and on an error NumPy's answer, complex ordering say, would stand.)
        return op(*[v.item() if _is_scalar(v) else v for v in inputs])
    fn = twin(ufunc.__name__)
    if method == "__call__" and not kwargs and fn is not None:
        args = [_as_tensor_operand(v) for v in inputs]
        if not isinstance(args[0], Tensor):  # `array op tensor`: the first operand as a tensor too
            args[0] = _creation.tensor(args[0], device=next(a.device for a in args if isinstance(a, Tensor)))
        try:
            return fn(*args)
        except (TypeError, NotImplementedError):
            pass  # a dtype the twin does not take: NumPy's answer below
    arrays = [_as_array(v) for v in inputs]
    if "out" in kwargs:
        kwargs["out"] = tuple(_as_array(v) for v in kwargs["out"])
    result = getattr(ufunc, method)(*arrays, **kwargs)
    if method == "__call__" and "out" not in kwargs:  # torch's __array_wrap__: the result as a tensor
        if isinstance(result, tuple):
            return tuple(_creation.from_numpy(np.asarray(r, order="C")) if isinstance(r, np.ndarray) else r
                         for r in result)
        if isinstance(result, np.ndarray):
            return _creation.from_numpy(np.asarray(result, order="C"))
    return result
