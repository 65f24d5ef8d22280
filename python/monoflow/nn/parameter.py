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
        requires_grad (bool): whether autograd records operations on it; always ``False`` for an
            integer or bool ``data`` (OneFlow allows such parameters; torch refuses them). Default: ``True``.

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
        if not (data.dtype.is_floating_point or data.dtype.is_complex):
            # OneFlow's rule (torch raises): an integer or bool parameter is state that moves and
            # converts with the module, never differentiated
            requires_grad = False
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


class UninitializedTensorMixin:
    """Marks a parameter or buffer whose shape is not known yet (a lazy module's, before its first
    forward); :meth:`materialize` gives it a shape and turns it into its ordinary class."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Gives the tensor `shape` (uninitialised values) on `device` with `dtype` (its own by default)
        and makes it a plain :class:`Parameter` (or buffer tensor)."""
        from monoflow._creation import empty

        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        data = empty(*shape, device=device if device is not None else self.device,
                     dtype=dtype if dtype is not None else self.dtype)
        requires_grad = self.requires_grad
        self.data = data
        self.__class__ = self.cls_to_become
        self.requires_grad_(requires_grad)

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = type(self)(self.requires_grad, self.device, self.dtype)
        memo[id(self)] = out
        return out


def is_lazy(param):
    """True when `param` is an uninitialised (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of unknown shape, the placeholder a lazy module (``nn.LazyLinear``) holds until its
    first forward; :meth:`materialize` gives it a shape and makes it a plain :class:`Parameter`.

    Args:
        requires_grad (bool): whether the materialised parameter requires grad. Default: ``True``.
        device (monoflow.device, optional): where it will live. Default: the default device.
        dtype (monoflow.dtype, optional): its dtype. Default: the default dtype.

    Example::

        >>> p = nn.UninitializedParameter()
        >>> p.materialize((2, 3))
        >>> type(p).__name__, tuple(p.shape)
        ('Parameter', (2, 3))
    """

    __module__ = "monoflow.nn.parameter"
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from monoflow._creation import empty

        kw = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
        return Parameter.__new__(cls, empty(0, **kw), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of unknown shape, the placeholder a lazy module holds until its first forward;
    :meth:`materialize` gives it a shape and makes it a plain tensor.

    Args:
        requires_grad (bool): whether the materialised buffer requires grad. Default: ``False``.
        device (monoflow.device, optional): where it will live. Default: the default device.
        dtype (monoflow.dtype, optional): its dtype. Default: the default dtype.

    Example::

        >>> b = nn.UninitializedBuffer()
        >>> b.materialize(4)
        >>> type(b).__name__, tuple(b.shape)
        ('Tensor', (4,))
    """

    __module__ = "monoflow.nn.parameter"
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from monoflow._creation import empty

        kw = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
        return _C._make_subclass(cls, empty(0, **kw), requires_grad)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


class _BufferMeta(type):
    # isinstance(t, Buffer) is true for the tensors Buffer(...) marked, as torch's metaclass
    def __instancecheck__(cls, instance):
        return isinstance(instance, _C.TensorBase) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """A tensor marked as a module buffer (torch's ``nn.Buffer``): assigning one to a :class:`Module`
    attribute registers it as :meth:`Module.register_buffer` does, persistent or not.

    ``Buffer(data)`` returns ``data`` detached (sharing its memory, keeping ``requires_grad``),
    an ordinary Tensor with ``persistent`` set.

    Args:
        data (Tensor, optional): the values. Default: ``None`` (an empty tensor).
        persistent (bool): whether the buffer is part of the state dict. Default: ``True``.

    Example::

        >>> m = nn.Module()
        >>> m.steps = nn.Buffer(flow.zeros(1), persistent=False)
        >>> [n for n, _ in m.named_buffers()], list(m.state_dict())
        (['steps'], [])
    """

    __module__ = "monoflow.nn"

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from monoflow._creation import empty

            data = empty(0)
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Buffer: expected a Tensor for data, got {type(data).__name__}")
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = bool(persistent)
        t._is_buffer = True
        return t
