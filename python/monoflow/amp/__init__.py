"""monoflow.amp: torch.amp's GradScaler (loss scaling) and autocast."""
from monoflow.amp.autocast_mode import (autocast, custom_bwd, custom_fwd, get_autocast_dtype,  # noqa: F401
                                        is_autocast_available, is_autocast_enabled)
from monoflow.amp.grad_scaler import GradScaler, StaticGradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler", "StaticGradScaler", "is_autocast_available", "is_autocast_enabled",
           "get_autocast_dtype", "custom_fwd", "custom_bwd"]
