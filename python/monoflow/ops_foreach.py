"""torch._foreach_* : the multi-tensor ops that optimizers and EMA code call on lists of parameters.

Each is a loop of the single-tensor op over the list (torch fuses them into one kernel; the values,
dtypes and gradients are the same).  The second operand may be one number, a list of numbers (one
per tensor), a list of tensors, or a 0-d tensor, as each torch op allows.  An out-of-place op returns
a tuple of new tensors; an in-place one (trailing ``_``) updates the given tensors and returns the
list it was given, as torch 2.13 does.
"""
import numbers

from monoflow import _C
from monoflow import linalg as _linalg
from monoflow import ops_math as _m

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
          "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
          "sinh", "sqrt", "tan", "tanh", "trunc")

__all__ = (
    [f"_foreach_{n}{s}" for n in _UNARY for s in ("", "_")]
    + [f"_foreach_{n}{s}" for n in ("add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max",
                                    "pow", "lerp", "addcmul", "addcdiv") for s in ("", "_")]
    + ["_foreach_norm", "_foreach_zero_", "_foreach_copy_"]
)


def _is_number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, _C.TensorBase)


def _tensor_list(op, tensors, name="self"):
    if isinstance(tensors, _C.TensorBase) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument '{name}' must be a list or tuple of Tensors, not {type(tensors).__name__}")
    for t in tensors:
        if not isinstance(t, _C.TensorBase):
            raise TypeError(f"{op}(): argument '{name}' must be a list of Tensors, but found {type(t).__name__}")
    if not tensors:
        raise RuntimeError(f"{op}(): Tensor list must have at least one tensor.")
    return tensors


def _same_length(op, tensors, others):
    if len(others) != len(tensors):
        raise RuntimeError(f"{op}(): Tensor lists must have the same number of tensors, "
                           f"got {len(tensors)} and {len(others)}")


def _operands(op, tensors, other, name, tensor_ok=True, alpha=1):
    """One second operand per tensor, and whether `other` was a tensor list or tensor (alpha's forms)."""
    n = len(tensors)
    if _is_number(other):
        if alpha != 1:
            raise TypeError(f"{op}(): 'alpha' is only accepted with a list of tensors or a tensor as '{name}'")
        return [other] * n
    if isinstance(other, _C.TensorBase):
        if other.dim() != 0:
            raise RuntimeError(f"{op}(): scalar tensor expected to be 0 dim but it has {other.dim()} dimensions "
                               f"and {other.numel()} elements.")
        if not tensor_ok and alpha != 1:
            raise TypeError(f"{op}(): 'alpha' is not accepted with a tensor as '{name}'")
        return [other] * n
    if isinstance(other, (list, tuple)):
        if all(isinstance(o, _C.TensorBase) for o in other):
            _same_length(op, tensors, other)
            return list(other)
        if all(_is_number(o) for o in other):
            if alpha != 1:
                raise TypeError(f"{op}(): 'alpha' is not accepted with a list of numbers as '{name}'")
            if len(other) != n:
                raise RuntimeError(f"{op}(): Tensor list must have same number of elements as scalar list.")
            return list(other)
    raise TypeError(f"{op}(): argument '{name}' must be a number, a list of numbers, a list of Tensors or a 0-d "
                    f"Tensor, not {type(other).__name__}")


def _value_list(op, tensors, value, name):
    """addcmul/addcdiv's per-tensor numbers: one number, a list of them, or a 1-D tensor of them."""
    if _is_number(value):
        return [value] * len(tensors)
    if isinstance(value, _C.TensorBase):
        if value.dim() != 1:
            raise RuntimeError(f"{op}(): Expected '{name}' to be a 1-D tensor, but got {value.dim()}-D")
        value = value.tolist()
    if isinstance(value, (list, tuple)) and all(_is_number(v) for v in value):
        if len(value) != len(tensors):
            raise RuntimeError(f"{op}(): Tensor list must have same number of elements as scalar list.")
        return list(value)
    raise TypeError(f"{op}(): argument '{name}' must be a number, a list of numbers or a 1-D Tensor, "
                    f"not {type(value).__name__}")


