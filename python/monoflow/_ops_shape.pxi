# Bindings of the shape ops (included by _C.pyx; uses its helpers: wrap, _dims, _to_scalar, TensorBase,
# and the argument converters of _args.pxi).
# Argument conversion only: every rule lives in core/src/ops_shape*.cc and indexing.cc.

cdef extern from "monoflow/ops_shape.h" namespace "monoflow":
    cdef enum PadMode "monoflow::PadMode":
        PAD_CONSTANT "monoflow::PadMode::Constant"
        PAD_REFLECT "monoflow::PadMode::Reflect"
        PAD_REPLICATE "monoflow::PadMode::Replicate"
    Tensor c_cat "monoflow::cat"(const vector[Tensor]& tensors, int64_t dim) except +translate_exception
    Tensor c_stack "monoflow::stack"(const vector[Tensor]& tensors, int64_t dim) except +translate_exception
    vector[Tensor] c_split "monoflow::split"(const Tensor& t, int64_t split_size, int64_t dim) except +translate_exception
    vector[Tensor] c_split_with_sizes "monoflow::split_with_sizes"(const Tensor& t, const Dims& sizes, int64_t dim) except +translate_exception
    vector[Tensor] c_chunk "monoflow::chunk"(const Tensor& t, int64_t chunks, int64_t dim) except +translate_exception
    vector[Tensor] c_unbind "monoflow::unbind"(const Tensor& t, int64_t dim) except +translate_exception
    Tensor c_flip "monoflow::flip"(const Tensor& t, const Dims& dims) except +translate_exception
    Tensor c_roll "monoflow::roll"(const Tensor& t, const Dims& shifts, const Dims& dims) except +translate_exception
    Tensor c_repeat "monoflow::repeat"(const Tensor& t, const Dims& repeats) except +translate_exception
    Tensor c_tile "monoflow::tile"(const Tensor& t, const Dims& reps) except +translate_exception
    Tensor c_tril "monoflow::tril"(const Tensor& t, int64_t diagonal) except +translate_exception
    Tensor c_triu "monoflow::triu"(const Tensor& t, int64_t diagonal) except +translate_exception
    void c_tril_ "monoflow::tril_"(const Tensor& t, int64_t diagonal) except +translate_exception
    void c_triu_ "monoflow::triu_"(const Tensor& t, int64_t diagonal) except +translate_exception
    Tensor c_gather "monoflow::gather"(const Tensor& x, int64_t dim, const Tensor& index) except +translate_exception
    Tensor c_index_select "monoflow::index_select"(const Tensor& x, int64_t dim, const Tensor& index) except +translate_exception
    void c_scatter_ "monoflow::scatter_"(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, Scalar value) except +translate_exception
    Tensor c_scatter "monoflow::scatter"(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, Scalar value) except +translate_exception
    void c_scatter_add_ "monoflow::scatter_add_"(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) except +translate_exception
    Tensor c_scatter_add "monoflow::scatter_add"(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) except +translate_exception
    Tensor c_one_hot "monoflow::one_hot"(const Tensor& x, int64_t num_classes) except +translate_exception
    Tensor c_masked_fill "monoflow::masked_fill"(const Tensor& x, const Tensor& mask, Scalar value, const Tensor& value_tensor) except +translate_exception
    void c_masked_fill_ "monoflow::masked_fill_"(const Tensor& x, const Tensor& mask, Scalar value, const Tensor& value_tensor) except +translate_exception
    Tensor c_masked_select "monoflow::masked_select"(const Tensor& x, const Tensor& mask) except +translate_exception
    Tensor c_nonzero "monoflow::nonzero"(const Tensor& x) except +translate_exception
    vector[Tensor] c_nonzero_tuple "monoflow::nonzero_tuple"(const Tensor& x) except +translate_exception
    Tensor c_pad "monoflow::pad"(const Tensor& x, const Dims& pad, PadMode mode, optional[Scalar] value) except +translate_exception

cdef extern from "monoflow/indexing.h" namespace "monoflow":
    IndexItem c_index_item_tensor "monoflow::index_item_tensor"(const Tensor& t)
    IndexItem c_index_item_bool "monoflow::index_item_bool"(cbool v)
    Tensor c_index "monoflow::index"(const Tensor& t, const vector[IndexItem]& items) except +translate_exception
    void c_index_put_ "monoflow::index_put_"(const Tensor& t, const vector[IndexItem]& items, const Tensor& values, cbool accumulate) except +translate_exception
    void c_index_put_scalar_ "monoflow::index_put_scalar_"(const Tensor& t, const vector[IndexItem]& items, Scalar value) except +translate_exception
    void c_index_put_tensors_ "monoflow::index_put_tensors_"(const Tensor& t, const vector[Tensor]& indices, const Tensor& values, cbool accumulate) except +translate_exception


