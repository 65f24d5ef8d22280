# The core's profiler recorder (Note [Profiler events] in monoflow/profiler.h),
# read by monoflow.profiler.

_PROFILER_KINDS = ("op", "kernel", "memcpy", "backward", "memory", "collective", "actor", "fallback")


def _profiler_start(bint record_shapes=False, bint profile_memory=False):
    """Starts the core's recorder; RuntimeError when one is already recording."""
    profiler_start(record_shapes, profile_memory)


def _profiler_active():
    return profiler_active()


def _profiler_stop():
    """Stops the recorder after every device's streams drained; returns its events as tuples
    (kind, name, start_ns, end_ns, thread, device, stream, correlation, bytes, allocated, reserved, extra,
    shapes)."""
    cdef vector[Event] events = profiler_stop()
    out = []
    for e in events:
        out.append((_PROFILER_KINDS[<int>e.kind], e.name.decode("utf-8", "replace"), e.start_ns, e.end_ns, e.thread,
                    e.device.decode(), e.stream, e.correlation, e.bytes, e.allocated, e.reserved, e.extra,
                    e.shapes.decode()))
    return out


class _ExperimentalConfig:
    """torch._C._profiler._ExperimentalConfig (profile(experimental_config=...) in torch's profiler
    recipe): accepted and kept; its options (verbose stacks, CUPTI metrics) change nothing here."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class _profiler:
    """The names of torch._C._profiler that programs pass on to the profiler."""
    _ExperimentalConfig = _ExperimentalConfig
