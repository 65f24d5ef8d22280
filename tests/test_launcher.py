"""The launcher: flags, environment, output, failures and signals.

The scripts it starts here do not import monoflow (they only print their
environment), so each test costs little more than starting Python.
"""
import os
import signal
import subprocess
import sys
import time

import pytest

ENV_SCRIPT = r'''
import os, sys
keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "NODE_RANK", "NNODES", "LOCAL_WORLD_SIZE"]
print(" ".join(f"{k}={os.environ[k]}" for k in keys), "ARGS=" + ",".join(sys.argv[1:]))
'''


def run_launcher(tmp_path, script, *launcher_args, timeout=60):
    path = tmp_path / "s.py"
    path.write_text(script)
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", *launcher_args, str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=str(tmp_path))


def env_lines(out):
    lines = {}
    for line in out.splitlines():
        prefix, _, rest = line.partition("] ")
        lines[int(prefix.removeprefix("[rank "))] = dict(kv.split("=", 1) for kv in rest.split())
    return lines


@pytest.mark.parametrize("spelling", ["dash", "underscore"])
def test_flags_and_environment(tmp_path, spelling):
    s = (lambda f: f) if spelling == "dash" else (lambda f: f.replace("-", "_").replace("__", "--"))
    path = tmp_path / "s.py"
    path.write_text(ENV_SCRIPT)
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", s("--nproc-per-node"), "2", "--nnodes", "3",
           s("--node-rank"), "1", s("--master-addr"), "10.1.2.3", s("--master-port"), "4321", str(path),
           "--lr", "0.1", "x"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = env_lines(r.stdout)
    assert sorted(lines) == [2, 3]   # node 1 of 3, two ranks each
    for local, rank in enumerate([2, 3]):
        e = lines[rank]
        assert e["RANK"] == str(rank) and e["LOCAL_RANK"] == str(local) and e["WORLD_SIZE"] == "6"
        assert e["MASTER_ADDR"] == "10.1.2.3" and e["MASTER_PORT"] == "4321"
        assert e["NODE_RANK"] == "1" and e["NNODES"] == "3" and e["LOCAL_WORLD_SIZE"] == "2"
        assert e["ARGS"] == "--lr,0.1,x"   # script arguments pass through untouched


def test_module_flag(tmp_path):
    (tmp_path / "mfmod.py").write_text("import os; print('module rank', os.environ['RANK'])\n")
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "2", "-m", "mfmod"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "[rank 0] module rank 0" in r.stdout and "[rank 1] module rank 1" in r.stdout


def test_output_prefix_keeps_lines_whole(tmp_path):
    script = "import os, sys\nfor i in range(50):\n    print(f'line {i} of rank', os.environ['RANK'])\n" \
             "print('to stderr', file=sys.stderr)\n"
    r = run_launcher(tmp_path, script, "--nproc-per-node", "2")
    assert r.returncode == 0
    for rank in (0, 1):
        mine = [l for l in r.stdout.splitlines() if l.startswith(f"[rank {rank}] ")]
        assert mine[:50] == [f"[rank {rank}] line {i} of rank {rank}" for i in range(50)]
        assert f"[rank {rank}] to stderr" in r.stdout


def test_log_dir(tmp_path):
    logs = tmp_path / "logs"
    r = run_launcher(tmp_path, ENV_SCRIPT, "--nproc_per_node", "2", "--log_dir", str(logs))
    assert r.returncode == 0 and "[rank" not in r.stdout
    for rank in (0, 1):
        text = (logs / f"rank_{rank}.log").read_text()
        assert f"RANK={rank} " in text and not text.startswith("[rank")


def test_failure_stops_the_others(tmp_path):
    script = r'''
import os, sys, time
if os.environ["RANK"] == "1":
    print("failing", flush=True)
    sys.exit(3)
time.sleep(60)
print("rank 0 finished")
'''
    t0 = time.monotonic()
    r = run_launcher(tmp_path, script, "--nproc-per-node", "2")
    assert r.returncode == 3
    assert "rank 1" in r.stderr and "exited with code 3" in r.stderr, r.stderr
    assert "rank 0 finished" not in r.stdout   # stopped, not waited for
    assert time.monotonic() - t0 < 50


def test_killed_rank_is_named_with_its_signal(tmp_path):
    script = "import os, signal, time\nif os.environ['RANK'] == '0':\n    os.kill(os.getpid(), signal.SIGKILL)\n" \
             "time.sleep(60)\n"
    r = run_launcher(tmp_path, script, "--nproc-per-node", "2")
    assert r.returncode != 0
    assert "rank 0" in r.stderr and "SIGKILL" in r.stderr, r.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_are_forwarded(tmp_path, sig):
    script = r'''
import os, signal, sys, time
def handler(signum, frame):
    print("got", signal.Signals(signum).name, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, handler)
signal.signal(signal.SIGINT, handler)
print("ready", flush=True)
time.sleep(60)
'''
    path = tmp_path / "s.py"
    path.write_text(script)
    p = subprocess.Popen([sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "2", str(path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = 0
    while ready < 2:
        line = p.stdout.readline()
        assert line, "launcher ended early"
        ready += "ready" in line
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        pytest.fail(f"the launcher did not exit after {signal.Signals(sig).name}:\n{out}\n{err}")
    name = signal.Signals(sig).name
    assert f"[rank 0] got {name}" in out and f"[rank 1] got {name}" in out, out
    assert p.returncode == 128 + sig


def test_bad_flags(tmp_path):
    r = run_launcher(tmp_path, ENV_SCRIPT, "--nnodes", "2", "--node-rank", "2")
    assert r.returncode == 2 and "--node-rank 2 is out of range for --nnodes 2" in r.stderr