cdef vector[Tensor] _tensor_list(object tensors, str op) except *:
    cdef vector[Tensor] v
    if isinstance(tensors, TensorBase) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"{op}(): argument 'tensors' must be a sequence of Tensors, not {type(tensors).__name__}")
    for i, x in enumerate(tensors):
        if isinstance(x, TensorBase):  # (the argument's name is only formatted for the error)
            v.push_back((<TensorBase>x).t)
        else:
            v.push_back(_tt(x, op, f"tensors[{i}]"))
    return v


cdef tuple _wrap_all(const vector[Tensor]& v):
    return tuple([wrap(v[i]) for i in range(v.size())])


def cat(tensors, dim=0):
    return wrap(c_cat(_tensor_list(tensors, "cat"), _int_arg(dim, "cat", "dim")))


def stack(tensors, dim=0):
    return wrap(c_stack(_tensor_list(tensors, "stack"), _int_arg(dim, "stack", "dim")))


def split(x, split_size_or_sections, dim=0):
    cdef Tensor t = _tt(x, "split", "tensor")
    cdef int64_t d = _int_arg(dim, "split", "dim")
    if isinstance(split_size_or_sections, (list, tuple)):
        return _wrap_all(c_split_with_sizes(t, _dims(split_size_or_sections, "split"), d))
    return _wrap_all(c_split(t, _int_arg(split_size_or_sections, "split", "split_size"), d))


def chunk(x, chunks, dim=0):
    return _wrap_all(c_chunk(_tt(x, "chunk", "input"), _int_arg(chunks, "chunk", "chunks"), _int_arg(dim, "chunk", "dim")))


def unbind(x, dim=0):
    return _wrap_all(c_unbind(_tt(x, "unbind", "input"), _int_arg(dim, "unbind", "dim")))


def flip(x, dims):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.flip(x, dims)
    return wrap(c_flip(_tt(x, "flip", "input"), _dims(dims, "flip")))


def roll(x, shifts, dims=None):
    cdef Dims d
    if dims is not None:
        d = _dims(dims, "roll")
    return wrap(c_roll(_tt(x, "roll", "input"), _dims(shifts, "roll"), d))


def repeat(x, repeats):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.repeat(x, repeats)
    return wrap(c_repeat(_tt(x, "repeat", "input"), _dims(repeats, "repeat")))


def tile(x, reps):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.tile(x, reps)
    return wrap(c_tile(_tt(x, "tile", "input"), _dims(reps, "tile")))


def tril(x, diagonal=0):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.tril(x, diagonal)
    return wrap(c_tril(_tt(x, "tril", "input"), _int_arg(diagonal, "tril", "diagonal")))


def triu(x, diagonal=0):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.triu(x, diagonal)
    return wrap(c_triu(_tt(x, "triu", "input"), _int_arg(diagonal, "triu", "diagonal")))


def tril_(x, diagonal=0):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.tril(x, diagonal, True)
    c_tril_(_tt(x, "tril_", "input"), _int_arg(diagonal, "tril_", "diagonal"))
    return x


def triu_(x, diagonal=0):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.triu(x, diagonal, True)
    c_triu_(_tt(x, "triu_", "input"), _int_arg(diagonal, "triu_", "diagonal"))
    return x


def gather(x, dim, index):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.gather(x, dim, index)
    return wrap(c_gather(_tt(x, "gather", "input"), _int_arg(dim, "gather", "dim"), _tt(index, "gather", "index")))


def index_select(x, dim, index):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.index_select(x, dim, index)
    return wrap(c_index_select(_tt(x, "index_select", "input"), _int_arg(dim, "index_select", "dim"),
                               _tt(index, "index_select", "index")))


cdef bint _src_or_value(object src, str op, Tensor* t, Scalar* s) except -1:
    # scatter's src: a tensor, or a number (a Python number or 0-dim numpy value)
    if isinstance(src, TensorBase):
        t[0] = (<TensorBase>src).t
    elif not _to_scalar(src, s):
        raise TypeError(f"{op}(): argument 'src' must be Tensor or a number, not {type(src).__name__}")
    return 1


