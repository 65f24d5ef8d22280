"""Function forms of tensor methods (monoflow.add(a, b) == a.add(b))."""
from monoflow import _C
from monoflow import _composite as _c
from monoflow._creation import tensor as _tensor


def _as_tensor(x, like):
    return x if isinstance(x, _C.TensorBase) else _tensor(x, device=like.device)


def _add_n(tensors, alpha):
    # OneFlow's flow.add(a, b, c, ...): the sum of the tensors (its add_n), with its checks and wording
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"add(): expected all tenser to have same type, but found {tensors[0].dtype} and "
                               f"{t.dtype}")
        if t.numel() != tensors[0].numel():
            raise RuntimeError(f"add(): inconsistent tensor size, expected all tensor to have the same number of "
                               f"elements, but got {tensors[0].numel()} and {t.numel()}")
    if alpha != 1:
        raise TypeError("add(): alpha is not taken with more than two tensors")
    out = tensors[0] + tensors[1]
    for t in tensors[2:]:
        out = out + t
    return out


def _inplace(op, inplace, deprecated=()):
    """Whether OneFlow's inplace=True was given (a bool; not with torch's deprecated positional alpha)."""
    if not isinstance(inplace, bool):
        raise TypeError(f"{op}(): argument 'inplace' must be bool, not {type(inplace).__name__}")
    if inplace and deprecated:
        raise TypeError(f"{op}(): inplace=True takes alpha= as a keyword, not torch's deprecated "
                        f"{op}(input, alpha, other) form")
    return inplace


def add(input, other, *deprecated, alpha=1, inplace=False):
    if _inplace("add", inplace, deprecated):  # OneFlow's functional form of input.add_(other, alpha=alpha)
        return _C.check_tensor(input, "add").add_(other, alpha=alpha)
    if deprecated and all(isinstance(t, _C.TensorBase) for t in (input, other) + deprecated):
        return _add_n((input, other) + deprecated, alpha)
    if deprecated:  # torch.add(x, alpha, y) (Note [Scalar-first overloads] in _C.pyx)
        return _C.check_tensor(input, "add").add(other, *deprecated, alpha=alpha)
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase):
        # a number first (OneFlow's flow.add(2, x)): number + alpha * other
        return (other * alpha if alpha != 1 else other).__radd__(input)
    return _C.check_tensor(input, "add").add(other, alpha=alpha)


def sub(input, other, *deprecated, alpha=1, inplace=False):
    if _inplace("sub", inplace, deprecated):  # OneFlow's functional form of input.sub_(other, alpha=alpha)
        return _C.check_tensor(input, "sub").sub_(other, alpha=alpha)
    if deprecated:
        return _C.check_tensor(input, "sub").sub(other, *deprecated, alpha=alpha)
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase):
        return (other * alpha if alpha != 1 else other).__rsub__(input)
    return _C.check_tensor(input, "sub").sub(other, alpha=alpha)


def mul(input, other, *, inplace=False):
    if _inplace("mul", inplace):  # (OneFlow's)
        return _C.check_tensor(input, "mul").mul_(other)
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase):
        return other.__rmul__(input)  # a number first, as torch and OneFlow take it
    return _C.check_tensor(input, "mul").mul(other)


def div(input, other, *, rounding_mode=None, inplace=False):
    if _inplace("div", inplace):  # (OneFlow's)
        return _C.check_tensor(input, "div").div_(other, rounding_mode=rounding_mode)
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase):
        if rounding_mode is None:
            return other.__rtruediv__(input)
        input = _as_tensor(input, other)  # a number first, rounded: as a 0-dim tensor
    return _C.check_tensor(input, "div").div(other, rounding_mode=rounding_mode)


def floor_divide(input, other, *, inplace=False):
    if _inplace("floor_divide", inplace):  # (OneFlow's)
        return _C.check_tensor(input, "floor_divide").floor_divide_(other)
    return _C.check_tensor(input, "floor_divide") // other


def neg(input):
    return -_C.check_tensor(input, "neg")


def maximum(input, other):
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase):
        return _C._clamp(other, input, None)  # a number first: the same as clamping to it
    return _C.check_tensor(input, "maximum").maximum(other)


def minimum(input, other):
    if not isinstance(input, _C.TensorBase) and isinstance(other, _C.TensorBase):
        return _C._clamp(other, None, input)
    return _C.check_tensor(input, "minimum").minimum(other)


def eq(input, other):
    return _C.check_tensor(input, "eq") == other


def ne(input, other):
    return _C.check_tensor(input, "ne") != other


def lt(input, other):
    return _c.comparable("lt", input, other) < other


def le(input, other):
    return _c.comparable("le", input, other) <= other


def gt(input, other):
    return _c.comparable("gt", input, other) > other


def ge(input, other):
    return _c.comparable("ge", input, other) >= other


def matmul(input, other):
    return _C.check_tensor(input, "matmul").matmul(other)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    return _C.check_tensor(input, "sum").sum(dim, keepdim, dtype=dtype)


def reshape(input, shape):
    return _C.check_tensor(input, "reshape").reshape(shape)


def transpose(input, dim0, dim1):
    return _C.check_tensor(input, "transpose").transpose(dim0, dim1)


def permute(input, dims):
    return _C.check_tensor(input, "permute").permute(dims)


def squeeze(input, dim=None):
    return _C.check_tensor(input, "squeeze").squeeze(dim)


def unsqueeze(input, dim):
    return _C.check_tensor(input, "unsqueeze").unsqueeze(dim)


def flatten(input, start_dim=0, end_dim=-1):
    return _C.check_tensor(input, "flatten").flatten(start_dim, end_dim)


def narrow(input, dim, start, length):
    return _C.check_tensor(input, "narrow").narrow(dim, start, length)


def select(input, dim, index):
    return _C.check_tensor(input, "select").select(dim, index)


def clone(input, *, memory_format=None):
    return _C.check_tensor(input, "clone").clone(memory_format=memory_format)


def numel(input):
    return _C.check_tensor(input, "numel").numel()


def is_tensor(obj):
    return isinstance(obj, _C.TensorBase)
