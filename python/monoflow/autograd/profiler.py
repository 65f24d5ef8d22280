"""torch.autograd.profiler over the core's event recorder (Note [Profiler events] in monoflow/profiler.h).

While a ``profile`` is active the core records every kernel launch (the host's
enqueue time, an ``op`` row) and the kernel's run on its stream (a ``kernel``
row, matched to its launch), stream copies, autograd backward nodes, allocator
events (``profile_memory=True``), collectives and ``nn.Graph`` actor firings;
Python adds the ``record_function`` ranges and DataLoader waits. Kernels run
asynchronously on the stream workers, so a ``record_function`` range
synchronizes the devices when it opens and closes: its time then covers the
work it enqueued. ``key_averages().table()`` prints torch's columns: a CPU
kernel's time counts as CPU time of the op that launched it, as in torch; the
kernels of other devices fill the Device columns.

Example::

    >>> import monoflow as flow
    >>> from monoflow.autograd import profiler
    >>> with profiler.profile() as prof:
    ...     with profiler.record_function("step"):
    ...         y = flow.ones(4) * 2
    >>> "step" in [e.key for e in prof.key_averages()]
    True
"""
import bisect
import collections
import functools
import threading
import time

from monoflow import _C

_lock = threading.Lock()
_recording = []  # the profile recording now (at most one: profiles do not nest, as in torch)

# Kinds of the core's rows that run on a host thread and nest there.
_HOST_KINDS = ("op", "backward", "collective", "actor", "fallback", "user_annotation")


def _on_cpu(row):
    return row.device.split(":")[0] == "cpu"


class FunctionEvent:
    """One recorded row. Times are microseconds from the profile's start; ``kind`` is one of
    op, kernel, memcpy, backward, memory, collective, actor, fallback, user_annotation."""

    def __init__(self, kind, name, thread, start_us, end_us, device="", stream=0, correlation=0, nbytes=0,
                 allocated=0, reserved=0, extra=-1, shapes=""):
        self.kind, self.name, self.key = kind, name, name
        self.thread = thread
        self.start_us, self.end_us = start_us, end_us
        self.device, self.stream, self.correlation = device, stream, correlation
        self.bytes, self.allocated, self.reserved, self.extra = nbytes, allocated, reserved, extra
        self.input_shapes = shapes
        self.cpu_children = []
        self.cpu_parent = None
        self.kernels = []  # the stream rows this launch ran
        self.self_cpu_memory_usage = 0  # net bytes allocated while it ran, outside its children

    # Note [CPU kernels are CPU time]
    #   torch runs a CPU op's kernel inline, so its CPU columns hold the op's
    #   whole work and its Device columns nothing. Here the kernel runs on the
    #   CPU stream's worker while the op's row covers only the enqueue; the
    #   kernel's time on a CPU stream is added to the CPU time of the row that
    #   launched it (and of the rows enclosing that one), and only kernels of
    #   other devices fill the Device columns. A record_function range waits for
    #   its work at both ends, so its wall time holds its kernels already.
    @property
    def _cpu_kernel_time(self):
        if self.kind == "user_annotation":
            return 0.0
        return sum(k.end_us - k.start_us for k in self.kernels if _on_cpu(k)) + \
            sum(c._cpu_kernel_time for c in self.cpu_children)

    @property
    def cpu_time_total(self):
        if self.kind == "kernel" or self.kind == "memcpy":
            return 0.0
        return self.end_us - self.start_us + self._cpu_kernel_time

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_device_time_total(self):
        own = self.end_us - self.start_us if self.kind in ("kernel", "memcpy") and not _on_cpu(self) else 0.0
        return own + sum(k.end_us - k.start_us for k in self.kernels if not _on_cpu(k))

    @property
    def device_time_total(self):
        return self.self_device_time_total + sum(c.device_time_total for c in self.cpu_children)

    @property
    def cpu_memory_usage(self):
        return self.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children)

    # torch's older names
    self_cuda_time_total = self_device_time_total
    cuda_time_total = device_time_total

    def __repr__(self):
        return (f"<FunctionEvent {self.kind} name={self.name!r} cpu_time_total={self.cpu_time_total:.3f}us "
                f"device_time_total={self.device_time_total:.3f}us>")


class FunctionEventAvg:
    """The events of one key taken together: count, total and self times (microseconds), memory (bytes)."""

    def __init__(self, key, input_shapes=""):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.device_time_total = self.self_device_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0

    def add(self, event):
        self.count += 1
        for name in ("cpu_time_total", "self_cpu_time_total", "device_time_total", "self_device_time_total",
                     "cpu_memory_usage", "self_cpu_memory_usage"):
            setattr(self, name, getattr(self, name) + getattr(event, name))
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self):
        return self.device_time_total / self.count if self.count else 0.0

    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key!r} count={self.count} cpu_time_total={self.cpu_time_total:.3f}us "
                f"device_time_total={self.device_time_total:.3f}us>")


