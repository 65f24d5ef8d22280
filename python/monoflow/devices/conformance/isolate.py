"""Runs a suite of checks in a child process, so that a plugin that crashes
or hangs fails the check it was in, and the kit goes on with the next one.

The child (``python -m monoflow.devices.conformance.isolate SUITE PATH``)
prints one JSON line when a check starts and one with its result; the parent
reads them, and when the child dies or stops answering it records the check
in progress as failed and starts a new child after it.
"""
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

from monoflow.devices.conformance.report import FAILED, NOT_COVERED, PASSED, Result

MAX_RESTARTS = 25


def _reader(stream, lines):
    for line in stream:
        lines.put(line)
    lines.put(None)


def _describe_exit(code):
    if code is not None and code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def run_suite(suite, path, timeout=300.0, env=None, options=(), info=None):
    """[Result] of `suite` ("contract" or "ops") on the plugin at `path`.
    What the child learns about the plugin (its device type) goes to `info`."""
    results, skip = [], []
    info = {} if info is None else info
    for _ in range(MAX_RESTARTS):
        cmd = [sys.executable, "-m", "monoflow.devices.conformance.isolate", suite, path, *options]
        child_env = dict(os.environ if env is None else env)
        child_env["MONOFLOW_CONFORMANCE_SKIP"] = json.dumps(skip)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env)
        lines, errs = queue.Queue(), []
        threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
        threading.Thread(target=lambda: errs.extend(proc.stderr), daemon=True).start()
        current, started, hung = None, time.monotonic(), False
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                hung = True
                proc.kill()
                break
            if line is None:
                break
            try:
                msg = json.loads(line)
            except ValueError:
                continue  # stray output of a plugin
            if "info" in msg:
                info.update(msg["info"])
            elif "start" in msg:
                current, started = msg["start"], time.monotonic()
            elif "result" in msg:
                results.append(Result.from_dict(msg["result"]))
                skip.append(msg["result"]["name"])
                current = None
        code = proc.wait()
        if current is None and not hung and code == 0:
            return results
        tail = "".join(errs)[-1500:].strip()
        if current is None:
            # died between checks (or at start-up): nothing more can run
            results.append(Result(suite, "child process", FAILED,
                                  f"the checking process {_describe_exit(code)}" + (f"\n{tail}" if tail else "")))
            return results
        why = f"no answer within {timeout:.0f} s (hung)" if hung else f"the process {_describe_exit(code)}"
        results.append(Result(suite, current, FAILED, why + (f"\n{tail}" if tail else ""),
                              time.monotonic() - started))
        skip.append(current)
    results.append(Result(suite, "child process", FAILED, f"gave up after {MAX_RESTARTS} crashes"))
    return results


# ---------------------------------------------------------------------- the child


def _emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def run_checks(suite, checks, skip):
    """Runs (name, fn) checks in this process, reporting each as JSON lines.
    fn() returns a detail; raises Fail/NotCovered (any class of those names)."""
    for name, fn in checks:
        if name in skip:
            continue
        _emit({"start": name})
        t0 = time.monotonic()
        try:
            detail, status = fn() or "", PASSED
        except Exception as exc:
            kind = type(exc).__name__
            status = NOT_COVERED if kind == "NotCovered" else FAILED
            detail = str(exc) if kind in ("Fail", "NotCovered") else f"{kind}: {exc}"
        _emit({"result": Result(suite, name, status, str(detail), time.monotonic() - t0).to_dict()})


def _selftest():
    """The isolation's own test (tests/test_conformance.py): a check that
    crashes the process is failed, the checks after it still run."""
    import ctypes

    def crash():
        ctypes.string_at(1)  # SIGSEGV

    return [("passes", lambda: "ok"), ("crashes", crash), ("runs after the crash", lambda: "ok")]


def _info_of(suite):
    if suite in ("contract", "ops"):
        module = sys.modules[f"monoflow.devices.conformance.{suite}"]
        return getattr(module, "INFO", {})
    return {}


def main(argv):
    suite, path, options = argv[0], argv[1], argv[2:]
    skip = set(json.loads(os.environ.get("MONOFLOW_CONFORMANCE_SKIP", "[]")))
    if suite == "contract":
        from monoflow.devices.conformance import contract

        checks = contract.checks_for(path)
    elif suite == "ops":
        from monoflow.devices.conformance import ops

        checks = ops.checks_for(path, options)
    elif suite == "selftest":
        checks = _selftest()
    else:
        raise SystemExit(f"unknown suite {suite!r}")
    _emit({"info": dict(_info_of(suite))})
    run_checks(suite, checks, skip)


if __name__ == "__main__":
    main(sys.argv[1:])
