"""monoflow.cpu: torch.cpu's names for the host device (always there, one device, synchronous)."""
from monoflow.cpu import amp  # noqa: F401

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize", "Stream",
           "StreamContext", "current_stream", "stream", "amp"]


def is_available():
    """Always ``True``: the CPU is always there."""
    return True


def device_count():
    """Always ``1``, as torch.cpu.device_count()."""
    return 1


def current_device():
    """The current CPU device's name, ``"cpu"`` (torch's answer)."""
    return "cpu"


def set_device(device):
    """Does nothing: there is only one CPU device (as torch.cpu.set_device)."""


def synchronize(device=None):
    """Does nothing: CPU work is complete when its op returns. ``device`` must be a CPU device if given."""
    if device is not None:
        kind = device if isinstance(device, str) else getattr(device, "type", None)
        if not isinstance(kind, str) and not isinstance(device, int):
            raise TypeError(f"synchronize(): argument 'device' must be str, int or device, not {type(device).__name__}")
        if isinstance(kind, str) and kind.split(":")[0] != "cpu":
            raise ValueError(f"synchronize(): expected a cpu device, but got: {device}")


class Stream:
    """The CPU's stand-in for a stream: work on it is already complete (torch.cpu.Stream)."""

    def __init__(self, priority=-1):
        self.priority = priority

    def wait_stream(self, stream):
        pass

    def synchronize(self):
        pass

    def query(self):
        return True


_default_stream = Stream()


def current_stream(device=None):
    """The CPU stream (one, always idle)."""
    return _default_stream


class StreamContext:
    """Context manager selecting a CPU stream: nothing to switch (torch.cpu.StreamContext)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        pass


def stream(stream):
    """A :class:`StreamContext` for ``stream``."""
    return StreamContext(stream)
