# cython: language_level=3, boundscheck=False, wraparound=False, embedsignature=True
# cython: allow_none_for_extension_args=False
# distutils: language = c++
"""Bindings of the monoflow core. Thin by design: argument conversion only;
every rule (shapes, dtypes, devices, errors) lives in the C++ core.

Two rules keep a bad argument from reaching the core as a null or foreign
handle (Note [Argument conversion] in _args.pxi): entry points convert their
arguments with the converters of _args.pxi, and the extension types are
compiled with binding=False, so that their methods are CPython method
descriptors, which refuse a foreign `self` (``Tensor.sum(None)``) with
"descriptor 'sum' for 'monoflow._C.TensorBase' objects doesn't apply to a
'NoneType' object" as PyTorch's do; Cython's own (binding) methods would
read a None or a str as a tensor handle. allow_none_for_extension_args=False
is the safety net for any typed parameter left: None is refused there too."""

cimport cython
from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBuffer_Release, PyObject_GetBuffer
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int16_t, int64_t, uintptr_t
from libcpp cimport bool as cbool
from libcpp.memory cimport shared_ptr
from libcpp.optional cimport optional, nullopt
from libcpp.string cimport string
from libcpp.vector cimport vector

from monoflow._core cimport *

include "_args.pxi"


class OutOfMemoryError(RuntimeError):
    """A device ran out of memory even after the caching allocator released its cache."""


class DynamicShapeError(RuntimeError):
    """An op whose output shape depends on tensor values (nonzero, masked_select, boolean-mask
    indexing) inside a graph trace: a replay would keep the traced shape (Note [Graphs run
    eagerly] in nn/graph/graph.py)."""


class IndexRuntimeError(IndexError, RuntimeError):
    """An IndexError that OneFlow raises as RuntimeError (a 0-dim tensor indexed):
    ``except IndexError`` (PyTorch) and ``except RuntimeError`` (OneFlow) both catch it
    (Note [Errors OneFlow raises as RuntimeError] in core/include/monoflow/error.h)."""


class ValueRuntimeError(ValueError, RuntimeError):
    """A ValueError that OneFlow raises as RuntimeError (a slice step <= 0): ``except
    ValueError`` (PyTorch) and ``except RuntimeError`` (OneFlow) both catch it."""


class TypeRuntimeError(TypeError, RuntimeError):
    """A TypeError that OneFlow raises as RuntimeError (a slice bound that is not an integer):
    ``except TypeError`` (PyTorch) and ``except RuntimeError`` (OneFlow) both catch it."""


class ZeroDivisionRuntimeError(ZeroDivisionError, RuntimeError):
    """An integer division by zero: torch raises it as a RuntimeError ("ZeroDivisionError"),
    Python as ZeroDivisionError; ``except`` of either catches it."""


set_error_class(kOutOfMemoryError, OutOfMemoryError)
set_error_class(kDynamicShapeError, DynamicShapeError)
set_error_class(kIndexRuntimeError, IndexRuntimeError)
set_error_class(kValueRuntimeError, ValueRuntimeError)
set_error_class(kZeroDivisionRuntimeError, ZeroDivisionRuntimeError)

# ---------------------------------------------------------------- division

def _rounded_division(a, b, mode, op="div"):
    """a / b rounded toward zero ('trunc') or down ('floor'), as torch.div's
    rounding_mode; integer operands keep their integer dtype, exactly."""
    if not isinstance(mode, str):  # (an array's == would be asked its truth value)
        raise TypeError(name_op_in_progress(f"{op}(): argument 'rounding_mode' must be str or None, "
                                            f"not {type(mode).__name__}"))
    if mode == "floor":
        return a // b
    if mode != "trunc":
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{mode}'")
    b_is_tensor = isinstance(b, TensorBase)
    b_integral = (not b.dtype.is_floating_point) if b_is_tensor else isinstance(b, int)
    if a.dtype.is_floating_point or not b_integral:
        return (a / b).trunc()
    # |a| // |b| with the sign of the quotient: exact for any integers.
    if b_is_tensor:
        return (a.abs() // b.abs()) * (a.sign() * b.sign())
    return (a.abs() // abs(b)) * (a.sign() * ((b > 0) - (b < 0)))


# ---------------------------------------------------------------- dtypes

# Only this module makes dtype objects (one per element type); a dtype built
# by a script would carry no element type and silently act as bool.
cdef object _DTYPE_TOKEN = object()


@cython.binding(False)
cdef class dtype:
    """dtype(...)

    The element type of a tensor, e.g. ``monoflow.float32`` (what
    ``Tensor.dtype`` returns). There is one object per type, to compare with
    ``is`` or ``==``; they cannot be created by a script. The names
    ``monoflow.bool``, ``uint8``, ``int8``, ``int16``, ``int32``, ``int64``,
    ``float16``, ``bfloat16``, ``float32``, ``float64`` hold them, with torch's
    aliases (``monoflow.float`` is ``float32``, ``long`` is ``int64``,
    ``half`` is ``float16``, ``double`` is ``float64``, ``int`` is ``int32``).

    Attributes:
        name (str): the type's name, ``"float32"``.
        itemsize (int): the size of one element in bytes.
        is_floating_point (bool): whether it is a floating type.
        is_signed (bool): whether it holds negative values.

    Example::

        >>> flow.zeros(2).dtype
        monoflow.float32
        >>> flow.float is flow.float32, flow.long
        (True, monoflow.int64)
        >>> flow.float16.itemsize, flow.int32.is_floating_point
        (2, False)
    """
    cdef readonly int _value
    cdef readonly str name
    cdef readonly int itemsize
    cdef readonly bint is_floating_point
    cdef readonly bint is_signed
    cdef readonly bint is_complex

    def __cinit__(self, *args, **kwargs):
        if len(args) != 1 or args[0] is not _DTYPE_TOKEN or kwargs:
            raise TypeError("cannot create 'monoflow.dtype' instances; use the predefined ones "
                            "(monoflow.float32, monoflow.int64, ...)")

    def __repr__(self):
        return api_name() + "." + self.name

    def __reduce__(self):
        return (_dtype_from_name, (self.name,))

    def to_complex(self):
        if self._value in (8, 10):
            return _DTYPES[10]
        if self._value in (9, 11):
            return _DTYPES[11]
        raise TypeError(f"{self.name} has no complex counterpart in monoflow")

    def to_real(self):
        return _DTYPES[self._value - 2] if self.is_complex else self


_DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                "complex64", "complex128")
cdef list _DTYPES = []
for _i, _n in enumerate(_DTYPE_NAMES):
    _d = dtype.__new__(dtype, _DTYPE_TOKEN)
    (<dtype>_d)._value = _i
    (<dtype>_d).name = _n
    (<dtype>_d).itemsize = itemsize(<DType>_i)
    (<dtype>_d).is_floating_point = 6 <= _i <= 9
    (<dtype>_d).is_signed = _i >= 2
    (<dtype>_d).is_complex = _i >= 10
    _DTYPES.append(_d)

dtypes = tuple(_DTYPES)


def _dtype_from_name(str name):
    return _DTYPES[_DTYPE_NAMES.index(name)]


cdef inline dtype _wrap_dtype(DType t):
    return <dtype>_DTYPES[<int>t]


cdef inline DType _dt(object d) except *:
    if type(d) is dtype:
        return <DType>(<dtype>d)._value
    raise TypeError(name_op_in_progress(f"expected a monoflow dtype, got {d!r}"))


def promote_types(type1, type2):
    return _wrap_dtype(c_promote_types(_dtype_arg(type1, "promote_types", "type1", 1),
                                       _dtype_arg(type2, "promote_types", "type2", 2)))


def can_cast(from_, to):
    return c_can_cast(_dtype_arg(from_, "can_cast", "from_", 1), _dtype_arg(to, "can_cast", "to", 2))


def get_default_dtype():
    return _wrap_dtype(default_float_dtype())


def set_default_dtype(d):
    _dtype_arg(d, "set_default_dtype", "d", 1)
    if not d.is_floating_point:
        raise TypeError(f"set_default_dtype: only floating-point dtypes are allowed, got {d!r}")
    set_default_float_dtype(<DType>d._value)

# ---------------------------------------------------------------- devices

@cython.binding(False)
cdef class device:
    """device(spec, index=None)

    A device: where a tensor's memory lives and its ops run, as a type
    (``"cpu"``, ``"cuda"``, or a plugin's type) and an index.

    Printed with ``str()``, a device reads ``"cpu:0"`` (OneFlow's form);
    its ``repr`` is torch's, ``device(type='cpu', index=0)``.

    Args:
        spec (str or device): ``"cpu"``, ``"cuda:1"``, a device type, or a
            device (copied).
        index (int, optional): the device index, when ``spec`` is a type
            without one. Default: ``None``: the index in ``spec``, else 0.

    Attributes:
        type (str): the device type, ``"cpu"``.
        index (int): the device index.

    A type torch knows (``"cuda"``, ``"meta"``, ``"mps"``, ``"xpu"`` ...) can
    be named without its plugin, as torch names CUDA on a CPU-only build
    (``x.device != flow.device("meta")`` works); making or moving a tensor
    there raises RuntimeError, naming the device and how to get it.

    Raises:
        ValueError: if ``spec`` names an index and ``index`` is given too.
        RuntimeError: if the device type is neither registered (its plugin
            loaded) nor one of torch's device type names.

    Example::

        >>> d = flow.device("cpu")
        >>> d
        device(type='cpu', index=0)
        >>> d.type, d.index, str(d)
        ('cpu', 0, 'cpu:0')
        >>> flow.device("cpu", 0) == flow.device("cpu:0")
        True
    """
    cdef Device _d
    cdef readonly str type
    cdef readonly int index
    cdef bint _absent  # one of torch's device types, with no plugin loaded: it can be named, not used

    def __init__(self, spec, index=None):
        cdef Device d
        if isinstance(spec, device):
            if (<device>spec)._absent:
                self._set_absent((<device>spec).type, (<device>spec).index)
                return
            d = (<device>spec)._d
        elif isinstance(spec, str):
            if index is not None:
                if ":" in spec:
                    raise ValueError(f"device: type (string) must not include an index because index was passed explicitly: {spec}")
                spec = f"{spec}:{int(index)}"
            try:
                d = parse_device(spec.encode())
            except RuntimeError:
                name, _, num = spec.partition(":")
                if registry().find(name.encode()) != NULL or name not in _TORCH_DEVICE_TYPES or \
                        (num and not num.isdigit()):
                    raise
                self._set_absent(name, int(num) if num else 0)
                return
        else:
            raise TypeError(f"device: expected a string or a device, got {type(spec).__name__}")
        self._set(d)

    cdef _set_absent(self, str name, int index):
        self._absent = True
        self.type = name
        self.index = index

    cdef _set(self, Device d):
        self._d = d
        self.type = registry().backend(d.type).name().decode()
        self.index = d.index

    def __repr__(self):
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except Exception:
                return False
        if not isinstance(other, device):
            return NotImplemented
        if self._absent or (<device>other)._absent:
            return self.type == (<device>other).type and self.index == (<device>other).index
        return self._d.type == (<device>other)._d.type and self._d.index == (<device>other)._d.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))

    # `with flow.device("opencl"):` (torch 2's): inside the block, creation functions (and so the
    # modules built there) default to this device; the previous default comes back after it.
    def __enter__(self):
        previous = _default_device
        set_default_device(self)  # (raises for a device without a plugin: nothing to undo then)
        _device_blocks.append(previous)
        return self

    def __exit__(self, *exc):
        global _default_device
        _default_device = _device_blocks.pop()
        return False


