"""The legacy constructors: ``flow.Tensor(...)`` and the typed ``flow.FloatTensor``,
``flow.LongTensor``, ... (OneFlow's and PyTorch's rules):

- ``Tensor()``: an empty tensor of shape (0,);
- ``Tensor(*sizes)`` / ``Tensor(flow.Size)``: an uninitialised tensor of that shape;
- ``Tensor(list | tuple | ndarray)``: a copy of the data;
- ``Tensor(other_tensor)``: a tensor sharing ``other_tensor``'s memory;
- ``device=`` as keyword, and OneFlow's ``requires_grad=``, ``placement=`` and ``sbp=``
  (a global tensor of that data or global shape). ``flow.Tensor`` uses the
  default dtype, each typed constructor its own (and refuses a tensor of another dtype).
"""
import numbers

import numpy as np

from monoflow import _C, _dtypes


def _is_size(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and not isinstance(v, _C.TensorBase)


def legacy_new(name, dtype, args, device=None, kwargs=None):
    """The tensor `name(*args, device=device)` makes; `dtype` None means the default dtype."""
    try:
        return _legacy_new(name, dtype, args, device, kwargs)
    except Exception as e:  # noqa: BLE001 - renamed, re-raised
        # a refusal of the building blocks (out of memory, an unknown device)
        # names this frame, legacy_new: the class the user called is named
        msg = str(e)
        if e.args == (msg,) and msg.startswith("legacy_new(): "):
            e.args = (f"{name}(): {msg[len('legacy_new(): '):]}",)
        elif e.args == (msg,) and not msg.startswith(f"{name}()"):
            e.args = (f"{name}(): {msg}",)
        raise


def _legacy_new(name, dtype, args, device, kwargs):
    kwargs = dict(kwargs or {})
    # OneFlow's flow.Tensor also takes requires_grad= (its tests pass it; torch refuses it), and older
    # OneFlow's dtype= (its tests still pass it): the untyped constructor makes that dtype; a typed one
    # (flow.LongTensor) takes only its own.
    requires_grad = kwargs.pop("requires_grad", False)
    if "dtype" in kwargs:
        asked = kwargs.pop("dtype")
        if asked is not None and not isinstance(asked, _C.dtype):
            raise TypeError(f"{name}(): argument 'dtype' must be monoflow.dtype, not {type(asked).__name__}")
        if asked is not None and dtype is not None and asked != dtype:
            raise TypeError(f"{name}(): dtype={asked} conflicts with the constructor's dtype {dtype}")
    else:
        asked = None
    if not isinstance(requires_grad, bool):
        raise TypeError(f"{name}(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}")
    # OneFlow's placement= and sbp= make a global tensor of that global shape or data
    where = {k: kwargs.pop(k) for k in ("placement", "sbp") if k in kwargs}
    if kwargs:
        raise TypeError(f"{name}(): got an unexpected keyword argument '{next(iter(kwargs))}' "
                        "(only device=, requires_grad=, placement= and sbp= are accepted)")
    if where and device is not None:
        raise ValueError(f"{name}(): pass either device= (a local tensor) or placement= and sbp= (a global one)")
    out = _legacy_new_of(name, dtype, args, device, where)
    if asked is not None and out.dtype != asked:  # (the data or sizes made as usual, then cast)
        out = out.to(asked)
    if requires_grad:
        if not (out.dtype.is_floating_point or out.dtype.is_complex):
            raise RuntimeError(f"{name}(): only Tensors of floating point and complex dtype can require gradients")
        out.requires_grad_(True)
    return out


def _legacy_new_of(name, dtype, args, device, where):
    from monoflow._creation import empty, tensor
    from monoflow._tensor import Size

    if device is not None and not isinstance(device, (str, _C.device)):
        raise TypeError(f"{name}(): argument 'device' must be monoflow.device or str, not {type(device).__name__}")
    typed = dtype is not None
    dtype = dtype or _C.get_default_dtype()
    if not args:
        return empty(0, dtype=dtype, device=device, **where)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, _C.TensorBase):
            if where:
                raise TypeError(f"{name}(): placement= and sbp= make a tensor from data or sizes; use "
                                f"tensor.to_global(placement, sbp) for a tensor")
            if getattr(data, "is_global", False):
                raise TypeError(f"{name}(): expected a local tensor, got a global one (use .to_local())")
            if typed and data.dtype != dtype:
                raise TypeError(f"{name}(): expected a {dtype} tensor, got {data.dtype}")
            if device is not None and _C.device(device) != data.device:
                raise RuntimeError(f"{name}(): expected a tensor on {_C.device(device)}, got one on {data.device}")
            return data.detach()  # shares the memory, as the legacy constructor does
        if isinstance(data, Size):
            return empty(*data, dtype=dtype, device=device, **where)
        if isinstance(data, (list, tuple, np.ndarray)):
            return tensor(data, dtype=dtype, device=device, **where)
        if not _is_size(data):
            raise TypeError(f"{name}(): data must be a sequence (got {type(data).__name__})")
    for pos, a in enumerate(args):
        if not _is_size(a):
            raise TypeError(f"{name}(): argument 'size' must be a sequence of ints, but found element of type "
                            f"{type(a).__name__} at pos {pos}")
    sizes = [int(a) for a in args]
    for s in sizes:  # (refused here: empty's own words would name empty)
        if s < 0:
            raise RuntimeError(f"{name}(): Trying to create tensor with negative dimension {s}: {sizes}")
        if s >= 1 << 63:
            raise OverflowError(f"{name}(): argument 'size' is out of the int64 range: {s}")
    return empty(*sizes, dtype=dtype, device=device, **where)


