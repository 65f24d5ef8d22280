"""Variable: torch's pre-0.4 wrapper, now the Tensor itself. ``Variable(t,
requires_grad=True)`` returns a tensor (a leaf sharing t's data), and every
tensor is an instance of Variable, as in torch."""
from monoflow import _C

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.TensorBase)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            from monoflow._creation import empty

            return empty(0, requires_grad=requires_grad)
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        return out.requires_grad_(requires_grad) if requires_grad else out
