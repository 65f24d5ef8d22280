"""torch.types: the type aliases scripts annotate with (``from torch.types import Number, _size``)."""
import builtins
from typing import Sequence, Union

from monoflow._C import TensorBase as _TensorBase
from monoflow._C import device as _device_type
from monoflow._C import dtype as _dtype_type

Number = Union[builtins.int, builtins.float, builtins.bool]
_Number = (builtins.int, builtins.float, builtins.bool)  # (a tuple: isinstance checks take it)
_int, _float, _bool, _complex, _str, _bytes = builtins.int, builtins.float, builtins.bool, builtins.complex, \
    builtins.str, builtins.bytes
_dtype = _dtype_type
_device = _device_type
Device = Union[_device_type, builtins.str, builtins.int, None]
_size = Sequence[builtins.int]
_TensorOrTensors = Union[_TensorBase, Sequence[_TensorBase]]
_TensorOrOptionalTensors = Union[_TensorBase, None, Sequence[Union[_TensorBase, None]]]

__all__ = ["Number", "Device"]
