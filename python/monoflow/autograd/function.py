"""Custom differentiable functions written in Python (``autograd.Function``)."""
import functools
import weakref

from monoflow import _C
from monoflow.autograd.grad_mode import enable_grad as _C_enable_grad
from monoflow.autograd.grad_mode import no_grad
from monoflow.autograd.graph import current_hooks


def _refuse_inference_tensors(saved):
    # a recorded graph may not keep a tensor made inside inference_mode (Note [Inference tensors] in
    # core/include/monoflow/tensor.h; the core refuses it for its own ops)
    if saved and not _C._is_inference_mode_enabled() and any(
            t is not None and _C._is_inference(t) and not t.requires_grad for t in saved):
        raise RuntimeError("Inference tensors cannot be saved for backward. A tensor made inside inference_mode "
                           "may not be used in computation tracked by autograd: clone() it to get a normal "
                           "tensor, or use no_grad() instead of inference_mode().")


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
        self._saved_src = tensors  # until apply() knows which are its inputs and outputs (Note [Live saved tensors])
        self._live = None
        self._versions = tuple(None if t is None else t._version for t in tensors)
        hooks = current_hooks()  # autograd.graph.saved_tensors_hooks: keep what pack_hook returns
        self._unpack = None
        if hooks is not None:
            pack, self._unpack = hooks
            self._saved = tuple(None if t is None else pack(t) for t in self._saved)

    def _release_saved(self):
        # the graph node is gone (backward ran without retain_graph, or the graph was dropped): the
        # saved tensors go with it, as in torch and OneFlow
        self._saved, self._versions, self._live, self._saved_src = (), (), None, None
        self._released = True

    def _is_data_valid(self):
        """OneFlow's check: whether the tensors saved for backward are still held (False once a
        backward pass without ``retain_graph`` has released them)."""
        return not getattr(self, "_released", False)

    @property
    def saved_tensors(self):
        if getattr(self, "_released", False):
            raise RuntimeError("Trying to backward through the graph a second time (or directly access saved "
                               "tensors after they have already been freed). Saved intermediate values of the "
                               "graph are freed when you call .backward() or autograd.grad(). Specify "
                               "retain_graph=True if you need to backward through the graph a second time or "
                               "if you need to access saved tensors after calling backward.")
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
        live = getattr(self, "_live", None)
        if live is None:
            return self._saved
        out = []
        for t, l in zip(self._saved, live):
            if isinstance(l, tuple):  # an output: (weak reference, its position)
                ref, pos = l
                l = ref()
                if l is None and _C.is_grad_enabled():
                    l = self._recompute_output(pos)
            out.append(t if l is None else l)
        return tuple(out)

    def _recompute_output(self, pos):
        """Output ``pos`` computed again from the live inputs with grad enabled (double backward of a saved
        output the caller dropped); None when forward's result does not depend on them differentiably."""
        if getattr(self, "_recomputed", None) is None:
            cls, args = self._recompute
            with _C_enable_grad():
                if cls.setup_context is not Function.setup_context:
                    out = cls.forward(*args)
                else:
                    out = cls.forward(FunctionCtx(), *args)
            self._recomputed = out if isinstance(out, tuple) else (out,)
        o = self._recomputed[pos]
        return o if isinstance(o, _C.TensorBase) and o.requires_grad else None

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

    @staticmethod
    def setup_context(ctx, inputs, output):
        """torch's newer style: when a subclass defines it, ``forward(*args)`` takes no ``ctx`` and
        ``setup_context(ctx, inputs, output)`` saves what backward needs (``inputs`` is the tuple of
        ``apply``'s arguments, ``output`` what ``forward`` returned).

        Example::

            >>> class Cube(flow.autograd.Function):
            ...     @staticmethod
            ...     def forward(x):
            ...         return x ** 3
            ...     @staticmethod
            ...     def setup_context(ctx, inputs, output):
            ...         ctx.save_for_backward(inputs[0])
            ...     @staticmethod
            ...     def backward(ctx, g):
            ...         (x,) = ctx.saved_tensors
            ...         return 3 * x ** 2 * g
            >>> x = flow.tensor([2.0], requires_grad=True)
            >>> Cube.apply(x).backward()
            >>> x.grad
            tensor([12.])
        """
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        tensor_pos = [i for i, a in enumerate(args) if isinstance(a, _C.TensorBase)]
        ctx.needs_input_grad = tuple(isinstance(a, _C.TensorBase) and a.requires_grad for a in args)
        with no_grad():
            if cls.setup_context is not Function.setup_context:  # torch's newer style: forward without ctx
                out = cls.forward(*args)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        out_pos = [i for i, o in enumerate(outs) if isinstance(o, _C.TensorBase)]
        if not (_C.is_grad_enabled() and any(ctx.needs_input_grad)):
            ctx._saved_src = None
            return out
        _refuse_inference_tensors(getattr(ctx, "_saved_src", None))
        non_diff = getattr(ctx, "_non_differentiable", set())
        n_args = len(args)

        def backward(grads):
            full = [None] * len(outs)
            for slot, g in zip(out_pos, grads):
                full[slot] = g
            result = cls.backward(ctx, *full)
            if not isinstance(result, tuple):
                result = (result,)
            if len(result) > n_args and all(g is None for g in result[n_args:]):
                result = result[:n_args]  # torch accepts extra trailing Nones
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
        weakref.finalize(backward, FunctionCtx._release_saved, ctx)  # the engine drops it with the node
        by_id = dict(zip([id(o) for o in diff_outs], connected))
        _link_saved(ctx, cls, args, outs, by_id)
        result = tuple(by_id.get(id(o), o) if isinstance(o, _C.TensorBase) else o for o in outs)
        return result[0] if single else result


