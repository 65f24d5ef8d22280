"""Function forms of tensor methods (monoflow.add(a, b) == a.add(b))."""
from monoflow import _C
from monoflow._creation import tensor as _tensor


def _as_tensor(x, like):
    return x if isinstance(x, _C.TensorBase) else _tensor(x, device=like.device)


def add(input, other, *, alpha=1):
    return input.add(other, alpha=alpha)


def sub(input, other, *, alpha=1):
    return input.sub(other, alpha=alpha)


def mul(input, other):
    return input * other


def div(input, other):
    return input / other


def floor_divide(input, other):
    return input // other


def neg(input):
    return -input


def maximum(input, other):
    return input.maximum(other)


def minimum(input, other):
    return input.minimum(other)


def eq(input, other):
    return input == other


def ne(input, other):
    return input != other


def lt(input, other):
    return input < other


def le(input, other):
    return input <= other


def gt(input, other):
    return input > other


def ge(input, other):
    return input >= other


def matmul(input, other):
    return input.matmul(other)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    return input.sum(dim, keepdim, dtype=dtype)


def reshape(input, shape):
    return input.reshape(shape)


def transpose(input, dim0, dim1):
    return input.transpose(dim0, dim1)


def permute(input, dims):
    return input.permute(dims)


def squeeze(input, dim=None):
    return input.squeeze(dim)


def unsqueeze(input, dim):
    return input.unsqueeze(dim)


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)


def narrow(input, dim, start, length):
    return input.narrow(dim, start, length)


def select(input, dim, index):
    return input.select(dim, index)


def clone(input):
    return input.clone()


def numel(input):
    return input.numel()


def is_tensor(obj):
    return isinstance(obj, _C.TensorBase)
