# Autograd bindings: grad mode, backward/grad, graph nodes, Python callbacks
# (tensor hooks and custom functions). Included by _C.pyx.
from cpython.exc cimport PyErr_SetObject
from cpython.ref cimport Py_INCREF


def is_grad_enabled():
    return grad_enabled()


def _set_grad_enabled(bint enabled):
    set_grad_enabled(enabled)


cdef extern from "monoflow/autograd.h" namespace "monoflow::autograd" nogil:
    cbool inference_mode_enabled()
    void set_inference_mode_enabled(cbool enabled)
    cbool is_inference(const Tensor& t)


def _is_inference_mode_enabled():
    return inference_mode_enabled()


def _set_inference_mode_enabled(bint enabled):
    set_inference_mode_enabled(enabled)


def _is_inference(TensorBase t):
    """Whether t was made inside inference_mode (Note [Inference tensors] in tensor.h)."""
    return is_inference(t.t)


@cython.binding(False)
cdef class Node:
    """A node of the recorded graph: ``tensor.grad_fn`` (torch.autograd.graph.Node). Each node name
    is a subclass of its own, as torch's: ``type(grad_fn).__name__`` is the name.

    Example::

        >>> y = (flow.ones(2, requires_grad=True) * 2).sum()
        >>> type(y.grad_fn).__name__, isinstance(y.grad_fn, flow.autograd.graph.Node)
        ('SumBackward0', True)
        >>> y.grad_fn.next_functions[0][0].name()
        'MulBackward0'
    """
    cdef shared_ptr[Node_t] n

    def name(self):
        return self.n.get().name().decode()

    @property
    def next_functions(self):
        cdef Node_t* p = self.n.get()
        return tuple((_wrap_node(p.next_edges[i].fn), p.next_edges[i].input_nr)
                     for i in range(p.next_edges.size()))

    def __repr__(self):
        return f"<{self.name()} object at {hex(<uintptr_t>self.n.get())}>"

    def __eq__(self, other):
        return isinstance(other, Node) and (<Node>other).n.get() == self.n.get()

    def __hash__(self):
        return hash(<uintptr_t>self.n.get())


# One Python class per node name (MulBackward0, ...), made on first use: tools
# that draw graphs (torchviz) label a node with type(grad_fn).__name__, as
# torch's nodes are each their own class.
_NODE_CLASSES = {}


cdef object _node_class(str name):
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        cls = _NODE_CLASSES[name] = type(name, (Node,), {"__module__": "monoflow.autograd.graph", "__slots__": ()})
    return cls


cdef object _wrap_node(shared_ptr[Node_t] n):
    if n.get() == NULL:
        return None
    cls = _node_class(n.get().name().decode())
    cdef Node r = Node.__new__(cls)
    r.n = n
    return r


cdef vector[Tensor] _tensor_vector(object seq, str what, bint allow_none) except *:
    cdef vector[Tensor] out
    cdef Tensor empty_t
    for v in seq:
        if v is None and allow_none:
            out.push_back(empty_t)
        elif isinstance(v, TensorBase):
            out.push_back((<TensorBase>v).t)
        else:
            raise TypeError(f"{what}: expected a Tensor, got {type(v).__name__}")
    return out


cdef list _wrap_tensors(const vector[Tensor]& v):
    return [None if v[i].get() == NULL else wrap(v[i]) for i in range(v.size())]


def backward(tensors, grad_tensors, bint retain_graph, bint create_graph, inputs):
    ag_backward(_tensor_vector(tensors, "backward", False), _tensor_vector(grad_tensors, "backward", True),
                retain_graph, create_graph, _tensor_vector(inputs, "backward", False))


def grad(outputs, inputs, grad_outputs, bint retain_graph, bint create_graph, bint allow_unused):
    return _wrap_tensors(ag_grad_of(_tensor_vector(outputs, "grad", False), _tensor_vector(inputs, "grad", False),
                                   _tensor_vector(grad_outputs, "grad", True), retain_graph, create_graph,
                                   allow_unused))


