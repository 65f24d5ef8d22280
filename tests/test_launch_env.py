"""Launching the way clusters launch (issue 17, section 2).

Each scheduler's environment (torchrun/Kubernetes, SLURM under srun, Open MPI,
MPICH/PMI) is simulated by starting this machine's processes with exactly the
variables that scheduler sets, and nothing monoflow-specific: the ranks must
find each other, agree on the answers of flow.env, and all_reduce correctly,
at 2 and 4 ranks. Then Slurm's node lists, the errors that name a missing
variable, the default backend, and python -m monoflow.distributed.run:
torchrun's flags and restarts of the whole job when a rank dies.
"""
import os
import subprocess
import sys

import pytest

import monoflow.distributed as dist
from monoflow.distributed import cluster_env, launch, run
from monoflow.distributed.cluster_env import ClusterEnv, expand_nodelist, first_host
from helpers import network_namespaces

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")
BOUND_S = 60

# Every variable any scheduler sets: removed from the children's environment
# before one scheduler's are put in, so that none leaks in from this process.
SCHEDULER_VARS = (
    "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NODE_RANK", "NNODES",
    "GROUP_RANK", "MONOFLOW_JOB_ID", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT",
    "TORCHELASTIC_MAX_RESTARTS", "MONOFLOW_ERROR_FILE",
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
    "OMPI_COMM_WORLD_NODE_RANK", "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", "PMIX_RANK",
    "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
)


def clean_env(**extra):
    e = {k: v for k, v in os.environ.items() if k not in SCHEDULER_VARS and not k.startswith("SLURM_")}
    e.update(MONOFLOW_NUM_THREADS="1", OMP_NUM_THREADS="1")
    e.update({k: str(v) for k, v in extra.items()})
    return e


# A rank as a user writes it: no rank, no address, no backend in the code.
RANK_SCRIPT = r'''
import monoflow as flow
import monoflow.distributed as dist
r, n, local = flow.env.get_rank(), flow.env.get_world_size(), flow.env.get_local_rank()
dist.init_process_group()
assert (dist.get_rank(), dist.get_world_size()) == (r, n), (dist.get_rank(), dist.get_world_size(), r, n)
t = flow.arange(4, dtype=flow.float32) + 10.0 * r
dist.all_reduce(t)
print(f"RESULT rank={r} world={n} local={local} backend={dist.get_backend()} "
      f"sum={','.join(str(int(v)) for v in t.tolist())}", flush=True)
dist.destroy_process_group()
'''


def expected_sum(n):
    # sum over r of (i + 10 r) for i = 0..3
    return ",".join(str(n * i + 10 * n * (n - 1) // 2) for i in range(4))


def run_ranks(tmp_path, envs, script=RANK_SCRIPT):
    path = tmp_path / "rank.py"
    path.write_text(script)
    procs = [subprocess.Popen([sys.executable, str(path)], env=e, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path)) for e in envs]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=BOUND_S)[0])
    except subprocess.TimeoutExpired:
        pytest.fail("a rank hung:\n" + "\n".join(outs))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return [(p.returncode, out) for p, out in zip(procs, outs)]


def results(runs):
    found = {}
    for code, out in runs:
        assert code == 0, out[-3000:]
        line = next(ln for ln in out.splitlines() if ln.startswith("RESULT "))
        fields = dict(kv.split("=") for kv in line.split()[1:])
        found[int(fields["rank"])] = fields
    return found


def torchrun_env(r, n, port):
    return clean_env(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, RANK=r, WORLD_SIZE=n, LOCAL_RANK=r,
                     LOCAL_WORLD_SIZE=n)


def slurm_env(r, n, port, nodelist="localhost,gpu-[009-012]"):
    # srun: no MASTER_*; rank 0 is on the first host of the node list; the port comes from the job id.
    job = port - cluster_env.SLURM_PORT_BASE   # a job id whose derived port is the free one
    assert cluster_env.slurm_port(str(job), "0") == port, "free_port_for_slurm() gives the ports a job id can"
    return clean_env(SLURM_PROCID=r, SLURM_NTASKS=n, SLURM_LOCALID=r, SLURM_JOB_ID=job, SLURM_STEP_ID=0,
                     SLURM_JOB_NODELIST=nodelist, SLURM_NNODES=1, SLURM_NODEID=0)


