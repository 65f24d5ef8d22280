"""Collectives, stores and process groups across real processes.

The checks that need several ranks run in one job per world size (a worker
script started by the launcher, which records every check's outcome per rank
in a JSON file); the tests below assert on those records, so that the suite
pays the start-up of 2 + 4 processes once. Single-process checks (stores,
errors) run in the test process with world_size=1.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from datetime import timedelta

import numpy as np
import pytest

import monoflow as flow
import monoflow.distributed as dist
from helpers import network_namespaces

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")

WORKER = r'''
import json, os, sys, traceback
import numpy as np
import monoflow as flow
import monoflow.distributed as dist
from monoflow.distributed import ReduceOp

dist.init_process_group("gloo", timeout=float(os.environ.get("MF_TEST_TIMEOUT", "20")))
R, W = dist.get_rank(), dist.get_world_size()
results = {}

def check(name, fn):
    try:
        fn()
        results[name] = "ok"
    except Exception as e:  # recorded, asserted by pytest
        results[name] = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
NP = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int32": np.int32, "int64": np.int64,
      "float16": np.float32, "bfloat16": np.float32, "float32": np.float32, "float64": np.float64}

def data(r, dt, shape=(3, 4), op=None):
    rng = np.random.default_rng(100 + r)
    if dt == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    lo, hi = (1, 3) if op == ReduceOp.PRODUCT else (0, 6)
    return rng.integers(lo, hi, shape).astype(NP[dt])

def tens(a, dt):
    return flow.tensor(a).to(getattr(flow, dt)) if dt in ("float16", "bfloat16") else flow.tensor(a)

def host(t):
    return (t.float() if t.dtype in (flow.float16, flow.bfloat16) else t).numpy()

def ref_reduce(arrays, op):
    st = np.stack([a.astype(np.float64) if a.dtype != np.bool_ else a for a in arrays])
    if st.dtype == np.bool_:
        return st.any(0) if op in (ReduceOp.SUM, ReduceOp.MAX) else st.all(0)
    f = {ReduceOp.SUM: np.sum, ReduceOp.PRODUCT: np.prod, ReduceOp.MIN: np.min, ReduceOp.MAX: np.max,
         ReduceOp.AVG: np.mean}[op]
    return f(st, axis=0)

def close(got, want, dt):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=1e-2 if dt in ("float16", "bfloat16") else 1e-6)

def all_reduce_case(dt, op, noncontig):
    def run():
        shape = (4, 3) if noncontig else (3, 4)
        arrays = [data(r, dt, shape, op) for r in range(W)]
        t = tens(arrays[R], dt)
        if noncontig:
            t = t.T
            arrays = [a.T for a in arrays]
        dist.all_reduce(t, op=op)
        close(host(t), ref_reduce(arrays, op), dt)
    return run

for dt in DTYPES:
    ops = [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX]
    if dt.startswith("float") or dt == "bfloat16":
        ops.append(ReduceOp.AVG)
    for op in ops:
        check(f"all_reduce/{dt}/{op.name}", all_reduce_case(dt, op, False))
    check(f"all_reduce_noncontig/{dt}", all_reduce_case(dt, ReduceOp.SUM, True))

for dt in ["bool", "uint8", "int8", "int32", "int64", "float32", "float64"]:
    # long enough for the vectorised loop bodies (Note [Reduction loops and AVX2]), odd for their tails
    for op in [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX]:
        def large(dt=dt, op=op):
            arrays = [data(r, dt, (1001,), op) for r in range(W)]
            t = tens(arrays[R], dt)
            dist.all_reduce(t, op=op)
            close(host(t), ref_reduce(arrays, op), dt)
        check(f"all_reduce/large/{dt}/{op.name}", large)

def int_avg_refused():
    try:
        dist.all_reduce(flow.tensor([1, 2]), op=ReduceOp.AVG)
    except ValueError as e:
        assert "AVG" in str(e)
        return
    raise AssertionError("no error")
check("all_reduce/int_avg_refused", int_avg_refused)

def after_compute():
    # queued compute on the stream must finish before the engine reads
    x = flow.arange(20000).float() * (R + 1) + 1
    dist.all_reduce(x)
    want = np.arange(20000, dtype=np.float64) * sum(range(1, W + 1)) + W
    close(x.numpy(), want, "float32")
check("all_reduce/after_compute", after_compute)

def broadcast_case(dt):
    def run():
        src = W - 1
        arrays = [data(r, dt, (5, 3)) for r in range(W)]
        t = tens(arrays[R], dt).T   # non-contiguous
        dist.broadcast(t, src=src)
        close(host(t), arrays[src].T, dt)
    return run
for dt in DTYPES:
    check(f"broadcast/{dt}", broadcast_case(dt))

def reduce_case(dt, op):
    def run():
        dst = 1 % W
        arrays = [data(r, dt, (2, 5), op) for r in range(W)]
        t = tens(arrays[R], dt)
        dist.reduce(t, dst=dst, op=op)
        close(host(t), ref_reduce(arrays, op) if R == dst else arrays[R], dt)
    return run
for dt in ["int32", "float32", "float16", "float64", "bool"]:
    check(f"reduce/{dt}/SUM", reduce_case(dt, ReduceOp.SUM))
check("reduce/float32/MAX", reduce_case("float32", ReduceOp.MAX))

def all_gather_case(dt):
    def run():
        arrays = [data(r, dt, (r + 1,)) for r in range(W)]   # uneven sizes
        out = [tens(np.zeros(r + 1, a.dtype), dt) for r, a in enumerate(arrays)]
        dist.all_gather(out, tens(arrays[R], dt))
        for r in range(W):
            close(host(out[r]), arrays[r], dt)
    return run
for dt in DTYPES:
    check(f"all_gather/{dt}", all_gather_case(dt))

def all_gather_into_tensor():
    x = flow.arange(6).reshape(2, 3) + 10 * R
    out = flow.zeros(W * 2, 3, dtype=flow.int64)
    dist.all_gather_into_tensor(out, x)
    want = np.concatenate([np.arange(6).reshape(2, 3) + 10 * r for r in range(W)])
    np.testing.assert_array_equal(out.numpy(), want)
check("all_gather_into_tensor", all_gather_into_tensor)

def reduce_scatter_case(dt, op):
    def run():
        sizes = [r + 2 for r in range(W)]   # uneven
        inputs = {r: [data(10 * r + j, dt, (sizes[j],), op) for j in range(W)] for r in range(W)}
        out = tens(np.zeros(sizes[R], NP[dt]), dt)
        dist.reduce_scatter(out, [tens(a, dt) for a in inputs[R]], op=op)
        close(host(out), ref_reduce([inputs[r][R] for r in range(W)], op), dt)
    return run
for dt in ["int64", "float32", "bfloat16", "float64", "uint8"]:
    check(f"reduce_scatter/{dt}/SUM", reduce_scatter_case(dt, ReduceOp.SUM))
check("reduce_scatter/float32/AVG", reduce_scatter_case("float32", ReduceOp.AVG))
check("reduce_scatter/int32/MIN", reduce_scatter_case("int32", ReduceOp.MIN))

def reduce_scatter_tensor():
    full = [np.arange(W * 3, dtype=np.float32) * (r + 1) for r in range(W)]
    out = flow.zeros(3)
    dist.reduce_scatter_tensor(out, flow.tensor(full[R]))
    close(out.numpy(), sum(full)[3 * R:3 * R + 3], "float32")
check("reduce_scatter_tensor", reduce_scatter_tensor)

def gather_scatter():
    x = flow.tensor([float(R), R + 0.5])
    lst = [flow.zeros(2) for _ in range(W)] if R == 0 else None
    dist.gather(x, lst, dst=0)
    if R == 0:
        for r in range(W):
            close(lst[r].numpy(), [r, r + 0.5], "float32")
    src = W - 1
    parts = [flow.full((2, 2), float(r * 3)).T for r in range(W)] if R == src else None
    y = flow.zeros(2, 2)
    dist.scatter(y, parts, src=src)
    close(y.numpy(), np.full((2, 2), R * 3.0), "float32")
check("gather_scatter", gather_scatter)

def all_to_all():
    # rank r sends r + j + 1 elements to rank j
    ins = [flow.full((R + j + 1,), float(100 * R + j)) for j in range(W)]
    outs = [flow.zeros(j + R + 1) for j in range(W)]
    dist.all_to_all(outs, ins)
    for j in range(W):
        close(outs[j].numpy(), np.full(j + R + 1, 100.0 * j + R), "float32")
check("all_to_all", all_to_all)

def all_to_all_single():
    in_splits = [R + 1] * W
    out_splits = [j + 1 for j in range(W)]
    x = flow.arange(sum(in_splits) * 2).reshape(-1, 2) + 1000 * R
    out = flow.zeros(sum(out_splits), 2, dtype=flow.int64)
    dist.all_to_all_single(out, x, out_splits, in_splits)
    want = []
    for j in range(W):
        xj = np.arange(W * (j + 1) * 2).reshape(-1, 2) + 1000 * j
        want.append(xj[R * (j + 1):(R + 1) * (j + 1)])
    np.testing.assert_array_equal(out.numpy(), np.concatenate(want))
check("all_to_all_single", all_to_all_single)

def send_recv():
    nxt, prv = (R + 1) % W, (R - 1) % W
    a = flow.arange(5).float() + R
    b = flow.zeros(5)
    ws = [dist.isend(a, nxt), dist.irecv(b, prv)]
    a2 = flow.full((3,), float(R))
    b2 = flow.zeros(3)
    ws += [dist.isend(a2, nxt), dist.irecv(b2, prv)]   # second message on the same pair keeps order
    for w in ws:
        w.wait()
    close(b.numpy(), np.arange(5) + prv, "float32")
    close(b2.numpy(), np.full(3, prv), "float32")
    if R == 0:
        dist.send(flow.tensor([7, 8, 9]), 1)
    elif R == 1:
        t = flow.zeros(3, dtype=flow.int64)
        dist.recv(t, 0)
        np.testing.assert_array_equal(t.numpy(), [7, 8, 9])
check("send_recv", send_recv)

def async_ops():
    ts = [flow.full((1000,), float(R + k)) for k in range(4)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    works.append(dist.barrier(async_op=True))
    nc = flow.arange(12).float().reshape(3, 4).T * (R + 1)   # staged: result lands at wait()
    wnc = dist.all_reduce(nc, async_op=True)
    for w in works:
        w.wait()
        assert w.is_completed()
    wnc.wait()
    for k, t in enumerate(ts):
        close(t.numpy(), np.full(1000, sum(r + k for r in range(W))), "float32")
    close(nc.numpy(), np.arange(12).reshape(3, 4).T * sum(range(1, W + 1)), "float32")
check("async", async_ops)

def subgroups():
    if W == 2:
        g = dist.new_group([1])
        if R == 1:
            t = flow.tensor([5.0])
            dist.all_reduce(t, group=g)
            assert t.item() == 5.0 and dist.get_rank(g) == 0 and dist.get_world_size(g) == 1
        else:
            assert g is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(g) == -1
        return
    lo, hi = dist.new_group([0, 1]), dist.new_group([2, 3])
    evens = dist.new_group([0, 2])
    mine = lo if R < 2 else hi
    t = flow.tensor([float(R)])
    dist.all_reduce(t, group=mine)
    assert t.item() == (1.0 if R < 2 else 5.0), t.item()
    assert dist.get_rank(mine) == R % 2 and dist.get_world_size(mine) == 2
    other = hi if R < 2 else lo
    assert other is dist.GroupMember.NON_GROUP_MEMBER
    if R % 2 == 0:
        b = flow.tensor([float(R)])
        dist.broadcast(b, src=2, group=evens)   # src is a global rank
        assert b.item() == 2.0
        dist.barrier(group=evens)
check("subgroups", subgroups)

def oneflow_names():
    assert flow.env.get_rank() == R and flow.env.get_world_size() == W
    assert flow.env.get_local_rank() == int(os.environ["LOCAL_RANK"]) and flow.env.get_node_size() == 1
    t = flow.tensor([float(R + 1)])
    flow.comm.all_reduce(t)
    assert t.item() == W * (W + 1) / 2
    if R == 0:
        flow.comm.send(flow.arange(6).reshape(2, 3).to(flow.int32), 1)
    elif R == 1:
        got = flow.comm.recv(0)
        assert got.dtype == flow.int32 and tuple(got.shape) == (2, 3)
        np.testing.assert_array_equal(got.numpy(), np.arange(6).reshape(2, 3))
    flow.comm.barrier()
check("oneflow_names", oneflow_names)

def comm_stats():
    # Note [Traffic counters]: bytes this rank receives from peers, per call.
    from monoflow.distributed.collectives import get_comm_stats, reset_comm_stats
    dist.barrier()
    reset_comm_stats()
    assert get_comm_stats() == {"bytes": 0, "calls": 0}
    total = {"bytes": 0, "calls": 0}

    def expect(what, nbytes, calls=1):
        total["bytes"] += nbytes
        total["calls"] += calls
        got = get_comm_stats()
        assert got == total, f"after {what}: got {got}, expected {total}"

    dist.all_reduce(flow.ones(10))                                   # N = 40
    expect("all_reduce", 2 * (W - 1) * 40 // W)
    dist.all_reduce(flow.ones(5, dtype=flow.int8))                   # N = 5: integer division last
    expect("all_reduce int8", 2 * (W - 1) * 5 // W)
    dist.all_reduce(flow.ones(6).to(flow.float16))                   # staged through float32: N = 24
    expect("all_reduce float16", 2 * (W - 1) * 24 // W)
    dist.broadcast(flow.zeros(7, dtype=flow.float64), src=W - 1)     # N = 56
    expect("broadcast", 0 if R == W - 1 else 56)
    dist.reduce(flow.ones(5, dtype=flow.int32), dst=0)               # N = 20
    expect("reduce", (2 if R == 0 else 1) * (W - 1) * 20 // W)
    outs = [flow.zeros(j + 1) for j in range(W)]                     # uneven: rank j has j + 1 floats
    dist.all_gather(outs, flow.ones(R + 1))
    expect("all_gather uneven", (W * (W + 1) // 2 - (R + 1)) * 4)
    dist.all_gather_into_tensor(flow.zeros(3 * W, dtype=flow.int64), flow.ones(3, dtype=flow.int64))
    expect("all_gather_into_tensor", (W - 1) * 3 * 8)
    sizes = [j + 2 for j in range(W)]                                # uneven parts
    dist.reduce_scatter(flow.zeros(sizes[R]), [flow.ones(n) for n in sizes])
    expect("reduce_scatter uneven", (sum(sizes) - sizes[R]) * 4)
    dist.reduce_scatter_tensor(flow.zeros(3, dtype=flow.float64), flow.ones(3 * W, dtype=flow.float64))
    expect("reduce_scatter_tensor", (W - 1) * 3 * 8)
    dist.all_to_all([flow.zeros(j + R + 1) for j in range(W)], [flow.ones(R + j + 1) for j in range(W)])
    expect("all_to_all", sum((j + R + 1) * 4 for j in range(W) if j != R))
    dist.all_to_all_single(flow.zeros(2 * W, dtype=flow.int32), flow.ones(2 * W, dtype=flow.int32))
    expect("all_to_all_single", (W - 1) * 2 * 4)
    dist.gather(flow.ones(3), [flow.zeros(3) for _ in range(W)] if R == 0 else None, dst=0)
    expect("gather", (W - 1) * 12 if R == 0 else 0)
    dist.scatter(flow.zeros(3), [flow.ones(3) for _ in range(W)] if R == 0 else None, src=0)
    expect("scatter", 0 if R == 0 else 12)
    dist.barrier()
    expect("barrier", 0)
    if R == 0:
        dist.send(flow.ones(3, dtype=flow.int64), 1)
        expect("send", 0)
    elif R == 1:
        dist.recv(flow.zeros(3, dtype=flow.int64), 0)
        expect("recv", 24)
    w = dist.all_reduce(flow.ones(100), async_op=True)
    w.wait()
    expect("async all_reduce", 2 * (W - 1) * 400 // W)
    # Each group counts its own traffic; a non-member sees zeros.
    g = dist.new_group(list(range(W)))
    outside = dist.new_group([W - 1])
    dist.all_reduce(flow.ones(8), group=g)
    assert get_comm_stats(g) == {"bytes": 2 * (W - 1) * 32 // W, "calls": 1}, get_comm_stats(g)
    assert get_comm_stats() == total, "the default group counted a subgroup's call"
    if R != W - 1:
        assert get_comm_stats(outside) == {"bytes": 0, "calls": 0}
    reset_comm_stats(g)
    assert get_comm_stats(g) == {"bytes": 0, "calls": 0} and get_comm_stats() == total
    reset_comm_stats()
    assert get_comm_stats() == {"bytes": 0, "calls": 0}
check("comm_stats", comm_stats)

def size_mismatch():
    # Note [Gloo sizes are checked first]: a rank passing a bigger tensor than its peers expect is the
    # same RuntimeError on every rank (Gloo itself aborts the process), and the group stays usable
    n = 4 + R
    def refused(fn, *words):
        try:
            fn()
        except RuntimeError as e:
            assert all(w in str(e) for w in words), str(e)
        else:
            raise AssertionError(f"no error: {fn}")
    refused(lambda: dist.all_gather_into_tensor(flow.empty(W * n), flow.ones(n)), "all_gather", "different sizes")
    refused(lambda: dist.all_gather([flow.empty(n) for _ in range(W)], flow.ones(n)), "all_gather",
            "different sizes")
    refused(lambda: dist.reduce_scatter_tensor(flow.empty(n), flow.ones(W * n)), "reduce_scatter",
            "different sizes")
    refused(lambda: dist.all_to_all_single(flow.empty(W * n), flow.ones(W * n)), "all_to_all", "different sizes")
    # all_reduce/broadcast/reduce cannot overflow, but mismatched ranks got garbage and fell out of step
    refused(lambda: dist.all_reduce(flow.ones(n)), "all_reduce", "different sizes")
    refused(lambda: dist.all_reduce(flow.ones(4, dtype=flow.float64 if R else flow.float32)), "all_reduce",
            "different", "dtypes")
    refused(lambda: dist.broadcast(flow.ones(n), 0), "broadcast", "different sizes")
    refused(lambda: dist.reduce(flow.ones(n), 0), "reduce", "different sizes")
    if R == 0:
        dist.send(flow.ones(5), 1)
    elif R == 1:
        refused(lambda: dist.recv(flow.empty(4), 0), "recv", "sent 20 bytes", "expected 16")
    x = flow.full((3,), float(R))
    dist.all_reduce(x)
    assert x.tolist() == [sum(range(W))] * 3
    out = flow.empty(W * 2)
    dist.all_gather_into_tensor(out, flow.full((2,), float(R)))
    assert out.tolist() == [float(r) for r in range(W) for _ in range(2)]
check("size_mismatch", size_mismatch)

with open(os.path.join(os.environ["MF_TEST_OUT"], f"rank{R}.json"), "w") as f:
    json.dump(results, f)
dist.destroy_process_group()
print("worker done", R)
'''

# A rank that dies or never arrives; rank 0 reports how its collective ended.
FAILING = r'''
import os, sys, time, signal
import monoflow as flow
import monoflow.distributed as dist
mode = sys.argv[1]
dist.init_process_group("gloo", timeout=float(os.environ["MF_TEST_TIMEOUT"]))
R = dist.get_rank()
t = flow.ones(1000)
dist.all_reduce(t)   # one collective that works
if R == 1:
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)   # "hang": alive, never arrives
t0 = time.monotonic()
try:
    for _ in range(3):
        dist.all_reduce(t)
    print("NO ERROR", flush=True)
except RuntimeError as e:
    print(f"RAISED after {time.monotonic() - t0:.2f}s: {e}", flush=True)
os._exit(0)
'''


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env(**extra):
    env = dict(os.environ)
    env.pop("MONOFLOW_TESTDEV_BUILD", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def launch(tmp_path, script, nproc, *args, timeout=120, env=None, launcher_args=()):
    path = tmp_path / "script.py"
    path.write_text(script)
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", str(nproc),
           "--master-port", str(free_port()), *launcher_args, str(path), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env or child_env(),
                          cwd=str(tmp_path))


def run_worker(tmp_path_factory, world):
    out = tmp_path_factory.mktemp(f"world{world}")
    r = launch(out, WORKER, world, env=child_env(MF_TEST_OUT=out), timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return [json.loads((out / f"rank{k}.json").read_text()) for k in range(world)]


@pytest.fixture(scope="module")
def world2(tmp_path_factory):
    return run_worker(tmp_path_factory, 2)


@pytest.fixture(scope="module")
def world4(tmp_path_factory):
    return run_worker(tmp_path_factory, 4)


def assert_checks(results, prefix):
    names = [n for n in results[0] if n == prefix or n.startswith(prefix + "/")]
    assert names, f"no check named {prefix}"
    failed = {f"rank {r}: {n}": res[n] for r, res in enumerate(results) for n in names if res[n] != "ok"}
    assert not failed, "\n".join(f"{k}: {v}" for k, v in failed.items())


CHECKS = ["all_reduce", "all_reduce_noncontig", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
          "reduce_scatter", "reduce_scatter_tensor", "gather_scatter", "all_to_all", "all_to_all_single",
          "send_recv", "async", "subgroups", "oneflow_names", "comm_stats", "size_mismatch"]


@pytest.mark.parametrize("check", CHECKS)
def test_world2(world2, check):
    assert_checks(world2, check)


@pytest.mark.parametrize("check", CHECKS)
def test_world4(world4, check):
    assert_checks(world4, check)


# ------------------------------------------------------------ failures

def _spawn_ranks(tmp_path, script, world, args, timeout_s):
    path = tmp_path / "fail.py"
    path.write_text(script)
    port = free_port()
    procs = []
    for r in range(world):
        env = child_env(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, WORLD_SIZE=world, RANK=r, LOCAL_RANK=r,
                        MF_TEST_TIMEOUT=timeout_s)
        procs.append(subprocess.Popen([sys.executable, str(path), *args], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    return procs


@pytest.mark.parametrize("mode", ["kill", "hang"])
def test_dead_or_missing_peer_raises(tmp_path, mode):
    timeout_s = 3
    procs = _spawn_ranks(tmp_path, FAILING, 2, [mode], timeout_s)
    try:
        # Bounded: a hang shows up as TimeoutExpired, not as a stuck suite.
        out, _ = procs[0].communicate(timeout=60)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
    assert "RAISED" in out, out
    assert "NO ERROR" not in out
    assert "all_reduce" in out and "gloo" in out, out
    if mode == "hang":
        # the timeout is what ended it: gloo says so
        assert "imed out" in out or "timeout" in out.lower(), out


def test_launcher_names_killed_rank(tmp_path):
    r = launch(tmp_path, FAILING, 2, "kill", env=child_env(MF_TEST_TIMEOUT=5), timeout=60)
    assert r.returncode != 0
    assert "rank 1" in r.stderr and "SIGKILL" in r.stderr, r.stderr


def test_port_in_use_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"port {port}.*already in use"):
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1,
                                    timeout=timedelta(seconds=5))
    assert not dist.is_initialized()


# ------------------------------------------------------------ in-process

def test_world_of_one_and_api_errors():
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1,
                            timeout=timedelta(seconds=10))
    try:
        assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
        assert dist.get_backend() == "gloo"
        t = flow.tensor([1.0, 2.0])
        w = dist.all_reduce(t, async_op=True)
        w.wait()
        assert w.is_completed() and t.tolist() == [1.0, 2.0]
        with pytest.raises(TypeError, match="all_reduce: tensor must be a monoflow Tensor"):
            dist.all_reduce([1, 2])
        with pytest.raises(ValueError, match="all_gather: tensor_list must hold one tensor per rank"):
            dist.all_gather([flow.zeros(2), flow.zeros(2)], t)
        with pytest.raises(ValueError, match="broadcast: global rank 3 is not in the group"):
            dist.broadcast(t, src=3)
        with pytest.raises(RuntimeError, match="already initialized"):
            dist.init_process_group("gloo")
        from monoflow.distributed.collectives import get_comm_stats, reset_comm_stats
        reset_comm_stats()
        dist.all_reduce(flow.ones(4))
        dist.broadcast(flow.ones(4), src=0)
        assert get_comm_stats() == {"bytes": 0, "calls": 2}   # a group of one receives nothing
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="not initialized"):
        dist.all_reduce(flow.zeros(1))
    from monoflow.distributed.collectives import get_comm_stats
    with pytest.raises(RuntimeError, match="get_comm_stats: the default process group is not initialized"):
        get_comm_stats()


def test_env_without_launcher_variables(monkeypatch):
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    monkeypatch.delenv("MASTER_PORT", raising=False)
    with pytest.raises(ValueError, match="MASTER_ADDR and MASTER_PORT not set"):
        dist.init_process_group("gloo")
    with pytest.raises(ValueError, match="unknown backend 'ucc'"):
        dist.init_process_group("ucc")


def test_tcp_store_ops_and_timeouts():
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=1))
    client = dist.TCPStore("127.0.0.1", server.port, timeout=timedelta(seconds=1))
    client.set("a", b"hello")
    assert server.get("a") == b"hello"
    assert client.add("n", 2) == 2 and server.add("n", 3) == 5
    assert server.check(["a", "n"]) and not server.check(["a", "missing"])
    client.wait(["a"])
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out .* 'missing'"):
        client.get("missing")
    with pytest.raises(RuntimeError, match="timed out"):
        client.wait(["a", "nope"])
    assert time.monotonic() - t0 < 30  # bounded, not hung
    client.set("b", "after timeouts")   # the connection recovers
    assert server.get("b") == b"after timeouts"


def test_tcp_store_unreachable_master():
    with pytest.raises(RuntimeError, match="could not connect to 127.0.0.1"):
        dist.TCPStore("127.0.0.1", free_port(), timeout=timedelta(seconds=0.5))


def test_file_store(tmp_path):
    a = dist.FileStore(str(tmp_path / "fs"), timeout=timedelta(seconds=0.5))
    b = dist.FileStore(str(tmp_path / "fs"), timeout=timedelta(seconds=0.5))
    a.set("x/y", b"1")
    assert b.get("x/y") == b"1"
    assert a.add("c", 1) == 1 and b.add("c", 1) == 2
    with pytest.raises(RuntimeError, match="FileStore: timed out"):
        b.get("never")


def test_file_init_method(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/rdv", rank=0, world_size=1,
                            timeout=timedelta(seconds=5))
    try:
        t = flow.tensor([3])
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        assert t.item() == 3
    finally:
        dist.destroy_process_group()


def test_nccl_missing_is_a_clear_error():
    if dist.is_nccl_available():
        pytest.skip("libnccl.so.2 is installed here")
    with pytest.raises(RuntimeError, match=r"libnccl\.so\.2 not found.*nvidia-nccl-cu12"):
        dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1,
                                timeout=timedelta(seconds=5))
    assert not dist.is_initialized()


# ------------------------------------------------------------ two machines

NETNS_SCRIPT = r'''
import monoflow as flow
import monoflow.distributed as dist
dist.init_process_group("gloo", timeout=20)
t = flow.tensor([float(dist.get_rank() + 1)] * 4)
dist.all_reduce(t)
print("SUM", t.tolist(), "node", flow.env.get_node_size())
'''


def test_two_machines_in_network_namespaces(tmp_path):
    with network_namespaces(f"mf{os.getpid() % 100000}", "10.77.0") as (a, b):
        script = tmp_path / "node.py"
        script.write_text(NETNS_SCRIPT)
        procs = []
        for node, ns in enumerate((a, b)):
            cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "monoflow.distributed.launch",
                   "--nnodes", "2", "--node_rank", str(node), "--nproc_per_node", "1",
                   "--master-addr", "10.77.0.1", "--master-port", "29611", str(script)]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                          env=child_env()))
        outs = []
        for p in procs:
            try:
                outs.append(p.communicate(timeout=90)[0])
            finally:
                if p.poll() is None:
                    p.kill()
        for p, out in zip(procs, outs):
            assert p.returncode == 0, out
        assert "[rank 0] SUM [3.0, 3.0, 3.0, 3.0] node 2" in outs[0], outs[0]
        assert "[rank 1] SUM [3.0, 3.0, 3.0, 3.0] node 2" in outs[1], outs[1]
