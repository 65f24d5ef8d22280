"""torch.utils.dlpack: exchange tensors with other libraries through DLPack capsules
(``from torch.utils.dlpack import to_dlpack, from_dlpack``)."""
from monoflow._creation import from_dlpack  # noqa: F401
from monoflow.ops_oneflow_names import to_dlpack  # noqa: F401

__all__ = ["from_dlpack", "to_dlpack"]
