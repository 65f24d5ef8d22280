"""``monoflow.utils.benchmark``: torch.utils.benchmark's ``Timer``, ``Measurement`` and ``Compare`` for timing
Python statements (the "PyTorch Benchmark" recipe).

``Timer`` runs ``stmt`` with Python's :mod:`timeit` under ``num_threads`` threads (restored after);
``Measurement`` holds the per-run times and prints as torch's; ``Compare`` prints a table of
measurements grouped by ``label``, with ``sub_label`` rows and ``description`` columns."""
import collections
import enum
import math
import statistics
import timeit

from monoflow._threads import get_num_threads, set_num_threads

__all__ = ["Timer", "Measurement", "Compare", "Language"]


class Language(enum.Enum):
    """The language of a :class:`Timer` statement; only ``PYTHON`` runs here.

    Example::

        >>> from monoflow.utils.benchmark import Language
        >>> Language.PYTHON
        <Language.PYTHON: 0>
    """
    PYTHON = 0
    CPP = 1


def _unit(seconds):
    for scale, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if seconds >= scale:
            return scale, name
    return 1e-9, "ns"


class Measurement:
    """The result of a :class:`Timer` run: ``raw_times`` (seconds per block of ``number_per_run`` calls).

    Args:
        number_per_run (int): calls of the statement in each timed block.
        raw_times (list of float): the seconds each block took.
        task_spec: the :class:`Timer`'s description of the task (``stmt``, ``label``, ...).
        metadata (dict, optional): anything to carry along.

    Example::

        >>> from monoflow.utils.benchmark import Timer
        >>> m = Timer("x + 1", globals={"x": 1}).timeit(10)
        >>> m.number_per_run, len(m.times)
        (10, 1)
    """

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    @property
    def times(self):
        """Seconds per call, one value per timed block."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        """The median seconds per call."""
        return statistics.median(self.times)

    @property
    def mean(self):
        """The mean seconds per call."""
        return statistics.mean(self.times)

    @property
    def iqr(self):
        """The interquartile range of the seconds per call (0 with fewer than two blocks)."""
        t = sorted(self.times)
        if len(t) < 2:
            return 0.0
        q = statistics.quantiles(t, n=4, method="inclusive")
        return q[2] - q[0]

    @property
    def has_warnings(self):
        """True when the spread is large for the median (iqr over a tenth of it)."""
        return len(self.times) >= 4 and self.iqr > 0.1 * self.median

    @property
    def title(self):
        spec = self.task_spec
        return spec.label or spec.stmt

    @property
    def env(self):
        return self.task_spec.env or ""

    @property
    def row_name(self):
        return self.task_spec.sub_label or self.task_spec.stmt

    def __repr__(self):
        scale, unit = _unit(self.median)
        spec = self.task_spec
        lines = [f"<monoflow.utils.benchmark.Measurement object at {hex(id(self))}>"]
        sub = f": {spec.sub_label}" if spec.sub_label else ""
        if spec.label is not None:  # torch's TaskSpec.summarize
            lines.append(spec.label + sub)
        elif "\n" not in spec.stmt:
            lines.append(spec.stmt + sub)
        else:
            lines.append(f"stmt:{f' ({spec.sub_label})' if spec.sub_label else ''}")
            lines += ["  " + l for l in spec.stmt.splitlines()]
        if spec.description:
            lines.append(spec.description)
        if len(self.times) >= 4:
            lines.append(f"  Median: {self.median / scale:.2f} {unit}")
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit}")
        else:
            lines.append(f"  {self.median / scale:.2f} {unit}")
        runs = len(self.times) * self.number_per_run
        lines.append(f"  {len(self.times)} measurement{'s' if len(self.times) != 1 else ''}, {runs} runs , "
                     f"{spec.num_threads} thread{'s' if spec.num_threads != 1 else ''}")
        return "\n".join(lines)


_TaskSpec = collections.namedtuple("TaskSpec", "stmt setup global_setup label sub_label description env num_threads")


class Timer:
    """Times a Python statement, as torch.utils.benchmark.Timer.

    Args:
        stmt (str): the statement timed. Default: ``"pass"``.
        setup (str): run once before timing. Default: ``"pass"``.
        global_setup (str): accepted for torch compatibility (C++ only). Default: ``""``.
        timer (callable): the clock. Default: :func:`timeit.default_timer`.
        globals (dict, optional): the names ``stmt`` and ``setup`` see.
        label (str, optional): the title of a group in :class:`Compare`.
        sub_label (str, optional): the row in :class:`Compare`.
        description (str, optional): the column in :class:`Compare`.
        env (str, optional): an environment tag.
        num_threads (int): monoflow's intra-op threads while timing. Default: ``1``.
        language (Language or str): only ``Language.PYTHON`` / ``"python"``. Default: ``Language.PYTHON``.

    Example::

        >>> from monoflow.utils.benchmark import Timer
        >>> t = Timer(stmt="x * y", globals={"x": flow.ones(4), "y": flow.ones(4)})
        >>> m = t.timeit(5)
        >>> m.median > 0
        True
    """

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timeit.default_timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if language not in (Language.PYTHON, "py", "python"):
            raise NotImplementedError("Timer: only Python statements are supported (language=Language.PYTHON)")
        if not isinstance(stmt, str) or not isinstance(setup, str):
            raise ValueError("Timer: stmt and setup must be strings")
        if not isinstance(num_threads, int) or num_threads < 1:
            raise ValueError(f"Timer: num_threads must be a positive int, got {num_threads!r}")
        self._task_spec = _TaskSpec(stmt, setup, global_setup, label, sub_label, description, env, num_threads)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=dict(globals or {}))

    def _threads(self):
        class _Scope:
            def __enter__(s):
                s.prev = get_num_threads()
                set_num_threads(self._task_spec.num_threads)

            def __exit__(s, *exc):
                set_num_threads(s.prev)
        return _Scope()

    def _measure(self, number):
        return self._timer.timeit(number)

    def timeit(self, number=1000000):
        """Runs ``stmt`` ``number`` times (after one warm-up call) as one block.

        Args:
            number (int): how many calls. Default: ``1000000``.
        """
        with self._threads():
            self._measure(1)
            return Measurement(number, [self._measure(number)], self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        """Not supported, as in torch."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        """Not supported, as in torch."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self):
        number = 1
        while True:
            t = self._measure(number)
            if t >= 1e-3 or number >= 10 ** 6:
                return number
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Times blocks of calls (a block lasts about a millisecond) until ``min_run_time`` seconds have passed.

        Args:
            callback (callable, optional): called as ``callback(number, seconds)`` after each block.
            min_run_time (float): the least total timed seconds. Default: ``0.2``.
        """
        with self._threads():
            number = self._block_size()
            times, total = [], 0.0
            while total < min_run_time or not times:
                t = self._measure(number)
                if callback is not None:
                    callback(number, t)
                times.append(t)
                total += t
            return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Times blocks until the interquartile range is under ``threshold`` times the median (and at least
        ``min_run_time`` seconds passed) or ``max_run_time`` seconds passed.

        Args:
            threshold (float): the relative spread to reach. Default: ``0.1``.
            min_run_time (float): the least total timed seconds. Default: ``0.01``.
            max_run_time (float): the most total timed seconds. Default: ``10.0``.
            callback (callable, optional): as in :meth:`blocked_autorange`.
        """
        with self._threads():
            number = self._block_size()
            times, total = [], 0.0
            while True:
                t = self._measure(number)
                if callback is not None:
                    callback(number, t)
                times.append(t)
                total += t
                m = Measurement(number, times, self._task_spec)
                if total >= max_run_time or (total >= min_run_time and len(times) > 3
                                             and m.iqr <= threshold * m.median):
                    return m


