"""Two-rank checks of ZeRO stages 1 and 3 in nn.Graph (run by test_graph_zero.py):

    python -m monoflow.distributed.launch --nproc-per-node 2 graph_zero_worker.py OUT_DIR

Each rank writes OUT_DIR/rank<k>.json: {check: "ok" | the failure, plus
"figures": measured numbers}. Data parallelism: the model broadcast on 2
ranks, each rank's half of the batch split S(0); the same graph with and
without config.enable_zero (AdamW: 2 runtime threads and slots), and one
process on the whole batch.
"""
import os
import sys

import numpy as np

import monoflow as flow
import monoflow.distributed as dist
import monoflow.nn as nn
import monoflow.nn.functional as F
from monoflow.nn.graph.zero import state_bytes

from graph_worker_common import record, run_and_write

RESULTS = {"figures": {}}
P = flow.placement("cpu", [0, 1])
B, S0 = flow.sbp.broadcast, flow.sbp.split(0)
STEPS = 4
MIN = 8  # shard_min_size: the (3,) bias (1 element per shard) stays unsharded


CHECKS = []  # (name, fn), run in order after the process group is up


def check(name):
    def wrap(fn):
        CHECKS.append((name, fn))
        return fn
    return wrap


def run_checks():
    for name, fn in CHECKS:
        record(RESULTS, name, fn)


def batch(step, n=8):
    rng = np.random.default_rng(70 + step)
    return rng.standard_normal((n, 6)).astype(np.float32), rng.integers(0, 3, n).astype(np.int64)


def sgd(params):
    return flow.optim.SGD(params, lr=0.1, momentum=0.9)


def adamw(params):
    return flow.optim.AdamW(params, lr=0.01, weight_decay=0.1)


def make_model():
    flow.manual_seed(0 if dist.get_rank() == 0 else 1234)  # to_global broadcasts rank 0's values
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    return model.to_global(P, B)


def make_graph(model, opt, zero, threads=1):
    class Step(nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = model
            self.add_optimizer(opt)
            self.config.threads = self.config.slots = threads
            if zero:
                self.config.enable_zero(stage=zero if zero in (2, 3) else 1, shard_min_size=MIN)

        def build(self, x, y):
            loss = F.cross_entropy(self.m(x), y)
            loss.backward()
            return loss
    return Step()


def global_batch(s):
    x, y = batch(s)
    mine = slice(dist.get_rank() * 4, dist.get_rank() * 4 + 4)
    return flow.tensor(x[mine]).to_global(P, S0), flow.tensor(y[mine]).to_global(P, S0)


def train(graph, steps):
    losses = []
    for s in steps:
        loss = graph(*global_batch(s))
        losses.append(float(loss.detach().to_global(P, B).to_local().numpy()))
    return losses


def logical_state(opt):
    """{(param index, key): numpy logical value} of opt.state_dict()."""
    out = {}
    for i, st in opt.state_dict()["state"].items():
        for k, v in st.items():
            out[(i, k)] = v.numpy().copy() if isinstance(v, flow.Tensor) else v
    return out


def params_of(model):
    return {k: p.to_local().detach().numpy().copy() for k, p in model.named_parameters()}


def run(make_opt, zero, threads=1):
    model = make_model()
    opt = make_opt(model.parameters())
    graph = make_graph(model, opt, zero, threads)
    losses = train(graph, range(STEPS))
    return losses, params_of(model), logical_state(opt), opt, graph, model


def one_process(make_opt):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = make_opt(model.parameters())
    losses = []
    for s in range(STEPS):
        x, y = batch(s)
        loss = F.cross_entropy(model(flow.tensor(x)), flow.tensor(y))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach().numpy()))
    return losses, {k: p.detach().numpy() for k, p in model.named_parameters()}


def assert_same_training(a, b, what):
    (la, pa, sa), (lb, pb, sb) = a, b
    np.testing.assert_array_equal(la, lb, err_msg=f"{what}: losses")
    for k in pb:
        np.testing.assert_array_equal(pa[k], pb[k], err_msg=f"{what}: {k}")
    assert sa.keys() == sb.keys(), (sorted(sa), sorted(sb))
    for k in sb:
        np.testing.assert_array_equal(sa[k], sb[k], err_msg=f"{what}: state {k}")


