"""A minimal torch.autograd.profiler: the ranges a script marks with record_function.

What it records, honestly: the wall time of every ``record_function`` range
entered while a ``profile`` is active, per thread, nested ranges included
(self time = the range's time minus that of the ranges directly inside it).
It does not record individual ops (the core has no op-level trace hook yet:
issue 18). Kernels run asynchronously on the stream workers, so a range
synchronizes the devices when it opens and when it closes: its time then
covers the work it enqueued, at the price of the overlap a script would
otherwise get. ``key_averages().table()`` prints torch's columns.

Example::

    >>> import monoflow as flow
    >>> from monoflow.autograd import profiler
    >>> with profiler.profile() as prof:
    ...     with profiler.record_function("step"):
    ...         y = flow.ones(4) * 2
    >>> [e.key for e in prof.key_averages()]
    ['step']
"""
import collections
import functools
import json
import os
import threading
import time

from monoflow import _C

_active = []  # the profiles currently recording (nesting is allowed, as in torch)
_lock = threading.Lock()


class FunctionEvent:
    """One closed range: name, thread, start and end (microseconds from the profile's start)."""

    def __init__(self, name, thread, start_us, end_us, depth, owner=None):
        self.name, self.key = name, name
        self._owner = owner  # the profile that recorded it
        self.thread = thread
        self.start_us, self.end_us = start_us, end_us
        self.depth = depth
        self.cpu_children = []

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self):
        return f"<FunctionEvent name={self.name!r} cpu_time_total={self.cpu_time_total:.3f}us>"


class FunctionEventAvg:
    """The events of one name taken together: count, total and self times (microseconds)."""

    def __init__(self, key):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, event):
        self.count += 1
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return f"<FunctionEventAvg key={self.key!r} count={self.count} cpu_time_total={self.cpu_time_total:.3f}us>"


def _fmt_us(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


_SORT_KEYS = {"cpu_time_total": "cpu_time_total", "self_cpu_time_total": "self_cpu_time_total",
              "cpu_time": "cpu_time", "count": "count"}


class EventList(list):
    """A list of events with torch's ``table()``."""

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, header=None, **unused):
        """The events as torch's text table (Self CPU %, Self CPU, CPU total %, CPU total,
        CPU time avg, # of Calls); `sort_by` one of cpu_time_total, self_cpu_time_total,
        cpu_time, count (descending)."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"table(): sort_by must be one of {sorted(_SORT_KEYS)}, got {sort_by!r}")
            rows.sort(key=lambda e: getattr(e, _SORT_KEYS[sort_by]), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total = sum(e.self_cpu_time_total for e in self) or 1.0
        width = max([len("Name")] + [min(len(e.key), max_name_column_width) for e in rows])
        cols = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        line = "-" * width + "  " + "  ".join("-" * 12 for _ in cols)
        out = [header] if header else []
        out += [line, "Name".rjust(width) + "  " + "  ".join(c.rjust(12) for c in cols), line]
        for e in rows:
            cpu_avg = e.cpu_time if hasattr(e, "cpu_time") else e.cpu_time_total
            count = getattr(e, "count", 1)
            cells = [f"{100 * e.self_cpu_time_total / total:.2f}%", _fmt_us(e.self_cpu_time_total),
                     f"{100 * e.cpu_time_total / total:.2f}%", _fmt_us(e.cpu_time_total), _fmt_us(cpu_avg),
                     str(count)]
            out.append(e.key[:max_name_column_width].rjust(width) + "  " + "  ".join(c.rjust(12) for c in cells))
        out += [line, f"Self CPU time total: {_fmt_us(sum(e.self_cpu_time_total for e in self))}", ""]
        return "\n".join(out)

    def __str__(self):
        return self.table()


class profile:
    """Records the record_function ranges of every thread while active.

    Args:
        enabled (bool): False makes the context manager do nothing.
        The other torch arguments (use_cuda, record_shapes, profile_memory,
        with_stack, ...) are accepted; nothing they ask for is recorded.

    Example::

        >>> from monoflow.autograd import profiler
        >>> with profiler.profile() as prof:
        ...     with profiler.record_function("load"):
        ...         pass
        >>> prof.key_averages()[0].count
        1
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        self._events = []
        self._entered = False
        self._t0 = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self._entered:
            raise RuntimeError("profile(): this profiler is already recording")
        self._entered = True
        self._events = []
        self._t0 = time.perf_counter()
        with _lock:
            _active.append(self)
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        with _lock:
            _active.remove(self)
        self._entered = False
        return False

    def _us(self, t):
        return (t - self._t0) * 1e6

    def _record(self, event):
        with _lock:
            self._events.append(event)

    def _finished(self, what):
        if self._entered:
            raise RuntimeError(f"profile.{what}(): the profiler is still recording; leave its `with` block first")

    def events(self):
        """Every closed range, in the order they closed."""
        self._finished("events")
        return EventList(self._events)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """The ranges grouped by name, in order of first appearance."""
        self._finished("key_averages")
        groups = collections.OrderedDict()
        for e in sorted(self._events, key=lambda e: e.start_us):
            groups.setdefault(e.key, FunctionEventAvg(e.key)).add(e)
        return EventList(groups.values())

    def table(self, *args, **kwargs):
        return self.key_averages().table(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self._events)

    def export_chrome_trace(self, path):
        """Writes the ranges as a Chrome trace (chrome://tracing, Perfetto)."""
        self._finished("export_chrome_trace")
        trace = [{"name": e.name, "ph": "X", "ts": e.start_us, "dur": e.cpu_time_total, "pid": os.getpid(),
                  "tid": e.thread, "cat": "user_annotation"} for e in self._events]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)

    def __str__(self):
        return self.table()


_open_ranges = threading.local()  # per thread: the stack of open (name, start, children) frames


class record_function:
    """Marks a named range for the active profilers; a context manager or a decorator.

    Args:
        name (str): the range's label in the profile.
        args (str, optional): accepted for torch's signature.

    Example::

        >>> from monoflow.autograd import profiler
        >>> @profiler.record_function("forward")
        ... def forward(x):
        ...     return x
        >>> forward(1)
        1
    """

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function(): argument 'name' must be str, not {type(name).__name__}")
        self.name = name
        self.args = args
        self._frame = None

    def __enter__(self):
        if not _active:
            return self
        _C.synchronize()  # the range starts after the work enqueued before it
        stack = getattr(_open_ranges, "stack", None)
        if stack is None:
            stack = _open_ranges.stack = []
        self._frame = (time.perf_counter(), [], list(_active))
        stack.append(self._frame)
        return self

    def __exit__(self, *exc):
        frame, self._frame = self._frame, None
        if frame is None:
            return False
        _C.synchronize()  # ...and ends when the work it enqueued is done
        end = time.perf_counter()
        stack = _open_ranges.stack
        stack.pop()
        start, children, profilers = frame
        for prof in profilers:
            if not prof._entered:
                continue
            event = FunctionEvent(self.name, threading.get_ident(), prof._us(start), prof._us(end), len(stack), prof)
            event.cpu_children = [c for c in children if c._owner is prof]
            prof._record(event)
            if stack:
                stack[-1][1].append(event)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapped
