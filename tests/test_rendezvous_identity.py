"""Rendezvous identity (issue 14, items 6-8 and the identity/secret deliverable).

Every rank joins the store as (job id, rank, world size), optionally proving it
knows a shared secret (Note [TCPStore handshake]). These tests start real
processes on real ports: a duplicate rank, a second job on the same port, a
rank outside WORLD_SIZE, ranks that disagree about WORLD_SIZE, and wrong or
missing secrets. Each child is bounded by a timeout far below the ranks' own
rendezvous timeout (300 s), so "fails at once" means "did not wait out its
timeout", and a hang fails the test instead of hanging CI.
"""
import hashlib
import hmac
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest

import monoflow.distributed as dist
from monoflow.distributed import rendezvous

RDV_TIMEOUT_S = 300   # the ranks' own timeout: never what ends a test
BOUND_S = 90          # what a test waits for a child at most

# Joins, all-reduces (value + rank), and with MF_HOLD waits for that file and
# all-reduces again (so that a stranger's attempt in between is seen to change
# nothing). Prints one JOINED/AGAIN line per all-reduce, or ERROR and exits 1.
JOIN = r'''
import os, sys, time
import monoflow as flow
import monoflow.distributed as dist
try:
    dist.init_process_group("gloo", timeout=float(os.environ["MF_TIMEOUT"]))
    R = dist.get_rank()
    value = float(os.environ.get("MF_VALUE", "1"))
    t = flow.tensor([value + R])
    dist.all_reduce(t)
    print("JOINED", t.item(), flush=True)
    ready = os.environ.get("MF_READY_DIR")
    if ready:
        open(os.path.join(ready, f"rank{R}"), "w").close()
    hold = os.environ.get("MF_HOLD")
    if hold:
        deadline = time.monotonic() + 120
        while not os.path.exists(hold) and time.monotonic() < deadline:
            time.sleep(0.05)
        t = flow.tensor([value + R])
        dist.all_reduce(t)
        print("AGAIN", t.item(), flush=True)
    dist.destroy_process_group()
except Exception as e:
    print("ERROR", type(e).__name__, str(e).replace("\n", " "), flush=True)
    sys.exit(1)
'''


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env(**extra):
    env = dict(os.environ)
    for k in ("MONOFLOW_TESTDEV_BUILD", "MONOFLOW_JOB_ID", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID",
              "MONOFLOW_STORE_SECRET", "MONOFLOW_STORE_SECRET_FILE", "MONOFLOW_STORE_BIND_ADDR"):
        env.pop(k, None)
    env.update(MF_TIMEOUT=str(RDV_TIMEOUT_S), MONOFLOW_NUM_THREADS="1")
    env.update({k: str(v) for k, v in extra.items()})
    return env


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "join.py"
    path.write_text(JOIN)
    return path


