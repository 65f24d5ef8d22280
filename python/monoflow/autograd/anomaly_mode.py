"""Anomaly detection switches (torch.autograd.detect_anomaly /
set_detect_anomaly). They keep the mode that scripts set and read back;
monoflow's engine already names the op whose backward failed, and it does
not scan gradients for NaNs in this mode."""
import functools
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_state = {"enabled": False, "check_nan": True}


def is_anomaly_enabled():
    """Returns whether anomaly detection mode is on (see :class:`detect_anomaly`).

    Example::

        >>> flow.autograd.is_anomaly_enabled()
        False
        >>> with flow.autograd.set_detect_anomaly(True):
        ...     flow.autograd.is_anomaly_enabled()
        True
    """
    return _state["enabled"]


def is_anomaly_check_nan_enabled():
    """Returns the ``check_nan`` setting of anomaly detection mode (``True`` by default).

    Example::

        >>> flow.autograd.is_anomaly_check_nan_enabled()
        True
        >>> with flow.autograd.set_detect_anomaly(True, check_nan=False):
        ...     flow.autograd.is_anomaly_check_nan_enabled()
        False
    """
    return _state["check_nan"]


class _AnomalyMode:
    """Sets the mode for the ``with`` block (or the decorated function), then restores it."""

    def __init__(self, mode, check_nan):
        self._mode, self._check_nan = bool(mode), bool(check_nan)
        self._prev = None

    def __enter__(self):
        self._prev = dict(_state)
        _state.update(enabled=self._mode, check_nan=self._check_nan)
        return self

    def __exit__(self, *exc):
        _state.update(self._prev)
        return False

    def __call__(self, fn):
        mode, check_nan = self._mode, self._check_nan

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _AnomalyMode(mode, check_nan):
                return fn(*args, **kwargs)

        return wrapper


class detect_anomaly(_AnomalyMode):  # noqa: N801 (torch's name)
    """Context manager (or decorator) that turns anomaly detection mode on for the block, with a warning.

    monoflow keeps the mode that scripts set and read back; its engine already
    names the op whose backward failed in every mode, and it does not scan the
    gradients for NaNs here (unlike torch).

    Args:
        check_nan (bool): the ``check_nan`` setting inside the block. Default: ``True``.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with flow.autograd.detect_anomaly():
        ...         flow.autograd.is_anomaly_enabled()
        True
        >>> flow.autograd.is_anomaly_enabled()
        False
    """

    def __init__(self, check_nan=True):
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", stacklevel=2)
        super().__init__(True, check_nan)


class set_detect_anomaly(_AnomalyMode):  # noqa: N801 (torch's name)
    """Sets anomaly detection mode at once; used as a context manager, restores the previous mode on exit.

    Args:
        mode (bool): turn the mode on (``True``) or off.
        check_nan (bool): the ``check_nan`` setting. Default: ``True``.

    Example::

        >>> with flow.autograd.set_detect_anomaly(True):
        ...     flow.autograd.is_anomaly_enabled()
        True
        >>> flow.autograd.is_anomaly_enabled()
        False
    """

    def __init__(self, mode, check_nan=True):
        super().__init__(mode, check_nan)
        self._prev = dict(_state)
        _state.update(enabled=self._mode, check_nan=self._check_nan)

    def __enter__(self):
        return self
