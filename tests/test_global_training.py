"""Training with global tensors: global parameters, Module.to_global,
optimizers and gradient clipping on global parameters, checkpoints of
global state, and the examples/global_*.py training runs.

The examples run through the launcher (2 and 4 processes) and write their
record (losses, gradient norms, first gradients, final parameters); each is
compared here with the same training computed in this process alone. The
other multi-rank checks run in one 2-process job (a worker script recording
each check's outcome per rank, as in test_ddp.py). The single-process tests
use a placement of one rank, which exercises the same code paths without a
job.
"""
import io
import json
import os
import sys
import zipfile

import numpy as np
import pytest

import monoflow as flow
import monoflow.nn as nn
from monoflow.serialization import CheckpointError
from test_ddp import launch, needs_gloo

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(REPO, "examples")
B, S, PS = flow.sbp.broadcast, flow.sbp.split, flow.sbp.partial_sum


def _common():
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)
    import global_common

    return global_common


def _record(path):
    rec = json.loads(path.read_text())
    for part in ("grad", "param"):
        rec[part] = {k: np.asarray(v, np.float32) for k, v in rec[part].items()}
    return rec


def _run_example(nproc, script, d, *args):
    r = launch(nproc, [os.path.join(EXAMPLES, script), *args], d, timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


# ---------------------------------------------------------------- the examples

@pytest.fixture(scope="module")
def tp_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("tp")
    out = _run_example(2, "global_tp_mlp.py", d, "--out", str(d / "rec.json"), "--save", str(d / "tp.ckpt"))
    return d, out


@needs_gloo
def test_tensor_parallel_example_matches_one_process(tp_run):
    d, out = tp_run
    common = _common()
    assert "tensor parallel: losses" in out and "match the single-process run" in out
    want = common.reference("adamw", 4, 0.5)
    got = _record(d / "rec.json")
    common.compare(got, want)
    assert max(want["norm"]) > 0.5  # the clipping was exercised


@needs_gloo
def test_tensor_parallel_checkpoint_loads_in_one_process(tp_run):
    d, _ = tp_run
    common = _common()
    want = common.reference("adamw", 4, 0.5)
    state = flow.load(d / "tp.ckpt")
    for k, v in state["model"].items():
        assert not v.is_global  # logical values, loadable anywhere
        np.testing.assert_allclose(v.numpy(), want["param"][k], rtol=1e-4, atol=1e-5)
    with zipfile.ZipFile(d / "tp.ckpt") as zf:
        assert json.loads(zf.read("monoflow/format.json"))["version"] == [1, 1]
    model = common.MLP()
    model.load_state_dict(state["model"])
    opt = common.make_optimizer("adamw", model.parameters())
    opt.load_state_dict(state["optim"])
    assert opt.state[model.fc1.weight]["step"] == 4
    assert list(opt.state[model.fc1.weight]["exp_avg"].shape) == [common.HIDDEN, common.IN]


@needs_gloo
def test_data_parallel_example_matches_one_process(tmp_path):
    common = _common()
    out = _run_example(2, "global_dp.py", tmp_path, "--out", str(tmp_path / "rec.json"))
    assert "data parallel: losses" in out
    common.compare(_record(tmp_path / "rec.json"), common.reference("sgd", 4, 0.5))


@needs_gloo
def test_hybrid_example_resumes_a_two_rank_checkpoint_on_four_ranks(tp_run, tmp_path):
    # saved by 2 ranks as (S(0)) / (S(1)), loaded by 4 ranks as (B, S(0)) / (B, S(1))
    d, _ = tp_run
    common = _common()
    ckpt = str(d / "tp.ckpt")
    out = _run_example(4, "global_hybrid.py", tmp_path, "--out", str(tmp_path / "rec.json"), "--resume", ckpt,
                       "--start", "4", "--steps", "2")
    assert "hybrid 2x2: losses" in out
    common.compare(_record(tmp_path / "rec.json"), common.reference("adamw", 2, 0.5, resume=ckpt, start=4))


# ---------------------------------------------------------------- one 2-rank job

WORKER = r'''
import copy, io, json, math, os, traceback
import numpy as np
import monoflow as flow
import monoflow.nn as nn
import monoflow.nn.functional as F

R = flow.env.get_rank()
P = flow.placement("cpu", [0, 1])
B, S, PS = flow.sbp.broadcast, flow.sbp.split, flow.sbp.partial_sum
OUT = os.environ["GT_OUT"]
results = {}

def check(name, fn):
    try:
        out = fn()
        results[name] = "ok" if out is None else out
    except Exception as e:  # recorded, asserted by pytest
        results[name] = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"

def value(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)

def gparam(a, sbp):
    return nn.Parameter(flow.tensor(a, placement=P, sbp=sbp))

def parameter():
    p = gparam(value(0, 4, 3), S(0))
    assert isinstance(p, nn.Parameter) and p.is_global and p.is_leaf and p.requires_grad
    assert p.placement == P and p.sbp == (S(0),) and tuple(p.shape) == (4, 3)
    assert tuple(p.to_local().shape) == (2, 3)
    assert repr(p).startswith("Parameter containing:") and "placement=" in repr(p)
    d = p.data
    assert d.is_global and not d.requires_grad and d.sbp == (S(0),)
    q = copy.deepcopy(p)
    assert type(q) is type(p) and q is not p and q.sbp == p.sbp
    np.testing.assert_array_equal(q.detach().numpy(), value(0, 4, 3))
    # the grad hook: a broadcast parameter's gradient is all-reduced
    w = gparam(value(1, 3, 2), B)
    x = flow.tensor(value(2, 6, 3), placement=P, sbp=S(0))
    (x @ w).sum().backward()
    assert w.grad.sbp == (B,)
    np.testing.assert_allclose(w.grad.numpy(), value(2, 6, 3).sum(0)[:, None].repeat(2, 1), rtol=1e-5)
check("parameter", parameter)

def module_to_global():
    flow.manual_seed(10 + R)  # the ranks initialise differently
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    first = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    m.to_global(P, S(0))
    assert all(isinstance(p, nn.Parameter) and p.is_global for p in m.parameters())
    sd = m.state_dict()
    assert sd["0.weight"].sbp == (S(0),) and sd["1.num_batches_tracked"].sbp == (B,)  # 0-d: broadcast
    # every rank now holds rank 0's values (broadcast), cut into its piece
    out = {k: v.numpy().tolist() for k, v in sd.items()}
    return {"values": out, "initial": {k: v.tolist() for k, v in first.items()}}
check("module_to_global", module_to_global)

def local_to_global_broadcasts():
    # OneFlow: a local tensor made global as broadcast takes the first rank's
    # value (written into it, unless copy=True); a split keeps each rank's
    x = flow.tensor([float(R), 1.0 + R])
    g = x.to_global(P, B)
    assert g.to_local().numpy().tolist() == [0.0, 1.0] and x.numpy().tolist() == [0.0, 1.0]
    y = flow.tensor([5.0 + R])
    g2 = y.to_global(P, B, copy=True)
    assert g2.to_local().numpy().tolist() == [5.0] and y.numpy().tolist() == [5.0 + R]
    z = flow.tensor([R]).to_global(P, S(0))
    assert z.numpy().tolist() == [0, 1]
    w = flow.tensor([2.0 + R, 3.0], requires_grad=True)
    (w.to_global(P, B) * 3).sum().backward()
    assert w.detach().numpy().tolist() == [2.0, 3.0] and w.grad is not None
check("local_to_global_broadcasts", local_to_global_broadcasts)

def tied_parameters_stay_tied():
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.weight = a.weight
    m = nn.Sequential(a, b)
    m.to_global(P, B)
    assert m[0].weight is m[1].weight and m[0].weight.is_global
    assert len(list(m.parameters())) == 3
check("tied_parameters", tied_parameters_stay_tied)

def per_parameter_conversion():
    flow.manual_seed(0)
    lin = nn.Linear(4, 6)
    w0 = lin.weight.detach().numpy().copy()
    lin.weight = nn.Parameter(lin.weight.to_global(P, B).to_global(P, S(0)))
    lin.bias = nn.Parameter(lin.bias.to_global(P, B))
    assert lin.weight.sbp == (S(0),) and lin.weight.is_leaf and lin.weight.requires_grad
    assert tuple(lin.weight.to_local().shape) == (3, 4)
    np.testing.assert_array_equal(lin.weight.detach().numpy(), w0)
    x = flow.tensor(value(3, 5, 4), placement=P, sbp=B)
    lin(x).sum().backward()
    assert lin.weight.grad.sbp == (S(0),)
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.tile(value(3, 5, 4).sum(0), (6, 1)), rtol=1e-5)
check("per_parameter_conversion", per_parameter_conversion)

def reference_grads(arrays, seed):
    """Local copies of `arrays` as parameters with a fixed gradient each."""
    ps = [nn.Parameter(flow.tensor(a)) for a in arrays]
    for i, p in enumerate(ps):
        p.grad = flow.tensor(value(seed + i, *p.shape))
    return ps

def optimizers_match_local():
    shapes = [(4, 3), (6,), (2, 5)]
    sbps = [S(0), B, S(1)]
    arrays = [value(20 + i, *s) for i, s in enumerate(shapes)]
    out = {}
    for name, make in [("sgd", lambda ps: flow.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01)),
                       ("nesterov", lambda ps: flow.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True)),
                       ("adam", lambda ps: flow.optim.Adam(ps, lr=0.1, weight_decay=0.01, amsgrad=True)),
                       ("adamw", lambda ps: flow.optim.AdamW(ps, lr=0.1)),
                       ("rmsprop", lambda ps: flow.optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True)),
                       ("adagrad", lambda ps: flow.optim.Adagrad(ps, lr=0.1, initial_accumulator_value=0.1))]:
        gps = [gparam(a, s) for a, s in zip(arrays, sbps)]
        lps = [nn.Parameter(flow.tensor(a)) for a in arrays]
        gopt, lopt = make(gps), make(lps)
        for step in range(3):
            for i, (g, l) in enumerate(zip(gps, lps)):
                grad = value(100 * step + i, *l.shape)
                g.grad = flow.tensor(grad, placement=P, sbp=g.sbp)
                l.grad = flow.tensor(grad)
            gopt.step()
            lopt.step()
        for g, l in zip(gps, lps):
            np.testing.assert_allclose(g.detach().numpy(), l.detach().numpy(), rtol=1e-6, atol=1e-7, err_msg=name)
            for k, v in gopt.state[g].items():
                if isinstance(v, flow.Tensor):
                    assert v.is_global and v.placement == g.placement and v.sbp == g.sbp, (name, k)
                    np.testing.assert_allclose(v.numpy(), lopt.state[l][k].numpy(), rtol=1e-6, atol=1e-7)
                else:
                    assert v == lopt.state[l][k]
        out[name] = "ok"
    return out
check("optimizers_match_local", optimizers_match_local)

def partial_sum_parameters():
    a = value(30, 4)
    p = gparam(a, PS)
    p.grad = flow.tensor(np.ones(4, np.float32), placement=P, sbp=PS)
    flow.optim.SGD([p], lr=0.5, momentum=0.9).step()  # linear: right on partial sums
    np.testing.assert_allclose(p.detach().numpy(), a - 0.5, rtol=1e-6)
    q = gparam(a, PS)
    q.grad = flow.tensor(np.ones(4, np.float32), placement=P, sbp=PS)
    try:
        flow.optim.Adam([q]).step()
    except RuntimeError as e:
        assert "partial sums" in str(e) and "Adam" in str(e), str(e)
        return {"message": str(e)}
    raise AssertionError("Adam stepped a partial-sum parameter")
check("partial_sum_parameters", partial_sum_parameters)

def zero_grad_in_place():
    m = nn.Linear(3, 4)
    m.to_global(P, S(0))
    opt = flow.optim.SGD(m.parameters(), lr=0.1)
    x = flow.tensor(value(4, 2, 3), placement=P, sbp=B)
    m(x).sum().backward()
    g = m.weight.grad
    opt.zero_grad(set_to_none=False)
    assert m.weight.grad is not None and not m.weight.grad.numpy().any()
    m(x).sum().backward()
    m.zero_grad(set_to_none=False)
    assert not m.bias.grad.numpy().any()
check("zero_grad_in_place", zero_grad_in_place)

def clipping():
    arrays = [value(40, 6, 4), value(41, 5), value(42, 3, 4), value(43, 4)]
    sbps = [S(0), B, S(1), PS]
    out = {}
    for norm_type in (2.0, 1.0, math.inf, -math.inf):
        ps = [gparam(np.zeros_like(a), s) for a, s in zip(arrays, sbps)]
        for p, a in zip(ps, arrays):
            # the partial-sum gradient: each rank holds half of the value
            p.grad = flow.tensor(a / 2).to_global(P, PS) if p.sbp == (PS,) else flow.tensor(a, placement=P, sbp=p.sbp)
        flat = np.concatenate([a.ravel() for a in arrays]).astype(np.float64)
        want = np.linalg.norm(flat, norm_type)
        total = nn.utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type)
        assert total.is_global and total.sbp == (B,)
        np.testing.assert_allclose(float(total.item()), want, rtol=1e-5)
        coef = min(1.0, 1.0 / (want + 1e-6))
        for p, a in zip(ps, arrays):
            np.testing.assert_allclose(p.grad.numpy(), a * coef, rtol=1e-5, atol=1e-7)
        out[str(norm_type)] = float(total.item())
    ps = [gparam(np.zeros_like(a), s) for a, s in zip(arrays[:3], sbps[:3])]
    for p, a in zip(ps, arrays):
        p.grad = flow.tensor(a, placement=P, sbp=p.sbp)
    nn.utils.clip_grad_value_(ps, 0.5)
    for p, a in zip(ps, arrays):
        np.testing.assert_allclose(p.grad.numpy(), np.clip(a, -0.5, 0.5))
    return out
check("clipping", clipping)

def checkpoint_relayout():
    path = os.path.join(OUT, "ckpt.mf")
    flow.manual_seed(0)
    src = nn.Linear(5, 6)
    local_values = {k: v.detach().numpy().copy() for k, v in src.state_dict().items()}
    src.to_global(P, S(0))
    opt = flow.optim.Adam(src.parameters(), lr=0.1)
    x = flow.tensor(value(5, 3, 5), placement=P, sbp=B)
    src(x).sum().backward()
    opt.step()
    flow.save({"model": src.state_dict(), "optim": opt.state_dict()}, path)
    assert os.path.exists(path)  # on every rank, as soon as save returns
    want = {k: v.numpy() for k, v in src.state_dict().items()}
    state = flow.load(path)
    for k in want:
        assert not state["model"][k].is_global
        np.testing.assert_array_equal(state["model"][k].numpy(), want[k])
    # into a differently laid out global model (columns instead of rows)
    dst = nn.Linear(5, 6)
    dst.to_global(P, S(1))
    dopt = flow.optim.Adam(dst.parameters(), lr=0.1)
    dst.load_state_dict(state["model"])
    dopt.load_state_dict(state["optim"])
    assert dst.weight.sbp == (S(1),) and dst.bias.sbp == (B,)
    for k in want:
        np.testing.assert_array_equal(dst.state_dict()[k].numpy(), want[k])
    st = dopt.state[dst.weight]
    assert st["step"] == 1 and st["exp_avg"].is_global and st["exp_avg"].sbp == (S(1),)
    np.testing.assert_array_equal(st["exp_avg"].numpy(), opt.state[src.weight]["exp_avg"].numpy())
    # global -> global without a file, and global -> local
    other = nn.Linear(5, 6)
    other.to_global(P, B)
    other.load_state_dict(src.state_dict())
    plain = nn.Linear(5, 6)
    plain.load_state_dict(src.state_dict())
    for k in want:
        np.testing.assert_array_equal(other.state_dict()[k].numpy(), want[k])
        np.testing.assert_array_equal(plain.state_dict()[k].numpy(), want[k])
    # assign=True keeps the model's layout
    fresh = nn.Linear(5, 6)
    fresh.to_global(P, S(0))
    fresh.load_state_dict(state["model"], assign=True)
    assert fresh.weight.is_global and fresh.weight.sbp == (S(0),) and isinstance(fresh.weight, nn.Parameter)
    np.testing.assert_array_equal(fresh.weight.detach().numpy(), want["weight"])
    # OneFlow's global_src_rank: global tensors back, in their saved layout
    g = flow.load(path, global_src_rank=0)
    assert g["model"]["weight"].is_global and g["model"]["weight"].sbp == (S(0),)
    assert g["optim"]["state"][0]["exp_avg"].sbp == (S(0),)
    np.testing.assert_array_equal(g["model"]["weight"].numpy(), want["weight"])
check("checkpoint_relayout", checkpoint_relayout)

def file_object_on_every_rank():
    buf = io.BytesIO()
    p = gparam(value(6, 4, 2), S(0))
    flow.save({"p": p}, buf)
    buf.seek(0)
    loaded = flow.load(buf)["p"]
    assert loaded.requires_grad and not loaded.is_global
    np.testing.assert_array_equal(loaded.detach().numpy(), value(6, 4, 2))
check("file_object_on_every_rank", file_object_on_every_rank)

with open(os.path.join(OUT, f"rank{R}.json"), "w") as f:
    json.dump(results, f)
'''

CHECKS = ["parameter", "module_to_global", "local_to_global_broadcasts", "tied_parameters", "per_parameter_conversion", "optimizers_match_local",
          "partial_sum_parameters", "zero_grad_in_place", "clipping", "checkpoint_relayout",
          "file_object_on_every_rank"]


@pytest.fixture(scope="module")
def worker_results(tmp_path_factory):
    d = tmp_path_factory.mktemp("global_training")
    (d / "worker.py").write_text(WORKER)
    r = launch(2, ["worker.py"], d, env={"GT_OUT": str(d)}, timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return [json.loads((d / f"rank{k}.json").read_text()) for k in range(2)]


@needs_gloo
@pytest.mark.parametrize("name", CHECKS)
def test_two_rank_checks(worker_results, name):
    for rank, res in enumerate(worker_results):
        out = res[name]
        assert out == "ok" or isinstance(out, dict), f"rank {rank}: {out}"


@needs_gloo
def test_module_to_global_takes_the_first_ranks_values(worker_results):
    r0, r1 = (res["module_to_global"] for res in worker_results)
    init = r0["initial"]
    assert init["0.weight"] != r1["initial"]["0.weight"]  # they did start different
    for res in (r0, r1):
        for k, v in res["values"].items():
            np.testing.assert_array_equal(np.asarray(v, np.float32), np.asarray(init[k], np.float32), err_msg=k)


@needs_gloo
def test_clipping_agrees_on_every_rank(worker_results):
    assert worker_results[0]["clipping"] == worker_results[1]["clipping"]


# ---------------------------------------------------------------- one process

P1 = flow.placement("cpu", [0])


def test_parameter_of_a_global_tensor_is_a_global_parameter():
    t = flow.tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2), placement=P1, sbp=S(0))
    p = nn.Parameter(t)
    assert isinstance(p, nn.Parameter) and isinstance(p, type(t)) and p.is_global
    assert p.placement == P1 and p.sbp == (S(0),) and p.requires_grad and p.is_leaf
    assert not nn.Parameter(t, requires_grad=False).requires_grad
    assert type(nn.Parameter(t)) is type(p)  # one cached class
    with pytest.raises(TypeError, match="global tensor"):
        type(p)(flow.zeros(2))
    m = nn.Module()
    m.w = p
    assert [id(x) for x in m.parameters()] == [id(p)]


