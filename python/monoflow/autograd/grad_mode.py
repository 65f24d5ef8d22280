"""Grad-mode context managers (thread-local state lives in the core)."""
import functools

from monoflow import _C

is_grad_enabled = _C.is_grad_enabled


class _GradModeContext:
    """Base of the grad-mode managers: a context manager that also decorates."""

    _enabled = True

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__._clone(self):
                return fn(*args, **kwargs)

        return wrapper

    def _clone(self):
        return self.__class__()


class no_grad(_GradModeContext):
    """Disables gradient recording inside the block (or the decorated function)."""

    _enabled = False


class enable_grad(_GradModeContext):
    """Enables gradient recording inside the block, e.g. within ``no_grad``."""

    _enabled = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode to ``mode``; takes effect immediately, like torch's, and
    restores the previous mode when used as a context manager."""

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        self._enabled = bool(mode)
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def _clone(self):
        return set_grad_enabled(self._enabled)


class inference_mode(_GradModeContext):
    """Like ``no_grad`` (monoflow has no separate inference tensors): nothing
    inside the block is recorded. ``inference_mode(False)`` changes nothing."""

    def __init__(self, mode=True):
        self._mode = bool(mode)
        self._enabled = not self._mode

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        if self._mode:
            _C._set_grad_enabled(False)

    def _clone(self):
        return inference_mode(self._mode)


_multithreading = {"enabled": True}


def is_multithreading_enabled():
    return _multithreading["enabled"]


class set_multithreading_enabled:
    """torch's switch for a multithreaded backward. monoflow's engine runs a
    backward on the calling thread either way; the setting is kept so that
    scripts that set and read it run, and restored on exit."""

    def __init__(self, mode):
        self._prev = _multithreading["enabled"]
        _multithreading["enabled"] = bool(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _multithreading["enabled"] = self._prev
        return False
