"""What the multi-process graph test workers (graph_*_worker.py) share: the
per-check result recorder and the rank's result file that the test reads
back. (A helper module, not a test file.)"""
import json
import os
import sys
import traceback

import monoflow.distributed as dist


def record(results, name, fn):
    """Runs fn and sets results[name] to "ok" or its traceback (for the test to show)."""
    try:
        fn()
        results[name] = "ok"
    except Exception:  # recorded for the test to show
        results[name] = traceback.format_exc()


def checker(results):
    """A decorator `@check(name)` that runs the function at once and records
    its outcome in results."""
    def check(name):
        def wrap(fn):
            record(results, name, fn)
            return fn
        return wrap
    return check


def run_and_write(out_dir, results, fn):
    """Runs fn (the rank's work), recording a crash under "crashed", then
    writes results to out_dir/rank<k>.json."""
    try:
        fn()
    except Exception:
        results["crashed"] = traceback.format_exc()
    with open(os.path.join(out_dir, f"rank{dist.get_rank()}.json"), "w") as f:
        json.dump(results, f)
    sys.stdout.flush()