# The device type names torch accepts (c10's DeviceType): flow.device() names them even without a plugin.
_TORCH_DEVICE_TYPES = frozenset(("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                                 "privateuseone"))

cdef dict _device_cache = {}

cdef device _wrap_device(Device d):
    key = (d.type, d.index)
    r = _device_cache.get(key)
    if r is None:
        r = device.__new__(device)
        (<device>r)._set(d)
        _device_cache[key] = r
    return <device>r


cdef Device _dev(object d) except *:
    cdef Device out
    if d is None:
        out.type = 0
        out.index = 0
        return out
    if isinstance(d, device):
        if (<device>d)._absent:
            parse_device(str(d).encode())  # raises, naming the device type and how to load its plugin
        return (<device>d)._d
    if isinstance(d, str):
        return parse_device(d.encode())
    if isinstance(d, int):
        raise TypeError(name_op_in_progress(
            "device: integer device ordinals are ambiguous in monoflow; pass a string such as 'cpu' or 'testdev:0'"))
    raise TypeError(name_op_in_progress(f"expected a device or a device string, got {type(d).__name__}"))


def load_plugin(str path):
    """Loads a device plugin library; returns its device type name."""
    return registry().load(path.encode()).decode()


def defer_plugin(str type_name, str path):
    """Registers a plugin library to load at the first use of its device type (Note [Deferred plugins])."""
    registry().defer(type_name.encode(), path.encode())


def device_types():
    """The device types with data, after loading the deferred plugins (asking which exist is a use)."""
    registry().load_deferred()
    return loaded_device_types()


def loaded_device_types():
    """The device types loaded so far: a deferred plugin stays unloaded."""
    return [n.decode() for n in registry().names()]


def _unknown_device_type(str type_name):
    why = registry().deferred_failure(type_name.encode()).decode(errors="replace")
    return RuntimeError(f"Unknown device type '{type_name}'"
                        + (f" (the built-in {type_name} plugin could not be loaded: {why})" if why else ""))


def device_count(str type_name):
    cdef Backend* b = registry().find(type_name.encode())
    if b == NULL:
        raise _unknown_device_type(type_name)
    return b.device_count()


def device_info(str type_name):
    cdef Backend* b = registry().find(type_name.encode())
    if b == NULL:
        raise _unknown_device_type(type_name)
    out = []
    cdef MFDeviceProperties p
    for i in range(b.device_count()):
        p = b.properties(i)
        out.append({"name": p.name.decode(errors="replace"), "total_memory": p.total_memory,
                    "multiprocessor_count": p.multiprocessor_count, "runs_on_host_cpu": bool(p.runs_on_host_cpu)})
    return {"type": type_name, "path": b.path().decode(), "host_memory": b.host_memory(), "devices": out}


cdef Backend* _backend_named(str type_name) except NULL:
    cdef Backend* b = registry().find(type_name.encode())
    if b == NULL:
        raise _unknown_device_type(type_name)
    return b


def device_num_threads(str type_name):
    """The size of the host thread team running `type_name`'s kernels (plugin ABI 1.1)."""
    return _backend_named(type_name).num_threads()


def set_device_num_threads(str type_name, int n):
    """Fixes `type_name`'s kernel thread team at `n` > 0 threads (plugin ABI 1.1)."""
    _backend_named(type_name).set_num_threads(n)


def fallback_counts():
    # Typed as a dict: Cython converts the std::map (pair keys become tuples of
    # bytes); an untyped local would stay a C++ map without .items().
    cdef dict counts = registry().fallback_counts()
    return {(dev.decode(), op.decode()): n for (dev, op), n in counts.items()}


def set_warning_handler(handler):
    install_warning_handler(handler)


# Reading values on the host is refused while a graph trace records
# (Note [Graph tracing] in monoflow/graph/trace.h).
cdef extern from "monoflow/graph/trace.h" namespace "monoflow::graph":
    cbool c_graph_tracing "monoflow::graph::tracing"()
    void c_check_host_read "monoflow::graph::check_host_read"(const char* what) except +translate_exception
    void c_check_value_read "monoflow::graph::check_value_read"(const char* what, const Tensor& t) \
        except +translate_exception


def synchronize(dev=None):
    """Waits for all queued work on a device (all devices when None) and raises
    the first error a kernel reported."""
    cdef Backend* b
    cdef Device d
    if c_graph_tracing():
        c_check_host_read(b"monoflow.synchronize()")
    if dev is None:
        for name in registry().names():
            registry().find(name).synchronize_all()
    elif isinstance(dev, str):
        try:
            d = _dev(dev)
        except RuntimeError as e:  # an unknown device type: the op is named (no Python frame here)
            raise RuntimeError(name_op_in_progress(f"synchronize(): {e}")) from None
        c_synchronize(d)
    elif isinstance(dev, device):
        c_synchronize(_dev(dev))
    else:
        raise _arg_error("synchronize", "device", 1, "monoflow.device or str", dev)


cdef CachingAllocator* _allocator(object dev) except NULL:
    cdef Device d = _dev(dev)
    return &registry().backend(d.type).allocator(d.index)


def memory_stats(dev=None):
    cdef AllocatorStats s = _allocator(dev).stats()
    return {"allocated_bytes": s.allocated_bytes, "reserved_bytes": s.reserved_bytes,
            "peak_allocated_bytes": s.peak_allocated_bytes, "peak_reserved_bytes": s.peak_reserved_bytes,
            "num_allocs": s.num_allocs, "cache_hits": s.cache_hits, "num_raw_allocs": s.num_raw_allocs,
            "num_raw_frees": s.num_raw_frees, "num_oom_retries": s.num_oom_retries,
            "active_blocks": s.active_blocks}


def empty_cache(dev=None):
    _allocator(dev).empty_cache()


def reset_peak_memory_stats(dev=None):
    _allocator(dev).reset_peak()

# ---------------------------------------------------------------- tensors

cdef object _tensor_cls = None


def _set_tensor_class(cls):
    global _tensor_cls
    if not issubclass(cls, TensorBase):
        raise TypeError("the tensor class must derive from TensorBase")
    _tensor_cls = cls


cdef extern from *:
    """
    static PyObject* mf_empty_tuple = NULL;
    // Set while the bindings instantiate a tensor object for a handle they
    // already have (TensorBase.__cinit__ then leaves the handle to them).
    static int mf_wrapping = 0;
    // Instantiates `cls` (a TensorBase subclass) through TensorBase's own
    // tp_new, so neither a Python __new__ nor __init__ runs: the cheapest
    // way to hand a new tensor back to Python.
    static inline PyObject* mf_new_instance_of(PyObject* base, PyObject* cls) {
      if (!mf_empty_tuple && !(mf_empty_tuple = PyTuple_New(0))) return NULL;
      mf_wrapping = 1;
      PyObject* obj = ((PyTypeObject*)base)->tp_new((PyTypeObject*)cls, mf_empty_tuple, NULL);
      mf_wrapping = 0;
      return obj;
    }
    """
    bint mf_wrapping
    object mf_new_instance_of(object base, object cls)


cdef object mf_new_instance(object cls):
    """A `cls` object whose handle the caller sets at once."""
    if not (isinstance(cls, type) and issubclass(cls, TensorBase)):
        raise TypeError(f"expected a subclass of Tensor, got {cls!r}")
    return mf_new_instance_of(TensorBase, cls)


cdef inline object wrap(const Tensor& t):
    if t.get() == NULL:  # no Python tensor object ever holds a null handle
        raise RuntimeError("internal error: an op returned no tensor")
    obj = mf_new_instance_of(TensorBase, _tensor_cls)
    (<TensorBase>obj).t = t
    return obj


cdef Dims _dims(object seq, str what, str name=None) except *:
    # A sequence of ints (or one int) for argument `name` of op `what`.
    cdef Dims d
    if isinstance(seq, int) and not isinstance(seq, bool):
        d.push_back(_int_arg(seq, what, name or "size"))
        return d
    if not isinstance(seq, (tuple, list)) and getattr(seq, "ndim", None) == 0:
        seq = (seq,)  # a 0-dim tensor or array: one element, not a sequence (tuples skip the getattr)
    if isinstance(seq, (str, bytes)) or not hasattr(seq, "__iter__"):
        if name is None:
            raise TypeError(name_op_in_progress(f"{what}(): expected a tuple of ints, got {type(seq).__name__}"))
        raise _arg_error(what, name, 0, "tuple of ints", seq)
    for i, v in enumerate(seq):
        if isinstance(v, TensorBase) and v.numel() == 1:
            v = v.item()
        if type(v) is not int and (isinstance(v, (bool, TensorBase)) or not hasattr(v, "__index__")):
            raise TypeError(name_op_in_progress(
                f"{what}(): {('argument ' + repr(name) + ' ') if name else ''}must be a tuple of ints, "
                f"but found element of type {type(v).__name__} at pos {i}"))
        d.push_back(_int_arg(v, what, name or "size"))
    return d


cdef Dims _shape_args(tuple args, str what) except *:
    # f(2, 3) and f((2, 3)) and f([2, 3]) all mean shape (2, 3)
    if len(args) == 1 and not isinstance(args[0], int):
        return _dims(args[0], what)
    return _dims(args, what)


cdef tuple _tuple(const Dims& d):
    return tuple([d[i] for i in range(d.size())])


cdef inline bint _same_dims(Dims& a, Dims& b) noexcept:
    cdef size_t i
    if a.size() != b.size():
        return False
    for i in range(a.size()):
        if a[i] != b[i]:
            return False
    return True


cdef _check_broadcasts_to(str op, str what, tuple shape, tuple target):
    # RuntimeError naming `op` unless a tensor of `shape` expands to `target`
    if len(shape) > len(target) or any(s != t and s != 1 for s, t in zip(shape[::-1], target[::-1])):
        raise RuntimeError(name_op_in_progress(f"{op}(): {what} of shape {list(shape)} cannot be expanded to "
                                               f"the shape {list(target)}"))


cdef inline bint _to_scalar(object v, Scalar* out) except -1:
    if isinstance(v, bool):
        out[0] = scalar_from_bool(v)
    elif isinstance(v, int):
        if -9223372036854775808 <= v <= 9223372036854775807:
            out[0] = scalar_from_int(v)
        elif 0 < v <= 18446744073709551615:  # torch reads these as uint64 and computes with them as floats
            out[0] = scalar_from_float(float(v))
        else:
            raise OverflowError(name_op_in_progress(f"value {v} cannot be converted to int64 without overflow"))
    elif isinstance(v, float):
        out[0] = scalar_from_float(v)
    elif (hasattr(v, "dtype") and hasattr(v, "item") and getattr(v, "ndim", 0) == 0
          and not isinstance(v, TensorBase)):  # numpy scalar (not an array with elements)
        return _to_scalar(v.item(), out)
    else:
        return 0
    return 1


cdef object _from_scalar(Scalar s):
    if s.kind == 0:
        return s.i != 0
    if s.kind == 1:
        return s.i
    return s.f


cdef object _negated_alpha(object alpha):
    # torch negates sub's alpha in int64, which wraps -2**63 to itself
    return alpha if type(alpha) is int and alpha == -9223372036854775808 else -alpha


cdef object _NO_ARG = object()  # "not given", for an optional positional argument (Note [Scalar-first overloads])


@cython.binding(False)
cdef class _ExportedMemory:
    """Held by what views a storage's memory from outside (numpy arrays, DLPack capsules): keeps
    that memory alive whatever the tensor does next (Note [Exported memory] in storage.h)."""
    cdef shared_ptr[Storage] st

    @staticmethod
    cdef _ExportedMemory of(shared_ptr[Storage] st):
        cdef _ExportedMemory e = _ExportedMemory.__new__(_ExportedMemory)
        e.st = st
        st.get().begin_export()
        return e

    def __dealloc__(self):
        if self.st.get() != NULL:
            self.st.get().end_export()


@cython.binding(False)
cdef class TensorBase:
    """The C++ tensor handle. ``monoflow.Tensor`` derives from it and adds
    the Python-level methods."""
    cdef Tensor t
    cdef object _grad_obj  # the last .grad handed out: the same object while the gradient is the same tensor

    def __cinit__(self):
        # Every object gets a handle. The bindings set theirs right after
        # (mf_wrapping); any other way in (Tensor.__new__(cls), a subclass
        # whose __init__ never calls super().__init__) starts as an empty
        # (0,)-shaped tensor of the default dtype, as flow.Tensor() does.
        # (No arguments: Cython then ignores the constructor's.)
        cdef Dims shape
        cdef Device cpu
        if not mf_wrapping:
            shape.push_back(0)
            cpu.type = 0
            cpu.index = 0
            self.t = c_empty(shape, default_float_dtype(), cpu)

    def _set_handle(self, TensorBase other not None):
        """Makes this object refer to `other`'s tensor (Tensor.__init__)."""
        self.t = other.t

    # -- metadata
    @property
    def shape(self):
        return tuple.__new__(_size_cls, _tuple(self.t.get().shape))  # (Size.__new__'s checks are for users)

    def size(self, dim=None):
        if dim is None:
            return self.shape
        return self.t.get().shape[self._wrap(_int_arg(dim, "size", "dim", 1), "size")]

    def stride(self, dim=None):
        s = _tuple(self.t.get().strides)
        return s if dim is None else s[self._wrap(_int_arg(dim, "stride", "dim", 1), "stride")]

    cdef int64_t _wrap(self, int64_t dim, str op) except -1:
        # dim as an index into shape/strides (unchecked in this file: boundscheck=False)
        cdef int64_t n = self.t.get().dim()
        if n == 0:
            raise IndexError(name_op_in_progress(f"{op}(): Dimension specified as {dim} but tensor has no dimensions"))
        if dim < -n or dim >= n:
            raise IndexError(name_op_in_progress(
                f"{op}(): Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"))
        return dim + n if dim < 0 else dim

    def storage_offset(self):
        return self.t.get().offset

    @property
    def dtype(self):
        return _wrap_dtype(self.t.get().dtype)

    @property
    def device(self):
        return _wrap_device(self.t.get().device())

    @property
    def ndim(self):
        return self.t.get().dim()

    def dim(self):
        return self.t.get().dim()

    def numel(self):
        return self.t.get().numel()

    def element_size(self):
        return itemsize(self.t.get().dtype)

    def is_contiguous(self):
        return self.t.get().is_contiguous()

    def data_ptr(self):
        cdef TensorImpl* p = self.t.get()
        if not c_graph_tracing() and registry().backend(p.device().type).host_memory():
            # the address escapes to host code (ctypes, numpy, C extensions), which reads it now: the ops
            # queued so far complete first, as torch's synchronous CPU ops would have
            c_synchronize(p.device())
        return <uintptr_t>p.data_ptr()

    def _data_address(self):
        """data_ptr() without waiting for queued ops: for identity tests and the engines that order
        themselves after the queued work (collectives)."""
        return <uintptr_t>self.t.get().data_ptr()

    @property
    def _version(self):
        return self.t.get().version()

    def _is_view_of(self, other):
        return self.t.get().storage.get() == _tt(other, "_is_view_of", "other", 1).get().storage.get()

    def __len__(self):
        if self.t.get().dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.t.get().shape[0]

    # -- arithmetic (hot path: straight into the core)
    def __add__(self, other):
        return _binary(kOp_add, kOp_add_scalar, self, other)

    def __radd__(self, other):
        return _binary(kOp_add, kOp_add_scalar, self, other)

    def __sub__(self, other):
        return _binary(kOp_sub, kOp_sub_scalar, self, other)

    def __rsub__(self, other):
        return _rbinary(kOp_sub, kOp_rsub_scalar, self, other)

    def __mul__(self, other):
        return _binary(kOp_mul, kOp_mul_scalar, self, other)

    def __rmul__(self, other):
        return _binary(kOp_mul, kOp_mul_scalar, self, other)

    def __truediv__(self, other):
        return _binary(kOp_div, kOp_div_scalar, self, other)

    def __rtruediv__(self, other):
        return _rbinary(kOp_div, kOp_rdiv_scalar, self, other)

    def __floordiv__(self, other):
        cdef Scalar s
        if not isinstance(other, TensorBase):
            if not _named_scalar(other, &s, "floor_divide"):
                if hasattr(type(other), "__rfloordiv__"):
                    return NotImplemented  # the operand's own // may take it (an ndarray: NumPy's ufunc)
                raise _arg_error("floor_divide", "other", 1, "Tensor or Number", other)
            other = self._scalar_tensor(other)
        return wrap(binary(kOp_floor_divide, self.t, (<TensorBase>other).t))

    def __rfloordiv__(self, other):
        cdef Scalar s
        if not isinstance(other, TensorBase):
            if not _named_scalar(other, &s, "floor_divide"):
                raise _arg_error("floor_divide", "other", 1, "Tensor or Number", other)
            other = self._scalar_tensor(other)
        return wrap(binary(kOp_floor_divide, (<TensorBase>other).t, self.t))

    def __ifloordiv__(self, other):
        cdef Scalar s
        if not isinstance(other, TensorBase):
            try:
                if not _to_scalar(other, &s):
                    return NotImplemented  # Python's "unsupported operand type(s) for //=", as for +=
                other = self._scalar_tensor(other)
            except OverflowError as e:
                raise _overflow_named("floor_divide_", e) from None
        binary_(kOp_floor_divide, self.t, (<TensorBase>other).t)
        return self

    def __iadd__(self, other):
        return _inplace(kOp_add, kOp_add_scalar, self, other)

    def __isub__(self, other):
        return _inplace(kOp_sub, kOp_sub_scalar, self, other)

    def __imul__(self, other):
        return _inplace(kOp_mul, kOp_mul_scalar, self, other)

    def __itruediv__(self, other):
        return _inplace(kOp_div, kOp_div_scalar, self, other)

    def __neg__(self):
        return wrap(unary(kOp_neg, self.t))

    def __pos__(self):
        return self

    def __matmul__(self, other):
        if not isinstance(other, TensorBase):
            return NotImplemented
        cdef object a = self
        if _autocast_hook is not None:
            a, other = _autocast_hook(a, other)
        if _is_cplx(a) or _is_cplx(other):
            return _complex_ops.matmul(a, other)
        return wrap(matmul((<TensorBase>a).t, (<TensorBase>other).t))

    def __eq__(self, other):
        return _compare(kOp_eq, self, other)

    def __ne__(self, other):
        return _compare(kOp_ne, self, other)

    def __lt__(self, other):
        return _compare(kOp_lt, self, other)

    def __le__(self, other):
        return _compare(kOp_le, self, other)

    def __gt__(self, other):
        return _compare(kOp_gt, self, other)

    def __ge__(self, other):
        return _compare(kOp_ge, self, other)

    __hash__ = object.__hash__

    cdef object _scalar_tensor(self, object v):
        # A Python number as a 0-dim tensor of its own type on self's device.
        cdef Scalar s
        if not _to_scalar(v, &s):  # (floor division's operand: the only user)
            raise _arg_error("floor_divide", "other", 1, "Tensor or Number", v)
        return wrap(scalar_operand(self.t, s))

    def add(self, other, other2=_NO_ARG, *, alpha=1):
        if other2 is not _NO_ARG:  # Note [Scalar-first overloads]
            alpha, other = _scalar_first(self, "add", other, other2, alpha)
        if not isinstance(other, TensorBase) and not hasattr(type(other), "__radd__"):
            raise _arg_error("add", "other", 1, "Tensor or Number", other)  # (not Python's "unsupported operand")
        if type(alpha) is not int or alpha != 1:
            _alpha_arg(alpha, "add", True)
            if isinstance(other, TensorBase):
                return add_alpha(self, other, alpha)  # one fused pass: _ops_fused.pxi
            other = _number_other(other, "add") * alpha
        return self + other

    def sub(self, other, other2=_NO_ARG, *, alpha=1):
        if other2 is not _NO_ARG:  # Note [Scalar-first overloads]
            alpha, other = _scalar_first(self, "sub", other, other2, alpha)
        if type(alpha) is not int or alpha != 1:
            _alpha_arg(alpha, "sub")
            if isinstance(other, TensorBase):
                try:
                    return add_alpha(self, other, _negated_alpha(alpha))
                except (ValueError, RuntimeError) as e:  # (add_alpha's messages name add)
                    raise _renamed_add(e, "sub") from None
            other = _number_other(other, "sub") * alpha
        elif not isinstance(other, TensorBase):
            _number_other(other, "sub")  # (not Python's "unsupported operand type(s) for -")
        return self - other

    def mul(self, other):
        cdef Scalar s
        if not isinstance(other, TensorBase) and not _is_cplx(other) and not _named_scalar(other, &s, "mul"):
            raise _arg_error("mul", "other", 1, "Tensor or Number", other)  # not Python's message for `*`
        return self * other

    def div(self, other, *, rounding_mode=None):
        cdef Scalar s
        if not isinstance(other, TensorBase) and not _is_cplx(other) and not _named_scalar(other, &s, "div"):
            raise _arg_error("div", "other", 1, "Tensor or Number", other)  # not Python's message for `/`
        if rounding_mode is None:
            return self / other
        return _rounded_division(self, other, rounding_mode)

    def add_(self, other, other2=_NO_ARG, *, alpha=1):
        if other2 is not _NO_ARG:  # Note [Scalar-first overloads]
            alpha, other = _scalar_first(self, "add_", other, other2, alpha)
        if type(alpha) is not int or alpha != 1:
            _alpha_arg(alpha, "add_", True)
            if isinstance(other, TensorBase):
                add_alpha_(self, other, alpha)
                return self
            other = _number_other(other, "add_") * alpha
        return _inplace(kOp_add, kOp_add_scalar, self, other)

    def sub_(self, other, other2=_NO_ARG, *, alpha=1):
        if other2 is not _NO_ARG:  # Note [Scalar-first overloads]
            alpha, other = _scalar_first(self, "sub_", other, other2, alpha)
        if type(alpha) is not int or alpha != 1:
            _alpha_arg(alpha, "sub_")
            if isinstance(other, TensorBase):
                try:
                    add_alpha_(self, other, _negated_alpha(alpha))
                except (ValueError, RuntimeError) as e:  # (add_alpha_'s messages name add_)
                    raise _renamed_add(e, "sub_") from None
                return self
            other = _number_other(other, "sub_") * alpha
        return _inplace(kOp_sub, kOp_sub_scalar, self, other)

    def mul_(self, other):
        return _inplace(kOp_mul, kOp_mul_scalar, self, other)

    def div_(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return _inplace(kOp_div, kOp_div_scalar, self, other)
        return self.copy_(_rounded_division(self, other, rounding_mode, "div_"))

    def neg(self):
        return wrap(unary(kOp_neg, self.t))

    def maximum(self, other):
        return wrap(binary(kOp_maximum, self.t, _tt(other, "maximum", "other", 1)))

    def minimum(self, other):
        return wrap(binary(kOp_minimum, self.t, _tt(other, "minimum", "other", 1)))

    def floor_divide(self, other):
        return self.__floordiv__(other)

    def floor_divide_(self, other):
        cdef Scalar s
        if not isinstance(other, TensorBase) and not _named_scalar(other, &s, "floor_divide_"):
            raise _arg_error("floor_divide_", "other", 1, "Tensor or Number", other)
        return self.__ifloordiv__(other)

    def matmul(self, other):
        cdef object a = self
        if _autocast_hook is not None and isinstance(other, TensorBase):
            a, other = _autocast_hook(a, other)
        if _is_cplx(a) or _is_cplx(other):
            return _complex_ops.matmul(a, other)
        return wrap(matmul((<TensorBase>a).t, _tt(other, "matmul", "other", 1)))

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        cdef Dims dims
        cdef optional[DType] odt
        if _is_cplx(self):
            return _complex_ops.sum(self, dim, keepdim, dtype)
        if dim is not None:
            dims = _dims(dim, "sum", "dim")
            if dims.size() == 0:
                dims = Dims()
        if dtype is not None:
            odt = _dtype_arg(dtype, "sum", "dtype")
        return wrap(sum(self.t, dims, _bool_arg(keepdim, "sum", "keepdim", 2), odt))

    # -- copies and conversions
    def fill_(self, value):
        cdef Scalar s
        if isinstance(value, TensorBase):
            if (<TensorBase>value).t.get().numel() != 1:
                raise RuntimeError(name_op_in_progress(f"fill_(): only supports 0-dimension value tensor but got "
                                                       f"tensor with {(<TensorBase>value).t.get().numel()} elements"))
            value = value.item()
        if _is_cplx(self) or _is_cplx(value):
            return _complex_ops.fill_(self, value)
        if not _to_scalar(value, &s):
            raise TypeError(f"fill_: expected a number, got {type(value).__name__}")
        fill_(self.t, s)
        return self

    def zero_(self):
        if self.t.get().has_internal_overlap():  # (fill_'s own refusal would name fill_)
            raise RuntimeError("zero_(): unsupported operation: more than one element of the written-to tensor "
                               "refers to a single memory location. Please clone() the tensor before performing "
                               "the operation.")
        return self.fill_(0)

    def copy_(self, src):
        cdef Tensor s = _tt(src, "copy_", "src", 1)
        if not _same_dims(s.get().shape, self.t.get().shape):  # (the core's refusal would name expand)
            _check_broadcasts_to("copy_", "src", tuple(src.shape), tuple(self.shape))
        try:
            copy_(self.t, s)
        except RuntimeError as e:  # the autograd check names its node (CopyBackwards), not the op
            msg = str(e)
            if "CopyBackwards: " not in msg or e.args != (msg,):
                raise
            # (an op in progress that writes its result back, F.celu(x, inplace=True), already heads the message)
            head, _, rest = msg.partition("CopyBackwards: ")
            raise RuntimeError(f"{head or 'copy_(): '}{rest}") from None
        return self

    def contiguous(self):
        if self.t.get().is_contiguous():
            return self  # as torch: no copy, the same object
        return wrap(contiguous(self.t))

    def clone(self):
        return wrap(clone(self.t))

    def _to(self, dev, dt, bint copy):
        cdef Device d = self.t.get().device() if dev is None else _dev(dev)
        cdef DType t = self.t.get().dtype if dt is None else _dt(dt)
        cdef Device here = self.t.get().device()
        if not copy and t == self.t.get().dtype and d.type == here.type and d.index == here.index:
            return self  # as torch: to() of the same dtype and device is the tensor itself
        return wrap(to(self.t, d, t, copy))

    def item(self):
        if c_graph_tracing():
            c_check_value_read(b"Tensor.item() (also bool(), int(), float() of a tensor)", self.t)
        if _is_cplx(self):
            return _complex_ops.item(self)
        return _from_scalar(item(self.t))

    def _copy_to_host(self, out):
        """Copies the values into `out`, a writable C-contiguous numpy array of this tensor's size
        in bytes (checked: no raw address crosses into the copy)."""
        if c_graph_tracing():
            c_check_value_read(b"Tensor.numpy() (also .tolist(), printing, pickling)", self.t)
        cdef TensorImpl* p = self.t.get()
        nbytes = p.numel() * itemsize(p.dtype)
        if not (type(out).__module__ == "numpy" and type(out).__name__ == "ndarray" and out.flags.c_contiguous
                and out.flags.writeable and out.nbytes == nbytes):
            raise TypeError(f"_copy_to_host(): expected a writable C-contiguous numpy array of {nbytes} bytes")
        cdef uintptr_t ptr = out.__array_interface__["data"][0]
        copy_to_host(self.t, <void*>ptr)

    def _host_view_interface(self):
        """__array_interface__ of this tensor's memory after synchronising,
        for host-memory devices only (numpy() shares memory with it)."""
        if c_graph_tracing():
            c_check_value_read(b"Tensor.numpy() (also .tolist(), printing, pickling)", self.t)
        cdef TensorImpl* p = self.t.get()
        cdef Device d = p.device()
        if not registry().backend(d.type).host_memory():
            return None
        c_synchronize(d)
        p.storage.get().host_visible = True  # Note [Host-visible memory]
        isz = itemsize(p.dtype)
        return (<uintptr_t>p.data_ptr(), _tuple(p.shape), tuple([s * isz for s in _tuple(p.strides)]),
                _ExportedMemory.of(p.storage))

    # -- views
    @property
    def _base(self):
        """The tensor this view was made from (the root of a chain of views), or None (torch's ``_base``)."""
        cdef Tensor b = self.t.get().view_base
        return None if b.get() == NULL else wrap(b)

    def is_view(self):
        """Whether this tensor is a view of another's storage (OneFlow's ``is_view``; torch's ``_is_view``)."""
        return self.t.get().view_base.get() != NULL

    def _is_view(self):
        return self.t.get().view_base.get() != NULL

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], dtype):
            return _dtype_view(self, shape[0])
        return wrap(view(self.t, _shape_args(shape, "view")))

    def reshape(self, *shape):
        return wrap(reshape(self.t, _shape_args(shape, "reshape")))

    def transpose(self, dim0, dim1):
        return wrap(transpose(self.t, _int_arg(dim0, "transpose", "dim0", 1), _int_arg(dim1, "transpose", "dim1", 2)))

    def permute(self, *dims):
        return wrap(permute(self.t, _shape_args(dims, "permute")))

    def expand(self, *sizes):
        if _is_cplx(self) and self.requires_grad:  # its backward sums complex grads: over the real view
            return _complex_ops.shape.expand(self, sizes)
        return wrap(expand(self.t, _shape_args(sizes, "expand")))

    def expand_as(self, other):
        cdef Tensor o = _tt(other, "expand_as", "other", 1)
        if not _same_dims(o.get().shape, self.t.get().shape):
            _check_broadcasts_to("expand_as", "self", tuple(self.shape), tuple(other.shape))
        return wrap(expand(self.t, o.get().shape))

    def squeeze(self, dim=None):
        cdef optional[int64_t] d
        if dim is not None:
            d = _int_arg(dim, "squeeze", "dim", 1)
        return wrap(squeeze(self.t, d))

    def unsqueeze(self, dim):
        return wrap(unsqueeze(self.t, _int_arg(dim, "unsqueeze", "dim", 1)))

    def narrow(self, dim, start, length):
        return wrap(narrow(self.t, _int_arg(dim, "narrow", "dim", 1), _int_arg(start, "narrow", "start", 2),
                           _int_arg(length, "narrow", "length", 3)))

    def select(self, dim, index):
        return wrap(select(self.t, _int_arg(dim, "select", "dim", 1), _int_arg(index, "select", "index", 2)))

    def unfold(self, dimension, size, step):
        return wrap(unfold(self.t, _int_arg(dimension, "unfold", "dimension", 1), _int_arg(size, "unfold", "size", 2),
                           _int_arg(step, "unfold", "step", 3)))

    def flatten(self, start_dim=0, end_dim=-1):
        cdef Tensor out = flatten(self.t, _int_arg(start_dim, "flatten", "start_dim", 1),
                                  _int_arg(end_dim, "flatten", "end_dim", 2))
        # start_dim == end_dim flattens nothing: the tensor itself, as torch (and OneFlow)
        if self.t.get().dim() > 0 and out.get().dim() == self.t.get().dim():
            return self
        return wrap(out)

    def as_strided(self, size, stride, storage_offset=None):
        cdef int64_t off = (self.t.get().offset if storage_offset is None
                            else _int_arg(storage_offset, "as_strided", "storage_offset", 3))
        return wrap(as_strided(self.t, _dims(size, "as_strided"), _dims(stride, "as_strided"), off))

    def __getitem__(self, idx):
        return _getitem(self, idx)  # basic and advanced indexing: _ops_shape.pxi

    # -- autograd (the engine is in the core: monoflow/autograd.h)
    @property
    def requires_grad(self):
        return ag_requires_grad(self.t)

    @requires_grad.setter
    def requires_grad(self, bint value):
        ag_set_requires_grad(self.t, value)

    def requires_grad_(self, requires_grad=True):
        ag_set_requires_grad(self.t, _bool_arg(requires_grad, "requires_grad_", "requires_grad", 1))
        return self

    @property
    def grad(self):
        cdef Tensor g = ag_grad(self.t)
        if g.get() == NULL:
            self._grad_obj = None
            return None
        # x.grad is x.grad, and stays so across in-place accumulation (torch keeps one Python object per tensor)
        if self._grad_obj is not None and (<TensorBase>self._grad_obj).t.get() == g.get():
            return self._grad_obj
        self._grad_obj = wrap(g)
        return self._grad_obj

    @grad.setter
    def grad(self, value):
        cdef Tensor g
        if value is not None:
            if not isinstance(value, TensorBase):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got {type(value).__name__}")
            g = (<TensorBase>value).t
        ag_set_grad(self.t, g)
        self._grad_obj = value  # (None frees the old gradient now, not at the next read)

    @grad.deleter
    def grad(self):
        cdef Tensor g
        ag_set_grad(self.t, g)
        self._grad_obj = None

    @property
    def grad_fn(self):
        return _wrap_node(ag_grad_fn(self.t))

    @property
    def is_leaf(self):
        return ag_is_leaf(self.t)

    def retain_grad(self):
        ag_retain_grad(self.t)

    @property
    def retains_grad(self):
        return ag_retains_grad(self.t)

    def detach(self):
        return wrap(ag_detach(self.t))

    def detach_(self):
        ag_detach_(self.t)
        return self

    @property
    def data(self):
        return wrap(ag_detach(self.t))

    @data.setter
    def data(self, other):
        # Swaps in other's memory and metadata; the autograd state stays.
        global _layout_epoch
        if not isinstance(other, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(other).__name__}")
        _layout_epoch += 1  # (compiled graphs that captured this tensor are stale: _tensor_layout_epoch)
        cdef TensorImpl* p = self.t.get()
        cdef TensorImpl* q = (<TensorBase>other).t.get()
        p.storage = q.storage
        p.shape = q.shape
        p.strides = q.strides
        p.offset = q.offset
        p.dtype = q.dtype

    def _register_hook(self, fn):
        if not callable(fn):
            raise TypeError(f"register_hook: expected a callable, got {type(fn).__name__}")
        return ag_register_hook(self.t, make_hook(fn, _call_hook))

    def _register_post_accumulate_hook(self, fn):
        """fn(leaf) after each pass has accumulated into this leaf's .grad (its result is ignored)."""
        if not callable(fn):
            raise TypeError(f"register_post_accumulate_grad_hook: expected a callable, got {type(fn).__name__}")
        return ag_register_post_accumulate_hook(self.t, make_hook(fn, _call_hook))

    def _remove_hook(self, hook_id):
        ag_remove_hook(self.t, _int_arg(hook_id, "_remove_hook", "hook_id", 1))

    def __setitem__(self, idx, value):
        _setitem(self, idx, value)

    def __delitem__(self, idx):  # (else Cython's "Subscript deletion not supported", naming no op)
        raise TypeError("__delitem__(): a Tensor does not support deleting items")


cdef object _size_cls = tuple

# Note [Stale plans]: counts the events that can leave a compiled nn.Graph plan
# holding memory its modules no longer use: a tensor's .data swapped (set_,
# Module.to/double/half, p.data = x) and a parameter or submodule assigned.
# A graph looks again at its modules' tensors when the count has moved.
cdef long long _layout_epoch = 0


def _tensor_layout_epoch():
    """The count of Note [Stale plans] (nn.Graph reads it before each call)."""
    return _layout_epoch


def _bump_tensor_layout_epoch():
    """A parameter or submodule was assigned (Note [Stale plans])."""
    global _layout_epoch
    _layout_epoch += 1


def _set_size_class(cls):
    global _size_cls
    _size_cls = cls


cdef vector[IndexItem] _index_items(object idx) except *:
    return _shape_index_items(idx)  # ints, slices, None, Ellipsis, bools, lists and tensors


cdef inline _alpha_arg(object alpha, str op, bint tensor_0d=False):
    # alpha: a Number (a tensor's truth value, or -'abc', would name no op);
    # add takes a 0-dim tensor as torch does
    cdef Scalar s
    if isinstance(alpha, TensorBase):
        if tensor_0d and (<TensorBase>alpha).t.get().dim() == 0:
            return
        raise _arg_error(op, "alpha", 0, "Number", alpha)
    try:
        if _is_cplx(alpha) or _to_scalar(alpha, &s):
            return
    except OverflowError as e:  # an int beyond int64
        raise _overflow_named(op, e) from None
    raise _arg_error(op, "alpha", 0, "Number", alpha)


# Note [Scalar-first overloads]
#   torch still takes the scalar-first forms that PyTorch 0.4-era optimizers
#   are written in (p.data.add_(-lr, grad), exp_avg_sq.addcmul_(1 - beta2, g, g),
#   torch.add(x, alpha, y)), with a one-time deprecation warning per form.
#   monoflow takes them the same way, so those optimizers run unchanged.
_warned_overloads = set()


def scalar_first_overload(str op, str old, str new, scalar, str name="alpha"):
    """Checks the leading Number of torch's deprecated scalar-first form of `op`
    (old), warning once per op that `new` is the current form; returns it."""
    if op not in _warned_overloads:
        _warned_overloads.add(op)
        import warnings
        warnings.warn(f"This overload of {op} is deprecated:\n\t{op}({old})\nConsider using one of the following "
                      f"signatures instead:\n\t{op}({new})", UserWarning, stacklevel=_caller_outside_package())
    _alpha_arg(scalar, op)
    if name != "alpha" and isinstance(scalar, TensorBase):
        raise _arg_error(op, name, 0, "Number", scalar)
    return scalar


# Note [The name the program imported]
#   A program that runs unchanged on monoflow usually imported it under another
#   name: sys.modules["torch"] = monoflow (or "oneflow"). It then prints and
#   compares the names of dtypes, sizes and tensor types as that library does
#   (str(x.dtype) == "torch.float32", x.type() == "torch.FloatTensor"), so
#   those names follow the alias. Without one, they are monoflow's.
def api_name():
    """The package name that reprs use: "torch" or "oneflow" when this package is imported
    under that name, else "monoflow" (Note [The name the program imported])."""
    package = _sys.modules.get("monoflow")
    for alias in ("torch", "oneflow"):
        if package is not None and _sys.modules.get(alias) is package:
            return alias
    return "monoflow"


def _caller_outside_package():
    """The warnings stacklevel of the innermost caller outside the monoflow package (the
    bindings have no Python frames: level 1 is whoever called into them)."""
    import os
    package = os.path.dirname(_sys.modules["monoflow"].__file__)
    frame, level = _sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


cdef tuple _scalar_first(TensorBase self, str op, scalar, other, alpha):
    # x.add_(alpha, other): (alpha, other), once alpha= was not also given
    if type(alpha) is not int or alpha != 1:
        raise TypeError(f"{op}() received an invalid combination of arguments: alpha given twice")
    if not isinstance(other, TensorBase):
        raise _arg_error(op, "other", 2, "Tensor", other)
    return scalar_first_overload(op, "Number alpha, Tensor other", "Tensor other, *, Number alpha = 1", scalar), other


cdef object _renamed_add(e, str op):
    # add_alpha's error (sub runs it with -alpha), made to name sub: "add_: x" -> "sub_: x"
    msg = str(e)
    m = _re.match(r"(\w+\(\): )?add_?(\(\))?: ", msg)
    if e.args != (msg,) or _re.match(r"\w+\(\): ", msg) and m is None:
        return e
    rest = msg[m.end():] if m is not None else msg
    return type(e)(name_op_in_progress(f"{op}: {rest}"))


cdef inline object _number_other(object other, str op):
    # other scaled by alpha when it is not a tensor: a Number (a tuple times
    # alpha would be Python's "can't multiply sequence" message)
    cdef Scalar s
    try:
        if _is_cplx(other) or _to_scalar(other, &s):
            return other
    except OverflowError as e:  # an int beyond int64
        raise _overflow_named(op, e) from None
    raise _arg_error(op, "other", 1, "Tensor or Number", other)


cdef inline bint _named_scalar(object v, Scalar* s, str op) except -1:
    # _to_scalar, an int beyond int64 named by the op it was given to
    try:
        return _to_scalar(v, s)
    except OverflowError as e:
        raise _overflow_named(op, e) from None


cdef inline object _binary(int op, int sop, object a, object b):
    # a is always a TensorBase here (Python dispatches __radd__ only to it)
    cdef Scalar s
    if _is_cplx(a) or _is_cplx(b):
        return _complex_ops.binary(_binary_name(op), a, b)
    if isinstance(b, TensorBase):
        return wrap(binary(op, (<TensorBase>a).t, (<TensorBase>b).t))
    try:
        if _to_scalar(b, &s):
            return wrap(binary_scalar(sop, (<TensorBase>a).t, s))
    except OverflowError as e:  # an int beyond int64: the op is named (a dunder has no op frame)
        raise _overflow_named(_binary_name(op), e) from None
    return NotImplemented


cdef inline object _rbinary(int op, int rsop, object a, object b):
    # b (op) a where b is not a tensor
    cdef Scalar s
    if _is_cplx(a) or _is_cplx(b):
        return _complex_ops.binary(_binary_name(op), b, a)
    try:
        if _to_scalar(b, &s):
            return wrap(binary_scalar(rsop, (<TensorBase>a).t, s))
    except OverflowError as e:
        raise _overflow_named(_binary_name(op), e) from None
    return NotImplemented


cdef inline object _inplace(int op, int sop, object a, object b):
    cdef Scalar s
    if _is_cplx(a) or _is_cplx(b):
        return _complex_ops.inplace(_binary_name(op), a, b)
    if isinstance(b, TensorBase):
        binary_(op, (<TensorBase>a).t, (<TensorBase>b).t)
        return a
    try:
        if not _to_scalar(b, &s):
            return NotImplemented
    except OverflowError as e:
        raise _overflow_named(_binary_name(op) + "_", e) from None
    try:
        binary_scalar_(sop, (<TensorBase>a).t, s)
    except RuntimeError as e:  # the autograd check names the kernel (sub_scalar): the in-place op is named
        m = _re.match(r"\w+?_scalar_?: ", str(e))
        if m is None or e.args != (str(e),):
            raise
        raise type(e)(f"{_binary_name(op)}_: {str(e)[m.end():]}") from None
    return a


cdef str _compare_name(int op):
    return {kOp_eq: "eq", kOp_ne: "ne", kOp_lt: "lt", kOp_le: "le", kOp_gt: "gt"}.get(op, "ge")


cdef object _compare(int op, object a, object b):
    if _is_cplx(a) or _is_cplx(b):
        return _complex_ops.math.compare(_compare_name(op), a, b)
    if not isinstance(b, TensorBase):
        if not isinstance(b, (bool, int, float)) and not (hasattr(b, "dtype") and hasattr(b, "item")
                                                          and getattr(b, "ndim", 0) == 0):
            return NotImplemented
        try:
            b = _wrapped_number(<TensorBase>a, b)
        except OverflowError as e:  # an int beyond int64
            raise _overflow_named(_compare_name(op), e) from None
    return wrap(binary(op, (<TensorBase>a).t, (<TensorBase>b).t))

# ---------------------------------------------------------------- creation


# torch.set_default_device: where creation functions put tensors when they
# are given no device (None: the CPU).
cdef object _default_device = None
cdef list _device_blocks = []  # the defaults that `with device:` blocks replaced, innermost last


def set_default_device(device):
    global _default_device
    _default_device = None if device is None else _wrap_device(_dev(device))


def get_default_device():
    return _default_device if _default_device is not None else _wrap_device(_dev(None))


cdef inline Device _new_dev(object dev) except *:
    return _dev(_default_device if dev is None else dev)


def _empty(shape, dt, dev=None):
    return wrap(c_empty(_dims(shape, "empty", "size"), _dtype_arg(dt, "empty", "dtype"), _new_dev(dev)))


def _full(shape, value, dt, dev=None):
    cdef Scalar s
    if not _to_scalar(value, &s):
        raise _arg_error("full", "fill_value", 2, "Number", value)
    return wrap(c_full(_dims(shape, "full", "size"), s, _dtype_arg(dt, "full", "dtype"), _new_dev(dev)))


def _arange(start, end, step, dt, dev=None):
    cdef Scalar a, b, c
    if not (_to_scalar(start, &a) and _to_scalar(end, &b) and _to_scalar(step, &c)):
        bad = [(n, v) for n, v in (("start", start), ("end", end), ("step", step)) if not _to_scalar(v, &c)][0]
        raise _arg_error("arange", bad[0], 0, "Number", bad[1])
    cdef optional[DType] odt
    if dt is not None:
        odt = _dt(dt)
    return wrap(c_arange(a, b, c, odt, _new_dev(dev)))


def _from_host_array(arr, shape, dtype dt, dev=None):
    """A new tensor of `shape` and `dt` copied from the C-contiguous buffer of `arr` (a numpy
    array; its bytes are read as `dt`, e.g. uint16 bits as bfloat16), which must hold enough."""
    cdef Dims d = _dims(shape, "tensor")
    cdef Py_buffer view
    cdef size_t k
    need = itemsize(<DType>dt._value)
    for k in range(d.size()):
        need *= d[k]
    PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS)
    try:
        if view.len < need:
            raise ValueError(f"tensor: {view.len} bytes of data for a {dt} tensor of shape {list(shape)} "
                             f"({need} bytes)")
        return wrap(from_host(view.buf, d, <DType>dt._value, _new_dev(dev)))
    finally:
        PyBuffer_Release(&view)


