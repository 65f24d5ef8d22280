"""OneFlow's global-tensor module tests (test/modules/test_global_*, test_consistent_*) run against monoflow on
2 ranks: the defects they found that are not an op's SBP rule (those are cases in global_op_cases.py), checked
against torch or numpy (helper glob, session 5)."""
import pickle

import monoflow as flow


def test_sbp_symbols_called_hand_themselves_back():
    # OneFlow spells the symbols either way: flow.sbp.broadcast and flow.sbp.broadcast() (test_global_expand_op)
    for s in (flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split(0), flow.sbp.split(2)):
        assert s() is s and s() == s and hash(s()) == hash(s)
    assert flow.sbp.split(0)() != flow.sbp.split(1)
    assert pickle.loads(pickle.dumps(flow.sbp.broadcast())) == flow.sbp.broadcast
    x = flow.ones(4, 2, placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.split(0)())
    assert x.sbp == (flow.sbp.split(0),)


def test_env_all_device_placement_covers_every_rank():
    # OneFlow's flow.env.all_device_placement("cpu") (test_global_reshape, test_global_transpose)
    p = flow.env.all_device_placement("cpu")
    assert p == flow.placement("cpu", ranks=list(range(flow.env.get_world_size())))
    assert p.type == "cpu" and list(p.ranks) == [0]


def test_eye_takes_placement_and_sbp():
    # OneFlow's flow.eye(n, m, placement=, sbp=) (the global diag builds on it)
    p = flow.placement("cpu", ranks=[0])
    e = flow.eye(3, 4, dtype=flow.float64, placement=p, sbp=flow.sbp.split(1))
    assert e.is_global and e.sbp == (flow.sbp.split(1),) and e.dtype == flow.float64
    assert (e.to_local().numpy() == __import__("numpy").eye(3, 4)).all()
    assert not flow.eye(2).is_global


def test_new_zeros_and_co_of_a_global_tensor_keep_its_placement_and_sbp():
    # OneFlow: "the returned Tensor has the same dtype, device or placement and sbp as this tensor"
    # (test_global_constant's flow.new_zeros(x), test_global_empty's flow.new_empty(x, size=...))
    import numpy as np

    p = flow.placement("cpu", ranks=[0])
    x = flow.ones(4, 2, dtype=flow.int32, placement=p, sbp=flow.sbp.split(0))
    for y, want in [(flow.new_zeros(x), np.zeros((4, 2))), (x.new_ones((3, 2)), np.ones((3, 2))),
                    (x.new_zeros(5), np.zeros(5)), (x.new_full((2,), 3), np.full(2, 3))]:
        assert y.is_global and y.placement == p and y.sbp == (flow.sbp.split(0),) and y.dtype == flow.int32
        assert (y.to_local().numpy() == want).all()
    e = flow.new_empty(x, size=(8,))
    assert e.is_global and e.shape == (8,) and e.sbp == (flow.sbp.split(0),)
    # a split past the new shape's dims, or partial sums (ones would add up): broadcast
    assert x.new_zeros(()).sbp == (flow.sbp.broadcast,)
    ps = flow.ones(2, placement=p, sbp=flow.sbp.partial_sum).new_ones(2)
    assert ps.sbp == (flow.sbp.broadcast,) and ps.to_local().tolist() == [1.0, 1.0]
    assert not x.new_zeros(2, device="cpu").is_global
    assert x.new_zeros(2, placement=p, sbp=flow.sbp.broadcast).sbp == (flow.sbp.broadcast,)
    # local tensors: as before (torch's new_* need a size; OneFlow's function form defaults to x's)
    loc = flow.ones(3, dtype=flow.float64)
    assert flow.new_zeros(loc).tolist() == [0.0, 0.0, 0.0] and flow.new_zeros(loc).dtype == flow.float64
    assert not loc.new_zeros(2).is_global


def test_numpy_scalar_operands_of_a_global_tensor():
    # np.float32(2) - x hands NumPy's ufunc to the tensor: the scalar is a number to the global op
    import numpy as np
    import pytest

    p = flow.placement("cpu", ranks=[0])
    x = flow.tensor([1.0, 4.0], placement=p, sbp=flow.sbp.broadcast)
    for y, want in [(np.float32(2) - x, [1.0, -2.0]), (np.float64(3) * x, [3.0, 12.0]), (np.exp(x), np.exp([1, 4]))]:
        assert y.is_global and np.allclose(y.to_local().numpy(), want)
    with pytest.raises(RuntimeError, match="global tensor and a numpy array"):
        np.ones(2) + x


