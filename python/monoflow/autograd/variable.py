"""Variable: torch's pre-0.4 wrapper, now the Tensor itself. ``Variable(t,
requires_grad=True)`` returns a tensor (a leaf sharing t's data), and every
tensor is an instance of Variable, as in torch."""
from monoflow import _C
from monoflow.autograd import engine_callbacks

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.TensorBase)


class _ExecutionEngine:
    """torch's ``Variable._execution_engine``: the hooks into the running backward pass."""

    queue_callback = staticmethod(engine_callbacks.queue_callback)


class Variable(metaclass=_VariableMeta):
    """torch's pre-0.4 wrapper, now the tensor itself: ``Variable(t, requires_grad=True)`` returns a tensor.

    The result is a leaf sharing ``t``'s data, and every tensor is an instance of
    ``Variable``, as in torch.

    Args:
        data (Tensor, optional): the data; ``None`` gives an empty tensor. Any other
            type raises ``TypeError``. Default: ``None``.
        requires_grad (bool): whether the result requires grad. Default: ``False``.
        volatile (bool): accepted for compatibility and ignored (use ``no_grad``).
            Default: ``False``.

    Example::

        >>> v = flow.autograd.Variable(flow.ones(2), requires_grad=True)
        >>> v
        tensor([1., 1.], requires_grad=True)
        >>> isinstance(flow.ones(1), flow.autograd.Variable)
        True
    """

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            from monoflow._creation import empty

            return empty(0, requires_grad=requires_grad)
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        return out.requires_grad_(requires_grad) if requires_grad else out

    _execution_engine = _ExecutionEngine()
