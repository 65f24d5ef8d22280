"""Creation functions: tensor, from_numpy, zeros/ones/full/empty (and _like), arange."""
import numbers
import operator

import numpy as np

from monoflow import _C, _dtypes, _memory_format
from monoflow._tensor import Tensor
from monoflow.ops_random import _requires_grad
from monoflow._global.creation import accepts_placement


def _shape(size, what):
    if len(size) == 1 and type(size[0]) is not int and not isinstance(size[0], numbers.Integral):  # (ABC check: slow)
        size = size[0]
        if getattr(size, "ndim", None) == 0:  # a 0-d array or tensor: one int, as torch reads it (through __index__)
            try:
                return (operator.index(size),)
            except TypeError:
                raise TypeError(_C.name_op_in_progress(f"{what}: expected a shape (integers or one sequence of "
                                                       f"integers), got a 0-d {type(size).__name__}")) from None
        if not hasattr(size, "__iter__"):
            raise TypeError(_C.name_op_in_progress(f"{what}: expected a shape (integers or one sequence of "
                                                   f"integers), got {type(size).__name__}"))
    return tuple(size)


def _infer_dtype(arr, data):
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return _dtypes.from_numpy(arr.dtype)
    kind = arr.dtype.kind  # (numpy made it from Python values: only the kind counts)
    if kind == "b":
        return _dtypes.bool_
    if kind in "iu":
        return _dtypes.int64
    if kind == "f":
        return _C.get_default_dtype()
    if kind == "c":
        return _dtypes.default_complex()
    raise TypeError(_C.name_op_in_progress(f"tensor: could not infer a dtype from data of numpy type {arr.dtype}"))


def _big_python_ints(arr, data, dtype):
    # numpy keeps numbers as Python objects when ints exceed 64 bits: fine
    # for a floating target, an overflow for an integral one
    flat = arr.ravel().tolist()
    if not flat or not all(isinstance(v, numbers.Real) for v in flat):
        raise TypeError(_C.name_op_in_progress(f"tensor: could not convert data of type {type(data).__name__} "
                                               "(ragged or non-numeric)"))
    if any(isinstance(v, float) for v in flat) or (dtype is not None and dtype.is_floating_point):
        return np.asarray(arr, dtype=np.float64)
    raise OverflowError("tensor: a Python int in the data is out of the int64 range")


def _check_one_element(x, what, arg):
    if x.numel() != 1:
        raise RuntimeError(_C.name_op_in_progress(f"{what}(): argument '{arg}' must be a number or a "
                                                  f"one-element tensor, got a tensor of shape {list(x.shape)}"))


def _number(x, what, arg):
    """A Python number from a number or a one-element tensor (torch accepts
    both for the scalar arguments of arange, linspace, full...)."""
    if isinstance(x, _C.TensorBase):
        _check_one_element(x, what, arg)
        return x.item()
    return x