def record_function(str name, inputs, outputs, backward_fn):
    """Connects a custom function's outputs to its inputs; `backward_fn(grads)`
    returns one gradient (or None) per input. Returns the outputs to hand out."""
    return _wrap_tensors(ag_record_custom(name.encode(), _tensor_vector(inputs, name, False),
                                         _tensor_vector(outputs, name, False), make_backward(backward_fn, _call_backward)))


def formal_input(str op not None, TensorBase out not None, TensorBase x not None):
    """`out` (`op`'s composition of recorded ops on `x`) with a backward that reads `x` formally: under
    create_graph its gradient is connected to `x` with a zero derivative, as torch's native
    piecewise-linear backward (Note [Formal inputs of piecewise-linear backward], autograd.h)."""
    return wrap(ag_formal_input(op.encode(), out.t, x.t))


def _make_subclass(cls, data, bint requires_grad):
    """A `cls` instance sharing data's memory, as a new leaf (nn.Parameter)."""
    cdef Tensor d = _tt(data, "_make_subclass", "data", 2)
    if not (isinstance(cls, type) and issubclass(cls, TensorBase)):
        raise TypeError(f"_make_subclass(): argument 'cls' must be a Tensor subclass, not {cls!r}")
    obj = mf_new_instance(cls)
    (<TensorBase>obj).t = ag_detach(d)
    if requires_grad:
        ag_set_requires_grad((<TensorBase>obj).t, True)
    return obj


cdef Tensor _call_hook(object fn, const Tensor& g) noexcept:
    cdef Tensor r
    cdef object err = None
    try:
        gw = wrap(g)
        out = fn(gw)
        if out is not None:
            if not isinstance(out, TensorBase):
                raise TypeError(f"a tensor hook must return a Tensor or None, got {type(out).__name__}")
            # as torch: a hook may change the gradient's values, not what it is (the accumulated grad
            # and the next backward functions rely on the dtype, shape and device they were recorded with)
            for what, was, got in (() if gw is None else (("type", gw.dtype, out.dtype), ("size", tuple(gw.shape),
                                   tuple(out.shape)), ("device", gw.device, out.device))):
                if was != got:
                    raise RuntimeError(f"register_hook: hook '{getattr(fn, '__name__', repr(fn))}' has changed the "
                                       f"{what} of value (was {was} got {got})")
            r = (<TensorBase>out).t
    except BaseException as e:
        err = e
    if err is not None:
        PyErr_SetObject(type(err), err)
    return r


cdef PyObject* _call_pack(object fn, const Tensor& t) noexcept:
    # Note [Saved-tensor hooks]: a new reference to pack_hook's result, or NULL with the error set
    cdef object err = None
    cdef object out = None
    try:
        out = fn(wrap(t))
    except BaseException as e:
        err = e
    if err is not None:
        PyErr_SetObject(type(err), err)
        return NULL
    Py_INCREF(out)
    return <PyObject*>out


cdef Tensor _call_unpack(object fn, PyObject* packed) noexcept:
    cdef Tensor r
    cdef object err = None
    try:
        out = fn(<object>packed)
        if not isinstance(out, TensorBase):
            # (OneFlow's wording, then torch's)
            raise TypeError(f"saved_tensors_hooks: unpack_hook should return a Tensor, but got `{type(out)}` "
                            f"instead (Output of saved tensor unpack_hook expected to be a Tensor but got result "
                            f"of type {type(out).__name__})")
        r = (<TensorBase>out).t
    except BaseException as e:
        err = e
    if err is not None:
        PyErr_SetObject(type(err), err)
    return r


def _push_saved_tensors_hooks(pack_hook, unpack_hook):
    """Makes (pack_hook, unpack_hook) the saved-tensor hooks of this thread's built-in ops
    (autograd.graph.saved_tensors_hooks pushes and pops them)."""
    ag_push_saved_hooks(make_saved_hooks(pack_hook, unpack_hook, _call_pack, _call_unpack))


def _pop_saved_tensors_hooks():
    ag_pop_saved_hooks()


cdef vector[Tensor] _call_backward(object fn, const vector[Tensor]& grads) noexcept:
    cdef vector[Tensor] r
    cdef object err = None
    try:
        r = _tensor_vector(fn(_wrap_tensors(grads)), "backward", True)
    except BaseException as e:
        err = e
    if err is not None:
        PyErr_SetObject(type(err), err)
    return r