def test_module_to_global_in_a_world_of_one():
    flow.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    before = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    assert m.to_global(P1, S(0)) is m
    for k, v in m.state_dict().items():
        assert v.is_global, k
        np.testing.assert_array_equal(v.numpy(), before[k])
    assert m[0].weight.sbp == (S(0),) and m[1].num_batches_tracked.sbp == (B,)
    with pytest.raises(TypeError, match="placement"):
        m.to_global("cpu", B)
    with pytest.raises(ValueError, match="sbp"):
        m.to_global(P1)


def test_module_to_global_with_a_function_of_the_name():
    m = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    m.to_global(P1, lambda name, t: S(1) if name == "1.weight" else B)
    assert m[1].weight.sbp == (S(1),) and m[0].weight.sbp == (B,) and m[1].bias.sbp == (B,)


def test_optimizer_state_is_global_and_adagrad_makes_it_at_construction():
    p = nn.Parameter(flow.tensor(np.ones((2, 3), np.float32), placement=P1, sbp=S(1)))
    opt = flow.optim.Adagrad([p], lr=0.1)
    assert opt.state[p]["sum"].is_global and opt.state[p]["sum"].sbp == (S(1),)
    sgd = flow.optim.SGD([p], lr=0.1)  # no momentum: no state entries, as torch
    p.grad = flow.tensor(np.ones((2, 3), np.float32), placement=P1, sbp=S(1))
    sgd.step()
    assert len(sgd.state) == 0
    np.testing.assert_allclose(p.detach().numpy(), np.full((2, 3), 0.9, np.float32))


