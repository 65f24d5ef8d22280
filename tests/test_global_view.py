"""flow.utils.global_view (OneFlow's): to_global / to_local over nested structures, and global_mode, in
which creation functions make global tensors (monoflow/_global/mode.py); on one process and on 2 ranks."""
import json
import warnings

import numpy as np
import pytest

import monoflow as flow
from test_ddp import launch, needs_gloo

gv = flow.utils.global_view
P1 = flow.placement("cpu", ranks=[0])
B, S = flow.sbp.broadcast, flow.sbp.split


def test_to_global_and_to_local_map_nested_structures():
    model = flow.nn.Sequential(flow.nn.Linear(3, 2), flow.nn.ReLU(), flow.nn.Linear(2, 1))
    sd = model.state_dict()
    g = gv.to_global(sd, P1, B)
    assert list(g) == list(sd) and all(v.is_global and v.sbp == (B,) for v in g.values())
    back = gv.to_local(g)
    for k in sd:
        assert not back[k].is_global
        np.testing.assert_array_equal(back[k].numpy(), sd[k].numpy())
    # an SBP per tensor from a callable; None and non-tensor leaves kept (the latter with a warning)
    with pytest.warns(UserWarning, match="int is not a tensor"):
        out = gv.to_global((flow.ones(4, 2), None, 7), P1, lambda t: S(0))
    assert out[0].sbp == (S(0),) and out[1] is None and out[2] == 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gv.to_global([flow.ones(1), 1], P1, B, warn_on_non_tensor_leaf=False)
    with pytest.raises(ValueError, match="placement= and sbp="):
        gv.to_global(flow.ones(2), P1)
    copied = gv.to_local([flow.ones(2)], copy=True)[0]
    assert copied.numpy().tolist() == [1.0, 1.0]


def test_global_mode_makes_creation_functions_global():
    assert not gv.current_global_mode().is_enabled
    with gv.global_mode(True, placement=P1, sbp=S(0)):
        mode = gv.current_global_mode()
        assert mode.is_enabled and mode.placement == P1 and mode.sbp == (S(0),)
        x, r, t = flow.zeros(4, 2), flow.randn(4), flow.tensor([1.0, 2.0])
        y = (x + 1).sum()  # an op on global operands: its shards' local work stays local
        with gv.global_mode(False):
            assert not flow.ones(2).is_global and not gv.current_global_mode().is_enabled
        assert flow.ones(2, device="cpu").is_global
    assert all(v.is_global and v.placement == P1 and v.sbp == (S(0),) for v in (x, r, t))
    assert y.is_global and y.item() == 8.0
    assert not flow.zeros(2).is_global and not gv.current_global_mode().is_enabled
    with pytest.raises(ValueError, match="placement"):
        gv.global_mode(True, sbp=B)


WORKER = r'''
import json, sys
import monoflow as flow
gv = flow.utils.global_view
P = flow.placement("cpu", ranks=[0, 1])
flow.manual_seed(flow.env.get_rank())  # ranks seed differently: the mode's random tensors still agree
lin = flow.nn.Linear(4, 3).to_global(P, flow.sbp.broadcast)
with gv.global_mode(True, placement=P, sbp=flow.sbp.broadcast):
    x = flow.randn(2, 4)
    noise = flow.randn(2, 3)
    out = lin(x) + noise
sd = gv.to_local(lin.state_dict())
# a placement that leaves rank 1 out: rank 1 passes None and takes rank 0's structure (OneFlow's save/load
# page), and OneFlow's two-argument sbp function
rank = flow.env.get_rank()
src = {"w": flow.ones(2, 3), "step": flow.tensor([5])} if rank == 0 else None
part = gv.to_global(src, placement=flow.placement("cpu", ranks=[0]), sbp=lambda state, t: flow.sbp.broadcast)
# a graph's state dict: global parameters on every rank beside a local step count; rank 1, outside the
# placement, keeps its own structure (its global tensors stay global: the same collectives as rank 0)
mixed = gv.to_global({"m": {"weight": lin.weight}, "step": flow.tensor([3])},
                     placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)
split = gv.to_global({"w": flow.ones(4, 2) * (rank + 1)}, placement=P,
                     sbp=lambda state, t: flow.sbp.split(0) if t is state["w"] else flow.sbp.broadcast)
json.dump({"x": x.numpy().tolist(), "out": out.numpy().tolist(), "global": out.is_global,
           "local_sd": [not v.is_global for v in sd.values()],
           "part": {k: [list(v.shape), str(v.dtype), v.placement.rank_list()] for k, v in part.items()},
           "split": [list(split["w"].shape), str(split["w"].sbp)],
           "mixed": [mixed["m"]["weight"].placement.rank_list(), mixed["step"].placement.rank_list(),
                     list(mixed["m"]["weight"].shape)],
           # printed on a rank outside its placement: a description, not an error (OneFlow prints it there)
           "held": ("<held by ranks [0]>" in repr(part["w"])) == (rank == 1) and "sbp=" in repr(part["w"])},
          open(sys.argv[1] + f"/rank{rank}.json", "w"))
'''


@needs_gloo
def test_global_mode_on_two_ranks_gives_one_logical_tensor(tmp_path):
    (tmp_path / "worker.py").write_text(WORKER)
    r = launch(2, ["worker.py", str(tmp_path)], tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = [json.loads((tmp_path / f"rank{k}.json").read_text()) for k in range(2)]
    assert res[0] == res[1] and res[0]["global"] and all(res[0]["local_sd"])
    assert res[0]["part"] == {"w": [[2, 3], "monoflow.float32", [0]], "step": [[1], "monoflow.int64", [0]]}
    assert res[0]["split"] == [[8, 2], "(monoflow.sbp.split(dim=0),)"] and res[0]["held"]
    assert res[0]["mixed"] == [[0], [0], [3, 4]]