def _named(fn, name):
    # the code's name too: the naming of errors raised beneath reads frames' code names (and passes over
    # names starting with "_", as these are), so a generated "op" must not stand for the op
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _doc(fn, summary, args, example):
    fn.__doc__ = f"{summary}\n\n    Args:\n{args}\n\n    Example::\n\n        >>> import monoflow as flow\n{example}\n"
    return fn


_SELF = "        self (list of Tensor): the tensors."


def _unary(name):
    def op(self):
        tensors = _tensor_list(f"_foreach_{name}", self)
        return tuple(getattr(t, name)() for t in tensors)

    def op_(self):
        tensors = _tensor_list(f"_foreach_{name}_", self)
        for t in tensors:
            getattr(t, name + "_")()
        return self

    op, op_ = _named(op, f"_foreach_{name}"), _named(op_, f"_foreach_{name}_")
    example = (f"        >>> flow._foreach_{name}([flow.tensor([0.5, 1.0]), flow.tensor([2.0])])\n"
               f"        (tensor(...), tensor(...))")
    _doc(op, f"``{name}`` of each tensor of the list: a tuple of new tensors.", _SELF, example)
    _doc(op_, f"In-place version of ``_foreach_{name}``: applies ``Tensor.{name}_`` to each tensor; "
              f"returns ``self``.", _SELF,
         example.replace(f"{name}(", f"{name}_(").replace("(tensor(...), tensor(...))", "[tensor(...), tensor(...)]"))
    return op, op_


_MISSING = object()


def _operand_arg(op, other, scalar, scalars):
    """torch's overloads call the operand `other` (tensors), `scalar` (a number) or `scalars` (numbers), and
    scripts pass it by those keywords (``_foreach_mul_(xs, scalar=d)``): exactly one of them."""
    given = [v for v in (other, scalar, scalars) if v is not _MISSING]
    if len(given) != 1:
        raise TypeError(f"{op}(): expected exactly one of the arguments 'other', 'scalar' or 'scalars', "
                        f"got {len(given)}")
    return given[0]


def _binary(name, method, doc_other, has_alpha=False, tensor_ok=True):
    """`method(t, o, alpha)` out of place or (with inplace=True) in place, per tensor."""
    def run(op, self, operand, alpha, inplace):
        tensors = _tensor_list(op, self)
        operands = _operands(op, tensors, operand, "other", tensor_ok, alpha)
        results = tuple(method(t, o, alpha, inplace) for t, o in zip(tensors, operands))
        return self if inplace else results

    if has_alpha:
        def op(self, other=_MISSING, *, alpha=1, scalar=_MISSING, scalars=_MISSING):
            operand = _operand_arg(f"_foreach_{name}", other, scalar, scalars)
            return run(f"_foreach_{name}", self, operand, alpha, False)

        def op_(self, other=_MISSING, *, alpha=1, scalar=_MISSING, scalars=_MISSING):
            operand = _operand_arg(f"_foreach_{name}_", other, scalar, scalars)
            return run(f"_foreach_{name}_", self, operand, alpha, True)
        alpha_doc = "\n        alpha (Number): multiplies ``other`` when it is tensors. Default: 1."
    else:
        def op(self, other=_MISSING, *, scalar=_MISSING, scalars=_MISSING):
            return run(f"_foreach_{name}", self, _operand_arg(f"_foreach_{name}", other, scalar, scalars), 1, False)

        def op_(self, other=_MISSING, *, scalar=_MISSING, scalars=_MISSING):
            return run(f"_foreach_{name}_", self, _operand_arg(f"_foreach_{name}_", other, scalar, scalars), 1, True)
        alpha_doc = ""
    alpha_doc += ("\n        scalar (Number): ``other`` by torch's keyword for a number.\n"
                  "        scalars (list of Number): ``other`` by torch's keyword for a list of numbers.")
    op, op_ = _named(op, f"_foreach_{name}"), _named(op_, f"_foreach_{name}_")
    args = (f"{_SELF}\n        other (Number, list of Number, list of Tensor or 0-d Tensor): {doc_other}{alpha_doc}")
    example = (f"        >>> flow._foreach_{name}([flow.tensor([1.0, 2.0]), flow.tensor([3.0])], 2.0)\n"
               f"        (tensor([...]), tensor([...]))")
    _doc(op, f"``{name}`` of each tensor of the list with its operand: a tuple of new tensors.", args, example)
    _doc(op_, f"In-place version of ``_foreach_{name}``: updates each tensor; returns ``self``.", args,
         example.replace(f"{name}(", f"{name}_(").replace("(tensor([...]), tensor([...]))",
                                                          "[tensor([...]), tensor([...])]"))
    return op, op_


