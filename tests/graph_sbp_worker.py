"""Two-rank checks of whole-graph SBP deduction (run by
test_graph_whole_graph_sbp.py through the launcher):

    python -m monoflow.distributed.launch --nproc-per-node 2 graph_sbp_worker.py OUT_DIR all

Each rank writes OUT_DIR/rank<k>.json: {check: "ok" | the failure} and the
bytes it received per replayed step ("*_measured") next to the cost model's
bytes for all ranks ("*_model").
"""
import re
import sys

import numpy as np

import monoflow as flow
import monoflow.distributed as dist
import monoflow.nn as nn
import monoflow.nn.functional as F

from graph_worker_common import checker, run_and_write

RESULTS = {}
check = checker(RESULTS)
N, D, E = 8, 4, 16
STEPS = 4


def _model_bytes(graph):
    """(greedy, whole-graph) bytes per step from the graph's report."""
    report = list(graph._sbp_reports.values())[-1]
    m = re.search(r"sbp: greedy (\d+) bytes -> whole-graph (\d+) bytes per step", report)
    return int(m.group(1)), int(m.group(2))


def chain(model, x):
    return F.relu(model(x)).sum()


def residual(model, x):
    h = model(x)
    return (F.relu(h) + h).sum()  # h has two consumers


class Step(nn.Graph):
    def __init__(self, model, opt, forward):
        super().__init__()
        self.m = model
        self.add_optimizer(opt)
        self.forward = forward

    def build(self, x):
        loss = self.forward(self.m, x)
        loss.backward()
        return loss


def train(mode, x_sbp, forward=chain):
    """mode 'eager', 'greedy' (whole-graph SBP off) or 'whole': losses,
    parameters, bytes received per step on this rank, the graph."""
    P = flow.placement("cpu", [0, 1])
    flow.manual_seed(0)
    model = nn.Linear(D, E)
    model.to_global(P, flow.sbp.broadcast)
    opt = flow.optim.SGD(model.parameters(), lr=0.1)
    graph = Step(model, opt, forward)
    if mode == "greedy":
        graph.config.enable_whole_graph_sbp(False)
    losses, moved, plans = [], [], []
    for s in range(STEPS):
        x = np.random.default_rng(10 + s).standard_normal((N, D)).astype(np.float32)
        gx = flow.tensor(x, placement=P, sbp=x_sbp)
        dist.reset_comm_stats()
        if mode == "eager":
            loss = forward(model, gx)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        else:
            loss = graph(gx)
        moved.append(dist.get_comm_stats()["bytes"])
        plans.append(list(graph._plans.values()))
        losses.append(float(loss.detach().to_global(P, flow.sbp.broadcast).to_local().numpy()))
    params = {k: p.to_global(P, flow.sbp.broadcast).to_local().detach().numpy().copy()
              for k, p in model.named_parameters()}
    return losses, params, moved, graph, plans