def openmpi_env(r, n, port):
    # mpirun on one host: Open MPI says nothing of rank 0's address; the job fits on this host.
    return clean_env(OMPI_COMM_WORLD_RANK=r, OMPI_COMM_WORLD_SIZE=n, OMPI_COMM_WORLD_LOCAL_RANK=r,
                     OMPI_COMM_WORLD_LOCAL_SIZE=n, MASTER_PORT=port)


def pmi_env(r, n, port):
    # MPICH's hydra: PMI_RANK/PMI_SIZE, and MASTER_ADDR exported by the user (mpiexec -genv).
    return clean_env(PMI_RANK=r, PMI_SIZE=n, MPI_LOCALRANKID=r, MASTER_ADDR="127.0.0.1", MASTER_PORT=port)


STYLES = {"torchrun": torchrun_env, "slurm": slurm_env, "openmpi": openmpi_env, "pmi": pmi_env}


def free_port_for_slurm():
    """A free port that some SLURM job id derives (they lie below the ephemeral range, where free_port's are)."""
    import random
    import socket
    for port in random.sample(range(cluster_env.SLURM_PORT_BASE + 5000,
                                    cluster_env.SLURM_PORT_BASE + cluster_env.SLURM_PORT_SPAN), 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip("no free port in the range SLURM job ids derive")


@needs_gloo
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("style", sorted(STYLES))
def test_each_scheduler_environment_forms_the_group(tmp_path, style, n):
    port = free_port_for_slurm() if style == "slurm" else launch.free_port()
    found = results(run_ranks(tmp_path, [STYLES[style](r, n, port) for r in range(n)]))
    assert sorted(found) == list(range(n))
    for r, f in found.items():
        assert f["world"] == str(n) and f["local"] == str(r), f
        assert f["sum"] == expected_sum(n), f
        assert f["backend"] == "gloo", f   # no backend named: the best engine for host tensors


@needs_gloo
def test_torchrun_variables_win_over_an_inherited_slurm_step(tmp_path):
    # torchrun started by srun: RANK is torchrun's, SLURM_PROCID (0 on every rank of this node) is srun's.
    port = launch.free_port()
    envs = [clean_env(**{**torchrun_env(r, 2, port), "SLURM_PROCID": "0", "SLURM_NTASKS": "1",
                         "SLURM_LOCALID": "0", "SLURM_JOB_ID": "77", "SLURM_JOB_NODELIST": "nowhere[1-2]"})
            for r in range(2)]
    found = results(run_ranks(tmp_path, envs))
    assert sorted(found) == [0, 1] and found[1]["sum"] == expected_sum(2)


# ---------------------------------------------------------------- unit: what the environment says

@pytest.mark.parametrize("nodelist, hosts", [
    ("node[01-04,07]", ["node01", "node02", "node03", "node04", "node07"]),
    ("a1,b[2-3]", ["a1", "b2", "b3"]),
    ("gpu-[009-012]", ["gpu-009", "gpu-010", "gpu-011", "gpu-012"]),
    ("single", ["single"]),
    ("n[8-10]", ["n8", "n9", "n10"]),
    ("rack[1-2]-n[01-02]", ["rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"]),
    ("c[1,3],d[001-002],e", ["c1", "c3", "d001", "d002", "e"]),
    ("node-[7]", ["node-7"]),
])
def test_slurm_nodelist_expansion(nodelist, hosts):
    assert expand_nodelist(nodelist) == hosts
    assert first_host(nodelist) == hosts[0]


@pytest.mark.parametrize("bad", ["node[01-", "node]1[", "node[a-b]", "node[5-3]", ""])
def test_bad_nodelists_are_refused(bad):
    with pytest.raises(ValueError, match="Slurm node list"):
        expand_nodelist(bad)


def test_slurm_environment_resolves_without_master_variables():
    e = ClusterEnv({"SLURM_PROCID": "5", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1", "SLURM_JOB_ID": "4242",
                    "SLURM_STEP_ID": "3", "SLURM_JOB_NODELIST": "node[07-10]", "SLURM_NNODES": "4"})
    assert (e.scheduler, e.rank, e.world_size, e.local_rank, e.nnodes) == ("slurm", 5, 8, 1, 4)
    assert e.master_addr() == "node07"
    assert e.master_port() == cluster_env.SLURM_PORT_BASE + (4242 + 3) % cluster_env.SLURM_PORT_SPAN
    # the step's own node list is where its rank 0 runs; MASTER_* always win
    e = ClusterEnv({"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_JOB_ID": "1",
                    "SLURM_JOB_NODELIST": "a[1-9]", "SLURM_STEP_NODELIST": "a[4-5]"})
    assert e.master_addr() == "a4"
    e = ClusterEnv({"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_JOB_NODELIST": "a[1-9]",
                    "MASTER_ADDR": "head", "MASTER_PORT": "1234", "SLURM_JOB_ID": "1"})
    assert (e.master_addr(), e.master_port()) == ("head", 1234)


def test_mpi_environments():
    e = ClusterEnv({"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
                    "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "SLURM_PROCID": "0", "SLURM_NTASKS": "1"})
    assert (e.scheduler, e.rank, e.world_size, e.local_rank) == ("openmpi", 3, 4, 1)   # mpirun's, not the batch's
    e = ClusterEnv({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"})
    assert e.master_addr() == "127.0.0.1" and e.master_port() == cluster_env.DEFAULT_MPI_PORT  # one host
    ns = ClusterEnv({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "PMIX_NAMESPACE": "prterun-h-1@1"})
    assert ns.master_port() == cluster_env.derived_port("prterun-h-1@1")
    e = ClusterEnv({"PMI_RANK": "2", "PMI_SIZE": "3", "MPI_LOCALRANKID": "2", "MPI_LOCALNRANKS": "3"})
    assert (e.scheduler, e.rank, e.world_size, e.local_rank, e.master_addr()) == ("pmi", 2, 3, 2, "127.0.0.1")


@pytest.mark.parametrize("environ, missing", [
    ({"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}, "MASTER_ADDR"),
    ({"PMI_RANK": "0", "PMI_SIZE": "2"}, "MASTER_ADDR"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_PORT": "1"}, "MASTER_ADDR"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "h"}, "MASTER_PORT"),
    ({"RANK": "1"}, "WORLD_SIZE"),
    ({"PMI_RANK": "1"}, "PMI_SIZE"),
    ({"SLURM_PROCID": "1"}, "SLURM_NTASKS"),
    ({"MASTER_ADDR": "h", "MASTER_PORT": "1"}, "RANK"),
])
def test_an_unresolvable_environment_names_the_missing_variable(environ, missing):
    e = ClusterEnv(environ)
    with pytest.raises(ValueError, match=missing):
        e.require_rank()
        n = e.require_world_size()
        e.master_addr(n)
        e.master_port(n)


@pytest.mark.parametrize("environ, missing", [
    ({"SLURM_PROCID": "1", "SLURM_NTASKS": "2", "SLURM_LOCALID": "1"}, "MASTER_ADDR"),
    ({"RANK": "1"}, "WORLD_SIZE"),
    ({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}, "RANK"),
    ({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "9"},
     "out of range"),
])
def test_init_process_group_names_the_missing_variable(tmp_path, environ, missing):
    # In a child: init_process_group reads this process's real environment.
    code = ("import monoflow.distributed as dist\n"
            "try:\n    dist.init_process_group(timeout=5)\nexcept ValueError as e:\n    print('VALUEERROR', e)\n")
    r = subprocess.run([sys.executable, "-c", code], env=clean_env(**environ), capture_output=True, text=True,
                       timeout=BOUND_S)
    assert "VALUEERROR" in r.stdout and missing in r.stdout, r.stdout + r.stderr


def test_flow_env_answers_from_each_scheduler(tmp_path):
    code = "import monoflow as flow; print(flow.env.get_rank(), flow.env.get_world_size(), " \
           "flow.env.get_local_rank(), flow.env.get_node_size(), __import__('monoflow.distributed', " \
           "fromlist=['x']).get_node_local_rank(fallback_rank=9))"
    cases = [({}, "0 1 0 1 9"),
             ({"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "NNODES": "4"}, "3 8 1 4 1"),
             ({"SLURM_PROCID": "6", "SLURM_NTASKS": "8", "SLURM_LOCALID": "2", "SLURM_NNODES": "2"}, "6 8 2 2 2"),
             ({"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "6", "OMPI_COMM_WORLD_LOCAL_RANK": "1"},
              "5 6 1 1 1"),
             ({"PMI_RANK": "2", "PMI_SIZE": "4", "MPI_LOCALRANKID": "0"}, "2 4 0 1 0")]
    for environ, want in cases:
        r = subprocess.run([sys.executable, "-c", code], env=clean_env(**environ), capture_output=True, text=True,
                           timeout=BOUND_S)
        assert r.stdout.strip() == want, (environ, r.stdout, r.stderr)


def test_default_backend_is_the_best_engine_present():
    from monoflow.distributed import process_group
    assert process_group.default_backend() == ("gloo" if dist.is_gloo_available() else "mpi")


# ---------------------------------------------------------------- python -m monoflow.distributed.run

def test_run_reads_torchruns_command_line():
    out, alone = run._translate(["--nproc-per-node", "2", "--standalone", "--max_restarts=1", "--rdzv-backend",
                                 "c10d", "--monitor_interval", "5", "-r", "3", "train.py", "--standalone", "x"])
    assert alone
    assert out == ["--nproc-per-node", "2", "--max_restarts=1", "train.py", "--standalone", "x"]
    args = launch.parse_args(["--standalone", "--nproc_per_node", "2", "--max-restarts", "3", "s.py"])
    assert (args.master_addr, args.nnodes, args.max_restarts) == ("127.0.0.1", 1, 3) and args.master_port > 0
    args = launch.parse_args(["--nnodes", "2:2", "--node_rank", "1", "--master_addr", "h", "s.py"])
    assert (args.nnodes, args.node_rank, args.master_port) == (2, 1, 29500)
    assert launch.parse_args(["--nproc-per-node", "cpu", "s.py"]).nproc_per_node == (os.cpu_count() or 1)


def test_run_refuses_what_its_static_rendezvous_cannot_do(tmp_path, monkeypatch):
    for k in ("NODE_RANK", "GROUP_RANK", "SLURM_NODEID", "OMPI_COMM_WORLD_NODE_RANK"):
        monkeypatch.delenv(k, raising=False)
    for argv, says in ((["--nnodes", "1:4", "s.py"], "elastic"), (["--nnodes", "2", "s.py"], "--node-rank"),
                       (["--standalone", "--nnodes", "2", "--node-rank", "0", "s.py"], "one-node")):
        r = subprocess.run([sys.executable, "-m", "monoflow.distributed.run", *argv], capture_output=True,
                           text=True, timeout=BOUND_S, env=clean_env())
        assert r.returncode == 2 and says in r.stderr, r.stderr
    monkeypatch.setenv("SLURM_NODEID", "1")
    assert launch.parse_args(["--nnodes", "2", "--master-addr", "h", "s.py"]).node_rank == 1


TORCHRUN_ENV_SCRIPT = r'''
import os
keys = ["RANK", "WORLD_SIZE", "LOCAL_RANK", "GROUP_RANK", "ROLE_RANK", "TORCHELASTIC_RESTART_COUNT",
        "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID", "MASTER_ADDR"]
print(" ".join(f"{k}={os.environ.get(k)}" for k in keys))
'''


def test_run_sets_torchruns_variables(tmp_path):
    path = tmp_path / "s.py"
    path.write_text(TORCHRUN_ENV_SCRIPT)
    r = subprocess.run([sys.executable, "-m", "monoflow.distributed.run", "--standalone", "--nproc_per_node=2",
                        "--max-restarts=2", "--rdzv-id=job7", str(path)], capture_output=True, text=True,
                       timeout=BOUND_S, env=clean_env())
    assert r.returncode == 0, r.stderr
    for rank in (0, 1):
        assert (f"RANK={rank} WORLD_SIZE=2 LOCAL_RANK={rank} GROUP_RANK=0 ROLE_RANK={rank} "
                f"TORCHELASTIC_RESTART_COUNT=0 TORCHELASTIC_MAX_RESTARTS=2 TORCHELASTIC_RUN_ID=job7 "
                f"MASTER_ADDR=127.0.0.1") in r.stdout, r.stdout


# A training loop that checkpoints every step and resumes from its checkpoint.
# On the first attempt rank LOSER dies abruptly (os._exit: no exception, no
# cleanup, like a lost host) in the middle of the job; with restarts left the
# launcher starts every rank again and the job finishes from the checkpoint.
RESUMING_SCRIPT = r'''
import json, os, sys
import monoflow as flow
import monoflow.distributed as dist

ckpt, steps, loser, die_on = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
dist.init_process_group()
rank, n = dist.get_rank(), dist.get_world_size()
state = {"step": 0, "total": 0.0}
if os.path.exists(ckpt):
    with open(ckpt) as f:
        state = json.load(f)
print(f"attempt {attempt} rank {rank} resumes at step {state['step']}", flush=True)
while state["step"] < steps:
    if rank == loser and state["step"] == 3 and (die_on == "always" or attempt == 0):
        print(f"rank {rank} dies at step 3", flush=True)
        os._exit(17)
    t = flow.full((2,), float(state["step"] + 1))
    dist.all_reduce(t)                         # every rank adds (step + 1): n (step + 1)
    state = {"step": state["step"] + 1, "total": state["total"] + t[0].item()}
    dist.barrier()                             # every rank has the step before rank 0 records it
    if rank == 0:
        with open(ckpt + ".tmp", "w") as f:
            json.dump(state, f)
        os.replace(ckpt + ".tmp", ckpt)
    dist.barrier()
print(f"DONE rank {rank} attempt {attempt} step {state['step']} total {state['total']:g}", flush=True)
dist.destroy_process_group()
'''


def run_resuming_job(tmp_path, nproc, max_restarts, die_on, steps=6):
    script = tmp_path / "train.py"
    script.write_text(RESUMING_SCRIPT)
    ckpt = tmp_path / "ckpt.json"
    cmd = [sys.executable, "-m", "monoflow.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
           "--max-restarts", str(max_restarts), str(script), str(ckpt), str(steps), str(nproc - 1), die_on]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=BOUND_S, env=clean_env())


@needs_gloo
@pytest.mark.parametrize("nproc", [2, 4])
def test_a_lost_rank_restarts_the_job_which_resumes_from_its_checkpoint(tmp_path, nproc):
    r = run_resuming_job(tmp_path, nproc, max_restarts=2, die_on="first")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    loser = nproc - 1
    assert f"rank {loser} dies at step 3" in r.stdout
    assert f"rank {loser}" in r.stderr and "exited with code 17" in r.stderr and "restart 1 of 2" in r.stderr
    for rank in range(nproc):
        assert f"[rank {rank}] attempt 0 rank {rank} resumes at step 0" in r.stdout
        # the second attempt starts from what the first checkpointed (rank 0 recorded steps 1..3)
        assert f"[rank {rank}] attempt 1 rank {rank} resumes at step 3" in r.stdout, r.stdout
        # sum over steps s = 1..6 of nproc * s
        assert f"DONE rank {rank} attempt 1 step 6 total {nproc * 21}" in r.stdout, r.stdout
    assert "attempt 2" not in r.stdout


@needs_gloo
def test_a_rank_that_keeps_failing_exhausts_the_restarts(tmp_path):
    r = run_resuming_job(tmp_path, 2, max_restarts=1, die_on="always")
    assert r.returncode == 17, r.stdout[-3000:] + r.stderr[-3000:]
    assert "restart 1 of 1" in r.stderr
    assert "rank 1" in r.stderr and "failed first (after 1 restart): it exited with code 17" in r.stderr, r.stderr
    assert "DONE" not in r.stdout
    assert r.stdout.count("rank 1 dies at step 3") == 2


@needs_gloo
def test_without_restarts_a_lost_rank_ends_the_job(tmp_path):
    r = run_resuming_job(tmp_path, 2, max_restarts=0, die_on="first")
    assert r.returncode == 17 and "restart" not in r.stderr, r.stderr
    assert "rank 1" in r.stderr and "exited with code 17" in r.stderr


# ---------------------------------------------------------------- examples/ray_train.py

RAY_EXAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "ray_train.py")

# Ray is optional and not installed here: a stand-in with the few calls the
# example makes, where each actor is a real process (forked; the driver has not
# imported monoflow) serving its method calls in order, as a Ray actor does.
FAKE_RAY = r'''
import multiprocessing as _mp
import traceback as _tb

_actors = []


def init(address=None, **kwargs):
    pass


def shutdown():
    for a in _actors:
        a._stop()
    _actors.clear()


def _serve(cls, args, kwargs, conn):
    obj = cls(*args, **kwargs)
    while True:
        msg = conn.recv()
        if msg is None:
            return
        name, a, k = msg
        try:
            conn.send((True, getattr(obj, name)(*a, **k)))
        except BaseException:
            conn.send((False, _tb.format_exc()))


class ObjectRef:
    def __init__(self, actor, seq):
        self.actor, self.seq = actor, seq


class _Method:
    def __init__(self, actor, name):
        self.actor, self.name = actor, name

    def remote(self, *args, **kwargs):
        return self.actor._call(self.name, args, kwargs)


class _Actor:
    def __init__(self, cls, args, kwargs):
        here, there = _mp.get_context("fork").Pipe()
        self._conn, self._sent, self._got, self._results = here, 0, 0, {}
        self._proc = _mp.get_context("fork").Process(target=_serve, args=(cls, args, kwargs, there))
        self._proc.start()
        _actors.append(self)

    def _call(self, name, args, kwargs):
        self._conn.send((name, args, kwargs))
        self._sent += 1
        return ObjectRef(self, self._sent)

    def _result(self, seq):
        while seq not in self._results:
            self._got += 1
            self._results[self._got] = self._conn.recv()
        ok, value = self._results.pop(seq)
        if not ok:
            raise RuntimeError("actor failed:\n" + value)
        return value

    def _stop(self):
        self._conn.send(None)
        self._proc.join(30)

    def __getattr__(self, name):
        return _Method(self, name)


class _ActorClass:
    def __init__(self, cls):
        self.cls = cls

    def remote(self, *args, **kwargs):
        return _Actor(self.cls, args, kwargs)


def remote(*args, **options):
    if len(args) == 1 and isinstance(args[0], type) and not options:
        return _ActorClass(args[0])
    return _ActorClass


def get(refs):
    if isinstance(refs, list):
        return [r.actor._result(r.seq) for r in refs]
    return refs.actor._result(refs.seq)


class util:
    @staticmethod
    def get_node_ip_address():
        return "127.0.0.1"
'''


def test_ray_example_without_ray_says_so_and_succeeds(tmp_path):
    r = subprocess.run([sys.executable, RAY_EXAMPLE], capture_output=True, text=True, timeout=BOUND_S,
                       env=clean_env(), cwd=str(tmp_path))
    if "Ray is not installed" not in r.stdout:
        pytest.skip("ray is installed here: the real example is run by test_ray_example_forms_the_group")
    assert r.returncode == 0, r.stderr


@needs_gloo
@pytest.mark.parametrize("workers", [2, 4])
def test_ray_example_forms_the_group_from_what_ray_tells_the_actors(tmp_path, workers):
    try:
        import ray  # noqa: F401
        pythonpath = os.environ.get("PYTHONPATH", "")
    except ImportError:   # Ray's calls, with each actor a process of this machine
        (tmp_path / "ray.py").write_text(FAKE_RAY)
        pythonpath = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if p)
    r = subprocess.run([sys.executable, RAY_EXAMPLE, "--workers", str(workers)], capture_output=True, text=True,
                       timeout=BOUND_S, env=clean_env(PYTHONPATH=pythonpath), cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for rank in range(workers):
        assert f"rank {rank} of {workers} (gloo)" in r.stdout, r.stdout
    assert "every rank has the same weights" in r.stdout, r.stdout


# ---------------------------------------------------------------- two machines (network namespaces)

@pytest.fixture(scope="module")
def two_machines():
    """Two network namespaces joined by a veth pair: 10.78.0.1 and 10.78.0.2 (as test_collectives makes)."""
    with network_namespaces(f"mfl{os.getpid() % 100000}", "10.78.0") as names:
        yield names


def communicate_all(procs):
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=BOUND_S)[0])
    except subprocess.TimeoutExpired:
        pytest.fail("a process hung:\n" + "\n".join(outs))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return outs


@needs_gloo
def test_srun_across_two_machines(tmp_path, two_machines):
    # srun --nodes 2 --ntasks-per-node 2: no MASTER_*, rank 0 on the node list's first host, port from the job id.
    path = tmp_path / "rank.py"
    path.write_text(RANK_SCRIPT)
    procs = []
    for node, ns in enumerate(two_machines):
        for local in range(2):
            env = clean_env(SLURM_PROCID=2 * node + local, SLURM_NTASKS=4, SLURM_LOCALID=local, SLURM_NODEID=node,
                            SLURM_NNODES=2, SLURM_JOB_NODELIST="10.78.0.[1-2]", SLURM_JOB_ID=880011, SLURM_STEP_ID=0)
            procs.append(subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, str(path)], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    found = results([(p.returncode, out) for p, out in zip(procs, communicate_all(procs))])
    assert sorted(found) == [0, 1, 2, 3]
    for r, f in found.items():
        assert f["sum"] == expected_sum(4) and f["local"] == str(r % 2), f


@needs_gloo
def test_run_restarts_both_machines_after_a_lost_rank(tmp_path, two_machines):
    # One launcher per machine (srun python -m monoflow.distributed.run --nnodes 2 ...: the node rank from
    # SLURM_NODEID); rank 3, on the second machine, dies on the first attempt: both launchers restart their
    # ranks, which meet again at rank 0's store and resume from the checkpoint.
    script = tmp_path / "train.py"
    script.write_text(RESUMING_SCRIPT)
    ckpt = tmp_path / "ckpt.json"
    procs = []
    for node, ns in enumerate(two_machines):
        cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "monoflow.distributed.run", "--nnodes", "2",
               "--nproc-per-node", "2", "--rdzv-endpoint", "10.78.0.1:29623", "--rdzv-id", "twomachines",
               "--max-restarts", "1", str(script), str(ckpt), "6", "3", "first"]
        procs.append(subprocess.Popen(cmd, env=clean_env(SLURM_NODEID=node), stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    outs = communicate_all(procs)
    for p, out in zip(procs, outs):
        assert p.returncode == 0, out[-4000:]
    assert "rank 3 dies at step 3" in outs[1] and "restart 1 of 1" in outs[1], outs[1]
    for node, out in enumerate(outs):
        for rank in (2 * node, 2 * node + 1):
            assert f"[rank {rank}] DONE rank {rank} attempt 1 step 6 total {4 * 21}" in out, out


GLOBAL_SCRIPT = r'''
import monoflow as flow
placement = flow.placement("cpu", ranks=list(range(flow.env.get_world_size())))
x = (flow.arange(4, dtype=flow.float32) + 10.0 * flow.env.get_rank()).to_global(placement, flow.sbp.split(0))
y = x.to_global(sbp=flow.sbp.broadcast)
print(f"RESULT rank={flow.env.get_rank()} got={','.join(str(int(v)) for v in y.to_local().tolist())}", flush=True)
'''


@needs_gloo
@pytest.mark.parametrize("style", ["slurm", "openmpi"])
def test_global_tensors_join_the_job_under_any_scheduler(tmp_path, style):
    """No init_process_group: global tensors form the job's group from srun's or mpirun's variables."""
    port = free_port_for_slurm() if style == "slurm" else launch.free_port()
    found = results(run_ranks(tmp_path, [STYLES[style](r, 2, port) for r in range(2)], GLOBAL_SCRIPT))
    # each rank's local 4 values are its shard of dim 0: the whole tensor is both ranks' values in order
    assert found[0]["got"] == found[1]["got"] == "0,1,2,3,10,11,12,13"