def scatter(x, dim, index, src, inplace=False):
    cdef Tensor st
    cdef Scalar s
    op = "scatter_" if inplace else "scatter"
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.scatter(x, dim, index, src, False, inplace)
    _src_or_value(src, op, &st, &s)
    cdef Tensor t = _tt(x, op, "input")
    if inplace:
        c_scatter_(t, _int_arg(dim, op, "dim"), _tt(index, op, "index"), st, s)
        return x
    return wrap(c_scatter(t, _int_arg(dim, op, "dim"), _tt(index, op, "index"), st, s))


def scatter_add(x, dim, index, src, inplace=False):
    op = "scatter_add_" if inplace else "scatter_add"
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.scatter(x, dim, index, src, True, inplace)
    cdef Tensor t = _tt(x, op, "input")
    cdef Tensor st = _tt(src, op, "src")
    if inplace:
        c_scatter_add_(t, _int_arg(dim, op, "dim"), _tt(index, op, "index"), st)
        return x
    return wrap(c_scatter_add(t, _int_arg(dim, op, "dim"), _tt(index, op, "index"), st))


def one_hot(x, num_classes=-1):
    return wrap(c_one_hot(_tt(x, "one_hot", "input"), _int_arg(num_classes, "one_hot", "num_classes")))


def masked_fill(x, mask, value, inplace=False):
    op = "masked_fill_" if inplace else "masked_fill"
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.masked_fill(x, mask, value, inplace)
    cdef Tensor t = _tt(x, op, "input")
    cdef Tensor m = _tt(mask, op, "mask")
    cdef Tensor vt
    cdef Scalar s
    if isinstance(value, TensorBase):
        vt = (<TensorBase>value).t
    elif not _to_scalar(value, &s):
        raise TypeError(f"{op}(): argument 'value' must be a number or a 0-dim Tensor, not {type(value).__name__}")
    if inplace:
        c_masked_fill_(t, m, s, vt)
        return x
    return wrap(c_masked_fill(t, m, s, vt))


def masked_select(x, mask):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.masked_select(x, mask)
    return wrap(c_masked_select(_tt(x, "masked_select", "input"), _tt(mask, "masked_select", "mask")))


def nonzero(x, as_tuple=False):
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.nonzero(x, as_tuple)
    cdef Tensor t = _tt(x, "nonzero", "input")
    if as_tuple:
        return _wrap_all(c_nonzero_tuple(t))
    return wrap(c_nonzero(t))


def pad(x, pad, mode="constant", value=None):
    cdef optional[Scalar] v
    cdef Scalar s
    cdef PadMode m
    if mode == "constant":
        m = PAD_CONSTANT
    elif mode == "reflect":
        m = PAD_REFLECT
    elif mode == "replicate":
        m = PAD_REPLICATE
    else:
        raise NotImplementedError(f"pad: padding mode {mode!r} is not supported (constant, reflect, replicate): "
                                  f"Pad mode is {mode}, but only constant, reflect and replicate are valid.")
    if value is not None:
        if not _to_scalar(value, &s):
            raise TypeError(f"pad(): argument 'value' must be a number, not {type(value).__name__}")
        v = s
    return wrap(c_pad(_tt(x, "pad", "input"), _dims(pad, "pad"), m, v))


def index_put_(x, indices, values, accumulate=False):
    cdef vector[Tensor] idx
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put_(): argument 'indices' must be a tuple of Tensors, not {type(indices).__name__}")
    if _is_cplx_tensor(x):  # (a Python complex is not a tensor: the TypeError below)
        return _complex_ops.shape.index_put(x, indices, values, accumulate, True)
    for i, v in enumerate(indices):
        idx.push_back(_tt(v, "index_put_", f"indices[{i}]"))
    c_index_put_tensors_(_tt(x, "index_put_", "input"), idx, _tt(values, "index_put_", "values"), accumulate)
    return x


# ---------------------------------------------------------------- tensor[...]

cdef object _tensor_factory = None


cdef object _index_tensor(object seq):
    # A list (or numpy array) used as an index, as a tensor: an empty one
    # indexes with int64 as in PyTorch (not the default float dtype).
    global _tensor_factory
    if _tensor_factory is None:
        from monoflow._creation import tensor as _tensor_factory
    t = _tensor_factory(seq)
    if t.numel() == 0 and t.dtype.is_floating_point:
        t = t.long()
    return t


cdef bint _sequence_as_tuple(object idx):
    # PyTorch's (and old numpy's) heuristic: a short list holding a sequence,
    # a tensor, a slice, None or Ellipsis stands for the tuple of its items.
    if not isinstance(idx, list) or len(idx) >= 32:
        return False
    for x in idx:
        if isinstance(x, (TensorBase, list, tuple, slice)) or x is None or x is Ellipsis:
            return True
    return False