def _assign(op, t, result):
    """t <- result in place (the ops without an in-place method), refusing a result dtype t cannot hold."""
    if result.dtype != t.dtype and not _C.can_cast(result.dtype, t.dtype):
        raise RuntimeError(f"{op}(): result type {result.dtype} can't be cast to the desired output type {t.dtype}")
    t.copy_(result)


def _scalar_tensor(o, like):
    from monoflow._creation import tensor

    return tensor(o, device=like.device)


def _add(t, o, alpha, inplace):
    return t.add_(o, alpha=alpha) if inplace else t.add(o, alpha=alpha)


def _sub(t, o, alpha, inplace):
    return t.sub_(o, alpha=alpha) if inplace else t.sub(o, alpha=alpha)


def _mul(t, o, alpha, inplace):
    return t.mul_(o) if inplace else t.mul(o)


def _div(t, o, alpha, inplace):
    return t.div_(o) if inplace else t.div(o)


def _extremum(fn_name):
    def method(t, o, alpha, inplace):
        # maximum/minimum with a number as with a 0-d tensor: torch's values and its tie gradient (half to each)
        # (in place: of a clone, which the backward keeps, since t is then overwritten)
        base = t.clone() if inplace else t
        result = getattr(base, fn_name)(o if isinstance(o, _C.TensorBase) else _scalar_tensor(o, t))
        if inplace:
            _assign(f"_foreach_{fn_name}_", t, result)
        return result
    return method


def _clamp(fn_name):
    def method(t, o, alpha, inplace):
        return getattr(t, fn_name + "_")(o) if inplace else getattr(t, fn_name)(o)
    return method


def _pow_method(t, o, alpha, inplace):
    return t.pow_(o) if inplace else t.pow(o)


_foreach_add, _foreach_add_ = _binary("add", _add, "added to each tensor (times ``alpha``).", has_alpha=True)
_foreach_sub, _foreach_sub_ = _binary("sub", _sub, "subtracted from each tensor (times ``alpha``).",
                                      has_alpha=True, tensor_ok=False)
_foreach_mul, _foreach_mul_ = _binary("mul", _mul, "multiplies each tensor.")
_foreach_div, _foreach_div_ = _binary("div", _div, "divides each tensor.")
_foreach_maximum, _foreach_maximum_ = _binary("maximum", _extremum("maximum"), "compared elementwise.")
_foreach_minimum, _foreach_minimum_ = _binary("minimum", _extremum("minimum"), "compared elementwise.")
_foreach_clamp_min, _foreach_clamp_min_ = _binary("clamp_min", _clamp("clamp_min"), "the lower bound.")
_foreach_clamp_max, _foreach_clamp_max_ = _binary("clamp_max", _clamp("clamp_max"), "the upper bound.")
_pow_out, _pow_inplace = _binary("pow", _pow_method, "the exponent.")


def _foreach_pow(self, exponent):
    """``pow`` of each tensor of the list with its exponent, or of one number to each exponent tensor.

    Args:
        self (list of Tensor or Number): the bases: tensors, or a number (then ``exponent`` is tensors).
        exponent (Number, list of Number, list of Tensor or 0-d Tensor): the exponent(s).

    Example::

        >>> import monoflow as flow
        >>> flow._foreach_pow([flow.tensor([1.0, 2.0]), flow.tensor([3.0])], 2)
        (tensor([1., 4.]), tensor([9.]))
        >>> flow._foreach_pow(2.0, [flow.tensor([1.0, 2.0])])
        (tensor([2., 4.]),)
    """
    if _is_number(self):
        exponents = _tensor_list("_foreach_pow", exponent, "exponent")
        return tuple(_m.pow(self, e) for e in exponents)
    return _pow_out(self, exponent)


