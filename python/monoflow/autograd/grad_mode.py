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
    """Disables gradient recording inside the block (or the decorated function).

    Operations run inside are not recorded by autograd: their results have
    ``requires_grad=False``, which saves the memory of the graph (evaluation,
    parameter updates). The mode is per thread, and the previous one comes
    back on exit. Works as ``with no_grad():`` and as the decorator
    ``@no_grad()``.

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> with flow.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> @flow.no_grad()
        ... def double(t):
        ...     return t * 2
        >>> double(x).requires_grad
        False
    """

    _enabled = False


class enable_grad(_GradModeContext):
    """Enables gradient recording inside the block (or the decorated
    function), e.g. within a :class:`monoflow.no_grad` block; the previous
    mode comes back on exit.

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> with flow.no_grad():
        ...     with flow.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    _enabled = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode to ``mode``: on (``True``) or off (``False``).

    As in torch, it takes effect as soon as it is called, so
    ``set_grad_enabled(False)`` alone is a switch; used as a context manager
    (or a decorator) it restores the previous mode on exit.

    Args:
        mode (bool): whether autograd records operations.

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> with flow.set_grad_enabled(False):
        ...     (x * 2).requires_grad
        False
        >>> flow.is_grad_enabled()
        True
    """

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
    """Disables gradient recording inside the block, for inference.

    Tensors made inside are inference tensors (``is_inference()`` is True,
    views and ``detach()`` of them too): outside the block they may not be
    written in place, saved for backward by an op whose result requires grad,
    nor set to require grad (each raises ``RuntimeError``, as torch); a
    ``clone()`` is a normal tensor. Works as a context manager and as a
    decorator.

    Args:
        mode (bool): ``True`` disables recording; ``False`` changes nothing
            (the current mode stays). Default: ``True``.

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> with flow.inference_mode():
        ...     y = x * 2
        >>> y.requires_grad, y.is_inference(), x.is_inference()
        (False, True, False)
        >>> with flow.inference_mode(False):
        ...     (x * 2).requires_grad
        True
    """

    def __init__(self, mode=True):
        self._mode = bool(mode)
        self._enabled = not self._mode

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        self._prev_inference = is_inference_mode_enabled()
        _C._set_inference_mode_enabled(self._mode)
        if self._mode:
            _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_inference_mode_enabled(self._prev_inference)
        return super().__exit__(*exc)

    def _clone(self):
        return inference_mode(self._mode)


def is_inference_mode_enabled():
    """Whether this thread is inside an enabled :class:`inference_mode` block (torch's query).

    Example::

        >>> flow.is_inference_mode_enabled()
        False
        >>> with flow.inference_mode():
        ...     flow.is_inference_mode_enabled()
        True
    """
    return _C._is_inference_mode_enabled()


_multithreading = {"enabled": True}


def is_multithreading_enabled():
    """Returns the multithreaded-backward setting of :class:`set_multithreading_enabled` (``True`` by default).

    monoflow's engine runs a backward on the calling thread either way; the
    setting is only kept and read back.

    Example::

        >>> flow.autograd.is_multithreading_enabled()
        True
    """
    return _multithreading["enabled"]


class set_multithreading_enabled:
    """Sets torch's switch for a multithreaded backward at once; used as a context manager, restores it on exit.

    monoflow's engine runs a backward on the calling thread either way; the
    setting is kept so that scripts that set and read it run.

    Args:
        mode (bool): the new setting.

    Example::

        >>> with flow.autograd.set_multithreading_enabled(False):
        ...     flow.autograd.is_multithreading_enabled()
        False
        >>> flow.autograd.is_multithreading_enabled()
        True
    """

    def __init__(self, mode):
        self._prev = _multithreading["enabled"]
        _multithreading["enabled"] = bool(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _multithreading["enabled"] = self._prev
        return False