cdef int64_t _slice_bound(object b) except? -1:
    # x[0.0:2]: torch's TypeError, OneFlow's RuntimeError (both classes)
    if not hasattr(b, "__index__"):
        raise TypeRuntimeError(f"indexing: slice indices must be integers or None or have an __index__ method "
                               f"(got {type(b).__name__})")
    return b.__index__()


cdef IndexItem _index_item(object x) except *:
    cdef IndexItem it
    cdef int dt
    if x is None:
        it.kind = IDX_NONE
    elif x is Ellipsis:
        it.kind = IDX_ELLIPSIS
    elif isinstance(x, slice):
        it.kind = IDX_SLICE
        if x.start is not None:
            it.start = _slice_bound(x.start)
        if x.stop is not None:
            it.stop = _slice_bound(x.stop)
        it.step = 1 if x.step is None else _slice_bound(x.step)
        if it.step <= 0:
            raise ValueRuntimeError("indexing: Step must be greater than zero")  # (both classes: Note [Errors OneFlow raises as RuntimeError])
    elif isinstance(x, bool):
        it = c_index_item_bool(x)
    elif isinstance(x, TensorBase):
        dt = <int>(<TensorBase>x).t.get().dtype
        if (<TensorBase>x).t.get().dim() == 0 and 2 <= dt <= 5:
            it.kind = IDX_INT  # a 0-dim integer tensor indexes like an int (a view)
            it.index = x.item()
        else:
            if dt == 1:
                import warnings
                warnings.warn("indexing with dtype uint8 is now deprecated, please use a dtype bool instead.",
                              UserWarning, stacklevel=3)
            it = c_index_item_tensor((<TensorBase>x).t)
    elif isinstance(x, int) or (hasattr(x, "__index__") and not hasattr(x, "__len__")):
        it.kind = IDX_INT
        it.index = _int_arg(x, "index", "index")
    elif isinstance(x, (list, tuple, range)) or (hasattr(x, "__array__") and hasattr(x, "dtype")):
        it = c_index_item_tensor((<TensorBase>_index_tensor(x)).t)  # x[range(n), y]: a range is a list of ints
    else:
        raise IndexError(f"indexing: only integers, slices (`:`), ellipsis (`...`), None, bools, lists and "
                         f"integer or boolean tensors are valid indices (got {type(x).__name__})")
    return it


cdef vector[IndexItem] _shape_index_items(object idx) except *:
    cdef vector[IndexItem] items
    if not isinstance(idx, tuple):
        if _sequence_as_tuple(idx):
            import warnings
            warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated; use "
                          "x[tuple(seq)] instead of x[seq].", UserWarning, stacklevel=3)
            idx = tuple(idx)
        else:
            idx = (idx,)
    for x in idx:
        items.push_back(_index_item(x))
    return items


cdef object _getitem(TensorBase self, object idx):
    if _is_cplx(self) and _complex_ops.shape.getitem_on_real_view(self, idx):
        return _complex_ops.shape.getitem(self, idx)
    return wrap(c_index(self.t, _shape_index_items(idx)))


cdef bint _setitem_scalar(object value, Scalar* s) except *:
    # an int beyond int64: torch's ValueError, naming the assignment
    try:
        return _to_scalar(value, s)
    except OverflowError as e:
        raise ValueError(f"__setitem__(): {e}") from None


cdef object _setitem(TensorBase self, object idx, object value):
    if _is_cplx(self) and _complex_ops.shape.is_advanced(idx):
        return _complex_ops.shape.setitem(self, idx, value)
    cdef vector[IndexItem] items = _shape_index_items(idx)
    cdef Scalar s
    if _is_cplx(value) and not isinstance(value, TensorBase):  # a complex number: as a 0-dim tensor
        value = _complex_ops.full((), value, self.dtype, self.device)
    if isinstance(value, TensorBase):
        try:
            c_index_put_(self.t, items, (<TensorBase>value).t, False)
        except RuntimeError as e:  # a value that does not fit the indexed slots: name the assignment
            if str(e).startswith("expand:"):
                raise RuntimeError(f"__setitem__: {e}") from None
            raise
    elif _setitem_scalar(value, &s):
        c_index_put_scalar_(self.t, items, s)
    else:
        raise TypeError(f"__setitem__: cannot assign a value of type {type(value).__name__} "
                        "(a tensor or a number is expected)")