_TWO_RANKS = r'''
import json, sys
import monoflow as flow
import monoflow.distributed as dist

dist.init_process_group("gloo")
r = flow.env.get_rank()
out = {}
# OneFlow's test_global_cast (1n2d): a rank outside the placement passes any tensor; shape and dtype come
# from the placement's ranks
x = flow.ones((4, 4), dtype=flow.int32) if r == 0 else flow.zeros((1,), dtype=flow.float32)
y = x.to_global(placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)
out["outside"] = [list(y.shape), y.dtype.name, str(y.sbp[0])]
# local -> broadcast: rank 0's value everywhere; split -> partial_sum -> split
x = flow.ones((4, 4), dtype=flow.int32) * (1 - r)
out["broadcast"] = x.to_global(flow.env.all_device_placement("cpu"), flow.sbp.broadcast).to_local().sum().item()
y = flow.ones((4, 4), dtype=flow.int32).to_global(flow.env.all_device_placement("cpu"), flow.sbp.partial_sum)
out["p2s"] = y.to_global(sbp=flow.sbp.split(0)).to_local().tolist()
# OneFlow's test_global_transpose backward: the retained gradient of a non-leaf global tensor holds the
# gradient's value (it arrives as the dual layout: partial sums for a broadcast tensor, broadcast for a
# partial-sum one); it read as 0 on rank 1 and as 2 before
P = flow.env.all_device_placement("cpu")
out["retained"] = {}
for s in (flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split(1)):
    x = flow.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).to_global(P, flow.sbp.broadcast).to_global(P, s)
    x.retain_grad()
    (flow.transpose(x, 0, 1) * flow.tensor([[1.0, 2.0], [3.0, 4.0]]).to_global(P, flow.sbp.broadcast)).sum().backward()
    out["retained"][str(s)] = x.grad.numpy().tolist()
# the gradient of a local tensor made broadcast is the whole gradient on every rank (OneFlow; it was each
# rank's partial piece: test_global_expand_op)
x = flow.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * (r + 1)
x.retain_grad()
w = flow.tensor([[1.0, 2.0], [3.0, 4.0]]).to_global(P, flow.sbp.broadcast)
(x.to_global(P, flow.sbp.broadcast).to_global(sbp=flow.sbp.split(0)).expand(2, 2, 2) * w).sum().backward()
out["local_grad"] = x.grad.tolist()
with open(sys.argv[1] + f"/rank{r}.json", "w") as f:
    json.dump(out, f)
'''


def test_to_global_on_two_ranks_a_rank_outside_the_placement_passes_any_tensor(tmp_path):
    import json
    import os
    import subprocess
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from global_launch import free_port

    script = tmp_path / "two_ranks.py"
    script.write_text(_TWO_RANKS)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "2", "--master-port",
                        str(free_port()), str(script), str(tmp_path)], capture_output=True, text=True, timeout=300,
                       env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for k in range(2):
        got = json.loads((tmp_path / f"rank{k}.json").read_text())
        assert got["outside"] == [[4, 4], "int32", "monoflow.sbp.broadcast"]
        assert got["broadcast"] == 16
        assert got["p2s"] == [[2, 2, 2, 2], [2, 2, 2, 2]]
        assert len(got["retained"]) == 3
        assert got["local_grad"] == [[2.0, 4.0], [6.0, 8.0]]
        for s, g in got["retained"].items():
            assert g == [[1.0, 3.0], [2.0, 4.0]], s  # d/dx sum(x^T * w) = w^T


def test_zeros_like_and_co_take_placement_and_sbp():
    # OneFlow's flow.zeros_like(x, dtype=, placement=, sbp=) (test_global_zeros_like)
    import pytest

    p = flow.placement("cpu", ranks=[0])
    x = flow.ones(4, 2, dtype=flow.int32, placement=p, sbp=flow.sbp.split(0))
    y = flow.zeros_like(x, dtype=flow.int32, placement=p, sbp=flow.sbp.split(0))
    assert y.is_global and y.sbp == (flow.sbp.split(0),) and y.shape == (4, 2) and y.to_local().sum().item() == 0
    y = flow.ones_like(x, dtype=flow.float64, sbp=flow.sbp.broadcast)
    assert y.placement == p and y.sbp == (flow.sbp.broadcast,) and y.dtype == flow.float64
    y = flow.full_like(x, 7, placement=p)
    assert y.sbp == (flow.sbp.split(0),) and y.to_local().tolist() == [[7, 7]] * 4
    loc = flow.ones(3, dtype=flow.float64)
    y = flow.empty_like(loc, placement=p, sbp=flow.sbp.broadcast)
    assert y.is_global and y.shape == (3,) and y.dtype == flow.float64
    assert not flow.zeros_like(loc).is_global and flow.zeros_like(x).sbp == (flow.sbp.split(0),)
    with pytest.raises(ValueError, match="zeros_like: placement= needs sbp="):
        flow.zeros_like(loc, placement=p)


