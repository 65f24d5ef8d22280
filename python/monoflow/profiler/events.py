"""monoflow.profiler.events: OneFlow's profiler event records (``oneflow.profiler.events``).

A record is either a custom range (``CustomEvent``: a ``record_function`` range, or a CUDA kernel/runtime
call seen under a kernel) or an op's kernel (``KernelEvent``, which may carry the device calls it made as
children and a description of its inputs and attributes). ``Events`` is a list of them, built from the
JSON list OneFlow's profiler writes, that averages records with the same key (``key_averages``).
Times are in microseconds, as OneFlow's."""
import copy
import enum
import json

__all__ = ["EventType", "CustomEventType", "EventBase", "CustomEvent", "KernelEvent", "Events"]


class EventType(enum.Enum):
    """The kind of a record, also its ``"type"`` code in the JSON list: ``Custom`` (0) or ``Kernel`` (1).

    Example::

        >>> from monoflow.profiler.events import EventType
        >>> EventType(1)
        <EventType.Kernel: 1>
    """
    Custom = 0
    Kernel = 1


class CustomEventType(enum.Enum):
    """What a custom range measured: ``Default`` (0, a host range), ``CudaKernel`` (1, device time) or
    ``CudaRuntime`` (2, a host call into the CUDA runtime).

    Example::

        >>> from monoflow.profiler.events import CustomEventType
        >>> CustomEventType(0)
        <CustomEventType.Default: 0>
    """
    Default = 0
    CudaKernel = 1
    CudaRuntime = 2


def _format_us(us):
    if us is None:
        return "-"
    for unit, scale in (("s", 1e6), ("ms", 1e3)):
        if abs(us) >= scale:
            return f"{us / scale:.3f}{unit}"
    return f"{us:.3f}us"


class EventBase:
    """What every record has: a name, a total time over ``count`` occurrences and their mean.

    Args:
        name (str): the op's or range's name (shown cut to 55 characters).
        time_total (float): the time of the occurrences together, in microseconds.
        event_type (EventType): custom range or kernel.

    Example::

        >>> from monoflow.profiler.events import CustomEvent, CustomEventType
        >>> e = CustomEvent("step", 30.0, CustomEventType.Default)
        >>> e.update(CustomEvent("step", 10.0, CustomEventType.Default))
        >>> e.count, e.cpu_time_total, e.cpu_time
        (2, 40.0, 20.0)
    """
    MAX_NAME_LENGTH = 55

    def __init__(self, name, time_total, event_type):
        self._name = name
        self._time_total = time_total
        self.count = 1
        self.event_type = event_type

    @property
    def name(self):
        """The name, cut to ``MAX_NAME_LENGTH`` characters with ``...`` when longer."""
        if len(self._name) > self.MAX_NAME_LENGTH:
            return self._name[:self.MAX_NAME_LENGTH - 3] + "..."
        return self._name

    @property
    def cpu_time_total(self):
        """The host time of all occurrences together (microseconds)."""
        return self._time_total

    @cpu_time_total.setter
    def cpu_time_total(self, value):
        self._time_total = value

    @property
    def cpu_time(self):
        """The mean host time of one occurrence (microseconds)."""
        return self._time_total / self.count

    @property
    def cuda_time_total(self):
        """The device time of all occurrences together, or None when the record has none."""
        return None

    @property
    def cuda_time(self):
        """The mean device time of one occurrence, or None."""
        total = self.cuda_time_total
        return None if total is None else total / self.count

    def has_cuda_time(self):
        """has_cuda_time(): whether the record measured device time.

        Example::

            >>> from monoflow.profiler.events import CustomEvent, CustomEventType
            >>> CustomEvent("k", 5.0, CustomEventType.CudaKernel).has_cuda_time()
            True
        """
        return self.cuda_time_total is not None

    def update(self, event):
        """update(event): adds another occurrence's times and count to this record (the same kind of record).

        Args:
            event (EventBase): the occurrence to add.

        Example::

            >>> from monoflow.profiler.events import CustomEvent, CustomEventType
            >>> e = CustomEvent("a", 1.0, CustomEventType.Default)
            >>> e.update(CustomEvent("a", 3.0, CustomEventType.Default))
            >>> e.cpu_time
            2.0
        """
        if event.event_type != self.event_type:
            raise TypeError(f"update(): cannot add a {event.event_type.name} record to a {self.event_type.name} one")
        self.cpu_time_total += event.cpu_time_total
        self.count += event.count

    def __eq__(self, other):
        return (isinstance(other, EventBase) and self.name == other.name and self.count == other.count
                and self.cpu_time_total == other.cpu_time_total and self.cuda_time_total == other.cuda_time_total)

    __hash__ = None  # records are mutable (update)

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, count={self.count}, cpu_time_total={self.cpu_time_total})"


