"""Multi-rank checks of collectives inside graph traces (run by
test_graph_collectives.py through the launcher):

    python -m monoflow.distributed.launch --nproc-per-node 2 graph_collectives_worker.py OUT_DIR SUITE

Each rank runs the suite's checks and writes OUT_DIR/rank<k>.json:
{check: "ok" | the failure}. A check compares a traced and replayed function
with the same function run eagerly, on every rank.
"""
import json
import os
import sys
import time

import numpy as np

import monoflow as flow
import monoflow.distributed as dist
import monoflow.nn as nn
import monoflow.nn.functional as F
from monoflow import _graph

from graph_worker_common import checker, run_and_write

RESULTS = {}
check = checker(RESULTS)


def rank_data(seed, *shape):
    """Different values on every rank and every seed."""
    rng = np.random.default_rng(1000 * seed + dist.get_rank())
    return flow.tensor(rng.standard_normal(shape).astype(np.float32))


def same(a, b, what):
    np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=what)


def replay_matches(fn, make_inputs, name, runs=3):
    """Trace fn on one set of inputs, replay it on new ones (one run at a
    time, then several iterations per run with slots/threads 1 and 2), and
    compare every result with eager fn on the same inputs."""
    ct = _graph.trace(fn, *make_inputs(0))
    desc = ct.describe()
    for s in range(1, runs):
        args = make_inputs(s)
        got = ct.run(*args)
        want = fn(*make_inputs(s))
        same(got, want, f"{name}: replay {s}")
    for slots, threads in ((1, 2), (2, 1), (2, 2)):
        feeds = [make_inputs(10 * slots + threads + k) for k in range(3)]
        outs = ct.run_each(feeds, slots=slots, threads=threads)
        for k, f in enumerate(feeds):
            want = fn(*make_inputs(10 * slots + threads + k))
            same(outs[k], want, f"{name}: slots={slots} threads={threads} iteration {k}")
    return desc


# ------------------------------------------------------------------ suites

def suite_collectives():
    R, W = dist.get_rank(), dist.get_world_size()

    @check("all_reduce")
    def _():
        def fn(x):
            y = x * 2
            dist.all_reduce(y)
            return y + 1
        desc = replay_matches(fn, lambda s: (rank_data(s, 4, 3),), "all_reduce")
        assert "all_reduce[group ranks 0,1]" in desc, desc

    @check("all_reduce_max_in_place_input")
    def _():
        def fn(x):
            dist.all_reduce(x, op=dist.ReduceOp.MAX)  # writes the caller's tensor
            return x * 3
        ct = _graph.trace(fn, rank_data(0, 5))
        for s in range(1, 3):
            x, xe = rank_data(s, 5), rank_data(s, 5)
            got = ct.run(x)
            same(got, fn(xe), "all_reduce max")
            same(x, xe, "in-place write of the input")

    @check("input_written_by_an_eager_kernel_just_before")
    def _():
        # the collective is the plan's first node: only the run's start mark
        # orders it after the eager kernel still running on the stream
        def fn(x):
            dist.all_reduce(x)
            return x * 2
        n = 1 << 18
        ct = _graph.trace(fn, rank_data(0, n).exp())
        for s in range(1, 4):
            got = ct.run(rank_data(s, n).sin().exp().exp())
            same(got, fn(rank_data(s, n).sin().exp().exp()), "input written just before the run")

    @check("all_gather")
    def _():
        def fn(x):
            parts = [flow.empty((2, 3)) for _ in range(W)]
            dist.all_gather(parts, x + 0.5)
            return flow.cat(parts) * 2
        replay_matches(fn, lambda s: (rank_data(s, 2, 3),), "all_gather")

    @check("broadcast")
    def _():
        def fn(x):
            y = x.exp()
            dist.broadcast(y, src=1)
            return y - x
        desc = replay_matches(fn, lambda s: (rank_data(s, 3, 3),), "broadcast")
        assert "broadcast[group ranks 0,1; root 1]" in desc, desc

    @check("send_recv")
    def _():
        def fn(x):
            if R == 0:
                dist.send(x * 3, 1)
                buf = flow.empty((4,))
                dist.recv(buf, 1)
                return buf + x
            buf = flow.empty((4,))
            dist.recv(buf, 0)
            dist.send(buf + 1, 0)
            return buf * x
        replay_matches(fn, lambda s: (rank_data(s, 4),), "send/recv")

    @check("chain_and_dce")
    def _():
        def fn(x):
            a, b = x + 1, x * 2
            dist.all_reduce(a)
            dist.all_reduce(b)          # independent of a: only the chain orders them
            unused = x - 1
            dist.all_reduce(unused)     # result unused: DCE must keep it (peers take part)
            return a * b
        ct = _graph.trace(fn, rank_data(0, 3))
        desc = ct.describe()
        assert desc.count("all_reduce[group ranks 0,1]") == 3, desc
        assert "(next iteration)" in desc and "collective order" in desc, desc
        outs = ct.run_each([(rank_data(s, 3),) for s in range(1, 5)], slots=2, threads=3)
        for k, o in enumerate(outs):
            same(o, fn(rank_data(k + 1, 3)), f"chain iteration {k}")

    @check("identical_collectives_not_merged")
    def _():
        def fn(x):
            a = x + 1
            dist.all_reduce(a)
            b = x + 1                   # the same kernel as a's, but a was reduced in place since
            dist.all_reduce(b)          # the same collective on equal values: still two collectives
            c = a * 1
            dist.all_reduce(c)
            return a + b * 10 + c * 100
        desc = replay_matches(fn, lambda s: (rank_data(s, 3),), "identical collectives")
        assert desc.count("all_reduce[group ranks 0,1]") == 3, desc

    @check("subgroup_and_world")
    def _():
        g = dist.new_group([0, 1])

        def fn(x):
            y = x + 1
            dist.all_reduce(y, group=g)
            z = x * 2
            dist.all_reduce(z)
            return y + z
        replay_matches(fn, lambda s: (rank_data(s, 6),), "two groups")
        ct = _graph.trace(fn, rank_data(0, 6))
        dist.destroy_process_group(g)
        try:
            ct.run(rank_data(1, 6))
            raise AssertionError("a plan ran a collective of a destroyed group")
        except RuntimeError as e:
            assert "was destroyed" in str(e), str(e)


