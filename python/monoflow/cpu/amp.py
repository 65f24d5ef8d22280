"""monoflow.cpu.amp: torch.cpu.amp's names, monoflow.amp's objects for 'cpu'."""
from monoflow import amp as _amp
from monoflow._dtypes import bfloat16

__all__ = ["autocast", "GradScaler"]


class autocast(_amp.autocast):  # noqa: N801 - torch's name
    """``autocast("cpu", ...)``; the dtype defaults to bfloat16 as torch.cpu.amp.autocast."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _amp.warn_device_alias("cpu", "autocast")
        if dtype is None:
            dtype = bfloat16
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``GradScaler("cpu", ...)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _amp.warn_device_alias("cpu", "GradScaler")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
