"""DistributedDataParallel, DistributedSampler and the main job on 2 processes.

The multi-rank checks run in one job (a worker script started by the
launcher, recording each check's outcome per rank in a JSON file), so that
the suite pays the start-up of the processes once; the tests assert on those
records. Each check compares DDP against the same model run in one process
on the concatenation of the ranks' batches.
"""
import json
import math
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import monoflow.distributed as dist
from monoflow.utils.data import DistributedSampler

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")

WORKER = r'''
import json, os, sys, traceback
import numpy as np
import monoflow as flow
import monoflow.nn as nn
import monoflow.nn.functional as F
import monoflow.distributed as dist
from monoflow.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=20)
R, W = dist.get_rank(), dist.get_world_size()
results = {}

def check(name, fn):
    try:
        out = fn()
        results[name] = "ok" if out is None else out
    except Exception as e:  # recorded, asserted by pytest
        results[name] = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(6, 16), nn.Linear(16, 12), nn.Linear(12, 3)
    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 4, 3, padding=1), nn.Conv2d(4, 6, 3)
        self.fc = nn.Linear(6 * 2 * 2, 3)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)   # 8x8 -> 4x4
        return self.fc(F.relu(self.conv2(x)).flatten(1))

class Branchy(nn.Module):
    """fc_b is used only where use_b is true."""
    def __init__(self):
        super().__init__()
        self.fc_a, self.fc_b, self.head = nn.Linear(6, 8), nn.Linear(6, 8), nn.Linear(8, 3)
    def forward(self, x, use_b):
        h = self.fc_a(x)
        if use_b:
            h = h + self.fc_b(x)
        return self.head(F.relu(h))

def batch(step, shape, n=8):
    """The global batch of a step; rank R gets rows R::W... as a contiguous block."""
    rng = np.random.default_rng(1000 + step)
    x = rng.standard_normal((n * W,) + shape).astype(np.float32)
    y = rng.integers(0, 3, n * W).astype(np.int64)
    return x, y

def local(x, y, n=8):
    return flow.tensor(x[R * n:(R + 1) * n]), flow.tensor(y[R * n:(R + 1) * n])

def grads(model):
    return {k: (None if p.grad is None else p.grad.numpy().copy()) for k, p in model.named_parameters()}

def same(got, want, rtol=1e-5, atol=1e-6):
    assert got.keys() == want.keys()
    for k in want:
        if want[k] is None or got[k] is None:
            assert got[k] is None and want[k] is None, (k, got[k] is None, want[k] is None)
        else:
            np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=atol, err_msg=k)

def reference(make, shape, steps=1, **fw):
    """Gradients of the plain model on the global batches (summed over steps)."""
    flow.manual_seed(0)
    m = make()
    for s in range(steps):
        x, y = batch(s, shape)
        F.cross_entropy(m(flow.tensor(x), **fw), flow.tensor(y)).backward()
    return grads(m)

def wrapped(make, **kw):
    flow.manual_seed(0)
    return DDP(make(), **kw)

def ddp_grads(make, shape, **kw):
    ddp = wrapped(make, **kw)
    x, y = local(*batch(0, shape))
    F.cross_entropy(ddp(x), y).backward()
    return ddp, grads(ddp.module)

def equal_to_single(make, shape, **kw):
    def run():
        _, g = ddp_grads(make, shape, **kw)
        same(g, reference(make, shape))
    return run

check("mlp_grads", equal_to_single(MLP, (6,)))
check("cnn_grads", equal_to_single(CNN, (1, 8, 8)))
check("mlp_grads_as_bucket_view", equal_to_single(MLP, (6,), gradient_as_bucket_view=True))

def tiny_buckets():
    ddp, g = ddp_grads(MLP, (6,), bucket_cap_mb=1e-6)   # one parameter per bucket
    assert len(ddp.reducer.buckets) == 6, len(ddp.reducer.buckets)
    same(g, reference(MLP, (6,)))
    ev = ddp.reducer.events
    first_launch = min(i for i, e in enumerate(ev) if e[0] == "launch")
    last_hook = max(i for i, e in enumerate(ev) if e[0] == "hook")
    assert first_launch < last_hook, ev   # communication started while backward was running
    return {"events": ev}
check("tiny_buckets_overlap", tiny_buckets)

def cnn_tiny_buckets():
    _, g = ddp_grads(CNN, (1, 8, 8), bucket_cap_mb=2e-4)  # ~200 bytes: several buckets
    same(g, reference(CNN, (1, 8, 8)))
check("cnn_tiny_buckets", cnn_tiny_buckets)

def no_sync():
    ddp = wrapped(MLP, bucket_cap_mb=1e-4)
    for s in range(3):
        x, y = local(*batch(s, (6,)))
        if s < 2:
            with ddp.no_sync():
                F.cross_entropy(ddp(x), y).backward()
            assert ddp.reducer.events == [] or s > 0
        else:
            F.cross_entropy(ddp(x), y).backward()
    same(grads(ddp.module), reference(MLP, (6,), steps=3))
    # a second synchronized iteration still works (state was reset)
    ddp.module.zero_grad()
    x, y = local(*batch(0, (6,)))
    F.cross_entropy(ddp(x), y).backward()
    same(grads(ddp.module), reference(MLP, (6,)))
check("no_sync", no_sync)

def local_no_sync_differs():
    ddp = wrapped(MLP)
    x, y = local(*batch(0, (6,)))
    with ddp.no_sync():
        F.cross_entropy(ddp(x), y).backward()
    g = flow.tensor(ddp.module.fc1.weight.grad.numpy())
    gathered = [flow.zeros_like(g) for _ in range(W)]
    dist.all_gather(gathered, g)
    assert not np.allclose(gathered[0].numpy(), gathered[1].numpy())  # nothing was synchronized
check("no_sync_is_local", local_no_sync_differs)

def find_unused():
    ddp = wrapped(Branchy, find_unused_parameters=True, bucket_cap_mb=1e-4)
    for it in range(2):                       # the second forward must not complain
        ddp.module.zero_grad()
        x, y = local(*batch(it, (6,)))
        F.cross_entropy(ddp(x, use_b=False), y).backward()
    g = grads(ddp.module)
    assert g["fc_b.weight"] is None and g["fc_b.bias"] is None   # unused everywhere: untouched
    flow.manual_seed(0)
    ref = Branchy()
    xg, yg = batch(1, (6,))
    F.cross_entropy(ref(flow.tensor(xg), use_b=False), flow.tensor(yg)).backward()
    same(g, grads(ref))
check("find_unused_parameters", find_unused)

def unused_on_one_rank():
    # rank 0 uses fc_b, the others don't: fc_b's gradient is rank 0's / W
    ddp = wrapped(Branchy, find_unused_parameters=True)
    x, y = local(*batch(0, (6,)))
    F.cross_entropy(ddp(x, use_b=(R == 0)), y).backward()
    flow.manual_seed(0)
    ref = Branchy()
    x0, y0 = batch(0, (6,))
    F.cross_entropy(ref(flow.tensor(x0[:8]), use_b=True), flow.tensor(y0[:8])).backward()
    np.testing.assert_allclose(ddp.module.fc_b.weight.grad.numpy(), ref.fc_b.weight.grad.numpy() / W,
                               rtol=1e-5, atol=1e-7)
check("unused_on_one_rank", unused_on_one_rank)

def unused_error():
    ddp = wrapped(Branchy)
    x, y = local(*batch(0, (6,)))
    F.cross_entropy(ddp(x, use_b=False), y).backward()
    try:
        ddp(x, use_b=False)
    except RuntimeError as e:
        msg = str(e)
        assert "find_unused_parameters=True" in msg and "fc_b.weight" in msg and "fc_b.bias" in msg, msg
        assert "fc_a.weight" not in msg, msg
        return {"message": msg}
    raise AssertionError("no error for a parameter without gradient")
check("unused_parameter_error", unused_error)

def broadcast_at_wrap():
    flow.manual_seed(100 + R)                 # every rank starts different
    m = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5))
    with flow.no_grad():
        m[1].running_mean.fill_(float(R + 1))
    before = m[0].weight.detach().numpy().copy()
    DDP(m)
    flow.manual_seed(100)
    r0 = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5))
    np.testing.assert_array_equal(m[0].weight.detach().numpy(), r0[0].weight.detach().numpy())
    np.testing.assert_array_equal(m[0].bias.detach().numpy(), r0[0].bias.detach().numpy())
    np.testing.assert_array_equal(m[1].running_mean.numpy(), np.ones(5, np.float32))
    assert R == 0 or not np.array_equal(before, r0[0].weight.detach().numpy())
check("broadcast_at_wrap", broadcast_at_wrap)

def shape_mismatch():
    m = nn.Sequential(nn.Linear(4, 5 + R), nn.Linear(5 + R, 2))
    try:
        DDP(m)
    except RuntimeError as e:
        assert "shape" in str(e) and "rank 1" in str(e), str(e)
        return {"message": str(e)}
    raise AssertionError("no error for mismatched shapes")
check("shape_mismatch", shape_mismatch)

def state_dict_prefix():
    ddp = wrapped(MLP)
    keys = list(ddp.state_dict())
    assert keys == ["module." + k for k in ddp.module.state_dict()], keys
    assert ddp.module.fc1 is ddp.module.fc1
check("state_dict_prefix", state_dict_prefix)

class BNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn, self.fc = nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4, momentum=None), nn.Linear(4 * 6 * 6, 3)
    def forward(self, x):
        return self.fc(F.relu(self.bn(self.conv(x))).flatten(1))

def sync_batchnorm():
    """SyncBatchNorm under DDP on per-rank slices = BatchNorm on the global batch in one process:
    outputs, gradients and running statistics, over two steps."""
    flow.manual_seed(0)
    single = BNNet()
    flow.manual_seed(0)
    ddp = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(BNNet()))
    assert isinstance(ddp.module.bn, nn.SyncBatchNorm)
    for step in range(2):
        x, y = batch(step, (1, 8, 8))
        for p in list(single.parameters()) + list(ddp.parameters()):
            p.grad = None
        want_out = single(flow.tensor(x))
        F.cross_entropy(want_out, flow.tensor(y)).backward()
        lx, ly = local(x, y)
        got_out = ddp(lx)
        F.cross_entropy(got_out, ly).backward()
        np.testing.assert_allclose(got_out.numpy(), want_out.numpy()[R * 8:(R + 1) * 8], rtol=1e-4, atol=1e-5)
        # DDP averages over W ranks; cross_entropy's mean is over the local 8 rows: the same as the global mean
        same(grads(ddp.module), grads(single), rtol=1e-4, atol=1e-5)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(ddp.module.bn, name).numpy(), getattr(single.bn, name).numpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=name)
    ddp.eval()
    np.testing.assert_allclose(ddp(lx).numpy(), single.eval()(flow.tensor(x)).numpy()[R * 8:(R + 1) * 8],
                               rtol=1e-4, atol=1e-5)

check("sync_batchnorm", sync_batchnorm)

def differentiable_collectives():
    """distributed.nn.functional: values and gradients of all_reduce / all_gather / broadcast."""
    import monoflow.distributed.nn.functional as dnn
    x = flow.full((3,), float(R + 1), requires_grad=True)
    s = dnn.all_reduce(x * 2)
    (s * (R + 1)).sum().backward()
    total = sum(range(1, W + 1))
    assert s.tolist() == [2.0 * total] * 3, s.tolist()
    assert x.grad.tolist() == [2.0 * total] * 3, x.grad.tolist()   # d/dx_r of sum_k (k+1) * sum_j 2 x_j
    x.grad = None
    parts = dnn.all_gather(x)
    assert [p.tolist() for p in parts] == [[float(k + 1)] * 3 for k in range(W)]
    sum((k + 1) * p.sum() for k, p in enumerate(parts)).backward()
    assert x.grad.tolist() == [float(W * (R + 1))] * 3, x.grad.tolist()
    x.grad = None
    b = dnn.broadcast(x, src=0)
    assert b.tolist() == [1.0] * 3
    b.sum().backward()
    assert x.grad.tolist() == ([float(W)] * 3 if R == 0 else [0.0] * 3), x.grad.tolist()

check("differentiable_collectives", differentiable_collectives)

dist.barrier()
with open(os.path.join(os.environ["DDP_OUT"], f"rank{R}.json"), "w") as f:
    json.dump(results, f)
dist.destroy_process_group()
'''

