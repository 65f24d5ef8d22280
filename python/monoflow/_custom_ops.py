"""torch._custom_ops: the older names of monoflow.library's registrations (impl_abstract) and get_ctx."""
from .library import impl_abstract  # noqa: F401

__all__ = ["impl_abstract", "get_ctx"]


def get_ctx():
    """The fake-kernel context of torch's fake tensor mode, which monoflow lacks: a fake kernel that asks for it
    (to make a data-dependent size) cannot run on monoflow's meta tensors."""
    raise RuntimeError("torch._custom_ops.get_ctx(): monoflow has no fake tensor mode, so a fake kernel that needs a "
                       "data-dependent output size cannot run on meta tensors")
