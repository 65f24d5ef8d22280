"""Runs fuzz cases in restartable worker processes and tallies what happened."""
import collections
import json
import os
import queue
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

from . import cases as cases_mod

_PACKAGE = __package__  # "tests.fuzz", or "fuzz" when imported from inside tests/
_IMPORT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _PACKAGE == "fuzz":
    _IMPORT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

Finding = collections.namedtuple("Finding", "kind target code detail")


class Report:
    def __init__(self):
        self.calls = 0
        self.ops = set()
        self.counts = collections.Counter()  # ok / raised / unnamed / bad / crash / hang
        self.findings = []  # Finding, for unnamed / bad / crash / hang
        self.lock = threading.Lock()

    def add(self, kind, target, code, detail):
        with self.lock:
            self.calls += 1
            self.ops.add(target)
            self.counts[kind] += 1
            if kind in ("unnamed", "bad", "crash", "hang"):
                self.findings.append(Finding(kind, target, code, detail))

    def failures(self, kinds=("crash", "hang", "bad")):
        return [f for f in self.findings if f.kind in kinds]

    def summary(self):
        c = self.counts
        return (f"{self.calls} calls over {len(self.ops)} ops: {c['ok']} returned, {c['raised']} raised cleanly, "
                f"{c['unnamed']} raised without naming the op, {c['bad']} bad exceptions, {c['crash']} crashes, "
                f"{c['hang']} hangs")

    def format_findings(self, limit=None, kinds=("crash", "hang", "bad")):
        lines = []
        for f in self.failures(kinds)[:limit]:
            lines.append(f"[{f.kind}] {f.code}\n    -> {f.detail}")
        return "\n".join(lines)

    def unnamed_groups(self):
        """The unnamed-op findings grouped by message pattern, largest first:
        [(pattern, [Finding, ...]), ...]."""
        groups = collections.defaultdict(list)
        for f in self.failures(("unnamed",)):
            groups[message_pattern(f.detail)].append(f)
        return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))

    def format_unnamed(self, limit=None, examples=2):
        lines = []
        for pattern, fs in self.unnamed_groups()[:limit]:
            targets = sorted({f.target for f in fs})
            shown = ", ".join(targets[:8]) + (f", ... ({len(targets)} ops)" if len(targets) > 8 else "")
            lines.append(f"{len(fs):5d}  {pattern}\n       ops: {shown}")
            for f in fs[:examples]:
                lines.append(f"       e.g. {f.code}\n            -> {f.detail}")
        return "\n".join(lines)


def message_pattern(detail):
    """A message with its particulars (numbers, quoted names, shapes, type
    names) blanked, so that one cause's messages group together."""
    s = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", detail)
    s = re.sub(r"\[[^\[\]]*\]|\([^()]*\)", "(_)", s)
    s = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", s)
    s = re.sub(r"\b(not|got) [A-Za-z_.]+", r"\1 T", s)
    return s[:160]


class _Worker:
    """One worker process; restarted by the caller when it dies or hangs."""

    def __init__(self, scratch, startup_timeout):
        self.stderr = tempfile.TemporaryFile(dir=scratch)
        env = dict(os.environ)
        env["PYTHONPATH"] = _IMPORT_ROOT + os.pathsep + env.get("PYTHONPATH", "")
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        # MONOFLOW_FUZZ_PYTHON: the interpreter command of the workers (to fuzz another install)
        python = shlex.split(os.environ.get("MONOFLOW_FUZZ_PYTHON", "")) or [sys.executable]
        self.proc = subprocess.Popen(python + ["-m", f"{_PACKAGE}.worker"], cwd=scratch, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        self.started = False
        self.startup_timeout = startup_timeout

    def _await_ready(self):
        """None once the worker has imported monoflow, else a (crash | hang, detail)."""
        ready, _, _ = select.select([self.proc.stdout], [], [], self.startup_timeout)
        if not ready:
            self.kill()
            return "hang", f"the worker did not start within {self.startup_timeout:.0f} s"
        if not self.proc.stdout.readline():
            return self._died()
        self.started = True
        return None

    def run(self, case_id, target, code, timeout):
        """(outcome, detail); outcome 'crash' or 'hang' means the worker is gone."""
        if not self.started:
            failed = self._await_ready()
            if failed:
                return failed
        try:
            self.proc.stdin.write((json.dumps({"id": case_id, "target": target, "code": code}) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return self._died()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.kill()
            return "hang", f"no answer within {timeout:.0f} s"
        line = self.proc.stdout.readline()
        if not line:
            return self._died()
        answer = json.loads(line)
        return answer["outcome"], answer["detail"]

    def _died(self):
        rc = self.proc.wait()
        why = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exited with code {rc}"
        self.stderr.seek(0)
        tail = self.stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        return "crash", why + ("; stderr: " + " | ".join(tail) if tail else "")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
        self.stderr.close()


def run_cases(case_list, workers=2, timeout=30.0, deadline=None, report=None, startup_timeout=120.0):
    """Runs (target, code) cases on `workers` processes; returns a Report."""
    report = report or Report()
    todo = queue.Queue()
    for i, c in enumerate(case_list):
        todo.put((i, c))

    def drive(scratch):
        w = _Worker(scratch, startup_timeout)
        try:
            while deadline is None or time.monotonic() < deadline:
                try:
                    i, (target, code) = todo.get_nowait()
                except queue.Empty:
                    return
                outcome, detail = w.run(i, target, code, timeout)
                report.add(outcome, target, code, detail)
                if outcome in ("crash", "hang"):
                    w.close()
                    w = _Worker(scratch, startup_timeout)
        finally:
            w.kill()
            w.close()

    with tempfile.TemporaryDirectory(prefix="monoflow-fuzz-") as scratch:
        threads = [threading.Thread(target=drive, args=(scratch,)) for _ in range(max(1, workers))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return report


def campaign(per_target=2, seed=0, workers=2, timeout=30.0, minutes=None, only=None):
    """Cases for every public target; with `minutes`, new rounds (new seeds) until time is up."""
    targets = cases_mod.public_targets()
    if only:
        targets = [t for t in targets if any(o in t.qualname for o in only)]
    report = Report()
    deadline = time.monotonic() + minutes * 60 if minutes else None
    round_seed = seed
    while True:
        run_cases(cases_mod.draw_cases(targets, per_target, round_seed), workers=workers, timeout=timeout,
                  deadline=deadline, report=report)
        round_seed += 1
        if deadline is None or time.monotonic() >= deadline:
            return report
