# Note [Argument conversion]
# Argument conversion for every entry point of the bindings (included by
# _C.pyx). Each converter knows the op and the argument it converts, so a
# bad argument reads like PyTorch's:
#     minimum(): argument 'other' (position 1) must be Tensor, not NoneType
# Entry points take untyped Python arguments and convert them here, never as
# Cython-typed parameters: a typed `TensorBase x` lets None through (a null
# handle, then a crash) and a typed `int64_t dim` fails with Cython's own
# message, which names neither the op nor the argument. The fast path of each
# converter is one type test.
from cpython.long cimport PyLong_AsLongLongAndOverflow


cdef object _arg_error(str op, str name, int pos, str expected, object got):
    # The TypeError for argument `name` of `op`; pos is 1-based, 0 when unknown.
    where = f" (position {pos})" if pos > 0 else ""
    return TypeError(f"{op}(): argument '{name}'{where} must be {expected}, not {type(got).__name__}")


cdef inline Tensor _tt(object x, str op, str name, int pos=0) except *:
    # The C++ tensor of a tensor argument.
    if isinstance(x, TensorBase):
        return (<TensorBase>x).t
    raise _arg_error(op, name, pos, "Tensor", x)


cdef inline Tensor _opt_tt(object x, str op, str name, int pos=0) except *:
    # A tensor argument that may be None (a null handle: absent).
    cdef Tensor none
    if x is None:
        return none
    if isinstance(x, TensorBase):
        return (<TensorBase>x).t
    raise _arg_error(op, name, pos, "Tensor or None", x)


cdef inline TensorBase _tensor_obj(object x, str op, str name, int pos=0):
    # The tensor object itself, for callers that hand it back.
    if isinstance(x, TensorBase):
        return <TensorBase>x
    raise _arg_error(op, name, pos, "Tensor", x)


cdef inline int64_t _int_arg(object v, str op, str name, int pos=0) except? -1:
    # An int argument: a Python int or anything with __index__ (numpy
    # integers, 0-dim integer tensors), never a bool or a float.
    cdef int overflow = 0
    cdef int64_t r
    if type(v) is int:
        r = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow:
            raise OverflowError(f"{op}(): argument '{name}' is out of the int64 range: {v}")
        return r
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise _arg_error(op, name, pos, "int", v)
    if isinstance(v, TensorBase) and <int>(<TensorBase>v).t.get().dtype > 5:
        raise _arg_error(op, name, pos, "int", v)
    return v.__index__()


cdef inline double _float_arg(object v, str op, str name, int pos=0) except? -1.0:
    # A real-number argument: a Python int or float, or a numpy/0-dim scalar.
    if type(v) is float or type(v) is int:
        return v
    if isinstance(v, (bool, str, bytes)) or not hasattr(v, "__float__"):
        raise _arg_error(op, name, pos, "float", v)
    return float(v)


cdef inline DType _dtype_arg(object d, str op, str name, int pos=0) except *:
    if type(d) is dtype:
        return <DType>(<dtype>d)._value
    raise _arg_error(op, name, pos, "monoflow.dtype", d)


# The same converters for the op wrappers written in Python (composite ops
# validate their own inputs first, so that an error names them and not the
# building block they reach).

def check_tensor(x, str op, str name="input", int pos=1):
    """x if it is a Tensor; else TypeError "op(): argument 'name' (position pos) must be Tensor, not T"."""
    if isinstance(x, TensorBase):
        return x
    raise _arg_error(op, name, pos, "Tensor", x)


def check_optional_tensor(x, str op, str name, int pos=0):
    """x if it is a Tensor or None; else TypeError naming op and name."""
    if x is None or isinstance(x, TensorBase):
        return x
    raise _arg_error(op, name, pos, "Tensor or None", x)
