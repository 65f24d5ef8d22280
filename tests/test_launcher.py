"""The launcher: flags, environment, output, failures and signals.

Most scripts it starts here do not import monoflow (they only print their
environment), so each test costs little more than starting Python; the
failure-attribution tests do, as real ranks do.
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


def test_progress_bar_redraws_keep_the_prefix(tmp_path):
    # A progress bar redraws its line with '\r' and no newline: each redraw
    # gets the prefix again, or the bar overwrites it on the terminal.
    script = ("import os, sys, time\nif os.environ['RANK'] == '0':\n    for i in range(5):\n"
              "        sys.stdout.write(f'\\rbar {i}'); sys.stdout.flush(); time.sleep(0.02)\n"
              "    sys.stdout.write('\\r\\n')\nprint('done')\n")
    r = subprocess.run([sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "2",
                        str(_write(tmp_path, script))], capture_output=True, timeout=60, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout
    assert r.stdout.count(b"bar ") == r.stdout.count(b"[rank 0] bar ") == 5, r.stdout  # each redraw prefixed
    assert r.stdout.count(b"] done\n") == 2


def _write(tmp_path, script):
    path = tmp_path / "s.py"
    path.write_text(script)
    return path


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


JOB_ID_SCRIPT = "import os\nprint('JOB', os.environ['MONOFLOW_JOB_ID'])\n"


def job_ids(out):
    return {line.split("JOB ")[1] for line in out.splitlines() if "JOB " in line}


def test_job_id_reaches_every_rank_and_differs_between_jobs(tmp_path):
    first = run_launcher(tmp_path, JOB_ID_SCRIPT, "--nproc-per-node", "2")
    second = run_launcher(tmp_path, JOB_ID_SCRIPT, "--nproc-per-node", "2")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    a, b = job_ids(first.stdout), job_ids(second.stdout)
    assert len(a) == 1 and len(b) == 1 and a != b   # one id per job, shared by its ranks
    given = run_launcher(tmp_path, JOB_ID_SCRIPT, "--nproc-per-node", "2", "--job-id", "nightly-42")
    assert job_ids(given.stdout) == {"nightly-42"}


def test_multi_node_launchers_derive_the_same_job_id(tmp_path):
    # No --job-id: every node's launcher must come to the same id on its own.
    runs = [run_launcher(tmp_path, JOB_ID_SCRIPT, "--nnodes", "2", "--node-rank", str(n), "--master-addr",
                         "10.9.8.7", "--master-port", "4567") for n in (0, 1)]
    ids = [job_ids(r.stdout) for r in runs]
    assert ids[0] == ids[1] and len(ids[0]) == 1, ids


# Rank 1 fails; rank 0 notices through a socket (as a collective would: rank
# 1's end closes while its interpreter shuts down, or when it is killed) and
# fails too, with code 3, here well before rank 1 has fully exited. The launcher
# must blame rank 1, the cause, not rank 0, the first in its list. (This script
# imports monoflow, as a rank does: that records when its exception happened.)
VICTIM_SCRIPT = r'''
import os, signal, socket, sys, time
import monoflow
port = int(os.environ["MF_BLAME_PORT"])
if os.environ["RANK"] == "0":
    srv = socket.create_server(("127.0.0.1", port))
    conn, _ = srv.accept()
    conn.recv(1)           # returns when rank 1 is gone
    print("rank 0: my peer is gone", file=sys.stderr, flush=True)
    sys.exit(3)
for _ in range(600):
    try:
        s = socket.create_connection(("127.0.0.1", port))
        break
    except OSError:
        time.sleep(0.05)
print("rank 1 about to fail", file=sys.stderr, flush=True)
def slow_teardown():   # its connection closes first, then shutting down takes a while
    s.close()
    time.sleep(1.5)
import atexit
atexit.register(slow_teardown)
if sys.argv[1] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
raise ValueError("boom in rank 1")
'''


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("how", ["raise", "kill"])
@pytest.mark.parametrize("round_", range(4))
def test_launcher_blames_the_rank_that_failed_first(tmp_path, how, round_):
    path = tmp_path / "s.py"
    path.write_text(VICTIM_SCRIPT)
    env = {**os.environ, "MF_BLAME_PORT": str(_free_port())}
    r = subprocess.run([sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "2", str(path), how],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode != 0
    report = r.stderr
    assert "launch: rank 1 (pid" in report and "failed first" in report, report
    assert "launch: rank 0" not in report, report
    if how == "raise":
        assert "raised ValueError: boom in rank 1" in report and r.returncode == 1, report
        assert "last lines of rank 1's output" in report and "rank 1 about to fail" in report
    else:
        assert "SIGKILL" in report and "rank 1 about to fail" in report, report


def test_log_dir_keeps_stderr_and_reports_its_tail(tmp_path):
    script = "import sys\nprint('out line')\nprint('err line', file=sys.stderr)\nsys.exit(5)\n"
    logs = tmp_path / "logs"
    r = run_launcher(tmp_path, script, "--nproc-per-node", "1", "--log-dir", str(logs))
    assert r.returncode == 5
    text = (logs / "rank_0.log").read_text()
    assert "out line" in text and "err line" in text
    assert "exited with code 5" in r.stderr and "    err line" in r.stderr, r.stderr


COLLECTIVE_VICTIM = r'''
import os
import monoflow as flow
import monoflow.distributed as dist
dist.init_process_group("gloo", timeout=300)
t = flow.ones(4)
dist.all_reduce(t)
if dist.get_rank() == 1:
    raise ValueError("rank 1 gives up")
dist.all_reduce(t)   # rank 0 waits here; rank 1's exit breaks it
'''


@pytest.mark.parametrize("round_", range(2))
def test_launcher_blames_the_rank_whose_exception_broke_the_collective(tmp_path, round_):
    r = run_launcher(tmp_path, COLLECTIVE_VICTIM, "--nproc-per-node", "2", "--master-port", str(_free_port()),
                     timeout=120)
    assert r.returncode == 1
    assert "launch: rank 1 (pid" in r.stderr and "failed first" in r.stderr, r.stderr
    assert "ValueError: rank 1 gives up" in r.stderr and "launch: rank 0" not in r.stderr, r.stderr
