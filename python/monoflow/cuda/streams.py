"""cuda.Stream / cuda.Event as thin faces: monoflow runs each device's work on
the device's own stream, so these order work by waiting for the device."""
import contextlib

from monoflow._device_face import face

_face = face("cuda")


class Stream:
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
    return Stream(device)


def default_stream(device=None):
    return Stream(device)


class StreamContext(contextlib.nullcontext):
    """Work is ordered on the device's one stream whichever stream is named."""

    def __init__(self, stream):
        super().__init__(stream)
        self.stream = stream


def stream(stream):
    return StreamContext(stream)
