"""The math ops: functions (monoflow.<name>) and the matching Tensor methods.

Elementwise functions, activations, pow, atan2, remainder/fmod, logical and
bitwise ops, clamp, where and lerp, with PyTorch's semantics and type
promotion. A Python number operand promotes like PyTorch's wrapped numbers
(an int32 tensor ** 2.5 is float32, a float16 tensor % 3.0 stays float16).
Every op with a floating result is differentiable (formulas in
core/src/ops_math_grad.cc, with torch's conventions at kinks and singular
points); bool and integer results never are.
"""
from monoflow import _C

# Unary ops: integer and bool inputs of the floating functions compute in the
# default float dtype; the others keep the dtype, or give bool.
_FLOATING = ("exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan",
             "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc",
             "reciprocal")
_KEEPING = ("abs", "sign", "relu", "floor", "ceil", "trunc", "square", "bitwise_not", "logical_not")
_TESTS = ("isnan", "isinf", "isfinite")  # bool-valued, no in-place form
_BINARY = ("pow", "atan2", "remainder", "fmod", "logical_and", "logical_or", "logical_xor", "bitwise_and",
           "bitwise_or", "bitwise_xor")
# torch's other names for some of them
_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
            "arctanh": "atanh", "absolute": "abs", "fix": "trunc", "arctan2": "atan2"}

_OP = {name: _C.math_op(name) for name in _FLOATING + _KEEPING + _TESTS + _BINARY + ("round", "silu")}

__all__ = sorted(_FLOATING + _KEEPING + _TESTS + _BINARY + tuple(_ALIASES) + (
    "round", "gelu", "silu", "softplus", "clamp", "clamp_min", "clamp_max", "clip", "where", "lerp", "selu",
    "celu", "addcmul", "addcdiv"))


# ---------------------------------------------------------------- function factories

def _unary_function(name):
    op, call = _OP[name], _C.math_unary

    def fn(input):
        return call(op, input)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input) -> Tensor, elementwise (as torch.{name})."
    return fn


def _unary_method(name):
    op, call = _OP[name], _C.math_unary

    def method(self):
        return call(op, self)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    return method


def _unary_inplace(name):
    op, call = _OP[name], _C.math_unary_

    def method(self):
        return call(op, self)

    method.__name__ = name + "_"
    method.__qualname__ = f"Tensor.{name}_"
    return method


def _operand_error(op, name, pos, value):
    return TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor or Number, not {type(value).__name__}")


def _binary(op, name, a, b):
    r = _C.math_binary(op, a, b)
    if r is NotImplemented:
        if isinstance(a, _C.TensorBase) or (isinstance(a, (int, float)) and isinstance(b, _C.TensorBase)):
            raise _operand_error(name, "other", 2, b)
        raise _operand_error(name, "input", 1, a)
    return r


def _binary_inplace(op, name, self, other):
    r = _C.math_binary_(op, self, other)
    if r is NotImplemented:
        raise _operand_error(name + "_", "other", 1, other)
    return r


def _binary_function(name):
    op = _OP[name]

    def fn(input, other):
        return _binary(op, name, input, other)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input, other) -> Tensor, broadcasting; either may be a Python number."
    return fn


def _binary_method(name):
    op = _OP[name]

    def method(self, other):
        return _binary(op, name, self, other)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    return method


def _binary_method_(name):
    op = _OP[name]

    def method(self, other):
        return _binary_inplace(op, name, self, other)

    method.__name__ = name + "_"
    method.__qualname__ = f"Tensor.{name}_"
    return method


for _name in _FLOATING + _KEEPING + _TESTS:
    globals()[_name] = _unary_function(_name)
for _name in _BINARY:
    globals()[_name] = _binary_function(_name)
for _alias, _name in _ALIASES.items():
    globals()[_alias] = globals()[_name]

# exponent is pow's argument name in torch
_POW = _OP["pow"]


# OneFlow's functional forms take inplace=: flow.relu(x, inplace=True) is x.relu_()
def _inplace_flag(name, inplace):
    if not isinstance(inplace, bool):
        raise TypeError(f"{name}(): argument 'inplace' must be bool, not {type(inplace).__name__}")
    return inplace


def relu(input, inplace=False):
    if _inplace_flag("relu", inplace):
        return _C.math_unary_(_OP["relu"], input)
    return _C.math_unary(_OP["relu"], input)


def fmod(input, other, *, inplace=False):
    if _inplace_flag("fmod", inplace):
        return _binary_inplace(_OP["fmod"], "fmod", input, other)
    return _binary(_OP["fmod"], "fmod", input, other)


def pow(input, exponent, *, inplace=False):  # noqa: A001
    """pow(input, exponent) -> Tensor: either may be a Python number (not both)."""
    if _inplace_flag("pow", inplace):
        return _binary_inplace(_POW, "pow", input, exponent)
    return _binary(_POW, "pow", input, exponent)