def _borrow_host_memory(owner, uintptr_t ptr, size_t nbytes, shape, strides, dtype dt, int64_t offset=0):
    """A CPU tensor viewing memory owned by `owner` (kept alive meanwhile),
    its first element `offset` elements into it."""
    cdef Device cpu
    cpu.type = 0
    cpu.index = 0
    Py_INCREF(owner)
    cdef shared_ptr[Storage] st = borrow(cpu, <void*>ptr, nbytes, release_pyobject, <void*><PyObject*>owner)
    cdef Tensor base = c_empty(Dims(), <DType>dt._value, cpu)
    base.get().storage = st
    return wrap(make_view(base, _dims(shape, "from_numpy"), _dims(strides, "from_numpy"), offset))


def _reinterpret(TensorBase x not None, dtype dt not None, shape, strides, int64_t offset):
    """x's storage seen as `dt` with this geometry (elements of `dt`): the core
    of view_as_real/view_as_complex (monoflow/_complex.py), no autograd."""
    cdef TensorImpl* p = x.t.get()
    cdef Tensor out = c_empty(Dims(), <DType>dt._value, p.device())
    cdef Dims d = _dims(shape, "view_as_real"), st = _dims(strides, "view_as_real")
    cdef int64_t last = offset, k
    cdef size_t isz = itemsize(<DType>dt._value)
    if d.size() != st.size() or offset < 0:
        raise ValueError("_reinterpret: bad geometry")
    for k in range(<int64_t>d.size()):
        if d[k] < 0 or st[k] < 0:
            raise ValueError("_reinterpret: bad geometry")
        if d[k] == 0:
            last = -1
            break
        last += (d[k] - 1) * st[k]
    # the new view must lie inside the storage
    if last >= 0 and <size_t>(last + 1) * isz > p.storage.get().nbytes:
        raise ValueError("_reinterpret: the view exceeds the storage")
    out.get().storage = p.storage
    out.get().shape = d
    out.get().strides = st
    out.get().offset = offset
    return wrap(out)