def _foreach_pow_(self, exponent):
    """In-place version of :func:`_foreach_pow`: raises each tensor of the list to its exponent; returns ``self``.

    Args:
        self (list of Tensor): the bases, updated.
        exponent (Number, list of Number, list of Tensor or 0-d Tensor): the exponent(s).

    Example::

        >>> import monoflow as flow
        >>> flow._foreach_pow_([flow.tensor([1.0, 2.0])], 3)
        [tensor([1., 8.])]
    """
    return _pow_inplace(self, exponent)


def _lerp_weight(op, weight, weights):
    if (weight is _MISSING) == (weights is _MISSING):
        raise TypeError(f"{op}(): expected exactly one of the arguments 'weight' or 'weights'")
    return weights if weight is _MISSING else weight


def _foreach_lerp(self, tensors1, weight=_MISSING, *, weights=_MISSING):
    """``lerp`` of each tensor of ``self`` towards its tensor of ``tensors1``: ``self + weight * (end - self)``.

    Args:
        self (list of Tensor): the start tensors.
        tensors1 (list of Tensor): the end tensors.
        weight (Number, list of Number, list of Tensor or 0-d Tensor): the weight(s).
        weights (list of Tensor or list of Number): ``weight`` by torch's keyword for a list.

    Example::

        >>> import monoflow as flow
        >>> flow._foreach_lerp([flow.tensor([0.0, 2.0])], [flow.tensor([1.0, 4.0])], 0.5)
        (tensor([0.5000, 3.0000]),)
    """
    tensors = _tensor_list("_foreach_lerp", self)
    ends = _tensor_list("_foreach_lerp", tensors1, "tensors1")
    _same_length("_foreach_lerp", tensors, ends)
    weights = _operands("_foreach_lerp", tensors, _lerp_weight("_foreach_lerp", weight, weights), "weight")
    return tuple(_m.lerp(t, e, w) for t, e, w in zip(tensors, ends, weights))


def _foreach_lerp_(self, tensors1, weight=_MISSING, *, weights=_MISSING):
    """In-place version of :func:`_foreach_lerp`: each tensor of ``self`` moves towards ``tensors1``.

    Args:
        self (list of Tensor): the tensors to update.
        tensors1 (list of Tensor): the end tensors.
        weight (Number, list of Number, list of Tensor or 0-d Tensor): the weight(s).
        weights (list of Tensor or list of Number): ``weight`` by torch's keyword for a list.

    Example::

        >>> import monoflow as flow
        >>> ema = [flow.tensor([0.0, 2.0])]
        >>> _ = flow._foreach_lerp_(ema, [flow.tensor([1.0, 4.0])], 0.5)
        >>> ema
        [tensor([0.5000, 3.0000])]
    """
    tensors = _tensor_list("_foreach_lerp_", self)
    ends = _tensor_list("_foreach_lerp_", tensors1, "tensors1")
    _same_length("_foreach_lerp_", tensors, ends)
    weights = _operands("_foreach_lerp_", tensors, _lerp_weight("_foreach_lerp_", weight, weights), "weight")
    for t, e, w in zip(tensors, ends, weights):
        t.lerp_(e, w)
    return self


def _addc_operands(op, self, tensor1, tensor2, value, scalars):
    # (self, tensor1, tensor2, values), checked and zipped as one row per tensor
    tensors = _tensor_list(op, self)
    a = _tensor_list(op, tensor1, "tensor1")
    b = _tensor_list(op, tensor2, "tensor2")
    _same_length(op, tensors, a)
    _same_length(op, tensors, b)
    return zip(tensors, a, b, _value_list(op, tensors, value if scalars is _MISSING else scalars, "value"))