class CustomEvent(EventBase):
    """A custom range: a ``record_function`` range, or a CUDA kernel or runtime call under a kernel.

    Args:
        name (str): the range's name.
        time_total (float): its time in microseconds (device time for ``CustomEventType.CudaKernel``).
        custom_event_type (CustomEventType): what the time measured.

    Example::

        >>> from monoflow.profiler.events import CustomEvent, CustomEventType
        >>> e = CustomEvent.from_dict({"name": "fwd", "time": 12.5, "custom_type": 0, "type": 0})
        >>> e == CustomEvent("fwd", 12.5, CustomEventType.Default)
        True
    """

    def __init__(self, name, time_total, custom_event_type):
        super().__init__(name, time_total, EventType.Custom)
        self.custom_event_type = CustomEventType(custom_event_type)

    @classmethod
    def from_dict(cls, d):
        """from_dict(d): the record of one JSON entry (``name``, ``time``, ``custom_type``).

        Args:
            d (dict): the entry.

        Example::

            >>> from monoflow.profiler.events import CustomEvent
            >>> CustomEvent.from_dict({"name": "x", "time": 2, "custom_type": 1}).cuda_time_total
            2
        """
        return cls(d.get("name"), d.get("time"), CustomEventType(d.get("custom_type", 0)))

    @property
    def key(self):
        """What ``key_averages`` groups by: (name, custom type)."""
        return self.name, self.custom_event_type

    @property
    def cuda_time_total(self):
        """The device time when the range is a CUDA kernel, else None."""
        return self._time_total if self.custom_event_type == CustomEventType.CudaKernel else None

    def to_dict(self):
        """to_dict(): the row ``Events.table`` prints (name, count and the formatted times).

        Example::

            >>> from monoflow.profiler.events import CustomEvent, CustomEventType
            >>> CustomEvent("r", 1500.0, CustomEventType.Default).to_dict()["cpu_time_total"]
            '1.500ms'
        """
        side = "cuda" if self.has_cuda_time() else "cpu"
        return {"name": self.name, "count": self.count, f"{side}_time": _format_us(getattr(self, f"{side}_time")),
                f"{side}_time_total": _format_us(getattr(self, f"{side}_time_total"))}

    def __eq__(self, other):
        return (isinstance(other, CustomEvent) and super().__eq__(other)
                and self.custom_event_type == other.custom_event_type)

    __hash__ = None


def _described(description, field):
    """(shown text, grouping key) of a description entry: a (text, key) pair or a plain text."""
    if not isinstance(description, dict) or field not in description:
        return "", ""
    value = description[field]
    if isinstance(value, (tuple, list)):
        return value[0], value[1] if len(value) > 1 else value[0]
    return value, value