def _dp_model(rank):
    flow.manual_seed(0 if rank == 0 else 1234)  # to_global broadcasts rank 0's values
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    return model


def _dp_batch(step, n=8):
    rng = np.random.default_rng(50 + step)
    return rng.standard_normal((n, 6)).astype(np.float32), rng.integers(0, 3, n).astype(np.int64)


def suite_dp_graph():
    R = dist.get_rank()
    P = flow.placement("cpu", [0, 1])
    B, S0 = flow.sbp.broadcast, flow.sbp.split(0)
    steps = 4

    def sgd(params):
        return flow.optim.SGD(params, lr=0.1, momentum=0.9)

    def run(use_graph, make_opt=sgd, last_step_broadcast=False):
        model = _dp_model(R)
        model.to_global(P, B)
        opt = make_opt(model.parameters())

        class Step(nn.Graph):
            def __init__(self):
                super().__init__()
                self.m = model
                self.add_optimizer(opt)

            def build(self, x, y):
                loss = F.cross_entropy(self.m(x), y)
                loss.backward()
                return loss

        graph = Step()
        losses = []
        for s in range(steps):
            x, y = _dp_batch(s)
            mine = slice(R * 4, R * 4 + 4)
            gx = flow.tensor(x[mine]).to_global(P, S0)
            gy = flow.tensor(y[mine]).to_global(P, S0)
            if last_step_broadcast and s == steps - 1:  # same logical shape, another layout
                gx, gy = gx.to_global(P, B), gy.to_global(P, B)
            if use_graph:
                loss = graph(gx, gy)
            else:
                loss = F.cross_entropy(model(gx), gy)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            losses.append(float(loss.detach().to_global(P, B).to_local().numpy()))
        params = {k: p.to_local().detach().numpy().copy() for k, p in model.named_parameters()}
        return losses, params, graph

    @check("dp_graph_matches_eager_and_single_process")
    def _():
        g_losses, g_params, graph = run(True)
        e_losses, e_params, _ = run(False)
        np.testing.assert_array_equal(g_losses, e_losses, err_msg="losses")
        for k in e_params:
            np.testing.assert_array_equal(g_params[k], e_params[k], err_msg=k)
        assert "all_reduce" in repr(graph) or any("all_reduce" in ct.describe() for ct in graph._plans.values())
        # one process, the whole batch
        flow.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
        opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        ref = []
        for s in range(steps):
            x, y = _dp_batch(s)
            loss = F.cross_entropy(model(flow.tensor(x)), flow.tensor(y))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            ref.append(float(loss.detach().numpy()))
        np.testing.assert_allclose(g_losses, ref, rtol=1e-4, atol=1e-5, err_msg="losses vs one process")
        for k, p in model.named_parameters():
            np.testing.assert_allclose(g_params[k], p.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=k)


    @check("dp_graph_adamw_and_a_new_input_sbp")
    def _():
        # Adam's per-step values are local tensors fed to the plan; the update
        # runs on the parameters' shards. An input with the same shape and
        # another SBP compiles another plan instead of replaying the wrong one.
        def adamw(params):
            return flow.optim.AdamW(params, lr=0.01, weight_decay=0.1)
        g_losses, g_params, graph = run(True, adamw, last_step_broadcast=True)
        e_losses, e_params, _ = run(False, adamw, last_step_broadcast=True)
        np.testing.assert_allclose(g_losses, e_losses, rtol=1e-6, err_msg="losses")
        for k in e_params:
            np.testing.assert_allclose(g_params[k], e_params[k], rtol=1e-6, atol=1e-7, err_msg=k)
        assert len(graph._plans) == 2, list(graph._plans)


