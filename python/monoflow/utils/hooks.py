"""monoflow.utils.hooks: torch.utils.hooks' RemovableHandle (the handle every register_*_hook returns)."""
from monoflow.nn.module import RemovableHandle

__all__ = ["RemovableHandle"]
