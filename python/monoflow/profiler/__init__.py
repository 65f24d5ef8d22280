"""monoflow.profiler: torch.profiler's interface (profile with activities, a wait/warmup/active schedule,
on_trace_ready, tensorboard_trace_handler) over monoflow.autograd.profiler's recorder.

It records what monoflow.autograd.profiler records: every kernel launch and the kernel's run on its
stream, copies, backward nodes, memory (``profile_memory=True``), collectives, nn.Graph actor firings,
DataLoader waits and the ``record_function`` ranges. A scheduled profile records its active steps (each
as a ``ProfilerStep#N`` range) and hands them to ``on_trace_ready`` at the end of each cycle, as torch's
does. ``prof.plot("step.png")`` draws a step's timeline and memory curve; ``python -m
monoflow.profiler.merge`` joins the traces of several ranks."""
import enum
import os
import socket
import time

from monoflow.autograd import profiler as _recorder
from monoflow.autograd.profiler import record_function  # noqa: F401

from .. import _C

__all__ = ["profile", "record_function", "schedule", "tensorboard_trace_handler", "ProfilerActivity",
           "ProfilerAction", "supported_activities"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action for each step number: skip ``skip_first`` steps, then cycles of ``wait`` idle,
    ``warmup`` and ``active`` recorded steps (the last one saves), ``repeat`` times (0: forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("schedule(): invalid profiler schedule arguments (active must be positive, the others >= 0)")
    period = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise ValueError(f"schedule(): step must be non-negative, got {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait and step < wait:
            return ProfilerAction.NONE
        if repeat > 0 and step / period >= repeat:
            return ProfilerAction.NONE
        at = step % period
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < period - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each cycle's Chrome trace to ``dir_name`` (TensorBoard's profile plugin
    reads ``*.pt.trace.json``)."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{int(time.time() * 1000)}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip
            import shutil
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
    return handler


class profile:
    """``with profile(activities=[ProfilerActivity.CPU], schedule=..., on_trace_ready=...) as prof:`` and
    ``prof.step()`` at the end of every step; without a schedule the whole block is recorded.

    Example::

        >>> from monoflow.profiler import profile, record_function
        >>> with profile() as prof:
        ...     with record_function("forward"):
        ...         y = flow.ones(3) * 2
        >>> [e.key for e in prof.key_averages()]
        ['forward']
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.step_num = 0
        self._inner = None  # the recorder of the current recorded stretch
        self._last = None  # the one key_averages() reads
        self._step_start = None  # monotonic ns at which the current step began

    def _action(self):
        return self.schedule(self.step_num) if self.schedule else ProfilerAction.RECORD

    def _start(self):
        self._inner = _recorder.profile(record_shapes=self.record_shapes, profile_memory=self.profile_memory)
        self._inner.__enter__()
        self._step_start = time.monotonic_ns()

    def _mark_step(self):
        """Records the step that just ended as a ``ProfilerStep#N`` range (torch's marker)."""
        # The step ends when the work it enqueued is done, as a record_function range: its ops' rows
        # count their kernels' time, so an end taken at the last enqueue gave a negative self time.
        _C.synchronize()
        now = time.monotonic_ns()
        if self._inner is not None and self._step_start is not None:
            import threading
            self._inner._record_range(f"ProfilerStep#{self.step_num}", threading.get_native_id(), self._step_start, now)
        self._step_start = now

    def _stop(self, save):
        self._inner.__exit__(None, None, None)
        self._last, self._inner = self._inner, None
        if save and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def start(self):
        if self._action() != ProfilerAction.NONE:
            self._start()

    def stop(self):
        if self._inner is not None:
            self._stop(save=True)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def step(self):
        """Ends the current step: may close the recorded stretch (and call on_trace_ready) or open the next."""
        before = self._action()
        self._mark_step()
        self.step_num += 1
        after = self._action()
        if self._inner is not None and (before == ProfilerAction.RECORD_AND_SAVE or after == ProfilerAction.NONE):
            self._stop(save=before == ProfilerAction.RECORD_AND_SAVE)
        if self._inner is not None and before == ProfilerAction.WARMUP and after != ProfilerAction.WARMUP:
            self._inner.__exit__(None, None, None)  # warm-up ranges are not kept, as torch discards them
            self._inner = None
        if self._inner is None and after != ProfilerAction.NONE:
            self._start()

    def _recorded(self, what):
        if self._last is None:
            raise RuntimeError(f"profile.{what}(): nothing has been recorded yet (no recorded step has finished)")
        return self._last

    def events(self):
        return self._recorded("events").events()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._recorded("key_averages").key_averages(group_by_input_shape=group_by_input_shape)

    def memory_events(self):
        return self._recorded("memory_events").memory_events()

    def plot(self, path, step=None):
        """Draws one recorded step (the last by default) as a timeline, a lane per host thread and stream,
        with the allocator's curve below when ``profile_memory=True``; saves it to `path` (matplotlib)."""
        rec = self._recorded("plot")
        from monoflow.profiler import _plot
        return _plot.plot(path, rec.events(), rec.memory_events(), step)

    def export_chrome_trace(self, path):
        return self._recorded("export_chrome_trace").export_chrome_trace(path)

    def table(self, *args, **kwargs):
        return self.key_averages().table(*args, **kwargs)
