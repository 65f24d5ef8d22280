"""monoflow.cuda.amp: torch.cuda.amp's names, monoflow.amp's objects for 'cuda'."""
from monoflow import amp as _amp


class autocast(_amp.autocast):  # noqa: N801
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _amp.warn_device_alias("cuda", "autocast")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """torch.cuda.amp.GradScaler and OneFlow's flow.cuda.amp.GradScaler: :class:`monoflow.amp.GradScaler`
    for ``"cuda"`` (disabled, with a warning, when no CUDA device is loaded).

    Args:
        init_scale (float): the starting scale. Default: ``2.0 ** 16``.
        growth_factor (float): the factor after ``growth_interval`` good steps. Default: ``2.0``.
        backoff_factor (float): the factor after a step with inf/NaN gradients. Default: ``0.5``.
        growth_interval (int): good steps between two growths. Default: ``2000``.
        enabled (bool): whether scaling is on. Default: ``True``.
        fused (bool): OneFlow's choice of a fused unscale kernel over groups of gradients. The
            results are the same either way (monoflow unscales each gradient once in both), so it
            is kept as the ``fused`` attribute only. Default: ``False``.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     scaler = flow.cuda.amp.GradScaler(init_scale=128.0, fused=True)
        >>> scaler.fused, scaler.is_enabled() == flow.cuda.is_available()
        (True, True)
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True, fused=False):
        _amp.warn_device_alias("cuda", "GradScaler")
        if not isinstance(fused, bool):
            raise TypeError(f"GradScaler(): argument 'fused' must be bool, not {type(fused).__name__}")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
        self.fused = fused


def custom_fwd(fwd=None, *, cast_inputs=None):
    """torch.cuda.amp.custom_fwd: :func:`monoflow.amp.custom_fwd` for ``device_type="cuda"``."""
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """torch.cuda.amp.custom_bwd: :func:`monoflow.amp.custom_bwd` for ``device_type="cuda"``."""
    return _amp.custom_bwd(bwd, device_type="cuda")