class _LegacyTensorType(type):
    """``flow.FloatTensor(...)`` makes a ``flow.Tensor``; ``isinstance(t, flow.FloatTensor)``
    tells whether ``t`` is a local float32 tensor on the type's device type (``flow.cuda.FloatTensor``:
    CUDA, where constructing one needs a CUDA plugin, as torch's needs CUDA)."""

    def __call__(cls, *args, device=None, **kwargs):
        if device is None and cls.device_type != "cpu":
            device = cls.device_type
        return legacy_new(cls.__qualname__, cls.dtype, args, device, kwargs)

    def __instancecheck__(cls, obj):
        return (isinstance(obj, _C.TensorBase) and not getattr(obj, "is_global", False) and obj.dtype == cls.dtype
                and obj.device.type == cls.device_type)


_TYPES = (("BoolTensor", _dtypes.bool_), ("ByteTensor", _dtypes.uint8), ("CharTensor", _dtypes.int8),
          ("ShortTensor", _dtypes.int16), ("IntTensor", _dtypes.int32), ("LongTensor", _dtypes.int64),
          ("HalfTensor", _dtypes.float16), ("BFloat16Tensor", _dtypes.bfloat16), ("FloatTensor", _dtypes.float32),
          ("DoubleTensor", _dtypes.float64))


def legacy_types(device_type):
    """The typed legacy constructors of one device type, by name (``monoflow.FloatTensor``,
    ``monoflow.cuda.FloatTensor``)."""
    prefix = "" if device_type == "cpu" else device_type + "."
    return {name: _LegacyTensorType(name, (), {
        "dtype": dtype, "device_type": device_type, "__module__": "monoflow", "__qualname__": prefix + name,
        "__doc__": f"Legacy constructor of {dtype} {device_type.upper()} tensors (as flow.Tensor)."})
        for name, dtype in _TYPES}


_cpu = legacy_types("cpu")
BoolTensor, ByteTensor, CharTensor, ShortTensor, IntTensor, LongTensor, HalfTensor, BFloat16Tensor, FloatTensor, \
    DoubleTensor = (_cpu[name] for name, _ in _TYPES)
