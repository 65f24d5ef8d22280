"""Timing and process helpers shared by the bench_*.py scripts (run as scripts,
so this directory is on sys.path). Imports neither library: some scripts set
thread-count environment variables before importing them."""
import json
import os
import socket
import statistics
import subprocess
import sys
import time


def best_time(fn, repeat, number, sync=None):
    """Best wall time of one call over `repeat` rounds of `number` calls; `sync`
    (if given) waits for asynchronous work before each clock read."""
    fn()  # warm-up: allocator caches, lazy initialisation
    if sync is not None:
        sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        if sync is not None:
            sync()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def median_time(fn, iters, warmup):
    """Median wall time of one call over `iters` calls, after `warmup` untimed ones."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def free_port():
    """A TCP port on 127.0.0.1 that is free now (for a rendezvous store)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_two_ranks(argv):
    """Runs `python argv...` as ranks 0 and 1 of a 2-process group (rendezvous
    on 127.0.0.1, one kernel thread each) and returns the JSON object rank 0
    prints last; exits if a rank fails."""
    env = dict(os.environ, WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
               OMP_NUM_THREADS="1")
    cmd = [sys.executable, *argv]
    procs = [subprocess.Popen(cmd, env=dict(env, RANK=str(r), LOCAL_RANK=str(r)), stdout=subprocess.PIPE, text=True)
             for r in range(2)]
    out = procs[0].communicate()[0]
    procs[1].wait()
    if any(p.returncode for p in procs):
        sys.exit("benchmark ranks failed")
    return json.loads(out.strip().splitlines()[-1])
