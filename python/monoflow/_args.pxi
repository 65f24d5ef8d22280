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
import re as _re
import sys as _sys

from cpython.long cimport PyLong_AsLongLongAndOverflow


cdef object _arg_error(str op, str name, int pos, str expected, object got):
    # The TypeError for argument `name` of `op`; pos is 1-based, 0 when unknown.
    where = f" (position {pos})" if pos > 0 else ""
    return TypeError(name_op_in_progress(
        f"{op}(): argument '{name}'{where} must be {expected}, not {type(got).__name__}"))


# Note [Naming the op in progress]
# Many public ops are written in Python on top of the bindings (addmm over
# mul/add, F.batch_norm over reshape, ...). When a building block refuses its
# input, its message names the building block, which the user never called.
# On the error path only (no cost when nothing fails), the message is made to
# name the public op in progress: "addmm(): mul: shapes (2, 3) and (4,)
# cannot be broadcast together". That op is read off the Python stack (the
# bindings push no frames): of the innermost run of frames executing
# monoflow's own code, the outermost one with a public name, i.e. the
# monoflow function the user's code (or a user callback) called. Private
# helpers, dunders (x + y names the op __add__ reaches) and plumbing
# (_NOT_OP_FRAMES: Module.forward, wrappers) are passed over. A message that
# already names the op is left as it is; an argument error of a building
# block whose argument the op has too (absolute over abs, celu_ over celu)
# becomes the op's own: "absolute(): argument 'input' ...". Core errors get
# this through translate_exception's hook (_errors.h), the converters above
# through _arg_error, Python-level refusals by calling name_op_in_progress.
_NOT_OP_FRAMES = frozenset({"forward", "wrapper", "bound", "method", "function", "fn"})
_ARG_MESSAGE = _re.compile(r"^\w+\(\): argument '(\w+)'(?: \(position (\d+)\))?")


cdef tuple _op_frame():
    # (the op's frame, the function it forwards to) or (None, None): the
    # frame below the op that has positional parameters, passing over any
    # forwarding wrappers f(*args, **kwargs) in between (autocast's, the
    # global layer's)
    op = callee = inner = None
    f = _sys._getframe()
    while f is not None:
        module = f.f_globals.get("__name__")
        if type(module) is not str or not (module == "monoflow" or module.startswith("monoflow.")):
            break
        name = f.f_code.co_name
        if name[:1] not in ("_", "<") and name not in _NOT_OP_FRAMES:
            op, callee = f, inner
        if f.f_code.co_argcount > 0:
            inner = f
        f = f.f_back
    return op, callee


cdef object _overflow_named(str op, exc):
    # an int too big for int64 given to an operator (a dunder has no op frame
    # for name_op_in_progress): the error names the op it was given to
    msg = str(exc)
    return OverflowError(msg if _re.match(r"\w+\(\)", msg) else f"{op}(): {msg}")


def name_op_in_progress(str message):
    """`message`, made to name the public monoflow op written in Python that
    is running, if any (Note [Naming the op in progress])."""
    frame, callee = _op_frame()
    if frame is None:
        return message
    code = frame.f_code
    op = code.co_name
    if _re.search(r"(?<![A-Za-z0-9_])" + op + r"(?![A-Za-z0-9_])", message):
        return message
    m = _ARG_MESSAGE.match(message)
    if m is not None:
        if code.co_argcount == 0 and callee is not None:
            code = callee.f_code  # a forwarding wrapper f(*args, **kwargs): the parameters of what it wraps
        positional = code.co_varnames[:code.co_argcount]
        arg = m.group(1)
        if arg in positional or arg in code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]:
            # the position as torch counts it: from 1, a method's self not counted
            pos = positional.index(arg) + (positional[0] != "self") if arg in positional else 0
            where = f" (position {pos})" if m.group(2) is not None and int(m.group(2)) == pos else ""
            return f"{op}(): argument '{arg}'{where}{message[m.end():]}"
        if code.co_flags & 0x04 and arg == code.co_varnames[code.co_argcount + code.co_kwonlyargcount]:
            return f"{op}(): argument '{arg}'{message[m.end():]}"  # its *args: zeros(*size)
    return f"{op}(): {message}"


cdef PyObject* _message_hook(PyObject* message) noexcept:
    # translate_exception's hook: a new reference, or NULL to keep the message
    try:
        named = name_op_in_progress(<str>message)
    except BaseException:
        return NULL
    Py_INCREF(named)
    return <PyObject*>named


set_message_hook(_message_hook)


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
            raise OverflowError(name_op_in_progress(f"{op}(): argument '{name}' is out of the int64 range: {v}"))
        return r
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise _arg_error(op, name, pos, "int", v)
    if isinstance(v, TensorBase) and <int>(<TensorBase>v).t.get().dtype > 5:
        raise _arg_error(op, name, pos, "int", v)
    try:
        return v.__index__()
    except (TypeError, ValueError, RuntimeError):  # an array or tensor of several elements: not an int
        raise _arg_error(op, name, pos, "int", v) from None


cdef inline bint _bool_arg(object v, str op, str name, int pos=0) except -1:
    # A bool argument: a bool, an int or a numpy scalar; never a tensor or an
    # array (their truth value is ambiguous), None or a float.
    if type(v) is bool:
        return v
    if isinstance(v, int) or (not isinstance(v, TensorBase) and getattr(v, "ndim", None) == 0
                              and hasattr(v, "dtype")):
        return bool(v)
    raise _arg_error(op, name, pos, "bool", v)


cdef inline double _float_arg(object v, str op, str name, int pos=0) except? -1.0:
    # A real-number argument: a Python int or float, or a numpy/0-dim scalar.
    if type(v) is float or type(v) is int:
        return v
    if isinstance(v, (bool, str, bytes)) or not hasattr(v, "__float__"):
        raise _arg_error(op, name, pos, "float", v)
    try:
        return float(v)
    except (TypeError, ValueError, RuntimeError):  # an array or tensor of several elements
        raise _arg_error(op, name, pos, "float", v) from None


cdef inline double _number_arg(object v, str op, str name, int pos=0) except? -1.0:
    # A Number argument (torch's Scalar, read as a double): a bool too.
    if type(v) is float or type(v) is int:
        return v
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (str, bytes)) or not hasattr(v, "__float__"):
        raise _arg_error(op, name, pos, "Number", v)
    try:
        return float(v)
    except (TypeError, ValueError, RuntimeError):  # an array or tensor of several elements
        raise _arg_error(op, name, pos, "Number", v) from None


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


def check_int(v, str op, str name, int pos=0):
    """v as an int (a Python int or anything with __index__, not a bool); else
    TypeError "op(): argument 'name' must be int, not T"."""
    return _int_arg(v, op, name, pos)


def check_float(v, str op, str name, int pos=0):
    """v as a float (an int, a float or a numpy/0-dim scalar, not a bool); else
    TypeError "op(): argument 'name' must be float, not T"."""
    return _float_arg(v, op, name, pos)
