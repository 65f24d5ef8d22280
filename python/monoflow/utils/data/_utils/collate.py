"""torch.utils.data._utils.collate: default_collate and default_convert (monoflow.utils.data.collate)."""
from monoflow.utils.data.collate import default_collate, default_convert  # noqa: F401

__all__ = ["default_collate", "default_convert"]
