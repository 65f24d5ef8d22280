"""nn.Parameter: a leaf tensor that a Module registers as one of its parameters.

``Parameter(global_tensor)`` is a *global* parameter: an instance of
GlobalParameter, a subclass of both GlobalTensor and Parameter (so
``isinstance(p, nn.Parameter)`` and ``p.is_global`` both hold), with the same
placement, SBP and logical shape, its shard marked like any global tensor's,
and the gradient hook that turns the gradients' dual SBP into its own.
"""
from monoflow import _C
from monoflow._tensor import Tensor

# _C._make_subclass instantiates `cls` through its tp_new with no arguments,
# which runs Parameter.__new__ again; this flag tells that inner call apart
# from a user's `Parameter()`.
_making = False


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning one to a :class:`Module` attribute registers it, so
    that :meth:`Module.parameters` and the state dict include it.

    ``Parameter(data)`` is a new leaf sharing ``data``'s memory; ``Parameter()`` is an empty parameter.
    A global ``data`` (``data.to_global(placement, sbp)``) gives a global parameter.

    Args:
        data (Tensor, optional): the values (a non-tensor raises ``TypeError``). Default: ``None`` (an
            empty tensor).
        requires_grad (bool): whether autograd records operations on it. Default: ``True``.

    Example::

        >>> p = nn.Parameter(flow.tensor([1.0, 2.0]))
        >>> p
        Parameter containing:
        tensor([1., 2.], requires_grad=True)
        >>> p.is_leaf, isinstance(p, flow.Tensor)
        (True, True)
        >>> m = nn.Module()
        >>> m.scale = p
        >>> [name for name, _ in m.named_parameters()]
        ['scale']
    """

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
        if getattr(data, "is_global", False):
            return _global_parameter(data, requires_grad)
        if getattr(cls, "is_global", False):
            raise TypeError("Parameter: a global parameter needs a global tensor for data (make it with "
                            ".to_global(placement, sbp))")
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


# ------------------------------------------------------------ global parameters

_global_cls = None


def _global_parameter_class():
    """GlobalParameter, made on first use: the global layer imports nn (for
    nn.functional), so nn cannot import it at module load."""
    global _global_cls
    if _global_cls is not None:
        return _global_cls
    from monoflow._global.access import shard_access
    from monoflow._global.tensor import GlobalTensor, wrap

    class GlobalParameter(GlobalTensor, Parameter):
        """A Parameter whose value spans the ranks of a placement."""

        __module__ = "monoflow.nn"

        def __repr__(self):
            return "Parameter containing:\n" + GlobalTensor.__repr__(self)

        # Tensor.data is the C++ tensor (this rank's shard): keep it global
        @property
        def data(self):
            return GlobalTensor.detach(self)

        @data.setter
        def data(self, value):
            if not getattr(value, "is_global", False):
                raise RuntimeError("data: a global parameter's data must be a global tensor")
            if value.placement != self.placement or value.sbp != self.sbp or tuple(value.shape) != self._shape:
                raise RuntimeError(f"data: the new value is laid out as {value.placement!r}, {value.sbp!r}, shape "
                                   f"{list(value.shape)}; this parameter is {self.placement!r}, {self.sbp!r}, "
                                   f"shape {list(self._shape)} (make a new Parameter to change the layout)")
            with shard_access():
                Tensor.data.__set__(self, _C._alias(Tensor, value))

        def __deepcopy__(self, memo):
            if id(self) in memo:
                return memo[id(self)]
            with shard_access():
                local = _C._alias(Tensor, self).detach().clone()
            out = _global_parameter(wrap(local, self.placement, self.sbp, self._shape), self.requires_grad)
            memo[id(self)] = out
            return out

        def __reduce_ex__(self, protocol):
            raise TypeError("a global parameter cannot be pickled; save its state with monoflow.save")

    GlobalParameter.__qualname__ = "GlobalParameter"
    _global_cls = GlobalParameter
    return GlobalParameter


def _global_parameter(data, requires_grad):
    """A new global leaf sharing `data`'s shard memory, laid out as `data`."""
    global _making
    from monoflow._global.access import shard_access
    from monoflow._global.tensor import install_grad_hook, wrap

    cls = _global_parameter_class()
    with shard_access():
        local = Tensor.detach(data)  # a new leaf over the same memory
    _making = True
    try:
        p = wrap(local, data.placement, data.sbp, tuple(data.shape), cls=cls)
    finally:
        _making = False
    if requires_grad:
        Tensor.requires_grad_(p, True)
        install_grad_hook(p)
    return p
