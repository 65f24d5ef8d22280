"""autocast: torch's mixed-precision region over monoflow's casting policy
(monoflow/_autocast.py). For a device type that is not loaded, autocast
disables itself with a warning, as torch does for CUDA on a machine without it."""
import functools
import warnings

from monoflow import _C, _autocast, _dtypes
from monoflow.utils._pytree import tree_map_only


def is_autocast_available(device_type):
    """Returns whether :class:`autocast` can be enabled for ``device_type``: a device plugin of that type is loaded.

    Args:
        device_type (str): the device type, e.g. ``"cpu"`` or ``"cuda"``.

    Example::

        >>> flow.amp.is_autocast_available("cpu")
        True
        >>> flow.amp.is_autocast_available("no_such_device")
        False
    """
    return device_type in _C.device_types()


class autocast:  # noqa: N801 - torch's name
    """A mixed-precision region, torch's ``autocast``: a context manager and
    a decorator.

    Inside an enabled region, ops on tensors of ``device_type`` follow
    torch's CPU autocast policy (Note [Autocast policy] in
    ``monoflow/_autocast.py``): matmul, ``mm``/``bmm``/``addmm``/``baddbmm``,
    ``linear``, convolutions, ``prelu`` and attention run in ``dtype``;
    losses, ``prod``, ``cdist`` and ``trace`` run in float32; other ops run
    in their inputs' dtypes. The cast of a parameter is made once per
    region. Gradients flow back through the casts to the float32 weights.
    For a device type that is not loaded, or a dtype other than bfloat16
    and float16, autocast disables itself with a warning, as torch does.

    Args:
        device_type (str): the device type of the region (``"cpu"``,
            ``"cuda"``).
        dtype (monoflow.dtype, optional): the lower-precision dtype.
            Default: ``bfloat16`` for ``"cpu"``, ``float16`` otherwise.
        enabled (bool): whether the region is active. Default: ``True``.
        cache_enabled (bool, optional): cache the casts of parameters within
            the region. Default: ``True``.

    Raises:
        ValueError: if ``device_type`` is not a string.

    Example::

        >>> with flow.autocast("cpu", dtype=flow.bfloat16):
        ...     y = flow.ones(2, 2) @ flow.ones(2, 2)
        ...     s = y.float().softmax(-1)
        >>> y.dtype, s.dtype
        (monoflow.bfloat16, monoflow.float32)
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"autocast: expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = _autocast.get_dtype(device_type) if dtype is None else dtype
        self._enabled = bool(enabled)
        # unset: the current setting (True unless set_autocast_cache_enabled turned it off), as torch
        self._cache_enabled = _autocast.cache_enabled() if cache_enabled is None else bool(cache_enabled)
        if self._enabled and not is_autocast_available(device_type):
            warnings.warn(f"User provided device_type of '{device_type}', but '{device_type}' is not available. "
                          "Disabling", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled and self.fast_dtype not in (_dtypes.bfloat16, _dtypes.float16):
            warnings.warn(f"In {device_type} autocast, but the target dtype {self.fast_dtype} is not supported "
                          "(bfloat16 and float16 are). Disabling autocast.", UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self):
        _autocast.push(self.device, self.fast_dtype, self._enabled, self._cache_enabled)
        return self

    def __exit__(self, *exc):
        _autocast.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapped


def is_autocast_enabled(device_type="cuda"):
    """Whether code here runs in an enabled :class:`autocast` region for ``device_type``
    (torch's default device type is ``"cuda"``).

    Args:
        device_type (str): the device type. Default: ``"cuda"``.

    Example::

        >>> with flow.autocast("cpu"):
        ...     flow.is_autocast_enabled("cpu"), flow.is_autocast_enabled()
        (True, False)
    """
    _check_device_type("is_autocast_enabled", device_type)
    return _autocast.is_enabled(device_type)


def get_autocast_dtype(device_type):
    """The lower-precision dtype of the innermost :class:`autocast` region for ``device_type``, or
    the default one outside any region (bfloat16 for ``"cpu"``, float16 otherwise).

    Args:
        device_type (str): the device type.

    Example::

        >>> flow.get_autocast_dtype("cpu")
        monoflow.bfloat16
        >>> with flow.autocast("cpu", dtype=flow.float16):
        ...     flow.get_autocast_dtype("cpu")
        monoflow.float16
    """
    _check_device_type("get_autocast_dtype", device_type)
    return _autocast.get_dtype(device_type)


# torch's older, device-specific spellings of the two queries above (still called by libraries)
def is_autocast_cpu_enabled():
    """``is_autocast_enabled("cpu")`` (torch's older spelling).

    Example::

        >>> with flow.autocast("cpu"):
        ...     flow.is_autocast_cpu_enabled()
        True
    """
    return _autocast.is_enabled("cpu")


def get_autocast_cpu_dtype():
    """``get_autocast_dtype("cpu")`` (torch's older spelling).

    Example::

        >>> flow.get_autocast_cpu_dtype()
        monoflow.bfloat16
    """
    return _autocast.get_dtype("cpu")


def get_autocast_gpu_dtype():
    """``get_autocast_dtype("cuda")`` (torch's older spelling).

    Example::

        >>> flow.get_autocast_gpu_dtype()
        monoflow.float16
    """
    return _autocast.get_dtype("cuda")


def is_autocast_cache_enabled():
    """Whether the innermost :class:`autocast` region caches the casts of parameters
    (its ``cache_enabled``); True outside every region, as torch.

    Example::

        >>> with flow.autocast("cpu", cache_enabled=False):
        ...     flow.is_autocast_cache_enabled()
        False
    """
    return _autocast.cache_enabled()


def clear_autocast_cache():
    """Drops the cached lower-precision copies of parameters (they are made again on next use).

    Example::

        >>> w = flow.ones(2, 2, requires_grad=True)
        >>> with flow.autocast("cpu"):
        ...     y = w @ w
        ...     flow.clear_autocast_cache()
        ...     (w @ w).dtype
        monoflow.bfloat16
    """
    _autocast.clear_cache()


def _check_device_type(op, device_type):
    if not isinstance(device_type, str):
        raise TypeError(f"{op}(): argument 'device_type' must be str, not {type(device_type).__name__}")


def _check_bool(op, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{op}(): argument '{name}' must be bool, not {type(value).__name__}")


def _check_dtype(op, dtype):
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"{op}(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")


def set_autocast_enabled(device_type, enabled=None):
    """Turns autocast on or off for ``device_type`` without a ``with`` block (torch's and OneFlow's
    ``set_autocast_enabled``): inside an :class:`autocast` region for that device type it changes the
    region until it exits; outside, it holds until set again. ``set_autocast_enabled(enabled)`` (one
    argument, torch's older form) means ``"cuda"``.

    Args:
        device_type (str): the device type (or, alone, the bool ``enabled`` for ``"cuda"``).
        enabled (bool): on or off.

    Example::

        >>> x = flow.ones(2, 2)
        >>> flow.set_autocast_enabled("cpu", True)
        >>> flow.is_autocast_enabled("cpu"), (x @ x).dtype
        (True, monoflow.bfloat16)
        >>> flow.set_autocast_enabled("cpu", False)
        >>> (x @ x).dtype
        monoflow.float32
    """
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _check_device_type("set_autocast_enabled", device_type)
    _check_bool("set_autocast_enabled", "enabled", enabled)
    _autocast.set_enabled(device_type, enabled)


def set_autocast_dtype(device_type, dtype):
    """Sets the lower-precision dtype of autocast for ``device_type`` (torch's ``set_autocast_dtype``):
    of the innermost :class:`autocast` region for it until that exits, else the one regions without a
    ``dtype`` take and :func:`set_autocast_enabled` uses.

    Args:
        device_type (str): the device type.
        dtype (monoflow.dtype): ``float16`` or ``bfloat16``.

    Example::

        >>> flow.set_autocast_dtype("cpu", flow.float16)
        >>> with flow.autocast("cpu"):
        ...     (flow.ones(2, 2) @ flow.ones(2, 2)).dtype
        monoflow.float16
        >>> flow.set_autocast_dtype("cpu", flow.bfloat16)
    """
    _check_device_type("set_autocast_dtype", device_type)
    _check_dtype("set_autocast_dtype", dtype)
    _autocast.set_dtype(device_type, dtype)


def set_autocast_cpu_enabled(enabled):
    """``set_autocast_enabled("cpu", enabled)`` (torch's older spelling).

    Args:
        enabled (bool): on or off.

    Example::

        >>> flow.set_autocast_cpu_enabled(False)
        >>> flow.is_autocast_cpu_enabled()
        False
    """
    _check_bool("set_autocast_cpu_enabled", "enabled", enabled)
    _autocast.set_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype):
    """``set_autocast_dtype("cpu", dtype)`` (torch's and OneFlow's older spelling).

    Args:
        dtype (monoflow.dtype): ``float16`` or ``bfloat16``.

    Example::

        >>> flow.set_autocast_cpu_dtype(flow.bfloat16)
        >>> flow.get_autocast_cpu_dtype()
        monoflow.bfloat16
    """
    _check_dtype("set_autocast_cpu_dtype", dtype)
    _autocast.set_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype):
    """``set_autocast_dtype("cuda", dtype)`` (torch's and OneFlow's older spelling).

    Args:
        dtype (monoflow.dtype): ``float16`` or ``bfloat16``.

    Example::

        >>> flow.set_autocast_gpu_dtype(flow.float16)
        >>> flow.get_autocast_gpu_dtype()
        monoflow.float16
    """
    _check_dtype("set_autocast_gpu_dtype", dtype)
    _autocast.set_dtype("cuda", dtype)


def set_autocast_cache_enabled(enabled):
    """Whether autocast caches the lower-precision copies of parameters (torch's and OneFlow's
    ``set_autocast_cache_enabled``): of the innermost region until it exits, else of the regions made
    without ``cache_enabled``.

    Args:
        enabled (bool): cache or not.

    Example::

        >>> flow.set_autocast_cache_enabled(False)
        >>> with flow.autocast("cpu"):
        ...     flow.is_autocast_cache_enabled()
        False
        >>> flow.set_autocast_cache_enabled(True)
    """
    _check_bool("set_autocast_cache_enabled", "enabled", enabled)
    _autocast.set_cache_enabled(enabled)


def _cast_floats(value, dtype):
    """`value` with every floating-point tensor in it (nested in lists, tuples, dicts) cast to `dtype`."""
    return tree_map_only(_C.TensorBase, lambda t: t.to(dtype) if t.is_floating_point() else t, value)


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for the ``forward`` of a custom :class:`~monoflow.autograd.Function` under autocast
    (torch's ``amp.custom_fwd``). Without ``cast_inputs`` the forward runs in the caller's autocast
    state, which :func:`custom_bwd` restores for the backward; with it, the forward's floating-point
    tensor arguments are cast to ``cast_inputs`` and it runs with autocast off (when the caller's
    region is on).

    Args:
        fwd (callable): the forward (``ctx`` first); omitted, a decorator is returned.
        device_type (str): the autocast device type (``"cpu"``, ``"cuda"``).
        cast_inputs (monoflow.dtype, optional): the dtype the inputs run in. Default: ``None``.

    Example::

        >>> class Double(flow.autograd.Function):
        ...     @staticmethod
        ...     @flow.amp.custom_fwd(device_type="cpu", cast_inputs=flow.float32)
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     @flow.amp.custom_bwd(device_type="cpu")
        ...     def backward(ctx, g):
        ...         return g * 2
        >>> with flow.autocast("cpu"):
        ...     Double.apply(flow.ones(2, dtype=flow.bfloat16)).dtype
        monoflow.float32
    """
    if not isinstance(device_type, str):
        raise ValueError(f"custom_fwd: expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type, enabled=False):
            return fwd(ctx, *_cast_floats(args[1:], cast_inputs), **_cast_floats(kwargs, cast_inputs))
    return forward


def custom_bwd(bwd=None, *, device_type):
    """Decorator for the ``backward`` of a custom :class:`~monoflow.autograd.Function` whose forward
    has :func:`custom_fwd`: the backward runs in the autocast state the forward ran in (torch's
    ``amp.custom_bwd``).

    Args:
        bwd (callable): the backward (``ctx`` first); omitted, a decorator is returned.
        device_type (str): the autocast device type (``"cpu"``, ``"cuda"``).

    Example::

        >>> @flow.amp.custom_bwd(device_type="cpu")
        ... def backward(ctx, g):
        ...     return g
        >>> callable(backward)
        True
    """
    if not isinstance(device_type, str):
        raise ValueError(f"custom_bwd: expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type, enabled=getattr(ctx, "_fwd_used_autocast", False),
                      dtype=getattr(ctx, "_dtype", None)):
            return bwd(*args, **kwargs)
    return backward