# ---------------------------------------------------------------- functions with options

def round(input, *, decimals=None):  # noqa: A001
    """Rounds half to even; with ``decimals``, to that many decimal places
    (negative: to tens, hundreds, ...; floating tensors only, as in torch)."""
    if decimals is None:
        return _C.math_unary(_OP["round"], input)
    return _C.round_decimals(input, decimals)


def _gelu_tanh(approximate):
    if not isinstance(approximate, str):  # (an array's `in` would ask its truth value)
        raise TypeError(_C.name_op_in_progress(f"gelu(): argument 'approximate' must be str, not "
                                               f"{type(approximate).__name__}"))
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate argument must be either 'none' or 'tanh', got {approximate!r}")
    return approximate == "tanh"


def gelu(input, approximate="none"):
    """x * Phi(x); approximate="tanh" uses the tanh approximation."""
    return _C._gelu(input, _gelu_tanh(approximate))


def silu(input):
    """x * sigmoid(x)."""
    return _C.math_unary(_OP["silu"], input)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    return _C.softplus(input, beta, threshold)


def clamp(input, min=None, max=None):  # noqa: A002
    """Clamps into [min, max]; each bound a Tensor, a number or None (not both None)."""
    return _C._clamp(input, min, max)


def clamp_min(input, min):  # noqa: A002
    return _C._clamp(input, min, None)


def clamp_max(input, max):  # noqa: A002
    return _C._clamp(input, None, max)


clip = clamp


def _where_condition(condition):
    # OneFlow takes a condition of any dtype (nonzero is true); torch wants bool.
    if isinstance(condition, _C.TensorBase) and str(condition.dtype) != "monoflow.bool":
        return condition != 0
    return condition


def where(condition, input=None, other=None):
    """``input`` where ``condition`` is true, else ``other`` (broadcast together); tensors or numbers.

    As in OneFlow, ``condition`` may have any dtype: a nonzero element counts as true.
    With ``condition`` alone, the indices of its nonzeros (``nonzero(as_tuple=True)``).

    Example::

        >>> flow.where(flow.tensor([1, 0, 2], dtype=flow.int32), flow.tensor([1., 2., 3.]), 0.0)
        tensor([1., 0., 3.])
    """
    if input is None and other is None:  # where(condition): the indices of its nonzeros
        return _C.check_tensor(condition, "where").nonzero(as_tuple=True)
    return _C._where(_where_condition(condition), input, other)  # it names a None left in input or other


def _any_complex(*vs):
    return any(isinstance(v, complex) or (isinstance(v, _C.TensorBase) and v.dtype.is_complex) for v in vs)


def lerp(input, end, weight):
    """input + weight * (end - input); weight a number or a Tensor."""
    if _any_complex(input, end, weight):  # composed from the complex arithmetic
        return input + weight * (end - input)
    return _C.lerp(input, end, weight)


def _value_first(op, scalar, tensor1, rest, value):
    """torch's deprecated ``addcmul(input, value, tensor1, tensor2)`` forms (Note [Scalar-first
    overloads] in _C.pyx): the arguments as (tensor1, tensor2, value)."""
    if len(rest) != 1 or type(value) is not int or value != 1:
        raise TypeError(f"{op}() received an invalid combination of arguments")
    value = _C.scalar_first_overload(op, "Number value, Tensor tensor1, Tensor tensor2",
                                     "Tensor tensor1, Tensor tensor2, *, Number value = 1", scalar, "value")
    return tensor1, rest[0], value


def addcmul(input, tensor1, tensor2, *deprecated, value=1):
    """input + value * tensor1 * tensor2, in one pass (fused kernel)."""
    if deprecated:
        tensor1, tensor2, value = _value_first("addcmul", tensor1, tensor2, deprecated, value)
    if _any_complex(input, tensor1, tensor2, value):
        return input + value * (tensor1 * tensor2)
    return _C.addcmul(input, tensor1, tensor2, value)


def addcdiv(input, tensor1, tensor2, *deprecated, value=1):
    """input + value * tensor1 / tensor2, in one pass (fused kernel)."""
    if deprecated:
        tensor1, tensor2, value = _value_first("addcdiv", tensor1, tensor2, deprecated, value)
    if _any_complex(input, tensor1, tensor2, value):
        return input + value * (tensor1 / tensor2)
    return _C.addcdiv(input, tensor1, tensor2, value)


# ---------------------------------------------------------------- Tensor methods

