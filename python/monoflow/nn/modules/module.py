"""torch.nn.modules.module's path (``from torch.nn.modules.module import Module``): the class lives in monoflow.nn.module."""
from monoflow.nn.module import Module, RemovableHandle  # noqa: F401

__all__ = ["Module"]