CHECKS = ["mlp_grads", "cnn_grads", "mlp_grads_as_bucket_view", "tiny_buckets_overlap", "cnn_tiny_buckets",
          "no_sync", "no_sync_is_local", "find_unused_parameters", "unused_on_one_rank", "unused_parameter_error",
          "broadcast_at_wrap", "shape_mismatch", "state_dict_prefix", "sync_batchnorm",
          "differentiable_collectives"]


def _env(extra=None):
    # One kernel thread per process: N ranks x the default thread count
    # oversubscribe the cores (torchrun sets the same).
    return {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"), **(extra or {})}


def free_port():
    # A port nobody listens on now (the launcher's default may be taken by
    # another job on a shared machine).
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(nproc, script_args, cwd, env=None, timeout=120):
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", str(nproc),
           "--master-port", str(free_port()), *script_args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=str(cwd), env=_env(env))


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def ddp_results(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("ddp")
    (d / "worker.py").write_text(WORKER)
    r = launch(request.param, ["worker.py"], d, env={"DDP_OUT": str(d)})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return [json.loads((d / f"rank{k}.json").read_text()) for k in range(request.param)]


@needs_gloo
@pytest.mark.parametrize("name", CHECKS)
def test_ddp_checks(ddp_results, name):
    for rank, res in enumerate(ddp_results):
        out = res[name]
        assert out == "ok" or isinstance(out, dict), f"rank {rank}: {out}"


@needs_gloo
def test_unused_parameter_error_wording(ddp_results):
    msg = ddp_results[1]["unused_parameter_error"]["message"]
    assert msg.startswith("Expected to have finished reduction in the prior iteration")
    assert "Parameters which did not receive grad for rank 1: fc_b.weight, fc_b.bias" in msg


@needs_gloo
def test_shape_mismatch_raises_on_every_rank(ddp_results):
    msgs = [res["shape_mismatch"]["message"] for res in ddp_results]
    assert all(m == msgs[0] for m in msgs)          # the same diagnosis everywhere
    assert "parameter 0 (0.weight)" in msgs[0] and "[6, 4]" in msgs[0] and "[5, 4]" in msgs[0]


@needs_gloo
def test_buckets_launch_in_order(ddp_results):
    for res in ddp_results:
        launches = [b for kind, b in res["tiny_buckets_overlap"]["events"] if kind == "launch"]
        assert launches == list(range(6))


# ---- DistributedSampler (one process: the partitions need no communication)
def _torch_partition(n, replicas, drop_last, shuffle=False, epoch=0):
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchDS

    return [list(TorchDS(range(n), num_replicas=replicas, rank=r, shuffle=shuffle, drop_last=drop_last))
            for r in range(replicas)]


@pytest.mark.parametrize("n", [1, 5, 10, 11, 13])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_matches_torch_partition(n, replicas, drop_last):
    if drop_last and n < replicas:
        pytest.skip("torch yields nothing there too")
    ours = [list(DistributedSampler(range(n), num_replicas=replicas, rank=r, shuffle=False, drop_last=drop_last))
            for r in range(replicas)]
    assert ours == _torch_partition(n, replicas, drop_last)
    assert [len(DistributedSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last))
            for r in range(replicas)] == [len(p) for p in ours]