def check_matches(name, make_opt, state_keys, threads=1, zero=True):
    @check(name)
    def _():
        zl, zp, zs, zopt, zgraph, zmodel = run(make_opt, zero, threads)
        nl, np_, ns, nopt, _, _ = run(make_opt, False, threads)
        # Note [ZeRO stage 1 in a graph]: elementwise updates of rows = rows of the update
        assert_same_training((zl, zp, zs), (nl, np_, ns), "ZeRO vs no ZeRO")
        ol, op = one_process(make_opt)
        np.testing.assert_allclose(zl, ol, rtol=1e-4, atol=1e-5, err_msg="losses vs one process")
        for k in op:
            np.testing.assert_allclose(zp[k], op[k], rtol=1e-4, atol=1e-5, err_msg=k)
        # each rank holds its rows of the state of each sharded parameter
        names = dict(zip((id(p) for p in zmodel.parameters()), (k for k, _ in zmodel.named_parameters())))
        for p in zmodel.parameters():
            st = zopt.state[p]
            for key in state_keys:
                v = st[key]
                if p.numel() // 2 >= MIN:
                    assert v.sbp == (S0,), (names[id(p)], key, v.sbp)
                    lo = (p.shape[0] + 1) // 2 if dist.get_rank() == 0 else p.shape[0] // 2
                    assert v.to_local().numel() == lo * (p.numel() // p.shape[0]), (names[id(p)], key)
                else:  # the small bias keeps the parameter's layout
                    assert v.sbp == (B,) and v.to_local().numel() == p.numel(), (names[id(p)], key, v.sbp)
        zb, nb = state_bytes(zopt), state_bytes(nopt)
        RESULTS["figures"][name + "_state_bytes"] = [zb, nb]
        assert 0.45 < zb / nb < 0.56, (zb, nb)
        assert "zero" in repr(zgraph) and "shard_min_size=8" in repr(zgraph), repr(zgraph)


check_matches("sgd_momentum_zero_matches", sgd, ["momentum_buffer"])


@check("plain_sgd_is_not_sharded")
def _():
    from monoflow.nn.graph.zero import ZeroSettings, ZeroSharding

    model = make_model()
    settings = ZeroSettings(stage=1, shard_min_size=1)
    assert not ZeroSharding(flow.optim.SGD(model.parameters(), lr=0.1), settings).rows  # no state to shard
    assert len(ZeroSharding(sgd(model.parameters()), settings).rows) == 4
check_matches("adamw_zero_matches", adamw, ["exp_avg", "exp_avg_sq"], threads=2)  # (2 threads, 2 slots)
check_matches("adamw_zero2_matches", adamw, ["exp_avg", "exp_avg_sq"], zero=2)  # OneFlow's default stage


@check("comm_bytes_per_step")
def _():
    # After the warm-up step and the compile: one replayed step's traffic.
    # Stage 1 = the gradients' all-reduce (as without ZeRO) + the parameters'
    # all-gather, (numel - own rows) * 4 bytes received per sharded parameter.
    measured = {}
    for zero in (False, True):
        model = make_model()
        opt = adamw(model.parameters())
        graph = make_graph(model, opt, zero)
        train(graph, range(2))
        dist.reset_comm_stats()
        graph(*global_batch(2))
        params_of(model)  # (reads wait for the step's work)
        measured[zero] = dist.get_comm_stats()["bytes"]
    gather = 0
    for p in model.parameters():
        if p.numel() // 2 >= MIN:
            own = ((p.shape[0] + 1) // 2 if dist.get_rank() == 0 else p.shape[0] // 2) * (p.numel() // p.shape[0])
            gather += (p.numel() - own) * 4
    allreduce = sum(p.numel() * 4 for p in model.parameters())  # 2 (n-1) N / n = N on 2 ranks
    RESULTS["figures"]["comm_bytes"] = {"no_zero": measured[False], "zero": measured[True],
                                        "grad_all_reduce": allreduce, "param_all_gather": gather}
    assert measured[True] - measured[False] == gather, (measured, gather)
    assert measured[False] >= allreduce, (measured, allreduce)


@check("adamw_zero3_matches")
def _():
    # Note [ZeRO stage 3 in a graph]: the sharded parameters are S(0) at rest,
    # gathered by the ops that use them; training equals one process.
    model = make_model()
    opt = adamw(model.parameters())
    graph = make_graph(model, opt, 3)
    before = sum(p.to_local().numel() for p in model.parameters())
    losses = train(graph, range(2))
    assert "parameters, gradients and optimizer state split" in repr(graph), repr(graph)
    names = dict(zip((id(p) for p in model.parameters()), (k for k, _ in model.named_parameters())))
    for p in model.parameters():
        sharded = p.numel() // 2 >= MIN
        assert p.sbp == ((S0,) if sharded else (B,)), (names[id(p)], p.sbp)
        for key in ("exp_avg", "exp_avg_sq"):
            assert opt.state[p][key].sbp == p.sbp, (names[id(p)], key)
    held = sum(p.to_local().numel() for p in model.parameters())
    RESULTS["figures"]["zero3_param_elements_per_rank"] = [before, held]
    assert held < 0.56 * before, (held, before)
    graph.config.enable_zero(False)  # back to broadcast parameters, the same objects
    losses += train(graph, range(2, STEPS))
    assert all(p.sbp == (B,) for p in model.parameters())
    ol, op = one_process(adamw)
    np.testing.assert_allclose(losses, ol, rtol=1e-4, atol=1e-5, err_msg="losses vs one process")
    for k, p in model.named_parameters():
        np.testing.assert_allclose(p.to_local().detach().numpy(), op[k], rtol=1e-4, atol=1e-5, err_msg=k)


@check("adamw_zero1_no_restore_keeps_params_split")
def _():
    # shard_restore_level=0 (OneFlow's "no restore"; its test_graph_zero uses it with stage 1):
    # the sharded parameters stay S(0) at rest, as in stage 3; training equals one process.
    model = make_model()
    opt = adamw(model.parameters())
    graph = make_graph(model, opt, False)
    graph.config.enable_zero(stage=1, shard_min_size=MIN, shard_restore_level=0)
    losses = train(graph, range(STEPS))
    assert "parameters, gradients and optimizer state split" in repr(graph), repr(graph)
    for p in model.parameters():
        assert p.sbp == ((S0,) if p.numel() // 2 >= MIN else (B,)), p.sbp
    ol, op = one_process(adamw)
    np.testing.assert_allclose(losses, ol, rtol=1e-4, atol=1e-5, err_msg="losses vs one process")
    for k, p in model.named_parameters():
        np.testing.assert_allclose(p.to_global(P, B).to_local().detach().numpy(), op[k], rtol=1e-4, atol=1e-5,
                                   err_msg=k)


@check("checkpoints_cross_zero_and_no_zero")
def _():
    # 4 steps uninterrupted vs 2 steps, the optimizer's state_dict loaded
    # into a fresh optimizer of a graph with the other setting, 2 more steps.
    for first, second in ((True, False), (False, True)):
        ref_l, ref_p, ref_s, _, _, _ = run(adamw, second)
        model = make_model()
        opt = adamw(model.parameters())
        l1 = train(make_graph(model, opt, first), range(2))
        opt2 = adamw(model.parameters())
        opt2.load_state_dict(opt.state_dict())
        l2 = train(make_graph(model, opt2, second), range(2, 4))
        assert_same_training((l1 + l2, params_of(model), logical_state(opt2)), (ref_l, ref_p, ref_s),
                             f"zero={first} -> zero={second}")


if __name__ == "__main__":
    OUT = sys.argv[1]
    dist.init_process_group("gloo", timeout=60)
    run_and_write(OUT, RESULTS, run_checks)
    os._exit(0)
