"""nn.Parameter: a leaf tensor that a Module registers as one of its parameters."""
from monoflow import _C
from monoflow._tensor import Tensor

# _C._make_subclass instantiates `cls` through its tp_new with no arguments,
# which runs Parameter.__new__ again; this flag tells that inner call apart
# from a user's `Parameter()`.
_making = False


class Parameter(Tensor):
    """A tensor that shares `data`'s memory as a new leaf; assigning one to a
    Module attribute registers it. ``Parameter()`` is an empty parameter."""

    __module__ = "monoflow.nn"

    def __new__(cls, data=None, requires_grad=True):
        global _making
        if _making:
            return super().__new__(cls)
        if data is None:
            from monoflow._creation import empty

            data = empty(0)
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Parameter: expected a Tensor for data, got {type(data).__name__}")
        _making = True
        try:
            return _C._make_subclass(cls, data, requires_grad)
        finally:
            _making = False

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol):
        return _rebuild_parameter, (self.detach(), self.requires_grad)


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


def is_lazy(param):
    return False