@pytest.mark.parametrize("n,replicas", [(10, 3), (11, 2), (3, 5)])
def test_sampler_shuffle_partitions_one_permutation(n, replicas):
    samplers = [DistributedSampler(range(n), replicas, r, shuffle=True, seed=7) for r in range(replicas)]
    parts = [list(s) for s in samplers]
    per = math.ceil(n / replicas)
    assert all(len(p) == per for p in parts)
    order = [parts[i % replicas][i // replicas] for i in range(per * replicas)]   # undo the interleave
    perm = order[:n]
    assert sorted(perm) == list(range(n))                               # one permutation ...
    assert order[n:] == (perm * math.ceil(per * replicas / n))[:per * replicas - n]  # ... padded by wrapping
    assert parts == [list(s) for s in samplers]                         # deterministic for an epoch
    for s in samplers:
        s.set_epoch(1)
    again = [list(s) for s in samplers]
    assert again != parts or n < 4                                       # a new order each epoch
    assert set(sum(again, [])) == set(range(n))


def test_sampler_errors():
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)


@pytest.mark.skipif(dist.is_initialized(), reason="checks the defaults without a process group")
def test_sampler_defaults_without_process_group(monkeypatch):
    # OneFlow's DistributedSampler takes flow.env's size and rank, so a launched rank (or a plain process, rank 0
    # of 1) needs no init_process_group first; torch raises there. Shares are torch's for the same replicas/rank.
    torch_sampler = pytest.importorskip("torch.utils.data.distributed").DistributedSampler
    for var in ("RANK", "WORLD_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                "PMI_RANK", "PMI_SIZE"):
        monkeypatch.delenv(var, raising=False)
    s = DistributedSampler(range(5), shuffle=False)
    assert (s.num_replicas, s.rank) == (1, 0)
    assert list(s) == list(torch_sampler(range(5), num_replicas=1, rank=0, shuffle=False))
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    s = DistributedSampler(range(5), shuffle=False)
    assert (s.num_replicas, s.rank) == (2, 1)
    assert list(s) == list(torch_sampler(range(5), num_replicas=2, rank=1, shuffle=False)) == [1, 3, 0]
    assert DistributedSampler(range(5), num_replicas=3, shuffle=False).rank == 1  # an explicit size keeps the env rank


# ---- the main job: 2 processes reproduce the 1-process loss curve
SYNC_BN_NO_INIT = r'''
import json, os, sys
import numpy as np
import torch
import monoflow as flow
import monoflow.distributed as dist

# No init_process_group: OneFlow's SyncBatchNorm on a launched rank shares statistics anyway.
rank, world = flow.env.get_rank(), flow.env.get_world_size()
full = np.random.RandomState(0).rand(8, 3, 5).astype(np.float32)
per = 8 // world
x = flow.tensor(full[rank * per:(rank + 1) * per], requires_grad=True)
bn = flow.nn.SyncBatchNorm.convert_sync_batchnorm(flow.nn.BatchNorm1d(3))
y = bn(x)
(y * y).sum().backward()
tx = torch.tensor(full, requires_grad=True)
tbn = torch.nn.BatchNorm1d(3)
ty = tbn(tx)
(ty * ty).sum().backward()
sl = slice(rank * per, (rank + 1) * per)
err = [float(np.abs(a - b).max()) for a, b in [(y.numpy(), ty.detach().numpy()[sl]),
       (x.grad.numpy(), tx.grad.numpy()[sl]), (bn.running_var.numpy(), tbn.running_var.numpy())]]
json.dump({"initialized": dist.is_initialized(), "err": err}, open(os.path.join(sys.argv[1], f"r{rank}.json"), "w"))
'''


@needs_gloo
def test_sync_batchnorm_launched_without_init(tmp_path):
    # Each rank's half of SyncBatchNorm = torch's BatchNorm over the whole batch (values, input gradients,
    # running variance); before, a launched rank without init_process_group silently normalised its own half.
    pytest.importorskip("torch")
    (tmp_path / "w.py").write_text(SYNC_BN_NO_INIT)
    r = launch(2, ["w.py", str(tmp_path)], tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for k in range(2):
        res = json.loads((tmp_path / f"r{k}.json").read_text())
        assert res["initialized"]
        assert max(res["err"]) < 1e-5, res


@needs_gloo
def test_main_job_two_processes_match_one(tmp_path):
    pytest.importorskip("sklearn")
    script = os.path.join(REPO, "examples", "train_digits.py")
    common = ["--epochs", "2", "--no-bn", "--dropout", "0", "--drop-last", "--no-progress"]
    one = subprocess.run([sys.executable, script, *common, "--distributed-sampler", "--out", str(tmp_path / "one")],
                         capture_output=True, text=True, timeout=120, cwd=str(tmp_path), env=_env())
    assert one.returncode == 0, one.stdout[-2000:] + one.stderr[-2000:]
    two = launch(2, [script, *common, "--out", str(tmp_path / "two")], tmp_path, timeout=120)
    assert two.returncode == 0, two.stdout[-2000:] + two.stderr[-2000:]
    h1 = json.loads((tmp_path / "one" / "metrics.json").read_text())
    h2 = json.loads((tmp_path / "two" / "metrics.json").read_text())
    assert [h["epoch"] for h in h2] == [1, 2]
    for key in ("train_loss", "train_acc", "test_loss", "test_acc"):
        np.testing.assert_allclose([h[key] for h in h2], [h[key] for h in h1], rtol=1e-4, err_msg=key)
    # only rank 0 prints the summaries, and the output format is the single-process one
    epoch_lines = [ln for ln in two.stdout.splitlines() if "train loss" in ln]
    assert len(epoch_lines) == 2 and all(ln.startswith("[rank 0]") for ln in epoch_lines), two.stdout


def test_sync_batchnorm_single_process_job_joins_nothing(monkeypatch):
    # A scheduler's one-process job (WORLD_SIZE=1) trains as plain batch norm (values vs torch) without
    # starting a process group: there is no one to share statistics with.
    torch = pytest.importorskip("torch")
    if dist.is_initialized():
        pytest.skip("needs no process group")
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setenv("RANK", "0")
    import monoflow as flow
    x = np.random.RandomState(1).rand(4, 3, 5).astype(np.float32)
    y = flow.nn.SyncBatchNorm(3)(flow.tensor(x))
    ref = torch.nn.BatchNorm1d(3)(torch.tensor(x))
    np.testing.assert_allclose(y.numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert not dist.is_initialized()