def _dtype_view(TensorBase x, dtype dt):
    """x.view(dtype): the same bytes seen as `dt` (torch's rules). With another item size the last dim
    must be contiguous; its size scales by the size ratio, as do the other strides and the offset."""
    src_size = int(itemsize(x.t.get().dtype))
    dst_size = int(itemsize(<DType>dt._value))
    shape, strides, offset = list(x.shape), list(x.stride()), x.storage_offset()
    last = len(shape) - 1  # explicit: this module compiles without negative-index wraparound
    if src_size != dst_size:
        if not shape:
            raise RuntimeError(f"view(): a zero-dim tensor can only be viewed as a dtype of the same size "
                               f"({x.dtype} has {src_size} bytes, {dt} has {dst_size})")
        if strides[last] != 1 and shape[last] != 1:
            raise RuntimeError("view(): the last dimension must have stride 1 to view as a dtype of another size")
        if src_size > dst_size:
            ratio = src_size // dst_size
            shape[last] = shape[last] * ratio
            strides = [st * ratio for st in strides[:last]] + [1]
            offset = offset * ratio
        else:
            ratio = dst_size // src_size
            if shape[last] % ratio:
                raise RuntimeError(f"view(): the last dimension's size ({shape[last]}) must be divisible by {ratio} "
                                   f"to view {x.dtype} as {dt}")
            if any(st % ratio for st in strides[:last]) or offset % ratio:
                raise RuntimeError(f"view(): the strides and storage offset must be divisible by {ratio} to view "
                                   f"{x.dtype} as {dt}")
            shape[last] = shape[last] // ratio
            strides = [st // ratio for st in strides[:last]] + [1]
            offset = offset // ratio
    return _reinterpret(x, dt, tuple(shape), tuple(strides), offset)


# Complex tensors and Python complex numbers: the ops the core has no complex
# kernels for are composed over view_as_real in monoflow/_complex.py.
cdef object _complex_ops = None


def _set_complex_ops(mod):
    global _complex_ops
    _complex_ops = mod


# The autocast region's cast of matmul's operands (monoflow/_autocast.py, Note
# [Autocast policy]): None outside every region, so `@` pays one test.
cdef object _autocast_hook = None


def _set_autocast_hook(hook):
    global _autocast_hook
    _autocast_hook = hook


cdef inline bint _is_cplx_tensor(object v):
    return isinstance(v, TensorBase) and <int>(<TensorBase>v).t.get().dtype >= 10


cdef inline bint _is_cplx(object v):
    if isinstance(v, TensorBase):
        return <int>(<TensorBase>v).t.get().dtype >= 10
    if isinstance(v, (complex, int, float)):
        return isinstance(v, complex)
    return getattr(getattr(v, "dtype", None), "kind", None) == "c"  # numpy complex scalars


cdef str _binary_name(int op):
    if op == kOp_add:
        return "add"
    if op == kOp_sub:
        return "sub"
    if op == kOp_mul:
        return "mul"
    return "div"


def broadcast_shapes(*shapes):
    cdef Dims r
    for s in shapes:
        r = c_broadcast_shapes(r, _dims(s, "broadcast_shapes"), "broadcast_shapes")
    return tuple.__new__(_size_cls, _tuple(r))

# ---------------------------------------------------------------- op families
include "_ops_math.pxi"
include "_ops_reduce.pxi"
include "_ops_shape.pxi"
include "_ops_random.pxi"
include "_ops_linalg.pxi"
include "_dlpack.pxi"
include "_shared_memory.pxi"
include "_offload.pxi"
include "_autograd.pxi"
include "_ops_nn.pxi"
include "_ops_loss.pxi"
include "_ops_fused.pxi"
include "_ops_rnn.pxi"
include "_global_shard.pxi"
include "_graph_bind.pxi"
include "_profiler_bind.pxi"
include "_docstrings.pxi"