def _addc(name):
    def op(self, tensor1, tensor2, value=1, *, scalars=_MISSING):
        rows = _addc_operands(f"_foreach_{name}", self, tensor1, tensor2, value, scalars)
        return tuple(getattr(t, name)(x, y, value=v) for t, x, y, v in rows)

    def op_(self, tensor1, tensor2, value=1, *, scalars=_MISSING):
        for t, x, y, v in _addc_operands(f"_foreach_{name}_", self, tensor1, tensor2, value, scalars):
            getattr(t, name + "_")(x, y, value=v)
        return self

    op, op_ = _named(op, f"_foreach_{name}"), _named(op_, f"_foreach_{name}_")
    sym = "*" if name == "addcmul" else "/"
    args = (f"{_SELF}\n        tensor1 (list of Tensor): the numerators/first factors.\n"
            f"        tensor2 (list of Tensor): the denominators/second factors.\n"
            f"        value (Number, list of Number or 1-D Tensor): the multiplier(s). Default: 1.\n"
            f"        scalars (list of Number or 1-D Tensor): ``value`` by torch's keyword for several.")
    example = (f"        >>> flow._foreach_{name}([flow.zeros(2)], [flow.tensor([1.0, 2.0])],\n"
               f"        ...                      [flow.tensor([2.0, 4.0])], 3)\n"
               f"        (tensor([...]),)")
    _doc(op, f"``self + value * tensor1 {sym} tensor2`` for each tensor of the list.", args, example)
    _doc(op_, f"In-place version of ``_foreach_{name}``: updates each tensor; returns ``self``.", args,
         example.replace(f"{name}(", f"{name}_(").replace("(tensor([...]),)", "[tensor([...])]"))
    return op, op_


_foreach_addcmul, _foreach_addcmul_ = _addc("addcmul")
_foreach_addcdiv, _foreach_addcdiv_ = _addc("addcdiv")


def _foreach_norm(self, ord=2, dtype=None):  # noqa: A002
    """The vector ``ord``-norm of each tensor of the list (as ``linalg.vector_norm``): a tuple of 0-d tensors.

    Args:
        self (list of Tensor): floating or complex tensors.
        ord (Number): the norm's order (``inf``, ``-inf`` and 0 too). Default: 2.
        dtype (monoflow.dtype, optional): compute and return in this dtype. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> flow._foreach_norm([flow.tensor([3.0, 4.0]), flow.tensor([1.0])])
        (tensor(5.), tensor(1.))
    """
    tensors = _tensor_list("_foreach_norm", self)
    if not _is_number(ord) or isinstance(ord, complex):
        raise TypeError(f"_foreach_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    return tuple(_linalg.vector_norm(t, ord, dtype=dtype) for t in tensors)


def _foreach_zero_(self):
    """Fills each tensor of the list with zeros, in place; returns ``self``.

    Args:
        self (list of Tensor): the tensors.

    Example::

        >>> import monoflow as flow
        >>> flow._foreach_zero_([flow.ones(2)])
        [tensor([0., 0.])]
    """
    for t in _tensor_list("_foreach_zero_", self):
        t.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    """Copies each tensor of ``src`` into its tensor of ``self`` (``Tensor.copy_``); returns ``self``.

    Args:
        self (list of Tensor): the destinations.
        src (list of Tensor): the sources, broadcastable to the destinations.
        non_blocking (bool): accepted for torch's signature. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow._foreach_copy_([flow.zeros(2)], [flow.tensor([1.0, 2.0])])
        [tensor([1., 2.])]
    """
    tensors = _tensor_list("_foreach_copy_", self)
    sources = _tensor_list("_foreach_copy_", src, "src")
    _same_length("_foreach_copy_", tensors, sources)
    for t, s in zip(tensors, sources):
        t.copy_(s, non_blocking=non_blocking)
    return self


for _name in _UNARY:
    globals()[f"_foreach_{_name}"], globals()[f"_foreach_{_name}_"] = _unary(_name)
del _name
