"""monoflow.amp: torch.amp's GradScaler (loss scaling) and autocast."""
from monoflow.amp.autocast_mode import autocast, is_autocast_available  # noqa: F401
from monoflow.amp.grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler", "is_autocast_available"]
