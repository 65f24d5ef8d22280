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


# Note [Bench thread settings]
#   Users measure at defaults, so single-process benches report each framework
#   at its default thread count (monoflow: all cores; PyTorch: its intra-op
#   default) and at 1 kernel thread each. A library fixes its thread count when
#   it starts its threads, so the script reruns itself once per setting.
#   Benches of two ranks on one machine (ddp, global, collectives, graph_sbp,
#   graph_zero, graph_pipeline) run 1 thread per rank, which is both
#   launchers' default there (torchrun's OMP_NUM_THREADS=1, monoflow's
#   launcher's cores per rank).
THREAD_SETTINGS = ("default", "1")
_SETTING_VAR = "MONOFLOW_BENCH_THREADS"


def thread_setting():
    """The thread setting this process measures; call it before importing
    monoflow or torch. Without `--threads N` on the command line the script is
    rerun once per THREAD_SETTINGS entry and this process exits when they are
    done; with it, one run gives both libraries N threads. Returns "default"
    or the thread count (a str)."""
    setting = os.environ.get(_SETTING_VAR)
    if setting is None and "--threads" in sys.argv[:-1]:
        setting = sys.argv[sys.argv.index("--threads") + 1]
    if setting is None:
        for s in THREAD_SETTINGS:
            env = {k: v for k, v in os.environ.items() if k not in ("MONOFLOW_NUM_THREADS", "OMP_NUM_THREADS")}
            env[_SETTING_VAR] = s
            rc = subprocess.call([sys.executable, *sys.argv], env=env)
            if rc:
                sys.exit(rc)
            print(flush=True)
        sys.exit(0)
    if setting != "default":
        os.environ["MONOFLOW_NUM_THREADS"] = setting
    return setting


def apply_thread_setting(setting, torch=None):
    """Gives torch (if not None) the setting's thread count and prints the
    setting as a heading."""
    if torch is not None and setting != "default":
        torch.set_num_threads(int(setting))
    if setting == "default":
        mf = f"monoflow {os.cpu_count()} (all cores)"
    else:
        mf = f"monoflow {setting}"
    tt = f", torch {torch.get_num_threads()}" if torch is not None else ""
    print(f"=== threads: {setting} ({mf}{tt})", flush=True)


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
