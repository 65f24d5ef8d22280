"""A DDP script launched the way torchrun launches one (issue 13): environment
variables only, init_process_group("gloo"), init_process_group() without a
backend, or no call at all (DDP initialises from the environment, as OneFlow
does). Two ranks must end with identical parameters that match one process
trained on the same data, on monoflow and on PyTorch."""
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import monoflow.distributed as dist

PROGRAM = os.path.join(os.path.dirname(__file__), "ddp_tutorial_program.py")
BOUND_S = 180

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env(**extra):
    e = {**os.environ, "MONOFLOW_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    for k in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "MONOFLOW_JOB_ID"):
        e.pop(k, None)
    e.update({k: str(v) for k, v in extra.items()})
    return e


def check(r):
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def load(out, tag, rank=0):
    d = json.loads((out / f"{tag}_rank{rank}.json").read_text())
    return {k: np.array(v, dtype=np.float32) for k, v in d["params"].items()}, d["losses"]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("ddp_tutorial")
    check(subprocess.run([sys.executable, PROGRAM, "--reference", "2", "--out", str(d), "--tag", "ref"],
                         capture_output=True, text=True, timeout=BOUND_S, env=env()))
    return d


def assert_ddp_run(out, tag):
    ref, ref_losses = load(out, "ref")
    ranks = [load(out, tag, r) for r in range(2)]
    for name in ref:
        # The averaged gradient is the same bytes on every rank: so are the parameters.
        np.testing.assert_array_equal(ranks[0][0][name], ranks[1][0][name], err_msg=name)
        np.testing.assert_allclose(ranks[0][0][name], ref[name], rtol=1e-5, atol=1e-6, err_msg=name)
    # Each rank's loss is over its half of the step's batch: their mean is the reference's.
    np.testing.assert_allclose((np.array(ranks[0][1]) + np.array(ranks[1][1])) / 2, ref_losses, rtol=1e-5)
    assert ref_losses[-1] < 0.5 * ref_losses[0]   # it trained


@needs_gloo
@pytest.mark.parametrize("init", ["none", "gloo"])
def test_under_the_launcher(out, init):
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "2", "--master-port",
           str(free_port()), PROGRAM, "--init", init, "--out", str(out), "--tag", f"launch_{init}"]
    check(subprocess.run(cmd, capture_output=True, text=True, timeout=BOUND_S, env=env()))
    assert_ddp_run(out, f"launch_{init}")


@needs_gloo
@pytest.mark.parametrize("init", ["default", "none"])
def test_torchrun_environment_only(out, init):
    port = free_port()
    procs = [subprocess.Popen([sys.executable, PROGRAM, "--init", init, "--out", str(out), "--tag", f"env_{init}"],
                              env=env(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, RANK=r, WORLD_SIZE=2, LOCAL_RANK=r),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for r in range(2)]
    for p in procs:
        try:
            output, _ = p.communicate(timeout=BOUND_S)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail("a rank hung")
        assert p.returncode == 0, output[-3000:]
    assert_ddp_run(out, f"env_{init}")


def test_reference_matches_pytorch(out):
    pytest.importorskip("torch")
    check(subprocess.run([sys.executable, PROGRAM, "--framework", "torch", "--reference", "2", "--out", str(out),
                          "--tag", "torch"], capture_output=True, text=True, timeout=BOUND_S, env=env()))
    mine, my_losses = load(out, "ref")
    theirs, their_losses = load(out, "torch")
    for name in theirs:
        np.testing.assert_allclose(mine[name], theirs[name], rtol=1e-5, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(my_losses, their_losses, rtol=1e-5)


def test_ddp_in_a_plain_process_is_a_world_of_one():
    # OneFlow: no launcher, no init_process_group: DDP still works (a world of one).
    code = ("import os\n"
            "for k in ('MASTER_ADDR', 'MASTER_PORT', 'RANK', 'WORLD_SIZE'): os.environ.pop(k, None)\n"
            "import monoflow as flow\n"
            "m = flow.nn.parallel.DistributedDataParallel(flow.nn.Linear(3, 2))\n"
            "m(flow.ones(4, 3)).sum().backward()\n"
            "import monoflow.distributed as dist\n"
            "print('world', dist.get_world_size(), 'grad', m.module.weight.grad.sum().item())\n"
            # OneFlow's DDP is the module itself: its attributes read through the wrapper
            "m.module.lr = 0.5\n"
            "print('attrs', m.lr, m.in_features, m.weight is m.module.weight)\n"
            "try:\n    m.missing\nexcept AttributeError as e:\n    print('missing', type(m).__name__ in str(e))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=BOUND_S, env=env())
    check(r)
    assert "world 1 grad 24.0" in r.stdout and "attrs 0.5 3 True" in r.stdout and "missing True" in r.stdout, \
        r.stdout
