"""Custom differentiable functions written in Python (``autograd.Function``)."""
from monoflow import _C
from monoflow.autograd.grad_mode import no_grad
from monoflow.autograd.graph import current_hooks


class FunctionCtx:
    """The context object ``ctx`` that a custom :class:`Function` receives in ``forward`` and ``backward``.

    ``save_for_backward(*tensors)`` keeps tensors for backward, read back as
    ``saved_tensors`` (which raises ``RuntimeError`` when one was modified in place
    since); ``needs_input_grad`` tells which inputs need a gradient;
    ``mark_non_differentiable(*outputs)`` and ``set_materialize_grads(value)``
    act as in torch. Other attributes may be set freely to pass values on.

    Example::

        >>> class Exp(flow.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, dy):
        ...         (y,) = ctx.saved_tensors
        ...         return dy * y
        >>> x = flow.tensor([0.0, 1.0], requires_grad=True)
        >>> Exp.apply(x).sum().backward()
        >>> x.grad
        tensor([1.0000, 2.7183])
    """

    def __init__(self):
        self._saved = ()
        self._versions = ()
        self.needs_input_grad = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.TensorBase):
                raise TypeError(f"save_for_backward can only save tensors, but argument {len(self._saved)} is "
                                f"of type {type(t).__name__}")
        # Aliases without history: saving an output must not make a cycle
        # through its own graph node.
        self._saved = tuple(None if t is None else t.detach() for t in tensors)
        self._versions = tuple(None if t is None else t._version for t in tensors)
        hooks = current_hooks()  # autograd.graph.saved_tensors_hooks: keep what pack_hook returns
        self._unpack = None
        if hooks is not None:
            pack, self._unpack = hooks
            self._saved = tuple(None if t is None else pack(t) for t in self._saved)

    @property
    def saved_tensors(self):
        if getattr(self, "_unpack", None) is not None:
            out = tuple(None if p is None else self._unpack(p) for p in self._saved)
            for t in out:
                if t is not None and not isinstance(t, _C.TensorBase):
                    raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result "
                                    f"of type {type(t).__name__}")
            return out
        for i, (t, v) in enumerate(zip(self._saved, self._versions)):
            if t is not None and t._version != v:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: saved tensor {i} of shape {list(t.shape)} is at version {t._version}; "
                    f"expected version {v} instead.")
        return self._saved

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class Function:
    """Base class of custom differentiable operations, with a forward and a backward written in Python.

    Subclass it and write static ``forward(ctx, *args)`` and
    ``backward(ctx, *grad_outputs)``; call it with ``MyFn.apply(*args)``, or, as
    OneFlow allows, through an instance: ``MyFn()(*args)``. ``backward`` returns
    one gradient per argument of ``forward`` (``None`` for arguments that are not
    tensors or need none). ``forward`` runs without recording a graph.

    Example::

        >>> class Exp(flow.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, dy):
        ...         (y,) = ctx.saved_tensors
        ...         return dy * y
        >>> x = flow.tensor([0.0, 1.0], requires_grad=True)
        >>> Exp.apply(x).sum().backward()
        >>> x.grad
        tensor([1.0000, 2.7183])
    """

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args):
        return type(self).apply(*args)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        tensor_pos = [i for i, a in enumerate(args) if isinstance(a, _C.TensorBase)]
        ctx.needs_input_grad = tuple(isinstance(a, _C.TensorBase) and a.requires_grad for a in args)
        with no_grad():
            out = cls.forward(ctx, *args)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        out_pos = [i for i, o in enumerate(outs) if isinstance(o, _C.TensorBase)]
        if not (_C.is_grad_enabled() and any(ctx.needs_input_grad)):
            return out
        non_diff = getattr(ctx, "_non_differentiable", set())
        n_args = len(args)

        def backward(grads):
            full = [None] * len(outs)
            for slot, g in zip(out_pos, grads):
                full[slot] = g
            result = cls.backward(ctx, *full)
            if not isinstance(result, tuple):
                result = (result,)
            if len(result) != n_args:
                raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                                   f"(expected {n_args}, got {len(result)})")
            for i, g in enumerate(result):
                if g is not None and not isinstance(g, _C.TensorBase):
                    raise TypeError(f"function {cls.__name__}Backward returned a gradient of type "
                                    f"{type(g).__name__} at index {i}; expected a Tensor or None")
            return [result[i] for i in tensor_pos]

        diff_outs = [outs[i] for i in out_pos if id(outs[i]) not in non_diff]
        connected = _C.record_function(cls.__name__ + "Backward", [args[i] for i in tensor_pos], diff_outs,
                                       backward)
        by_id = dict(zip([id(o) for o in diff_outs], connected))
        result = tuple(by_id.get(id(o), o) if isinstance(o, _C.TensorBase) else o for o in outs)
        return result[0] if single else result
