"""The mpi backend (collective/mpi): collectives through an MPICH-compatible libmpi opened at run time,
under the `mpiexec` that comes with it. Skipped where no such MPI is installed (``pip install mpich``)."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import monoflow.distributed as dist
from monoflow.distributed import launch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPIEXEC = shutil.which("mpiexec", path=os.path.join(sys.prefix, "bin") + os.pathsep + os.environ.get("PATH", ""))
SANITIZED = "libasan" in os.environ.get("LD_PRELOAD", "")
needs_mpi = pytest.mark.skipif(not (dist.is_mpi_available() and MPIEXEC) or SANITIZED,
                               reason="no MPICH-compatible MPI with mpiexec here (pip install mpich), or a sanitizer "
                                      "run (MPICH and its process manager are not built with the sanitizers)")

WORKER = r'''
import os, sys
import numpy as np
import monoflow as flow
import monoflow.distributed as dist

dist.init_process_group("mpi", timeout=float(os.environ.get("MF_TIMEOUT", "30")))
assert dist.get_backend() == "mpi"
r, n = dist.get_rank(), dist.get_world_size()
ok = []

def check(name, got, want, rtol=1e-7):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64), rtol=rtol,
                               atol=rtol * 1e-2, err_msg=name)
    ok.append(name)

for dt in (flow.float32, flow.float64, flow.int64, flow.int32, flow.float16, flow.bfloat16):
    t = (flow.arange(5) + 10 * r).to(dt)
    dist.all_reduce(t)
    check(f"all_reduce sum {dt}", t.float().numpy(), sum(np.arange(5) + 10 * k for k in range(n)))
t = flow.tensor([1.0 + r, -r])
dist.all_reduce(t, op=dist.ReduceOp.MAX)
check("all_reduce max", t.numpy(), [n, 0])
t = flow.tensor([2.0 + r])
dist.all_reduce(t, op=dist.ReduceOp.AVG)
check("all_reduce avg", t.numpy(), [2 + (n - 1) / 2])
t = flow.tensor([r % 2 == 0, False])
dist.all_reduce(t, op=dist.ReduceOp.MAX)
check("all_reduce bool max", t.numpy(), [True, False])
t = flow.full((3,), float(r))
dist.broadcast(t, src=1)
check("broadcast", t.numpy(), [1, 1, 1])
t = flow.full((2,), float(r))
dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
if r == 0:
    check("reduce", t.numpy(), [sum(range(n))] * 2)
parts = [flow.zeros(r2 + 1) for r2 in range(n)]
dist.all_gather(parts, flow.full((r + 1,), float(r)))
check("all_gather uneven", np.concatenate([p.numpy() for p in parts]),
      np.concatenate([np.full(k + 1, k) for k in range(n)]))
out = flow.zeros(2)
dist.reduce_scatter(out, [flow.full((2,), float(r + k)) for k in range(n)])
check("reduce_scatter", out.numpy(), [sum(k + r for k in range(n))] * 2)
out = flow.zeros(n)
dist.all_to_all_single(out, flow.arange(n, dtype=flow.float32) + 100 * r)
check("all_to_all", out.numpy(), [100 * k + r for k in range(n)])
if r == 0:
    dist.send(flow.tensor([7.0, 8.0]), dst=1)
elif r == 1:
    t = flow.zeros(2)
    dist.recv(t, src=0)
    check("send/recv", t.numpy(), [7, 8])
odd = dist.new_group([k for k in range(n) if k % 2 == 1])
if r % 2 == 1:
    t = flow.ones(1)
    dist.all_reduce(t, group=odd)
    check("sub-group all_reduce", t.numpy(), [len(range(1, n, 2))])
dist.barrier()

# DDP: the ranks' replicas stay equal and match one process training on the whole batch.
flow.manual_seed(0)
model = flow.nn.Linear(4, 2)
ddp = flow.nn.parallel.DistributedDataParallel(model)
opt = flow.optim.SGD(ddp.parameters(), lr=0.5)
g = flow.Generator().manual_seed(1)
x, y = flow.randn(4 * n, 4, generator=g), flow.randn(4 * n, 2, generator=g)
for _ in range(3):
    opt.zero_grad()
    flow.nn.functional.mse_loss(ddp(x[4 * r:4 * r + 4]), y[4 * r:4 * r + 4]).backward()
    opt.step()
flow.manual_seed(0)
ref = flow.nn.Linear(4, 2)
ref_opt = flow.optim.SGD(ref.parameters(), lr=0.5)
for _ in range(3):
    ref_opt.zero_grad()
    flow.nn.functional.mse_loss(ref(x), y).backward()
    ref_opt.step()
check("ddp", model.weight.detach().numpy(), ref.weight.detach().numpy(), rtol=1e-5)  # sums in another order
print(f"RANK {r} OK {len(ok)}", flush=True)
dist.destroy_process_group()
'''

TIMEOUT_WORKER = r'''
import os
import monoflow as flow
import monoflow.distributed as dist
dist.init_process_group("mpi", timeout=3.0)
dist.barrier()
if dist.get_rank() == 0:
    try:
        dist.all_reduce(flow.ones(4))  # rank 1 never joins this one
    except RuntimeError as e:
        print("RANK 0 ERROR", e, flush=True)
else:
    print("RANK 1 SKIPPED", flush=True)
    import time
    time.sleep(8)  # alive past rank 0's timeout: mpiexec ends the job when a rank leaves
os._exit(0)  # a cancelled-by-timeout collective stays pending in MPI: no MPI_Finalize after it
'''


def _run(tmp_path, script, n, timeout=120):
    path = tmp_path / "worker.py"
    path.write_text(script)
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR") and not k.startswith("SLURM_")}
    env.update(MASTER_PORT=str(launch.free_port()), MONOFLOW_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.run([MPIEXEC, "-n", str(n), sys.executable, str(path)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=str(tmp_path))


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_collectives_and_ddp_under_mpiexec(tmp_path, n):
    run = _run(tmp_path, WORKER, n)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    counts = sorted(re.findall(r"RANK (\d+) OK (\d+)", run.stdout))
    assert [int(r) for r, _ in counts] == list(range(n))
    assert all(int(c) >= 14 for _, c in counts)  # every check of its rank ran (a failed one exits non-zero)


@needs_mpi
def test_a_collective_a_peer_never_joins_times_out(tmp_path):
    run = _run(tmp_path, TIMEOUT_WORKER, 2, timeout=60)
    assert "RANK 1 SKIPPED" in run.stdout
    assert re.search(r"RANK 0 ERROR .*all_reduce timed out after 3", run.stdout), run.stdout + run.stderr


def test_handles_match_the_mpich_header():
    """The predefined handles written in the engine are MPICH's (checked against the mpich wheel's mpi.h)."""
    header = os.path.join(sys.prefix, "include", "mpi.h")
    if not os.path.exists(header):
        pytest.skip("no mpi.h of an MPICH wheel here")
    text = open(header).read()
    if "MPICH_VERSION" not in text:
        pytest.skip("mpi.h is not MPICH's")
    source = open(os.path.join(ROOT, "collective", "mpi", "mpi_communicator.cc")).read()
    names = {"kCommWorld": "MPI_COMM_WORLD", "kCommNull": "MPI_COMM_NULL", "kByte": "MPI_BYTE",
             "kFloat": "MPI_FLOAT", "kDouble": "MPI_DOUBLE", "kInt8": "MPI_INT8_T", "kInt16": "MPI_INT16_T",
             "kInt32": "MPI_INT32_T", "kInt64": "MPI_INT64_T", "kUInt8": "MPI_UINT8_T", "kMax": "MPI_MAX",
             "kMin": "MPI_MIN", "kSum": "MPI_SUM", "kProd": "MPI_PROD", "kErrorsReturn": "MPI_ERRORS_RETURN",
             "kThreadMultiple": "MPI_THREAD_MULTIPLE"}
    for ours, theirs in names.items():
        mine = re.search(rf"\b{ours} = (0x[0-9a-f]+|\d+)", source).group(1)
        want = re.search(rf"#define {theirs}\s+\(?(?:\(\w+\))?\(?(0x[0-9a-f]+|\d+)", text).group(1)
        assert int(mine, 0) == int(want, 0), (ours, theirs)


def test_unknown_backend_names_the_three():
    with pytest.raises(ValueError, match="'gloo', 'nccl' or 'mpi'"):
        dist.init_process_group("ucc", init_method="tcp://127.0.0.1:1", rank=0, world_size=1)


LAUNCHED_RANK = r'''
import os
import monoflow as flow
import monoflow.distributed as dist

dist.init_process_group("mpi", timeout=30)
r, n = dist.get_rank(), dist.get_world_size()
assert (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])) == (r, n), (os.environ["RANK"], r)
assert int(os.environ["LOCAL_RANK"]) == r and int(os.environ["LOCAL_WORLD_SIZE"]) == n
assert os.environ["MASTER_PORT"] and os.environ["MONOFLOW_JOB_ID"]
t = flow.full((3,), float(r + 1))
dist.all_reduce(t)
print("RANK", r, "OF", n, "SUM", t.tolist(), "ARGS", os.sys.argv[1:], flush=True)
if os.environ.get("MF_FAIL_FIRST") and os.environ["TORCHELASTIC_RESTART_COUNT"] == "0" and r == 1:
    raise SystemExit(3)
'''

# The launcher of a build without Gloo (simulated: process_group.is_gloo_available answers False).
WITHOUT_GLOO = r'''
import sys
from monoflow.distributed import launch, process_group
process_group.is_gloo_available = lambda: False
sys.exit(launch.main(sys.argv[1:]))
'''


@needs_mpi
@pytest.mark.parametrize("fail_first", [False, True])
def test_launcher_without_gloo_runs_the_job_under_mpiexec(tmp_path, fail_first):
    # Note [Launching without Gloo]: the one-node launcher command works with pip alone
    script = tmp_path / "rank.py"
    script.write_text(LAUNCHED_RANK)
    env = dict(os.environ, MF_FAIL_FIRST="1" if fail_first else "")
    cmd = [sys.executable, "-c", WITHOUT_GLOO, "--nproc-per-node", "2", "--standalone"] + \
        (["--max-restarts", "1"] if fail_first else []) + [str(script), "--lr", "0.1"]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "starting 2 ranks with MPI's mpiexec" in run.stderr
    for r in (0, 1):
        assert f"[rank {r}] RANK {r} OF 2 SUM [3.0, 3.0, 3.0] ARGS ['--lr', '0.1']" in run.stdout, run.stdout
    assert ("restart 1 of 1" in run.stderr) == fail_first, run.stderr


def test_launcher_without_gloo_or_mpi_says_what_to_install(tmp_path, monkeypatch):
    from monoflow.distributed import mpiexec_fallback, process_group

    monkeypatch.setattr(process_group, "is_gloo_available", lambda: False)
    monkeypatch.setattr(process_group, "is_mpi_available", lambda: False)
    assert launch.main(["--nproc-per-node", "2", str(tmp_path / "x.py")]) == 1
    args = launch.parse_args(["--nproc-per-node", "2", "x.py"])
    with pytest.raises(RuntimeError, match="pip install mpich"):
        mpiexec_fallback.needed(args)
    args = launch.parse_args(["--nproc-per-node", "1", "x.py"])
    assert not mpiexec_fallback.needed(args)  # one rank needs no engine