def _saved(obj):
    buf = io.BytesIO()
    flow.save(obj, buf)
    return buf.getvalue()


def test_checkpoint_records_layout_and_plain_files_stay_version_1_0():
    g = flow.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), placement=P1, sbp=S(1))
    data = _saved({"g": g, "l": flow.ones(2)})
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert json.loads(zf.read("monoflow/format.json"))["version"] == [1, 1]
        node = json.loads(zf.read("monoflow/manifest.json"))["root"]["v"][0][1]
    assert node["placement"] == {"type": "cpu", "ranks": [0]} and node["sbp"] == ["S(1)"]
    assert node["shape"] == [2, 3]
    loaded = flow.load(io.BytesIO(data))
    assert not loaded["g"].is_global
    np.testing.assert_array_equal(loaded["g"].numpy(), np.arange(6.0).reshape(2, 3))
    again = flow.load(io.BytesIO(data), global_src_rank=0)
    assert again["g"].is_global and again["g"].sbp == (S(1),) and again["l"].sbp == (B,)
    with zipfile.ZipFile(io.BytesIO(_saved({"l": flow.ones(2)}))) as zf:
        assert json.loads(zf.read("monoflow/format.json"))["version"] == [1, 0]


@pytest.mark.parametrize("bad", [["S(x)"], "S(0)", [], ["S(0)", "B"]])
def test_malformed_layout_in_a_checkpoint_is_a_checkpoint_error(bad):
    g = flow.tensor(np.ones(2, np.float32), placement=P1, sbp=S(0))
    data = _saved({"g": g})
    src = zipfile.ZipFile(io.BytesIO(data))
    manifest = json.loads(src.read("monoflow/manifest.json"))
    manifest["root"]["v"][0][1]["sbp"] = bad
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for info in src.infolist():
            body = json.dumps(manifest).encode() if info.filename.endswith("manifest.json") else src.read(info)
            zf.writestr(info.filename, body)
    with pytest.raises(CheckpointError, match="placement/sbp"):
        flow.load(io.BytesIO(out.getvalue()))