def spawn_rank(script, port, rank, world, **env):
    """A rank started the way torchrun starts one: environment variables only."""
    e = child_env(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, RANK=rank, WORLD_SIZE=world, LOCAL_RANK=rank, **env)
    return subprocess.Popen([sys.executable, str(script)], env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def spawn_launcher(script, port, nproc, **env):
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", str(nproc), "--master-port",
           str(port), str(script)]
    return subprocess.Popen(cmd, env=child_env(**env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(p):
    """(exit code, output); a child still running after BOUND_S is a hang: killed, and the test fails."""
    try:
        out, _ = p.communicate(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        pytest.fail(f"a child hung (killed after {BOUND_S} s); its output:\n{out}")
    return p.returncode, out


def wait_for_files(paths, procs):
    deadline = time.monotonic() + BOUND_S
    while not all(os.path.exists(p) for p in paths):
        for p in procs:
            if p.poll() is not None:
                pytest.fail(f"a rank ended early:\n{p.communicate()[0]}")
        if time.monotonic() > deadline:
            pytest.fail("the job did not form")
        time.sleep(0.05)


def wait_listening(port, procs):
    deadline = time.monotonic() + BOUND_S
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            pass
        for p in procs:
            if p.poll() is not None:
                pytest.fail(f"rank 0 ended early:\n{p.communicate()[0]}")
        if time.monotonic() > deadline:
            pytest.fail("rank 0 never listened")
        time.sleep(0.05)


def held_job(tmp_path, script, port, via_launcher, **env):
    """A 2-rank job that has formed and waits for tmp_path/hold; returns (procs, release)."""
    ready = tmp_path / "ready"
    ready.mkdir()
    hold = tmp_path / "hold"
    env.update(MF_READY_DIR=ready, MF_HOLD=hold)
    if via_launcher:
        procs = [spawn_launcher(script, port, 2, **env)]
    else:
        procs = [spawn_rank(script, port, r, 2, **env) for r in range(2)]
    wait_for_files([ready / "rank0", ready / "rank1"], procs)
    return procs, lambda: hold.touch()


# ------------------------------------------------------------------ item 6

@pytest.mark.parametrize("identity", ["torchrun-env", "job-id"])
def test_duplicate_rank_is_refused_at_once(tmp_path, script, identity):
    port = free_port()
    env = {"MONOFLOW_JOB_ID": "job-a"} if identity == "job-id" else {}
    procs, release = held_job(tmp_path, script, port, False, **env)
    # A second rank 1 and a second rank 0 of the same job, while it runs.
    code, out = finish(spawn_rank(script, port, 1, 2, **env))
    assert code == 1 and "duplicate rank 1" in out, out
    assert f"pid {procs[1].pid}" in out, out   # names the process that holds the rank
    code, out = finish(spawn_rank(script, port, 0, 2, **env))
    assert code == 1 and "already in use" in out and "duplicate rank 0" in out, out
    release()
    for p in procs:   # the job itself is untouched
        code, out = finish(p)
        assert code == 0 and "AGAIN 3.0" in out, out


# ------------------------------------------------------------------ item 7

def test_second_job_on_the_port_is_refused_and_the_first_unharmed(tmp_path, script):
    port = free_port()
    procs, release = held_job(tmp_path, script, port, True, MF_VALUE=1)
    # Job B through the launcher: its rank 0 cannot take the port and says who has it, or its
    # rank 1, faster, reaches job A's store and is refused first (the launcher reports the first)
    code, out = finish(spawn_launcher(script, port, 2, MF_VALUE=100))
    assert code != 0 and "serves job" in out and ("already in use" in out or "belongs to job" in out), out
    # A rank of another job reaching the store is refused, naming both jobs.
    code, out = finish(spawn_rank(script, port, 1, 2, MONOFLOW_JOB_ID="job-b", MF_VALUE=100))
    assert code == 1 and "belongs to job 'job-b'" in out and "serves job '" in out, out
    release()
    code, out = finish(procs[0])
    assert code == 0 and out.count("AGAIN 3.0") == 2, out   # 1+0 + 1+1: nothing of job B's


@pytest.mark.parametrize("round_", range(3))
def test_two_jobs_started_together_never_mix(tmp_path, script, round_):
    port = free_port()
    (tmp_path / "ready").mkdir()
    hold = tmp_path / "hold"
    common = dict(MF_READY_DIR=tmp_path / "ready", MF_HOLD=hold)
    jobs = [spawn_launcher(script, port, 2, MF_VALUE=v, **common) for v in (1, 100)]
    # Exactly one job gets the port; the other must fail on its own, before release.
    deadline = time.monotonic() + BOUND_S
    while all(j.poll() is None for j in jobs):
        assert time.monotonic() < deadline, "neither job failed: both formed on one port?"
        time.sleep(0.05)
    hold.touch()
    results = [finish(j) for j in jobs]
    codes = sorted(c for c, _ in results)
    assert codes[0] == 0 and codes[1] != 0, results
    winner = next(out for c, out in results if c == 0)
    sums = {float(line.split()[-1]) for line in winner.splitlines() if "JOINED" in line or "AGAIN" in line}
    assert sums in ({3.0}, {201.0}), winner   # one job's own values only


# ------------------------------------------------------------------ item 8

def test_rank_outside_world_size_fails_every_rank_at_once(script):
    port = free_port()
    rank0 = spawn_rank(script, port, 0, 2)
    wait_listening(port, [rank0])
    code, out = finish(spawn_rank(script, port, 5, 2))
    assert code == 1 and "ValueError" in out and "rank 5 is out of range for world_size 2" in out, out
    assert "outside WORLD_SIZE=2" in out, out   # and it told the job's store
    code, out = finish(rank0)
    assert code == 1 and "rank 5" in out and "outside WORLD_SIZE=2" in out, out
    assert "enforce fail" not in out


def test_ranks_that_disagree_about_world_size_all_fail_at_once(script):
    port = free_port()
    rank0 = spawn_rank(script, port, 0, 2)
    code1, out1 = finish(spawn_rank(script, port, 1, 3))
    code0, out0 = finish(rank0)
    for code, out in ((code0, out0), (code1, out1)):
        assert code == 1 and "has WORLD_SIZE=3" in out and "WORLD_SIZE=2 (rank 0's)" in out, out


def test_store_argument_rank_is_validated_up_front():
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    with pytest.raises(ValueError, match="rank 5 is out of range for world_size 2"):
        dist.init_process_group("gloo", store=store, rank=5, world_size=2)
    assert not dist.is_initialized()


# ------------------------------------------------------------------ secret

def store_pair(monkeypatch, server_secret, client_secret):
    def use(secret):
        if secret is None:
            monkeypatch.delenv("MONOFLOW_STORE_SECRET", raising=False)
        else:
            monkeypatch.setenv("MONOFLOW_STORE_SECRET", secret)
    monkeypatch.delenv("MONOFLOW_STORE_SECRET_FILE", raising=False)
    use(server_secret)
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    use(client_secret)
    return server, lambda: dist.TCPStore("127.0.0.1", server.port, timeout=timedelta(seconds=5))


def test_shared_secret_admits(monkeypatch):
    server, client = store_pair(monkeypatch, "s3cret", "s3cret")
    c = client()
    c.set("k", b"v")
    assert server.get("k") == b"v"


@pytest.mark.parametrize("server_secret, client_secret, message", [
    ("s3cret", "wrong", "authentication failed"),
    ("s3cret", None, "requires the job's shared secret"),
    (None, "s3cret", "does not ask for a secret"),
])
def test_secret_mismatch_is_refused(monkeypatch, server_secret, client_secret, message):
    server, client = store_pair(monkeypatch, server_secret, client_secret)
    with pytest.raises(RuntimeError, match=message):
        client()
    server.set("still", b"works")   # a refused stranger changes nothing


def test_secret_file(monkeypatch, tmp_path):
    f = tmp_path / "secret"
    f.write_text("from-a-file\n")
    server, _ = store_pair(monkeypatch, "from-a-file", None)
    monkeypatch.setenv("MONOFLOW_STORE_SECRET_FILE", str(f))
    dist.TCPStore("127.0.0.1", server.port, timeout=timedelta(seconds=5)).set("k", b"1")
    monkeypatch.setenv("MONOFLOW_STORE_SECRET_FILE", str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="cannot read MONOFLOW_STORE_SECRET_FILE"):
        dist.TCPStore("127.0.0.1", server.port, timeout=timedelta(seconds=5))


def test_job_with_a_secret_and_a_rank_without_it(tmp_path, script):
    port = free_port()
    procs, release = held_job(tmp_path, script, port, False, MONOFLOW_STORE_SECRET="job-secret")
    code, out = finish(spawn_rank(script, port, 1, 2, MONOFLOW_STORE_SECRET="guess"))
    assert code == 1 and "authentication failed" in out, out
    release()
    for p in procs:
        code, out = finish(p)
        assert code == 0 and "AGAIN 3.0" in out, out


# The wire format of Note [TCPStore handshake], spoken from Python with the
# standard library's HMAC-SHA-256: checks the C++ implementation against it
# from both sides, and that the secret itself never crosses the wire.
def frame(payload):
    return struct.pack("<I", len(payload)) + payload


def pstr(b):
    return struct.pack("<I", len(b)) + b


def read_frame(sock):
    def exactly(n):
        buf = b""
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            if not chunk:
                raise EOFError("closed")
            buf += chunk
        return buf
    (n,) = struct.unpack("<I", exactly(4))
    return exactly(n)


def hello(job, rank, world, nonce):
    return b"\x06" + pstr(job) + struct.pack("<qq", rank, world) + pstr(b"pyhost") + struct.pack("<q", os.getpid()) \
        + struct.pack("<I", 0) + pstr(nonce)


@pytest.mark.parametrize("secret", [b"short", b"k" * 100])   # 100 bytes: longer than HMAC's block
def test_real_server_speaks_hmac_sha256(monkeypatch, secret):
    monkeypatch.setenv("MONOFLOW_STORE_SECRET", secret.decode())
    monkeypatch.delenv("MONOFLOW_JOB_ID", raising=False)
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        greeting = read_frame(s)
        assert greeting[:4] == b"MFST" and greeting[5] == 1
        server_nonce = greeting[6:]
        client_nonce = os.urandom(32)
        body = hello(b"", -1, -1, client_nonce)
        mac = hmac.new(secret, b"client" + server_nonce + body, hashlib.sha256).digest()
        s.sendall(frame(body + pstr(mac)))
        reply = read_frame(s)
        assert reply[0] == 0, reply
        assert reply[1:] == hmac.new(secret, b"server" + client_nonce + server_nonce, hashlib.sha256).digest()
        s.sendall(frame(b"\x01" + pstr(b"py-key") + pstr(b"py-value")))   # SET, now that we are in
        assert read_frame(s)[0] == 0
    assert server.get("py-key") == b"py-value"


def test_client_proves_the_secret_without_sending_it(monkeypatch):
    secret = b"never-on-the-wire"
    seen = {}
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    server_nonce = os.urandom(32)

    def fake_server():
        conn, _ = listener.accept()
        with conn:
            conn.sendall(frame(b"MFST\x01\x01" + server_nonce))
            seen["hello"] = read_frame(conn)
            conn.sendall(frame(b"\x01" + b"fake server: done"))
    t = threading.Thread(target=fake_server, daemon=True)
    t.start()
    monkeypatch.setenv("MONOFLOW_STORE_SECRET", secret.decode())
    with pytest.raises(RuntimeError, match="fake server: done"):
        dist.TCPStore("127.0.0.1", listener.getsockname()[1], timeout=timedelta(seconds=5))
    t.join(10)
    listener.close()
    data = seen["hello"]
    assert secret not in data
    (mac_len,) = struct.unpack("<I", data[-36:-32])
    assert mac_len == 32
    assert data[-32:] == hmac.new(secret, b"client" + server_nonce + data[:-36], hashlib.sha256).digest()


def test_strangers_without_handshake_are_dropped():
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        read_frame(s)
        s.sendall(frame(b"\x01" + pstr(b"evil") + pstr(b"1")))   # SET before the handshake
        reply = read_frame(s)
        assert reply[0] == 1 and b"before the handshake" in reply
        with pytest.raises((EOFError, ConnectionResetError)):
            read_frame(s)
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        read_frame(s)
        s.sendall(struct.pack("<I", 1 << 30))   # a huge frame before the handshake: not buffered
        with pytest.raises((EOFError, ConnectionResetError)):
            read_frame(s)
    assert not server.check(["evil"])
    server.set("fine", b"1")


def test_not_a_monoflow_store_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        with pytest.raises(RuntimeError, match="not a monoflow store"):
            dist.TCPStore("127.0.0.1", s.getsockname()[1], timeout=timedelta(seconds=1))


# ------------------------------------------------------------------ binding

def listening_address(port):
    """The local address (hex, as /proc/net/tcp writes it) of the listener on `port`."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, _, state = line.split()[1:4]
            addr, p = local.split(":")
            if int(p, 16) == port and state == "0A":
                return addr
    return None


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="needs Linux's /proc/net/tcp")
def test_store_binds_master_addr_interface(monkeypatch):
    monkeypatch.delenv("MONOFLOW_STORE_BIND_ADDR", raising=False)
    local = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    assert listening_address(local.port) == "0100007F"   # 127.0.0.1 only
    monkeypatch.setenv("MONOFLOW_STORE_BIND_ADDR", "0.0.0.0")
    every = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    assert listening_address(every.port) == "00000000"
    every.set("k", b"v")   # rank 0 still reaches its own store


# ------------------------------------------------------------------ identity

@pytest.mark.parametrize("env, expected", [
    ({"MONOFLOW_JOB_ID": "m", "TORCHELASTIC_RUN_ID": "t", "SLURM_JOB_ID": "7"}, "m"),
    ({"TORCHELASTIC_RUN_ID": "t", "SLURM_JOB_ID": "7"}, "t"),
    ({"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "2"}, "slurm-7.2"),
    ({}, ""),
])
def test_job_id_from_the_environment(monkeypatch, env, expected):
    for k in ("MONOFLOW_JOB_ID", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "SLURM_STEP_ID"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert rendezvous.job_id() == expected