class KernelEvent(EventBase):
    """An op's kernel: its host time, the memory it used, the device calls it made (children) and a
    description of its inputs and attributes.

    Args:
        name (str): the op's name (``conv2d``, ``relu_grad`` ...).
        time_total (float): the host time in microseconds.
        memory_size (int): bytes the kernel read and wrote (-1: unknown).
        description (dict): ``"input_shapes"`` and ``"attrs"``, each a text or a (text, grouping key) pair;
            anything else counts as no description.

    Example::

        >>> from monoflow.profiler.events import KernelEvent
        >>> k = KernelEvent("relu", 4.0, 1024, {"input_shapes": "(2,3)"})
        >>> k.input_shapes, k.attributes, k.key
        ('(2,3)', '', ('relu', '(2,3)'))
    """

    def __init__(self, name, time_total, memory_size, description):
        super().__init__(name, time_total, EventType.Kernel)
        self.children = []
        self.memory_size = memory_size
        self.description = description
        self._cuda_time_total = 0.0
        self._enable_show_input_shapes = True
        self._enable_show_attributes = True

    def add_child(self, event):
        """add_child(event): records a device call the kernel made; a CUDA kernel's time adds to the device time.

        Args:
            event (CustomEvent): the call.

        Example::

            >>> from monoflow.profiler.events import KernelEvent, CustomEvent, CustomEventType
            >>> k = KernelEvent("add", 3.0, -1, {})
            >>> k.add_child(CustomEvent("add_kernel", 2.0, CustomEventType.CudaKernel))
            >>> k.cuda_time_total
            2.0
        """
        self.children.append(event)
        if event.has_cuda_time():
            self._cuda_time_total += event.cuda_time

    @classmethod
    def from_dict(cls, d):
        """from_dict(d): the record of one JSON entry (``name``, ``time``, ``memory_size``, optional
        ``description`` and ``children``).

        Args:
            d (dict): the entry.

        Example::

            >>> from monoflow.profiler.events import KernelEvent
            >>> KernelEvent.from_dict({"name": "k", "time": 9, "memory_size": 64, "type": 1}).memory_size
            64
        """
        event = cls(d.get("name"), d.get("time"), d.get("memory_size"), d.get("description", {}))
        for child in d.get("children") or ():
            event.add_child(CustomEvent.from_dict(child))
        return event

    @property
    def input_shapes(self):
        """The input shapes as shown, ``""`` when not recorded."""
        return _described(self.description, "input_shapes")[0]

    @property
    def attributes(self):
        """The op's attributes as shown, ``""`` when not recorded."""
        return _described(self.description, "attrs")[0]

    @property
    def key(self):
        """What ``key_averages`` groups by: the name, the shapes and attributes when grouping by them, and
        the children's names."""
        parts = [self.name]
        if self.input_shapes != "" and self._enable_show_input_shapes:
            parts.append(_described(self.description, "input_shapes")[1])
        if self.attributes != "" and self._enable_show_attributes:
            parts.append(_described(self.description, "attrs")[1])
        if self.children:
            parts.append(",".join(c.name for c in self.children))
        return tuple(parts)

    @property
    def cuda_time_total(self):
        """The device time of the CUDA kernels among the children, or None when there was none."""
        return self._cuda_time_total if self._cuda_time_total > 0.0 else None

    @cuda_time_total.setter
    def cuda_time_total(self, value):
        self._cuda_time_total = value

    @property
    def bandwidth(self):
        """The memory traffic per device second (``"1.234GB/s"``), ``""`` without device time or memory size."""
        if self.children and self.has_cuda_time() and self.memory_size != -1:
            return f"{self.memory_size / 2 ** 30 / (self.cuda_time / 1e6):.3f}GB/s"
        return ""

    def update(self, event):
        """update(event): adds another occurrence of the same kernel (same key and children) to this record.

        Args:
            event (KernelEvent): the occurrence.

        Example::

            >>> from monoflow.profiler.events import KernelEvent
            >>> k = KernelEvent("mm", 4.0, -1, {})
            >>> k.update(KernelEvent("mm", 2.0, -1, {}))
            >>> k.count, k.cpu_time
            (2, 3.0)
        """
        if event is self or not isinstance(event, KernelEvent):
            raise TypeError("KernelEvent.update(): expected another KernelEvent")
        if event.key != self.key or len(event.children) != len(self.children):
            raise ValueError(f"KernelEvent.update(): records differ: {self.key} and {event.key}")
        super().update(event)
        if self.has_cuda_time() and event.has_cuda_time():
            self.cuda_time_total += event.cuda_time_total
        for mine, theirs in zip(self.children, event.children):
            mine.update(theirs)

    def make_children_average(self):
        """make_children_average(): merges the children with the same key into one, sorted by name.

        Example::

            >>> from monoflow.profiler.events import KernelEvent, CustomEvent, CustomEventType
            >>> k = KernelEvent("op", 1.0, -1, {})
            >>> for t in (1.0, 3.0):
            ...     k.add_child(CustomEvent("launch", t, CustomEventType.CudaRuntime))
            >>> k.make_children_average()
            >>> [(c.name, c.count, c.cpu_time) for c in k.children]
            [('launch', 2, 2.0)]
        """
        merged = {}
        for child in self.children:
            if child.key in merged:
                merged[child.key].update(child)
            else:
                merged[child.key] = copy.deepcopy(child)
        self.children = sorted(merged.values(), key=lambda c: c.name)

    def to_dict(self):
        """to_dict(): the row ``Events.table`` prints.

        Example::

            >>> from monoflow.profiler.events import KernelEvent
            >>> KernelEvent("op", 2.0, -1, {}).to_dict()["count"]
            1
        """
        row = {"name": self.name, "cpu_time_total": _format_us(self.cpu_time_total),
               "cpu_time": _format_us(self.cpu_time), "count": self.count,
               "input_shapes": self.input_shapes, "attributes": self.attributes}
        if self.has_cuda_time():
            row.update(cuda_time_total=_format_us(self.cuda_time_total), cuda_time=_format_us(self.cuda_time))
        return row

    def __eq__(self, other):
        return (isinstance(other, KernelEvent) and super().__eq__(other) and self.children == other.children
                and self.memory_size == other.memory_size and self.input_shapes == other.input_shapes
                and self.attributes == other.attributes)

    __hash__ = None


