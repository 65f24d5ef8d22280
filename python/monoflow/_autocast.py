"""Automatic mixed precision: the per-op casting policy behind ``autocast``.

Note [Autocast policy]
  As torch's CPU autocast, an op is in one of three lists:
  - lower precision: matmul and its relatives, linear, convolutions, prelu and
    attention run in the region's dtype (bfloat16 or float16): their float32
    (or float16/bfloat16) tensor arguments are cast to it; float64 and
    integer tensors are left alone;
  - float32: losses and a few ops that need range (prod, cdist, trace,
    avg_pool3d) run in float32: their lower-precision arguments are cast up;
  - everything else runs in its inputs' dtypes (mixed float inputs promote,
    cat/stack included, as without autocast).
  Ops opt in with the ``lower``/``fp32`` decorators where they are defined;
  ``@`` and ``Tensor.matmul`` (Cython methods) ask ``_C``'s hook. Outside a
  region the decorators cost one attribute read. Within a region, the cast
  of a leaf that requires grad (a parameter) is cached until the outermost
  region exits, as torch does, so a weight used by several ops is cast once.
  The state is per thread.
"""
import functools
import threading

from monoflow import _C, _dtypes

_LOW = (_dtypes.float16, _dtypes.bfloat16)


class _State(threading.local):
    def __init__(self):
        self.stack = []  # (device_type, dtype, enabled, cache_enabled), innermost last
        self.cache = {}  # id(leaf) -> (leaf, version, dtype, cast)
        # Outside every region of a device type, what torch.set_autocast_enabled/_dtype set for it:
        # device_type -> [dtype, enabled]; base_on counts the enabled ones (the ops' fast path reads it).
        self.base = {}
        self.base_on = 0
        self.base_cache = True  # torch.set_autocast_cache_enabled outside every region


_state = _State()
# Enabled regions over all threads: `@`'s hook is installed while there is one
# (the hook itself reads this thread's stack).
_enabled_regions = 0
_lock = threading.Lock()


def push(device_type, dtype, enabled, cache_enabled):
    _state.stack.append((device_type, dtype, enabled, cache_enabled))
    if enabled:
        _count_region(+1)


def pop():
    _, _, enabled, _ = _state.stack.pop()
    if not _state.stack:
        _state.cache.clear()
    if enabled:
        _count_region(-1)


def _count_region(step):
    global _enabled_regions
    with _lock:
        _enabled_regions += step
        _C._set_autocast_hook(_matmul_hook if _enabled_regions else None)


def region(device_type):
    """(dtype, cache_enabled) of the innermost region for `device_type` if it is enabled, else None."""
    for dev, dtype, enabled, cache in reversed(_state.stack):
        if dev == device_type or dev == "*":
            return (dtype, cache) if enabled else None
    base = _state.base.get(device_type)
    # no cache outside a region: no region exit would ever drop it
    return (base[0], False) if base is not None and base[1] else None


def is_enabled(device_type="cuda"):
    return region(device_type) is not None


def _default_dtype(device_type):
    return _dtypes.bfloat16 if device_type == "cpu" else _dtypes.float16


def get_dtype(device_type):
    r = region(device_type)
    if r:
        return r[0]
    base = _state.base.get(device_type)
    return base[0] if base is not None else _default_dtype(device_type)


def cache_enabled():
    """The innermost region's cache_enabled (any device type); outside every region, the setting."""
    return _state.stack[-1][3] if _state.stack else _state.base_cache


def _innermost(device_type):
    for i in range(len(_state.stack) - 1, -1, -1):
        if _state.stack[i][0] == device_type:
            return i
    return None


def set_enabled(device_type, enabled):
    """torch.set_autocast_enabled: the innermost region for `device_type` (until it exits, as torch
    restores the state at the region's exit), or the state outside every region for it."""
    i = _innermost(device_type)
    if i is not None:
        dev, dtype, was, cache = _state.stack[i]
        _state.stack[i] = (dev, dtype, enabled, cache)
    else:
        base = _state.base.setdefault(device_type, [_default_dtype(device_type), False])
        was, base[1] = base[1], enabled
        if was != enabled:
            _state.base_on += 1 if enabled else -1
    if was != enabled:
        _count_region(+1 if enabled else -1)


def set_dtype(device_type, dtype):
    """torch.set_autocast_dtype: as set_enabled, for the lower-precision dtype."""
    i = _innermost(device_type)
    if i is not None:
        dev, _, enabled, cache = _state.stack[i]
        _state.stack[i] = (dev, dtype, enabled, cache)
    else:
        _state.base.setdefault(device_type, [_default_dtype(device_type), False])[0] = dtype


def set_cache_enabled(enabled):
    """torch.set_autocast_cache_enabled: the innermost region's, or the setting outside every region."""
    if _state.stack:
        dev, dtype, on, _ = _state.stack[-1]
        _state.stack[-1] = (dev, dtype, on, enabled)
    else:
        _state.base_cache = enabled


def clear_cache():
    _state.cache.clear()


def _cast(t, dtype, cache):
    if cache and t.is_leaf and t.requires_grad:
        hit = _state.cache.get(id(t))
        if hit is not None and hit[0] is t and hit[1] == t._version and hit[2] == dtype:
            return hit[3]
        out = t.to(dtype)
        _state.cache[id(t)] = (t, t._version, dtype, out)
        return out
    return t.to(dtype)


def _convert(v, want, eligible):
    """v with every eligible tensor (in v, or in a list/tuple v) cast as the region says."""
    if isinstance(v, _C.TensorBase):
        r = region(v.device.type)
        if r is not None and eligible(v.dtype):
            return _cast(v, want(r[0]), r[1])
        return v
    if isinstance(v, (list, tuple)) and any(isinstance(x, _C.TensorBase) for x in v):
        return type(v)(_convert(x, want, eligible) for x in v)
    return v


def _lower_eligible(dtype):
    return dtype.is_floating_point and dtype != _dtypes.float64


def _fp32_eligible(dtype):
    return dtype in _LOW


# Inside an op of a list, autocast is off (as torch excludes its autocast key
# there): the ops it is composed of run in the dtypes it chose.
_SUSPENDED = ("*", None, False, False)


def _policy(want, eligible):
    def decorate(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            if not _state.stack and not _state.base_on:
                return fn(*args, **kwargs)
            args = tuple(_convert(a, want, eligible) for a in args)
            kwargs = {k: _convert(v, want, eligible) for k, v in kwargs.items()}
            push(*_SUSPENDED)
            try:
                return fn(*args, **kwargs)
            finally:
                pop()
        # the frame names the op, as the op's own did (Note [Naming the op in progress], _args.pxi)
        run.__code__ = run.__code__.replace(co_name=fn.__name__, co_qualname=fn.__qualname__)
        return run
    return decorate


lower = _policy(lambda low: low, _lower_eligible)
"""Decorator: the op runs in the autocast region's lower-precision dtype."""

fp32 = _policy(lambda low: _dtypes.float32, _fp32_eligible)
"""Decorator: the op runs in float32 inside an autocast region."""

native = _policy(lambda low: low, lambda dtype: False)
"""Decorator: the op runs in its inputs' dtypes, its inner matmuls too (dot, mv, outer)."""


def _matmul_hook(a, b):
    return _convert(a, lambda low: low, _lower_eligible), _convert(b, lambda low: low, _lower_eligible)
