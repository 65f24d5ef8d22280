"""Process-wide defaults of the creation functions: device and tensor type
(torch.set_default_device, torch.set_default_tensor_type)."""
from monoflow import _C, _dtypes

get_default_device = _C.get_default_device
set_default_device = _C.set_default_device

# the floating tensor type names ("FloatTensor", ...), from torch's dtype names
_TENSOR_TYPES = {f"{name}Tensor": dt for dt, name in _dtypes.TORCH_NAMES.items()
                 if dt in (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)}


def set_default_tensor_type(t):
    """Sets the default floating dtype from a tensor type name
    ("torch.FloatTensor", "torch.DoubleTensor", ...); a CUDA type name
    ("torch.cuda.FloatTensor") also makes CUDA the default device."""
    name = t if isinstance(t, str) else getattr(t, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"set_default_tensor_type(): argument 't' must be a tensor type or its name, not "
                        f"{type(t).__name__}")
    parts = name.split(".")
    if parts[-1] not in _TENSOR_TYPES:
        raise TypeError(f"set_default_tensor_type(): only floating-point types are supported as the default type, "
                        f"got {name!r}")
    if "cuda" in parts[:-1]:
        from monoflow._device_face import face

        set_default_device(face("cuda").require("set_default_tensor_type"))
    _C.set_default_dtype(_TENSOR_TYPES[parts[-1]])
