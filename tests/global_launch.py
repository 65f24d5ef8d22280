"""Starting global_worker.py on N processes and reading what each rank wrote
(shared by test_global_ops.py and test_global_boxing.py)."""
import json
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    # a port nobody listens on now (the launcher's default may be taken by
    # another job on a shared machine)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_worker(nproc, out_dir, suites, seeds=(0,), options=(), timeout=300):
    """Runs the worker's `suites` on `nproc` ranks; returns each rank's results."""
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", str(nproc), "--master-port",
           str(free_port()), os.path.join(HERE, "global_worker.py"), str(out_dir), ",".join(suites),
           *(str(s) for s in seeds), *options]
    # one kernel thread per rank: N ranks share the machine's cores
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    env.pop("MONOFLOW_TESTDEV_BUILD", None)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=str(out_dir), env=env)
    assert r.returncode == 0, f"the worker failed (exit {r.returncode}):\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    results = []
    for k in range(nproc):
        with open(os.path.join(str(out_dir), f"rank{k}.json")) as f:
            results.append(json.load(f))
    for k, res in enumerate(results):
        assert not res.get("crashed"), f"rank {k}: a suite crashed:\n" + "\n".join(res["crashed"])
    return results


def report(failures, limit=8):
    """The first failures, readable: each with what is needed to rerun it."""
    lines = [f"{len(failures)} failing case(s); the first {min(limit, len(failures))}:"]
    for f in failures[:limit]:
        head = {k: v for k, v in f.items() if k != "problems"}
        lines.append(f"- {head}")
        lines += ["    " + p[:1500].replace("\n", "\n    ") for p in f["problems"]]
    return "\n".join(lines)