@accepts_placement()
def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor copying `data` (nested lists, numbers, numpy arrays, tensors).
    ``pin_memory`` is accepted for compatibility: host tensors are already in
    memory every device plugin can copy from."""
    if dtype is not None and not isinstance(dtype, _C.dtype):
        raise TypeError(_C.name_op_in_progress(f"tensor(): argument 'dtype' must be monoflow.dtype, "
                                               f"not {type(dtype).__name__}"))
    if isinstance(data, _C.TensorBase):
        out = data.detach().clone()
        return _requires_grad(out.to(device=device or out.device, dtype=dtype or out.dtype), requires_grad)
    try:
        arr = np.asarray(data)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"tensor: cannot build a tensor from {type(data).__name__}: {exc}") from None
    if arr.dtype == object:
        arr = _big_python_ints(arr, data, dtype)
    if arr.dtype == np.uint64 and not isinstance(data, (np.ndarray, np.generic)) and \
            (dtype is None or not dtype.is_floating_point):
        # Python ints above the int64 range (numpy made them uint64)
        raise OverflowError("tensor: a Python int in the data is out of the int64 range")
    target = dtype or _infer_dtype(arr, data)
    staging = _dtypes.float32 if target == _dtypes.bfloat16 else target
    # (np.asarray, not np.ascontiguousarray: that one turns 0-dim data into 1-dim)
    try:
        host = np.asarray(arr, dtype=_dtypes.to_numpy(staging), order="C")
    except (TypeError, ValueError) as exc:  # numpy's own words name no op ('cpu' as int64)
        raise type(exc)(_C.name_op_in_progress(f"tensor(): cannot convert the data to {target}: {exc}")) from None
    out = _C._from_host_array(host, host.shape, staging, device)
    return _requires_grad(out if staging == target else out.to(target), requires_grad)


def as_tensor(data, dtype=None, device=None):
    if dtype is not None and not isinstance(dtype, _C.dtype):  # (an array's truth value would be asked)
        raise TypeError(f"as_tensor(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    if device is not None and not isinstance(device, (str, int, _C.device)):
        raise TypeError(f"as_tensor(): argument 'device' must be monoflow.device, not {type(device).__name__}")
    if isinstance(data, _C.TensorBase):
        return data.to(device=device or data.device, dtype=dtype or data.dtype)
    if isinstance(data, np.ndarray) and dtype is None and device in (None, "cpu"):
        try:
            return from_numpy(data)
        except (TypeError, ValueError):
            pass
    return tensor(data, dtype=dtype, device=device)


def from_numpy(arr):
    """A CPU tensor sharing memory with the numpy array `arr`."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"from_numpy: expected np.ndarray (got {type(arr).__name__})")
    dt = _dtypes.from_numpy(arr.dtype)
    item = arr.itemsize
    if any(s < 0 for s in arr.strides):
        raise ValueError("from_numpy: arrays with negative strides are not supported; use arr.copy() first")
    if any(s % item for s in arr.strides):
        raise ValueError("from_numpy: strides that are not a multiple of the element size are not supported")
    strides = tuple(s // item for s in arr.strides)
    extent = 1 + sum((n - 1) * s for n, s in zip(arr.shape, strides)) if arr.size else 0
    ptr = arr.__array_interface__["data"][0]
    return _C._borrow_host_memory(arr, ptr, extent * item, arr.shape, strides, dt)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    ext = ext_tensor
    if hasattr(ext, "__dlpack__"):
        device_type, _ = ext.__dlpack_device__()
        if device_type != 1:
            raise BufferError(f"from_dlpack: only CPU memory can be imported, got DLPack device type {device_type}")
        ext = ext.__dlpack__()
    out = _C.from_dlpack_capsule(ext)
    if device is not None:
        try:
            device = _C.device(device)
        except (TypeError, ValueError, RuntimeError) as e:  # (named after the op, as every refusal is)
            raise type(e)(f"from_dlpack(): {e}") from None
    if device is not None and device != out.device:
        if copy is False:
            raise BufferError(f"from_dlpack: copy=False, but moving the tensor to {device} needs a copy")
        return out.to(device)
    return out.clone() if copy else out


def _size_keyword(op, size, kw):
    if kw:
        if set(kw) != {"size"}:
            raise TypeError(f"{op}() got an unexpected keyword argument '{sorted(set(kw) - {'size'})[0]}'")
        if size:
            raise TypeError(f"{op}(): the size is given twice (positionally and as size=)")
        return (kw["size"],)
    return size


@accepts_placement()
def empty(*size, dtype=None, device=None, requires_grad=False, pin_memory=False, **kwargs):
    size = _size_keyword("empty", size, kwargs)  # torch also takes size= (torch.empty(size=(2, 3)))
    dtype = _C.get_default_dtype() if dtype is None else dtype
    return _requires_grad(_C._empty(_shape(size, "empty"), dtype, device), requires_grad)


@accepts_placement()
def zeros(*size, dtype=None, device=None, requires_grad=False, pin_memory=False, **kwargs):
    size = _size_keyword("zeros", size, kwargs)  # torch also takes size= (torch.empty(size=(2, 3)))
    dtype = _C.get_default_dtype() if dtype is None else dtype
    return _requires_grad(_C._full(_shape(size, "zeros"), 0, dtype, device), requires_grad)


@accepts_placement()
def ones(*size, dtype=None, device=None, requires_grad=False, pin_memory=False, **kwargs):
    size = _size_keyword("ones", size, kwargs)  # torch also takes size= (torch.empty(size=(2, 3)))
    dtype = _C.get_default_dtype() if dtype is None else dtype
    return _requires_grad(_C._full(_shape(size, "ones"), 1, dtype, device), requires_grad)


@accepts_placement()
def full(size, fill_value, dtype=None, device=None, requires_grad=False, pin_memory=False):
    fill_tensor = None
    if isinstance(fill_value, _C.TensorBase) and not fill_value.dtype.is_complex:
        # A one-element tensor fills by tensor ops, not .item(): an nn.Graph traces
        # flow.full(shape, t) (OneFlow's test_constant) where values cannot be read.
        _check_one_element(fill_value, "full", "fill_value")
        fill_tensor = fill_value.detach().reshape(())
        fill_value = (True if fill_tensor.dtype == _dtypes.bool_ else
                      1.0 if fill_tensor.dtype.is_floating_point else 1)  # (its kind, for the dtype below)
    fill_value = _number(fill_value, "full", "fill_value")
    if isinstance(size, numbers.Integral):
        shape = (size,)
    elif isinstance(size, (tuple, list)):
        shape = tuple(size)  # (the elements are checked by the binding)
    else:
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    if isinstance(fill_value, complex) or getattr(dtype, "is_complex", False):
        from monoflow import _complex

        out = _complex.full(shape, fill_value, dtype or _dtypes.default_complex(), device)
        return _requires_grad(out, requires_grad)
    if dtype is None:
        dtype = (_dtypes.bool_ if isinstance(fill_value, bool) else
                 _dtypes.int64 if isinstance(fill_value, numbers.Integral) else _C.get_default_dtype())
    if fill_tensor is not None:
        out = _C._full(shape, 0, dtype, device)
        return _requires_grad(out + fill_tensor.to(device=out.device, dtype=dtype), requires_grad)
    return _requires_grad(_C._full(shape, fill_value, dtype, device), requires_grad)


def _like(t, dtype, device, what):
    if not isinstance(t, _C.TensorBase):
        raise TypeError(f"{what}(): argument 'input' must be Tensor, not {type(t).__name__}")
    return tuple(t.shape), t.dtype if dtype is None else dtype, t.device if device is None else device


def empty_like(input, *, dtype=None, device=None, requires_grad=False, pin_memory=False, memory_format=None):
    out = _C._empty(*_like(input, dtype, device, "empty_like"))
    return _requires_grad(_memory_format.like(out, input, memory_format, "empty_like"), requires_grad)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, pin_memory=False, memory_format=None):
    shape, dt, dev = _like(input, dtype, device, "zeros_like")
    out = _memory_format.like(_C._full(shape, 0, dt, dev), input, memory_format, "zeros_like")
    return _requires_grad(out, requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, pin_memory=False, memory_format=None):
    shape, dt, dev = _like(input, dtype, device, "ones_like")
    out = _memory_format.like(_C._full(shape, 1, dt, dev), input, memory_format, "ones_like")
    return _requires_grad(out, requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              pin_memory=False, memory_format=None):
    shape, dt, dev = _like(input, dtype, device, "full_like")
    out = full(shape, _number(fill_value, "full_like", "fill_value"), dt, dev)
    return _requires_grad(_memory_format.like(out, input, memory_format, "full_like"), requires_grad)


@accepts_placement()
def arange(start=None, end=None, step=1, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if start is None:  # torch.arange(end=5)
        if end is None:
            raise TypeError("arange() missing 1 required positional argument: 'end'")
        start = 0
    start, end, step = (_number(v, "arange", n) for v, n in ((start, "start"), (end, "end"), (step, "step")))
    if end is None:
        start, end = 0, start
    return _requires_grad(_C._arange(start, end, step, dtype, device), requires_grad)
