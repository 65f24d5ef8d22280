"""torch.distributed names monoflow lacked (issue 13): the *_object collectives
across real processes, and the Store classes (HashStore checked operation by
operation against torch's HashStore)."""
import json
import os
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
import monoflow.distributed as dist

torch = pytest.importorskip("torch")
tdist = pytest.importorskip("torch.distributed")

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")

WORKER = r'''
import json, os, traceback
import monoflow.distributed as dist

dist.init_process_group("gloo", timeout=60)
R, W = dist.get_rank(), dist.get_world_size()
results = {}

def check(name, fn):
    try:
        fn()
        results[name] = "ok"
    except Exception as e:
        results[name] = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"

def obj(r):  # a different size and type mix per rank; rank 1 sends something large
    return {"rank": r, "payload": "x" * (10 ** 5 if r == 1 else r), "nested": [r, (r, 2.5), {r}], "none": None}

def all_gather_object():
    out = [None] * W
    dist.all_gather_object(out, obj(R))
    assert out == [obj(r) for r in range(W)], out

def broadcast_object_list():
    for src in range(W):
        items = [obj(src), b"bytes", 7] if R == src else [None, None, None]
        dist.broadcast_object_list(items, src=src)
        assert items == [obj(src), b"bytes", 7]
    items = ["a", 1] if R == W - 1 else [None, None]
    dist.broadcast_object_list(items, group_src=W - 1)
    assert items == ["a", 1]

def gather_object():
    dst = W - 1
    out = [None] * W if R == dst else None
    dist.gather_object(obj(R), out, dst=dst)
    if R == dst:
        assert out == [obj(r) for r in range(W)]
    else:
        assert out is None

def scatter_object_list():
    out = [None]
    inputs = [obj(10 + r) for r in range(W)] if R == 0 else None
    dist.scatter_object_list(out, inputs, src=0)
    assert out == [obj(10 + R)]

def send_recv_object_list():
    if R == 0:
        dist.send_object_list([obj(0), "second"], dst=1)
    elif R == 1:
        got = [None, None]
        assert dist.recv_object_list(got, src=0) == 0
        assert got == [obj(0), "second"]

def subgroup():
    g = dist.new_group([0, W - 1])
    if R in (0, W - 1):
        out = [None, None]
        dist.all_gather_object(out, R, group=g)
        assert out == [0, W - 1]

def queries():
    assert dist.get_node_local_rank() == R and dist.is_torchelastic_launched()
    g = dist.new_group([1, 2])  # group rank = global rank - 1
    assert dist.get_pg_count() >= 2
    if R in (1, 2):
        assert dist.get_group_rank(g, R) == R - 1
        dist.monitored_barrier(g)
    else:
        try:
            dist.get_group_rank(g, R)
        except ValueError:
            pass
        else:
            raise AssertionError("get_group_rank of a non-member did not raise")
    dist.monitored_barrier()

def errors():
    for fn, args, exc in [(dist.all_gather_object, ([None], 1), ValueError),
                          (dist.all_gather_object, ("notalist", 1), TypeError),
                          (dist.scatter_object_list, ([], None), ValueError),
                          (dist.broadcast_object_list, ([1], 0, None, None, 0), ValueError)]:
        try:
            fn(*args)
        except exc:
            pass
        else:
            raise AssertionError(f"{fn.__name__}{args} did not raise {exc.__name__}")

for name in ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
             "send_recv_object_list", "subgroup", "queries", "errors"]:
    check(name, globals()[name])
with open(os.path.join(os.environ["MF_TEST_OUT"], f"rank{R}.json"), "w") as f:
    json.dump(results, f)
dist.destroy_process_group()
'''

