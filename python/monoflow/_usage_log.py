"""torch._C's ``_log_api_usage_once`` and ``_get_tracing_state``, which libraries (torchvision) call on every
model, transform and op they construct.

torch sends the usage event to a logger that is off unless a process installs
one; monoflow has no such logger, so the event is checked and dropped.
monoflow has no TorchScript tracer, so no trace is ever in progress."""

__all__ = ["_log_api_usage_once", "_get_tracing_state"]


def _log_api_usage_once(event):
    """Records that the API ``event`` (a string such as ``"torchvision.models.resnet.ResNet"``) was used; dropped.

    Args:
        event (str): the API's name.

    Example::

        >>> flow._C._log_api_usage_once("my_library.MyModel")
    """
    if not isinstance(event, str):
        raise TypeError(f"_log_api_usage_once(): argument 'event' must be str, not {type(event).__name__}")


def _get_tracing_state():
    """The TorchScript tracing state: None, since monoflow never traces (``jit.is_tracing()`` is False).

    Example::

        >>> flow._C._get_tracing_state() is None
        True
    """
    return None
