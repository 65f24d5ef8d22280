"""torch.optim.adamw: the module path ``from torch.optim.adamw import AdamW`` reaches (optim/adam.py has the code)."""
from monoflow.optim.adam import Adam, AdamW  # noqa: F401

__all__ = ["AdamW"]
