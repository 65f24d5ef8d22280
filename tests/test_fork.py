"""fork() after running ops: the child can run ops too (Note [Streams and fork]
in devices/cpu/stream.cpp). Without the atfork hooks the child's first sync
waits forever on a stream worker thread that fork() did not copy; every
child here is therefore waited for with a deadline and killed if it hangs,
which fails the test instead of hanging the suite."""
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import monoflow as flow

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

HANG_LIMIT = 60.0  # seconds; a guard against hangs, never a performance assertion


def wait_child(pid):
    deadline = time.monotonic() + HANG_LIMIT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
        time.sleep(0.005)


def in_child(fn):
    """Runs fn() in a forked child; returns the child's exit code (0: fn returned True)."""
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            code = 0 if fn() else 1
        except BaseException:  # noqa: BLE001 - report through the exit code only
            import traceback

            traceback.print_exc()
            code = 2
        finally:
            os._exit(code)
    return wait_child(pid)


def workload(seed):
    """Ops that use the stream worker, OpenBLAS threads (matmul) and OpenMP
    regions (big elementwise and reductions); returns numpy results."""
    g = flow.Generator()
    g.manual_seed(seed)
    a = flow.randn(256, 256, generator=g)
    big = flow.arange(1 << 20, dtype=flow.float32)
    return (a @ a.T).numpy(), float((big * 2 + 1).sum()), float(big.max())


def test_ops_run_in_a_forked_child_after_the_parent_ran_ops():
    expected = workload(1)  # the parent's streams, BLAS and OpenMP pools are all started

    def child():
        got = workload(1)
        return np.array_equal(got[0], expected[0]) and got[1:] == expected[1:]

    assert in_child(child) == 0
    # and the parent goes on working afterwards
    again = workload(1)
    assert np.array_equal(again[0], expected[0]) and again[1:] == expected[1:]


def test_fork_with_work_still_queued_sees_its_results():
    # No sync before fork: the prepare hook drains the stream, so the queued
    # chain has completed in the copy of memory the child gets.
    x = flow.zeros(1 << 14)
    for k in range(100):
        x += k
    expected = float(sum(range(100)))

    def child():
        return bool((x == expected).all()) and float((x - expected).abs().sum()) == 0.0

    assert in_child(child) == 0
    assert bool((x == expected).all())


def test_nested_fork():
    workload(2)

    def child():
        workload(3)
        return in_child(lambda: workload(4)[1] == workload(4)[1]) == 0

    assert in_child(child) == 0


def _square_sum(n):
    t = flow.arange(n, dtype=flow.float64)
    return float((t * t).sum())


def test_multiprocessing_fork_pool_runs_ops():
    workload(5)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        result = pool.map_async(_square_sum, [10, 1000, 1 << 16])
        got = result.get(timeout=HANG_LIMIT)
    assert got == [_square_sum(n) for n in (10, 1000, 1 << 16)]


def test_child_exiting_normally_runs_teardown_cleanly():
    # sys.exit in the child runs static destructors, including the default
    # stream's (which must not try to join the parent's worker thread).
    script = textwrap.dedent("""
        import os, sys
        import monoflow as flow
        a = flow.randn(128, 128)
        (a @ a).sum().item()
        pid = os.fork()
        if pid == 0:
            b = flow.randn(128, 128)
            assert (b @ b).shape == (128, 128)
            float((b * 2).sum())
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
    """)
    proc = subprocess.run([sys.executable, "-c", script], timeout=HANG_LIMIT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
