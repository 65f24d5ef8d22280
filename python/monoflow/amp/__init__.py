"""monoflow.amp: torch.amp's GradScaler (loss scaling) and autocast."""
from monoflow.amp.autocast_mode import (autocast, clear_autocast_cache, custom_bwd, custom_fwd,  # noqa: F401
                                        get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype,
                                        is_autocast_available, is_autocast_cache_enabled, is_autocast_cpu_enabled,
                                        is_autocast_enabled, set_autocast_cache_enabled, set_autocast_cpu_dtype,
                                        set_autocast_cpu_enabled, set_autocast_dtype, set_autocast_enabled,
                                        set_autocast_gpu_dtype)
from monoflow.amp.grad_scaler import GradScaler, StaticGradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler", "StaticGradScaler", "is_autocast_available", "is_autocast_enabled",
           "get_autocast_dtype", "custom_fwd", "custom_bwd"]


def warn_device_alias(device_type, name):
    """torch's FutureWarning for its per-device spellings (``torch.cuda.amp.GradScaler(...)``), which it
    deprecated for ``torch.amp.GradScaler("cuda", ...)``: those still work, with this warning."""
    import warnings

    from monoflow import _C

    warnings.warn(f"`monoflow.{device_type}.amp.{name}(args...)` is deprecated. Please use "
                  f"`monoflow.amp.{name}('{device_type}', args...)` instead.", FutureWarning,
                  stacklevel=_C._caller_outside_package())