def suite_tp_graph():
    P = flow.placement("cpu", [0, 1])
    B = flow.sbp.broadcast
    steps = 3

    def run(use_graph):
        flow.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
        model[0].to_global(P, flow.sbp.split(0))   # column parallel
        model[2].to_global(P, flow.sbp.split(1))   # row parallel
        opt = flow.optim.SGD(model.parameters(), lr=0.1)

        class Step(nn.Graph):
            def __init__(self):
                super().__init__()
                self.m = model
                self.add_optimizer(opt)

            def build(self, x, y):
                loss = F.cross_entropy(self.m(x), y)
                loss.backward()
                return loss

        graph = Step()
        losses = []
        for s in range(steps):
            x, y = _dp_batch(s)
            gx, gy = flow.tensor(x).to_global(P, B), flow.tensor(y).to_global(P, B)
            if use_graph:
                loss = graph(gx, gy)
            else:
                loss = F.cross_entropy(model(gx), gy)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            losses.append(float(loss.detach().to_global(P, B).to_local().numpy()))
        params = {k: p.to_global(P, B).to_local().detach().numpy().copy() for k, p in model.named_parameters()}
        return losses, params

    @check("tp_graph_matches_eager")
    def _():
        g_losses, g_params = run(True)
        e_losses, e_params = run(False)
        np.testing.assert_array_equal(g_losses, e_losses, err_msg="losses")
        for k in e_params:
            np.testing.assert_array_equal(g_params[k], e_params[k], err_msg=k)


def suite_dead_peer():
    R = dist.get_rank()

    def fn(x):
        y = x * 2
        dist.all_reduce(y)
        return y

    ct = _graph.trace(fn, rank_data(0, 4))
    ct.run(rank_data(1, 4))  # both alive: fine
    dist.barrier()
    if R == 1:
        with open(os.path.join(OUT, "rank1.json"), "w") as f:
            json.dump({"exited": "ok"}, f)
        os._exit(0)  # dies without a word: rank 0's next collective has no peer
    time.sleep(0.5)
    for threads in (1, 2):
        start = time.monotonic()
        try:
            ct.run(rank_data(2, 4), threads=threads, timeout=60.0)
            RESULTS[f"dead_peer_threads{threads}"] = "the graph run did not raise"
        except RuntimeError as e:
            took = time.monotonic() - start
            msg = str(e)
            ok = "all_reduce[group ranks 0,1]" in msg and "graph run" in msg
            RESULTS[f"dead_peer_threads{threads}"] = "ok" if ok else f"unexpected message: {msg}"
            RESULTS[f"dead_peer_threads{threads}_seconds"] = took
        if ct.dead:
            break


def suite_slow_peer():
    """The runtime's watchdog (timeout= of a run) must not kill a collective
    that waits for a slow peer within the group's timeout; a peer that never
    comes fails the run on the waiting rank with the group's timeout, and the
    runtime stays usable."""
    R = dist.get_rank()
    group_timeout = float(os.environ["GRAPH_COLL_TIMEOUT"])

    def fn(x):
        y = x + 1
        dist.all_reduce(y)
        return y

    ct = _graph.trace(fn, rank_data(0, 4))
    dist.barrier()
    if R == 1:
        time.sleep(1.5)  # longer than rank 0's watchdog timeout below
    got = ct.run(rank_data(1, 4), threads=2, timeout=0.3)
    want = fn(rank_data(1, 4))
    RESULTS["slow_peer_within_group_timeout"] = "ok"
    same(got, want, "slow peer")
    dist.barrier()
    if R == 1:
        time.sleep(group_timeout + 4)  # never joins rank 0's next collective
        with open(os.path.join(OUT, "rank1.json"), "w") as f:
            json.dump(RESULTS, f)
        os._exit(0)
    start = time.monotonic()
    try:
        ct.run(rank_data(2, 4), threads=2, timeout=0.3)
        RESULTS["absent_peer_fails"] = "the graph run did not raise"
    except RuntimeError as e:
        RESULTS["absent_peer_seconds"] = time.monotonic() - start
        ok = "all_reduce[group ranks 0,1]" in str(e) and not ct.dead
        RESULTS["absent_peer_fails"] = "ok" if ok else f"unexpected: dead={ct.dead}: {e}"


if __name__ == "__main__":
    OUT, SUITE = sys.argv[1], sys.argv[2]
    timeout = float(os.environ.get("GRAPH_COLL_TIMEOUT", "60"))
    dist.init_process_group("gloo", timeout=timeout)
    run_and_write(OUT, RESULTS, lambda: globals()[f"suite_{SUITE}"]())
    os._exit(0)  # a dead peer leaves the group unable to shut down cleanly