def _fmt_us(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _fmt_bytes(n):
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} b"


_SORT_KEYS = {k: k for k in ("cpu_time_total", "self_cpu_time_total", "cpu_time", "count", "device_time_total",
                             "self_device_time_total", "device_time", "cpu_memory_usage", "self_cpu_memory_usage")}
_SORT_KEYS.update(cuda_time_total="device_time_total", self_cuda_time_total="self_device_time_total",
                  cuda_time="device_time")


class EventList(list):
    """A list of events with torch's ``table()``."""

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, header=None, top_level_events_only=False,
              **unused):
        """The events as torch's text table (Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, the
        Device columns when kernels ran, the memory columns when memory was recorded, # of Calls);
        `sort_by` any numeric column's attribute name, descending."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"table(): sort_by must be one of {sorted(_SORT_KEYS)}, got {sort_by!r}")
            rows.sort(key=lambda e: getattr(e, _SORT_KEYS[sort_by]), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        cpu_total = sum(e.self_cpu_time_total for e in self) or 1.0
        dev_total = sum(e.self_device_time_total for e in self)
        with_device = dev_total > 0
        with_memory = any(e.cpu_memory_usage or e.self_cpu_memory_usage for e in self)
        with_shapes = any(getattr(e, "input_shapes", "") for e in rows)
        width = max([len("Name")] + [min(len(e.key), max_name_column_width) for e in rows])
        cols = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        if with_device:
            cols += ["Self Device", "Self Device %", "Device total", "Device time avg"]
        if with_memory:
            cols += ["CPU Mem", "Self CPU Mem"]
        cols.append("# of Calls")
        widths = [max(12, len(c)) for c in cols]
        line = "-" * width + "  " + "  ".join("-" * w for w in widths)
        out = [header] if header else []
        head = "Name".rjust(width) + "  " + "  ".join(c.rjust(w) for c, w in zip(cols, widths))
        if with_shapes:
            head += "  Input Shapes"
        out += [line, head, line]
        for e in rows:
            count = getattr(e, "count", 1)
            cpu_avg = e.cpu_time_total / count if count else 0.0
            cells = [f"{100 * e.self_cpu_time_total / cpu_total:.2f}%", _fmt_us(e.self_cpu_time_total),
                     f"{100 * e.cpu_time_total / cpu_total:.2f}%", _fmt_us(e.cpu_time_total), _fmt_us(cpu_avg)]
            if with_device:
                cells += [_fmt_us(e.self_device_time_total), f"{100 * e.self_device_time_total / dev_total:.2f}%",
                          _fmt_us(e.device_time_total), _fmt_us(e.device_time_total / count if count else 0.0)]
            if with_memory:
                cells += [_fmt_bytes(e.cpu_memory_usage), _fmt_bytes(e.self_cpu_memory_usage)]
            cells.append(str(count))
            row = e.key[:max_name_column_width].rjust(width) + "  " + "  ".join(c.rjust(w) for c, w in zip(cells, widths))
            if with_shapes:
                row += "  " + str(getattr(e, "input_shapes", ""))
            out.append(row)
        out += [line, f"Self CPU time total: {_fmt_us(sum(e.self_cpu_time_total for e in self))}"]
        if with_device:
            out.append(f"Self Device time total: {_fmt_us(dev_total)}")
        out.append("")
        return "\n".join(out)

    def total_average(self):
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def __str__(self):
        return self.table()


def _nest(host_events):
    """Links each host row to the innermost row of its thread that encloses it (cpu_parent/cpu_children)."""
    by_thread = collections.defaultdict(list)
    for e in host_events:
        by_thread[e.thread].append(e)
    for events in by_thread.values():
        events.sort(key=lambda e: (e.start_us, -e.end_us))
        stack = []
        for e in events:
            while stack and stack[-1].end_us <= e.start_us:
                stack.pop()
            if stack and e.end_us <= stack[-1].end_us:
                e.cpu_parent = stack[-1]
                stack[-1].cpu_children.append(e)
            stack.append(e)
    return by_thread


def _innermost(events_of_thread, starts, t_us):
    """The innermost host row open at t_us among a thread's rows (sorted by start, `starts` their start
    times), or None: the latest-starting row that has not ended (rows of one thread nest)."""
    i = bisect.bisect_right(starts, t_us) - 1
    while i >= 0:
        if events_of_thread[i].end_us >= t_us:
            return events_of_thread[i]
        i -= 1
    return None


class profile:
    """Records ops, kernels, backward nodes, memory, collectives, graph actors and record_function ranges.

    Args:
        enabled (bool): False makes the context manager do nothing.
        record_shapes (bool): keep each op's operand shapes (``key_averages(group_by_input_shape=True)``).
        profile_memory (bool): record the allocator's events (the memory columns and curve).
        The other torch arguments (use_cuda, with_stack, with_flops, ...) are accepted.

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
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self._ranges = []  # (name, thread, start_ns, end_ns) of record_function ranges
        self._events = None  # built on exit
        self._entered = False
        self._t0_ns = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self._entered:
            raise RuntimeError("profile(): this profiler is already recording")
        with _lock:
            if _recording:
                raise RuntimeError("profile(): another profiler is already recording (profilers do not nest)")
            _C._profiler_start(self.record_shapes, self.profile_memory)
            _recording.append(self)
        self._entered = True
        self._ranges = []
        self._events = None
        self._t0_ns = time.monotonic_ns()
        return self

    def __exit__(self, *exc):
        if not self.enabled or not self._entered:
            return False
        with _lock:
            raw = _C._profiler_stop()
            _recording.remove(self)
        self._entered = False
        self._build(raw)
        return False

    def _us(self, ns):
        return (ns - self._t0_ns) / 1000.0

    def _record_range(self, name, thread, start_ns, end_ns):
        with _lock:
            self._ranges.append((name, thread, start_ns, end_ns))

    def _build(self, raw):
        events, memory = [], []
        for (kind, name, start, end, thread, device, stream, corr, nbytes, alloc, reserved, extra, shapes) in raw:
            e = FunctionEvent(kind, name, thread, self._us(start), self._us(end), device, stream, corr, nbytes,
                              alloc, reserved, extra, shapes)
            (memory if kind == "memory" else events).append(e)
        for name, thread, start, end in self._ranges:
            events.append(FunctionEvent("user_annotation", name, thread, self._us(start), self._us(end)))
        launches = {e.correlation: e for e in events if e.kind == "op" and e.correlation}
        for e in events:
            if e.kind == "kernel" and e.correlation in launches:
                op = launches[e.correlation]
                op.kernels.append(e)
                e.name = e.key = op.name  # the plugin reports "kernel": the op names it
                e.input_shapes = op.input_shapes
        host = [e for e in events if e.kind in _HOST_KINDS]
        by_thread = _nest(host)
        starts = {t: [e.start_us for e in rows] for t, rows in by_thread.items()}
        for m in memory:
            rows, st = by_thread.get(m.thread, ()), starts.get(m.thread, ())
            owner = _innermost(rows, st, m.start_us)
            if m.bytes > 0:
                # An op allocates its output just before it launches the kernel: an allocation belongs to
                # the next row of its thread when that row starts inside the row enclosing the allocation.
                i = bisect.bisect_left(st, m.start_us)
                if i < len(rows) and (owner is None or rows[i].start_us <= owner.end_us):
                    owner = rows[i]
            if owner is not None:
                owner.self_cpu_memory_usage += m.bytes
        events.sort(key=lambda e: e.start_us)
        self._events = events
        self._memory = memory

    def _finished(self, what):
        if self._entered:
            raise RuntimeError(f"profile.{what}(): the profiler is still recording; leave its `with` block first")
        if self._events is None:
            self._events, self._memory = [], []

    def events(self):
        """Every recorded row (host rows, kernel and copy rows), in start order."""
        self._finished("events")
        return EventList(self._events)

    def memory_events(self):
        """The allocator's rows: bytes (negative for a free), the device's allocated/reserved after it."""
        self._finished("memory_events")
        return list(self._memory)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """The host rows (and copies) grouped by name (and operand shapes), in order of first appearance;
        a kernel's stream time counts in its launch's Device columns."""
        self._finished("key_averages")
        groups = collections.OrderedDict()
        for e in self._events:
            if e.kind == "kernel":
                continue
            shapes = e.input_shapes if group_by_input_shape else ""
            groups.setdefault((e.key, shapes), FunctionEventAvg(e.key, shapes)).add(e)
        return EventList(groups.values())

    def table(self, *args, **kwargs):
        return self.key_averages().table(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        self._finished("self_cpu_time_total")
        return sum(e.self_cpu_time_total for e in self._events)

    def export_chrome_trace(self, path):
        """Writes the rows as a Chrome Trace Event file (chrome://tracing, Perfetto): one lane per host thread
        and per stream, op -> kernel flow arrows, memory counters."""
        self._finished("export_chrome_trace")
        from monoflow.profiler import _chrome_trace
        _chrome_trace.write(path, self._events, self._memory, self._t0_ns)

    def __str__(self):
        return self.table()


class record_function:
    """Marks a named range for the active profiler; a context manager or a decorator.

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
        self._open = None

    def __enter__(self):
        if not _recording:
            return self
        _C.synchronize()  # the range starts after the work enqueued before it
        self._open = (_recording[0], time.monotonic_ns())
        return self

    def __exit__(self, *exc):
        opened, self._open = self._open, None
        if opened is None:
            return False
        prof, start = opened
        _C.synchronize()  # ...and ends when the work it enqueued is done
        if prof._entered:
            prof._record_range(self.name, threading.get_native_id(), start, time.monotonic_ns())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapped


def is_recording():
    """Whether a profile is recording now (DataLoader and others mark their waits only then)."""
    return bool(_recording)