def test_global_parameter_cannot_be_pickled():
    import pickle

    p = nn.Parameter(flow.tensor(np.ones(2, np.float32), placement=P1, sbp=B))
    with pytest.raises(TypeError, match="monoflow.save"):
        pickle.dumps(p)


DST_RANK_WORKER = r'''
import io, json, os, sys
import numpy as np
import monoflow as flow
r = flow.env.get_rank()
P = flow.placement("cpu", ranks=[0, 1])
m = flow.nn.Linear(4, 2).to_global(P, flow.sbp.broadcast)
with flow.no_grad():
    m.weight.copy_(flow.arange(8.0).reshape(2, 4).to_global(P, flow.sbp.broadcast))
flow.save(m.state_dict(), os.path.join(sys.argv[1], "ck"), global_dst_rank=1)  # OneFlow's: rank 1 writes
buf = io.BytesIO()
flow.save(m.state_dict(), buf, global_dst_rank=1)  # to a file object: the other ranks write nothing
sd = flow.load(os.path.join(sys.argv[1], "ck"), global_src_rank=1)  # rank 1 reads and shares
fresh = flow.nn.Linear(4, 2).to_global(P, flow.sbp.broadcast)
fresh.load_state_dict(sd)
json.dump({"wrote": len(buf.getvalue()), "weight": fresh.weight.numpy().tolist(), "global": sd["weight"].is_global},
          open(os.path.join(sys.argv[1], f"rank{r}.json"), "w"))
'''


@needs_gloo
def test_save_with_global_dst_rank_writes_on_that_rank_only(tmp_path):
    (tmp_path / "worker.py").write_text(DST_RANK_WORKER)
    r = launch(2, ["worker.py", str(tmp_path)], tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = [json.loads((tmp_path / f"rank{k}.json").read_text()) for k in range(2)]
    assert res[0]["wrote"] == 0 and res[1]["wrote"] > 0
    for k in range(2):
        assert res[k]["global"] and res[k]["weight"] == np.arange(8.0).reshape(2, 4).tolist()
    with pytest.raises(ValueError, match="global_dst_rank 3"):
        flow.save({"w": flow.ones(2)}, io.BytesIO(), global_dst_rank=3)
