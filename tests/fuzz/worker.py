"""Fuzz worker: reads cases (JSON lines) on stdin, runs each, answers on stdout.

Protocol, one JSON object per line: in {"id": N, "code": "..."}; out
{"id": N, "outcome": "ok" | "raised" | "bad", "detail": "..."}. A worker that
dies mid-case, or answers too late, is handled by the runner (runner.py).
"""
import json
import os
import resource
import sys
import warnings

# The worker's own memory ceiling: a huge allocation must fail as a clean
# OutOfMemoryError/MemoryError, and must not take the machine down with it.
_MEMORY_LIMIT = int(os.environ.get("MONOFLOW_FUZZ_MEMORY_LIMIT", str(4 << 30)))

# Signs of an implementation detail leaking into a user-facing message.
CXX_MARKERS = ("std::", "enforce fail", "basic_string", "bad_alloc", "vector::", "terminate called",
               "c10::", "Assertion `", "returned NULL without setting", "returned a result with an exception set")


def classify_exception(exc):
    """'raised' for a clean Python exception, 'bad' with a reason otherwise."""
    msg = str(exc)
    if isinstance(exc, SystemError):
        return "bad", f"SystemError: {msg}"
    for marker in CXX_MARKERS:
        if marker in msg:
            return "bad", f"{type(exc).__name__} with a C++ message: {msg[:300]}"
    return "raised", f"{type(exc).__name__}: {msg[:200]}"


def _namespace():
    import math

    import numpy as np

    import monoflow as flow

    class NoInit(flow.Tensor):
        def __init__(self):  # never calls super().__init__
            pass

    return {"flow": flow, "F": flow.nn.functional, "np": np, "math": math, "NoInit": NoInit}


def _exercise(result, flow):
    """Uses what a call returned as a program would: prints it, reads all of it
    (clone) and writes it (fill_), so that a view addressing memory outside its
    storage shows as the crash it is. A clean refusal here is fine."""
    for t in result if isinstance(result, (tuple, list)) else (result,):
        if not isinstance(t, flow.Tensor):
            continue
        for use in (repr, lambda t: t.clone(), lambda t: t.detach().fill_(1)):
            try:
                use(t)
            except Exception:  # noqa: BLE001 - only a signal or a hang would be a finding
                pass


def run_case(code, ns):
    flow = ns["flow"]
    try:
        result = eval(code, ns)  # noqa: S307 - the fuzz case is our own source text
        _exercise(result, flow)
        flow.synchronize()  # an asynchronous kernel error belongs to this case
        return "ok", type(result).__name__
    except BaseException as e:  # noqa: BLE001 - classifying is the point
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            return "bad", f"{type(e).__name__} escaped"
        try:
            flow.synchronize()
        except BaseException:  # noqa: BLE001 - drained, belongs to this case
            pass
        return classify_exception(e)
    finally:
        flow.set_default_dtype(flow.float32)
        flow.set_grad_enabled(True)


def main():
    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_LIMIT, _MEMORY_LIMIT))
    warnings.simplefilter("ignore")
    # The protocol gets private copies of stdin/stdout: whatever the code
    # under test prints or reads must not corrupt it.
    proto_in = os.fdopen(os.dup(0), "r")
    out = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    ns = _namespace()
    out.write(json.dumps({"ready": True}) + "\n")  # imported: the per-case timeout starts now
    out.flush()
    for line in proto_in:
        case = json.loads(line)
        outcome, detail = run_case(case["code"], ns)
        out.write(json.dumps({"id": case["id"], "outcome": outcome, "detail": detail}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
