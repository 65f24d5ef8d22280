"""cuda.Stream / cuda.Event as thin faces: monoflow runs each device's work on
the device's own stream, so these order work by waiting for the device."""
import contextlib

from monoflow._device_face import face

_face = face("cuda")


class Stream:
    """A CUDA stream, as a thin face: monoflow runs each device's work on the device's own stream.

    So work is ordered whichever stream is named, and waiting on a stream
    (``synchronize``, ``wait_stream``, ``wait_event``, ``query``) waits for the
    whole device.

    Args:
        device (int, str or device, optional): the device; ``None`` is the current one.
            Default: ``None``.
        priority (int): accepted for torch compatibility. Default: ``0``.

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> s = flow.cuda.Stream()  # doctest: +SKIP
        >>> with flow.cuda.stream(s):  # doctest: +SKIP
        ...     y = flow.ones(4, device="cuda") * 2
        >>> s.synchronize()  # doctest: +SKIP
        >>> callable(flow.cuda.Stream.synchronize)
        True
    """

    def __init__(self, device=None, priority=0, **kwargs):
        self.device = _face.require("cuda.Stream", None if device is None else _face.index(device))
        self.priority = priority

    def synchronize(self):
        _face.synchronize(self.device)

    def wait_stream(self, stream):
        stream.synchronize()

    def wait_event(self, event):
        event.synchronize()

    def query(self):
        self.synchronize()
        return True

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event


class Event:
    """A CUDA event, as a thin face: ``record(stream)`` notes the stream, ``synchronize()`` and ``wait()`` wait for
    its device.

    Args:
        enable_timing (bool): accepted for torch compatibility; ``elapsed_time``
            raises ``NotImplementedError`` (no timed events in the plugin ABI yet).
            Default: ``False``.
        blocking (bool): accepted for torch compatibility. Default: ``False``.
        interprocess (bool): accepted for torch compatibility. Default: ``False``.

    Raises:
        RuntimeError: when no CUDA device is available.

    Example::

        >>> e = flow.cuda.Event()  # doctest: +SKIP
        >>> e.record()  # doctest: +SKIP
        >>> e.synchronize()  # doctest: +SKIP
        >>> e.query()  # doctest: +SKIP
        True
        >>> callable(flow.cuda.Event.record)
        True
    """

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        _face.require("cuda.Event")
        self._stream = None

    def record(self, stream=None):
        self._stream = stream or current_stream()

    def synchronize(self):
        if self._stream is not None:
            self._stream.synchronize()

    def wait(self, stream=None):
        self.synchronize()

    def query(self):
        self.synchronize()
        return True

    def elapsed_time(self, end_event):
        raise NotImplementedError("cuda.Event.elapsed_time: the device plugin ABI has no timed events yet")


def current_stream(device=None):
    """Returns the current stream of a CUDA device (the device's one stream, see :class:`Stream`).

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> flow.cuda.current_stream().synchronize()  # doctest: +SKIP
    """
    return Stream(device)


def default_stream(device=None):
    """Returns the default stream of a CUDA device (the same, single stream as :func:`current_stream`).

    Args:
        device (int, str or device, optional): a CUDA device (``1``, ``"cuda:1"``);
            ``None`` is the current one. Default: ``None``.

    Example::

        >>> flow.cuda.default_stream().query()  # doctest: +SKIP
        True
    """
    return Stream(device)


class StreamContext(contextlib.nullcontext):
    """Context manager returned by :func:`stream`: work is ordered on the device's one stream whichever stream is
    named, so it changes nothing.

    Args:
        stream (Stream or None): the stream named.

    Example::

        >>> with flow.cuda.StreamContext(None) as s:
        ...     s is None
        True
    """

    def __init__(self, stream):
        super().__init__(stream)
        self.stream = stream


def stream(stream):
    """Returns a context manager that selects ``stream`` inside the block (see :class:`StreamContext`).

    Args:
        stream (Stream or None): the stream.

    Example::

        >>> with flow.cuda.stream(None):
        ...     y = flow.ones(2) * 2
    """
    return StreamContext(stream)