class Events(list):
    """A list of records, read from the JSON list OneFlow's profiler writes (each entry's ``"type"``: 0 custom
    range, 1 kernel).

    Args:
        events (str): the JSON text; ``""`` for an empty list.

    Example::

        >>> from monoflow.profiler.events import Events
        >>> ev = Events('[{"name": "a", "time": 1, "custom_type": 0, "type": 0},'
        ...             ' {"name": "a", "time": 3, "custom_type": 0, "type": 0}]')
        >>> [(e.name, e.count, e.cpu_time_total) for e in ev.key_averages()]
        [('a', 2, 4)]
    """

    def __init__(self, events=""):
        super().__init__()
        if events != "":
            kinds = {EventType.Custom: CustomEvent, EventType.Kernel: KernelEvent}
            for entry in json.loads(events):
                self.append(kinds[EventType(entry.get("type"))].from_dict(entry))

    def key_averages(self, group_by_input_shape=False, group_by_attributes=False):
        """key_averages(group_by_input_shape=False, group_by_attributes=False): one record per key, the
        occurrences added up; a kernel's device calls become records of their own.

        Args:
            group_by_input_shape (bool): kernels with other input shapes stay apart.
            group_by_attributes (bool): kernels with other attributes stay apart.

        Example::

            >>> from monoflow.profiler.events import Events, KernelEvent
            >>> ev = Events()
            >>> ev += [KernelEvent("mm", 2.0, -1, {"input_shapes": s}) for s in ("(2,2)", "(3,3)")]
            >>> len(ev.key_averages()), len(ev.key_averages(group_by_input_shape=True))
            (1, 2)
        """
        merged = {}

        def add(event):
            if isinstance(event, KernelEvent):
                event._enable_show_input_shapes = group_by_input_shape
                event._enable_show_attributes = group_by_attributes
            if event.key in merged:
                merged[event.key].update(event)
            else:
                merged[event.key] = copy.deepcopy(event)

        for event in self:
            if isinstance(event, KernelEvent) and event.children:
                event.make_children_average()
                for child in event.children:
                    add(child)
                event.children = []
            add(event)
        result = Events()
        result.extend(merged.values())
        return result

    def table(self):
        """table(): the records as a text table (name, host and device times, calls; shapes, attributes and
        bandwidth columns when any record has them).

        Example::

            >>> from monoflow.profiler.events import Events, CustomEvent, CustomEventType
            >>> ev = Events()
            >>> ev.append(CustomEvent("forward", 20.0, CustomEventType.Default))
            >>> print(ev.table().splitlines()[2].split())
            ['forward', '20.000us', '20.000us', '-', '-', '1']
        """
        columns = [("Name", "name"), ("CPU time total", "cpu_time_total"), ("CPU time", "cpu_time"),
                   ("GPU time total", "cuda_time_total"), ("GPU time", "cuda_time"), ("Number of calls", "count")]
        kernels = [e for e in self if isinstance(e, KernelEvent)]
        if any(k.input_shapes != "" and k._enable_show_input_shapes for k in kernels):
            columns.append(("Input shapes", "input_shapes"))
        if any(k.attributes != "" and k._enable_show_attributes for k in kernels):
            columns.append(("Attributes", "attributes"))
        if any(k.bandwidth != "" for k in kernels):
            columns.append(("Bandwidth", "bandwidth"))
        rows = []
        for event in self:
            for e in [event] + (event.children if isinstance(event, KernelEvent) else []):
                data = dict(e.to_dict(), bandwidth=getattr(e, "bandwidth", ""))
                rows.append([str(data.get(key, "-")) for _, key in columns])
        widths = [max([len(title)] + [len(r[i]) for r in rows]) for i, (title, _) in enumerate(columns)]
        line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
        out = [line([t for t, _ in columns]), line(["-" * w for w in widths])] + [line(r) for r in rows]
        return "\n".join(out) + "\n"

    def __str__(self):
        return self.table()