CHECKS = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
          "send_recv_object_list", "subgroup", "queries", "errors"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def world3(tmp_path_factory):
    out = tmp_path_factory.mktemp("objects")
    script = out / "worker.py"
    script.write_text(WORKER)
    env = {**os.environ, "MF_TEST_OUT": str(out), "MONOFLOW_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "3",
           "--master-port", str(free_port()), str(script)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env, cwd=str(out))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return [json.loads((out / f"rank{k}.json").read_text()) for k in range(3)]


@pytest.mark.parametrize("check", CHECKS)
def test_object_collectives(world3, check):
    failed = {r: res[check] for r, res in enumerate(world3) if res[check] != "ok"}
    assert not failed, "\n".join(f"rank {r}: {v}" for r, v in failed.items())


# ------------------------------------------------------------ stores

OPS = st.one_of(
    st.tuples(st.just("set"), st.sampled_from("abc"), st.sampled_from(["", "1", "x", "12"])),
    st.tuples(st.just("add"), st.sampled_from("abn"), st.integers(-5, 5)),
    st.tuples(st.just("compare_set"), st.sampled_from("abc"), st.sampled_from(["", "1", "x"]),
              st.sampled_from(["y", "2", ""])),
    st.tuples(st.just("delete_key"), st.sampled_from("abcn")),
    st.tuples(st.just("check"), st.lists(st.sampled_from("abcn"), min_size=1, max_size=3)),
    st.tuples(st.just("num_keys")),
    st.tuples(st.just("get_present"), st.sampled_from("abcn")),
)


def _apply(store, op, has_key):
    name, *args = op
    if name == "get_present":
        return store.get(args[0]) if has_key(args[0]) else "absent"
    try:
        return getattr(store, name)(*args)
    except ValueError:
        return "ValueError"  # add() on a non-integer value, in both


@settings(max_examples=60, deadline=None)
@given(ops=st.lists(OPS, max_size=25))
def test_hash_store_matches_torch(ops):
    ours, ref = dist.HashStore(), tdist.HashStore()
    for op in ops:
        got = _apply(ours, op, lambda k: ours.check([k]))
        want = _apply(ref, op, lambda k: ref.check([k]))
        assert got == want, (op, got, want)


def test_hash_store_waits_and_times_out():
    s = dist.HashStore()
    s.set_timeout(timedelta(seconds=0.2))
    assert s.timeout == timedelta(seconds=0.2)
    with pytest.raises(dist.DistStoreError, match="timed out"):
        s.get("missing")
    with pytest.raises(RuntimeError, match="timed out"):  # DistStoreError is a RuntimeError, as in torch
        s.wait(["missing"], timedelta(seconds=0.05))
    threading.Timer(0.05, s.set, ("late", b"v")).start()
    s.set_timeout(timedelta(seconds=30))
    assert s.get("late") == b"v"  # woken by the set, long before the timeout
    with pytest.raises(TypeError, match="key"):
        s.set(1, "x")
    with pytest.raises(TypeError, match="value"):
        s.set("k", 1.5)


def test_tcp_store_class_and_prefix_store():
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    client = dist.TCPStore("127.0.0.1", server.port, timeout=timedelta(seconds=5))
    assert isinstance(server, dist.Store) and isinstance(dist.TCPStore, type)
    client.set("k", "v")
    assert server.get("k") == b"v" and server.add("n", 3) == 3 and client.add("n", -1) == 2
    prefixed = dist.PrefixStore("job", client)
    prefixed.set("k", b"inner")
    assert server.get("job/k") == b"inner" and prefixed.get("k") == b"inner"
    assert prefixed.underlying_store is client
    client.set_timeout(timedelta(seconds=0.3))
    t0 = time.monotonic()
    with pytest.raises(dist.DistStoreError, match="timed out"):
        client.get("missing")  # the new, short timeout applies
    with pytest.raises(dist.DistStoreError, match="timed out"):
        server.wait(["missing"], timedelta(seconds=0.2))
    assert time.monotonic() - t0 < 20
    client.add("counter", 3)
    assert server.get("counter") == b"3"  # counters are decimal text, as in torch
    client.set("twelve", "12")
    assert client.add("twelve", 1) == 13
    with pytest.raises(ValueError, match="not an integer"):
        client.add("k", 1)
    assert client.get("k") == b"v"  # a refused add leaves the value, and the connection works