class Compare:
    """A table of :class:`Measurement` medians: one table per ``label``, one row per ``sub_label``
    (or statement), one column per ``description``.

    Args:
        results (list of Measurement): the measurements.

    Example::

        >>> from monoflow.utils.benchmark import Compare, Timer
        >>> ms = [Timer("x + 1", globals={"x": 1}, label="add", description=d).timeit(10) for d in ("a", "b")]
        >>> "add" in str(Compare(ms))
        True
    """

    def __init__(self, results):
        self._results = list(results)
        self._trim = False
        self._colorize = False

    def colorize(self, rowwise=False):
        """Accepted for torch compatibility (the table is plain text)."""
        self._colorize = True

    def trim_significant_figures(self):
        """Prints the times with three significant figures."""
        self._trim = True

    def extend_results(self, results):
        """Adds more measurements."""
        self._results.extend(results)

    def highlight_warnings(self):
        """Marks the measurements whose spread is large (``!``)."""
        self._warn = True

    def __str__(self):
        groups = collections.OrderedDict()
        for m in self._results:
            groups.setdefault(m.task_spec.label or "", []).append(m)
        out = []
        for label, ms in groups.items():
            cols = list(dict.fromkeys(m.task_spec.description or "" for m in ms))
            rows = list(dict.fromkeys(m.row_name for m in ms))
            cell = {(m.row_name, m.task_spec.description or ""): m for m in ms}
            scale, unit = _unit(min(m.median for m in ms))
            def fmt(v):
                if not self._trim or v <= 0:
                    return f"{v:.1f}"
                return f"{v:.{max(0, 2 - math.floor(math.log10(v)))}f}"  # three significant figures
            width = max([len(r) for r in rows] + [0]) + 2
            out.append(f"[{'-' * 10} {label} {'-' * 10}]")
            out.append(" " * width + " | ".join(c.rjust(10) for c in cols))
            for r in rows:
                vals = []
                for c in cols:
                    m = cell.get((r, c))
                    v = "" if m is None else fmt(m.median / scale)
                    if m is not None and getattr(self, "_warn", False) and m.has_warnings:
                        v += " (! {:.0f}%)".format(100 * m.iqr / m.median)
                    vals.append(v.rjust(10))
                out.append(f"  {r}".ljust(width) + " | ".join(vals))
            names = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}
            out.append(f"\nTimes are in {names[unit]} ({unit}).\n")
        return "\n".join(out)

    def print(self):
        """Prints the table."""
        print(str(self))