# Note [Live saved tensors]
# save_for_backward keeps detached aliases, but a backward run under create_graph (double backward,
# gradgradcheck) must see the saved inputs and outputs with their history, as torch's SavedVariable
# gives them back. Once apply() knows them: a saved input is kept as itself (it holds no reference to
# this node: no cycle), a saved output by a weak reference to the connected output (a strong one would
# make a cycle through the C++ node that Python's collector cannot see); when that output is gone, the
# detached alias is what backward gets (first derivatives stay right). Under saved_tensors_hooks the
# packed values are used as they are.
def _link_saved(ctx, cls, args, outs, by_id):
    src, ctx._saved_src = getattr(ctx, "_saved_src", None), None
    if not src or getattr(ctx, "_unpack", None) is not None:
        return
    outs_pos = {id(o): i for i, o in enumerate(outs) if isinstance(o, _C.TensorBase)}
    inputs = {id(a): a for a in args if isinstance(a, _C.TensorBase) and a.requires_grad}
    live, any_live = [], False
    for t in src:
        if t is None:
            live.append(None)
        elif id(t) in inputs:
            live.append(inputs[id(t)])
            any_live = True
        elif id(t) in by_id:
            live.append((weakref.ref(by_id[id(t)]), outs_pos[id(t)]))
            any_live = True
        else:
            live.append(None)
    ctx._live = live if any_live else None
    if any_live:
        ctx._recompute = (cls, args)


def once_differentiable(fn):
    """Marks a custom :class:`Function`'s ``backward`` as differentiable only once: it runs without recording a
    graph, and differentiating its result again (double backward) raises ``RuntimeError``.

    Example::

        >>> from monoflow.autograd.function import once_differentiable
        >>> class Square(flow.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * g
        >>> x = flow.tensor([3.0], requires_grad=True)
        >>> Square.apply(x).backward()
        >>> x.grad
        tensor([6.])
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        inputs = [a for a in args if isinstance(a, _C.TensorBase) and a.requires_grad]
        if not inputs:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        tensors = [o for o in outs if isinstance(o, _C.TensorBase)]

        def refuse(grads):
            raise RuntimeError("trying to differentiate twice a function that was marked with "
                               "@once_differentiable")

        connected = _C.record_function("DelayedError", inputs, tensors, refuse)
        by_id = dict(zip([id(o) for o in tensors], connected))
        outs = tuple(by_id.get(id(o), o) if isinstance(o, _C.TensorBase) else o for o in outs)
        return outs[0] if single else outs
    return wrapper