def _fresh_stores(tmp_path):
    """Each library store kind, empty: TCP (served and joined), file, and a prefix view."""
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    yield "tcp", dist.TCPStore("127.0.0.1", server.port, timeout=timedelta(seconds=5)), server
    yield "file", dist.FileStore(str(tmp_path / f"fs{time.monotonic_ns()}")), None
    base = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    yield "prefix", dist.PrefixStore("p", base), base


@settings(max_examples=25, deadline=None)
@given(ops=st.lists(OPS, max_size=20))
def test_library_stores_match_torch(tmp_path_factory, ops):
    """TCPStore, FileStore and PrefixStore answer every operation as torch's
    HashStore does (delete_key, num_keys, compare_set included)."""
    tmp_path = tmp_path_factory.mktemp("stores")
    for kind, ours, _keepalive in _fresh_stores(tmp_path):
        ref = tdist.HashStore()
        for op in ops:
            got = _apply(ours, op, lambda k: ours.check([k]))
            want = _apply(ref, op, lambda k: ref.check([k]))
            assert got == want, (kind, op, got, want)


def test_file_store_class(tmp_path):
    a = dist.FileStore(str(tmp_path / "fs"), timeout=timedelta(seconds=0.5))
    b = dist.FileStore(str(tmp_path / "fs"))
    a.set("x", "1")
    assert b.get("x") == b"1" and b.add("c", 2) == 2 and a.add("c", 1) == 3
    b.wait(["x", "c"])
    assert a.check(["x"]) and not a.check(["x", "y"])
    with pytest.raises(dist.DistStoreError, match="timed out"):
        a.get("never")


def test_init_process_group_takes_a_store_object():
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=10))
    dist.init_process_group("gloo", store=server, rank=0, world_size=1)
    try:
        t = flow.ones(3)
        dist.all_reduce(t)
        assert t.tolist() == [1.0, 1.0, 1.0]
        out = [None]
        dist.all_gather_object(out, {"a": 1})
        assert out == [{"a": 1}]
    finally:
        dist.destroy_process_group()
    with pytest.raises(TypeError, match="argument 'store'"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)


def test_backend_and_environment_queries(monkeypatch):
    assert dist.is_backend_available("gloo") == dist.is_gloo_available() == tdist.is_backend_available("gloo")
    for name in ("ucc", "xccl"):
        assert dist.is_backend_available(name) is False
    assert not dist.is_ucc_available() and not dist.is_xccl_available()
    assert dist.is_backend_available("mpi") == dist.is_mpi_available()  # an MPICH-compatible libmpi found
    assert dist.get_default_backend_for_device("cpu") == tdist.get_default_backend_for_device("cpu") == "gloo"
    assert dist.get_default_backend_for_device("cuda:1") == "nccl"
    with pytest.raises(ValueError, match="no default backend"):
        dist.get_default_backend_for_device("abc")
    assert dist.default_pg_timeout == tdist.default_pg_timeout
    for var in ("LOCAL_RANK", "TORCHELASTIC_RUN_ID", "MONOFLOW_JOB_ID"):
        monkeypatch.delenv(var, raising=False)
    assert dist.is_torchelastic_launched() is tdist.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "x")
    assert dist.is_torchelastic_launched() is tdist.is_torchelastic_launched() is True
    assert dist.get_node_local_rank(3) == tdist.get_node_local_rank(3) == 3
    with pytest.raises(RuntimeError, match="LOCAL_RANK is not in the environment"):
        dist.get_node_local_rank()
    monkeypatch.setenv("LOCAL_RANK", "2")
    assert dist.get_node_local_rank(0) == tdist.get_node_local_rank(0) == 2