def suite_all():
    S0, S1 = flow.sbp.split(0), flow.sbp.split(1)

    @check("trap_matches_eager")
    def _():
        e_losses, e_params, _, _, _ = train("eager", S1)
        g_losses, g_params, g_moved, greedy, g_plans = train("greedy", S1)
        w_losses, w_params, w_moved, whole, w_plans = train("whole", S1)
        # greedy: the first call's plan is kept and replayed
        assert len(g_plans[0]) == 1 and all(p[0] is g_plans[0][0] for p in g_plans[1:]), g_plans
        assert not greedy._sbp_reports, greedy._sbp_reports  # switched off: nothing logged
        # whole-graph: the first call's plan is dropped, the second call re-traces, later calls replay it
        assert w_plans[0] == [] and len(w_plans[1]) == 1 and all(p[0] is w_plans[1][0] for p in w_plans[2:])
        g_model, w_model = _model_bytes(whole)
        text = repr(whole)
        assert f"sbp: greedy {g_model} bytes -> whole-graph {w_model} bytes per step" in text, text
        assert "stopped" not in text, text
        RESULTS.update(greedy_measured=g_moved[-1], whole_measured=w_moved[-1], greedy_model=g_model,
                       whole_model=w_model)
        assert len(set(g_moved[1:])) == 1 and len(set(w_moved[2:])) == 1, (g_moved, w_moved)
        # results: the same training; the reduction order differs (partial sums vs local rows)
        np.testing.assert_allclose(w_losses, e_losses, rtol=1e-5, atol=1e-5, err_msg="losses, whole-graph")
        np.testing.assert_allclose(g_losses, e_losses, rtol=1e-5, atol=1e-5, err_msg="losses, greedy")
        for k in e_params:
            np.testing.assert_allclose(w_params[k], e_params[k], rtol=1e-5, atol=1e-6, err_msg=k)
            np.testing.assert_allclose(g_params[k], e_params[k], rtol=1e-5, atol=1e-6, err_msg=k)

    @check("residual")
    def _():
        e_losses, e_params, _, _, _ = train("eager", S1, residual)
        _, _, g_moved, _, _ = train("greedy", S1, residual)
        w_losses, w_params, w_moved, whole, _ = train("whole", S1, residual)
        g_model, w_model = _model_bytes(whole)
        RESULTS.update(res_greedy_measured=g_moved[-1], res_whole_measured=w_moved[-1], res_greedy_model=g_model,
                       res_whole_model=w_model)
        np.testing.assert_allclose(w_losses, e_losses, rtol=1e-5, atol=1e-5, err_msg="losses")
        for k in e_params:
            np.testing.assert_allclose(w_params[k], e_params[k], rtol=1e-5, atol=1e-6, err_msg=k)

    @check("eval_graph")
    def _():
        P = flow.placement("cpu", [0, 1])
        flow.manual_seed(0)
        model = nn.Linear(D, E)
        model.to_global(P, flow.sbp.broadcast)

        class Infer(nn.Graph):
            def __init__(self):
                super().__init__()
                self.m = model

            def build(self, x):
                return F.relu(self.m(x))

        graph = Infer()
        moved = []
        for s in range(3):
            x = flow.tensor(np.random.default_rng(s).standard_normal((N, D)).astype(np.float32), placement=P, sbp=S1)
            dist.reset_comm_stats()
            out = graph(x)
            moved.append(dist.get_comm_stats()["bytes"])
            with flow.no_grad():
                want = F.relu(model(x))
            np.testing.assert_allclose(out.to_global(P, flow.sbp.broadcast).to_local().numpy(),
                                       want.to_global(P, flow.sbp.broadcast).to_local().numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=f"call {s}")
        g_model, w_model = _model_bytes(graph)
        assert w_model < g_model, (g_model, w_model)
        RESULTS.update(eval_measured=moved[-1], eval_model=w_model, eval_greedy_model=g_model)

    @check("greedy_optimal_not_retraced")
    def _():
        e_losses, e_params, _, _, _ = train("eager", S0)
        w_losses, w_params, w_moved, whole, w_plans = train("whole", S0)
        g_model, w_model = _model_bytes(whole)
        assert g_model == w_model, (g_model, w_model)
        assert not whole._sbp_pending
        assert len(w_plans[0]) == 1 and all(p[0] is w_plans[0][0] for p in w_plans[1:]), w_plans
        RESULTS.update(dp_measured=w_moved[-1], dp_model=w_model)
        np.testing.assert_allclose(w_losses, e_losses, rtol=1e-5, atol=1e-5, err_msg="losses")
        for k in e_params:
            np.testing.assert_allclose(w_params[k], e_params[k], rtol=1e-5, atol=1e-6, err_msg=k)


if __name__ == "__main__":
    OUT, SUITE = sys.argv[1], sys.argv[2]
    dist.init_process_group("gloo", timeout=60)
    run_and_write(OUT, RESULTS, lambda: globals()[f"suite_{SUITE}"]())
    dist.destroy_process_group()