class TensorMethods:
    """Mixed into monoflow.Tensor."""

    # -- operators
    def __pow__(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        return _C.math_binary(_POW, self, other)

    def __rpow__(self, other):
        return _C.math_binary(_POW, other, self)

    def __ipow__(self, other):
        return _C.math_binary_(_POW, self, other)

    def __mod__(self, other):
        return _C.math_binary(_OP["remainder"], self, other)

    def __rmod__(self, other):
        return _C.math_binary(_OP["remainder"], other, self)

    def __imod__(self, other):
        return _C.math_binary_(_OP["remainder"], self, other)

    def __and__(self, other):
        return _C.math_binary(_OP["bitwise_and"], self, other)

    def __rand__(self, other):
        return _C.math_binary(_OP["bitwise_and"], other, self)

    def __iand__(self, other):
        return _C.math_binary_(_OP["bitwise_and"], self, other)

    def __or__(self, other):
        return _C.math_binary(_OP["bitwise_or"], self, other)

    def __ror__(self, other):
        return _C.math_binary(_OP["bitwise_or"], other, self)

    def __ior__(self, other):
        return _C.math_binary_(_OP["bitwise_or"], self, other)

    def __xor__(self, other):
        return _C.math_binary(_OP["bitwise_xor"], self, other)

    def __rxor__(self, other):
        return _C.math_binary(_OP["bitwise_xor"], other, self)

    def __ixor__(self, other):
        return _C.math_binary_(_OP["bitwise_xor"], self, other)

    def __abs__(self):
        return _C.math_unary(_OP["abs"], self)

    def __invert__(self):
        return _C.math_unary(_OP["bitwise_not"], self)

    # -- methods with options
    def pow(self, exponent):
        return _binary(_POW, "pow", self, exponent)

    def pow_(self, exponent):
        return _binary_inplace(_POW, "pow", self, exponent)

    def round(self, *, decimals=None):
        return round(self, decimals=decimals)

    def round_(self, *, decimals=None):
        if decimals is None:
            return _C.math_unary_(_OP["round"], self)
        return _C.round_decimals_(self, decimals)

    def clamp(self, min=None, max=None):  # noqa: A002
        return _C._clamp(self, min, max)

    def clamp_(self, min=None, max=None):  # noqa: A002
        return _C._clamp_(self, min, max)

    def clamp_min(self, min):  # noqa: A002
        return _C._clamp(self, min, None)

    def clamp_min_(self, min):  # noqa: A002
        return _C._clamp_(self, min, None)

    def clamp_max(self, max):  # noqa: A002
        return _C._clamp(self, None, max)

    def clamp_max_(self, max):  # noqa: A002
        return _C._clamp_(self, None, max)

    clip = clamp
    clip_ = clamp_

    def where(self, condition=None, other=None):
        # (its text: _docs/compare.py) torch's x.where(condition, other) when condition is a bool
        # tensor (torch takes no other) or this tensor is floating; OneFlow's cond.where(x, y) =
        # where(self, x, y) when this tensor is a bool/integer condition and the first argument is
        # not a bool tensor (torch refuses that call); cond.where() gives its nonzeros' indices.
        if condition is None and other is None:
            return where(self)
        if not (isinstance(condition, _C.TensorBase) and str(condition.dtype) == "monoflow.bool") and \
                not (self.dtype.is_floating_point or self.dtype.is_complex):
            return _C._where(_where_condition(self), condition, other)
        return _C._where(_where_condition(condition), self, other)

    def lerp(self, end, weight):
        return lerp(self, end, weight)

    def lerp_(self, end, weight):
        return _C.lerp_(self, end, weight)

    def addcmul(self, tensor1, tensor2, *deprecated, value=1):
        return addcmul(self, tensor1, tensor2, *deprecated, value=value)

    def addcmul_(self, tensor1, tensor2, *deprecated, value=1):
        if deprecated:
            tensor1, tensor2, value = _value_first("addcmul_", tensor1, tensor2, deprecated, value)
        return _C.addcmul_(self, tensor1, tensor2, value)

    def addcdiv(self, tensor1, tensor2, *deprecated, value=1):
        return addcdiv(self, tensor1, tensor2, *deprecated, value=value)

    def addcdiv_(self, tensor1, tensor2, *deprecated, value=1):
        if deprecated:
            tensor1, tensor2, value = _value_first("addcdiv_", tensor1, tensor2, deprecated, value)
        return _C.addcdiv_(self, tensor1, tensor2, value)


for _name in _FLOATING + _KEEPING + _TESTS:
    setattr(TensorMethods, _name, _unary_method(_name))
for _name in _FLOATING + _KEEPING:
    setattr(TensorMethods, _name + "_", _unary_inplace(_name))
for _name in _BINARY:
    if _name != "pow":
        setattr(TensorMethods, _name, _binary_method(_name))
        setattr(TensorMethods, _name + "_", _binary_method_(_name))
for _alias, _name in _ALIASES.items():
    setattr(TensorMethods, _alias, getattr(TensorMethods, _name))
    if hasattr(TensorMethods, _name + "_"):
        setattr(TensorMethods, _alias + "_", getattr(TensorMethods, _name + "_"))
del _alias, _name

# torch has these two activations at the top level too (the rest of them are
# torch.nn.functional only: see _activations).
from monoflow._activations import celu, selu  # noqa: E402