def test_module_to_global_takes_an_sbp_though_sbps_are_callable():
    # Module.to_global(placement, sbp) also takes a callable sbp(name, tensor); an SBP is callable too
    # (flow.sbp.broadcast() is flow.sbp.broadcast) and must still be taken as the SBP
    p = flow.placement("cpu", ranks=[0])
    m = flow.nn.Linear(3, 4)
    m.to_global(p, flow.sbp.split(0))
    assert m.weight.sbp == (flow.sbp.split(0),) and m.bias.sbp == (flow.sbp.split(0),)
    m = flow.nn.Linear(3, 4)
    m.to_global(p, lambda name, t: flow.sbp.broadcast if name == "bias" else flow.sbp.split(1))
    assert m.weight.sbp == (flow.sbp.split(1),) and m.bias.sbp == (flow.sbp.broadcast,)


def test_to_global_takes_grad_sbp():
    # OneFlow's x.to_global(sbp=..., grad_sbp=...) (test_global_expand_op): a layout hint for the gradient;
    # the gradient's value is the same
    import pytest

    p = flow.placement("cpu", ranks=[0])
    x = flow.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    g = x.to_global(p, flow.sbp.broadcast)
    y = g.to_global(sbp=flow.sbp.split(0), grad_sbp=flow.sbp.broadcast)
    assert y.sbp == (flow.sbp.split(0),)
    (y.expand(3, 2, 2) * 2).sum().backward()
    assert x.grad.tolist() == [[6.0, 6.0], [6.0, 6.0]]
    with pytest.raises(TypeError, match="grad_sbp"):
        g.to_global(sbp=flow.sbp.split(0), grad_sbp="B")


def test_functional_reshape_like():
    # OneFlow's flow._C.reshape_like(x, like) (test_global_reshape's reshape_like, on global tensors)
    import numpy as np
    import torch

    a = np.arange(24.0).reshape(4, 6)
    got = flow._C.reshape_like(flow.tensor(a), flow.empty(3, 8))
    assert np.array_equal(got.numpy(), torch.tensor(a).reshape(3, 8).numpy())
    p = flow.placement("cpu", ranks=[0])
    g = flow._C.reshape_like(flow.tensor(a).to_global(p, flow.sbp.split(1)), flow.empty(24).to_global(p, flow.sbp.broadcast))
    assert g.is_global and g.shape == (24,) and np.array_equal(g.to_local().numpy(), a.reshape(24))


def test_module_to_local_makes_global_parameters_local():
    # OneFlow's Module.to_local (test_module_to_global_or_local): each global parameter/buffer becomes this
    # rank's shard; tied parameters stay tied; gradients follow
    import numpy as np

    p = flow.placement("cpu", ranks=[0])
    m = flow.nn.Sequential(flow.nn.Linear(3, 4), flow.nn.BatchNorm1d(4), flow.nn.Linear(4, 4))
    w = m[0].weight.detach().numpy().copy()
    m.to_global(p, flow.sbp.split(0))
    m(flow.ones(2, 3).to_global(p, flow.sbp.broadcast)).sum().backward()
    g = m[0].weight.grad.to_local().numpy().copy()
    m.to_local()
    assert not m[0].weight.is_global and not m[1].running_mean.is_global
    assert isinstance(m[0].weight, flow.nn.Parameter) and m[0].weight.requires_grad
    assert np.array_equal(m[0].weight.detach().numpy(), w) and np.array_equal(m[0].weight.grad.numpy(), g)
    tied = flow.nn.Module()
    tied.a = flow.nn.Linear(2, 2)
    tied.b = flow.nn.Linear(2, 2)
    tied.b.weight = tied.a.weight
    tied.to_global(p, flow.sbp.broadcast).to_local()
    assert tied.a.weight is tied.b.weight and not tied.a.weight.is_global
