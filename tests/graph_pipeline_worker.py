"""A 2-stage pipeline in nn.Graph on 2 ranks (run by test_graph_pipeline.py
through the launcher), compared with the same training in one process:

    python -m monoflow.distributed.launch --nproc-per-node 2 graph_pipeline_worker.py OUT_DIR [threads [schedule]]
    python -m monoflow.distributed.launch --nproc-per-node 2 graph_pipeline_worker.py OUT_DIR memory
    python -m monoflow.distributed.launch --nproc-per-node 4 graph_pipeline_worker.py OUT_DIR   (2x2 hybrid)

Each rank writes OUT_DIR/rank<k>.json with the pipeline's losses and final
parameters (gathered to every rank after training, outside the graph), the
single-process reference's, and the outcome of the bad-placement check;
in `memory` mode, each schedule's planned transient bytes per rank for 8
micro-batches of a wider model (Note [Pipeline schedules]).
"""
import os
import sys

import numpy as np

import monoflow as flow
import monoflow.distributed as dist
import monoflow.nn as nn
import monoflow.nn.functional as F

from graph_worker_common import run_and_write

IN, HIDDEN, OUT, BATCH, MICRO, STEPS = 8, 32, 4, 16, 4, 4


def make_stages(hidden=HIDDEN, depth=1):
    flow.manual_seed(0)
    s0 = [nn.Linear(IN, hidden), nn.ReLU()] + [m for _ in range(depth - 1) for m in (nn.Linear(hidden, hidden), nn.ReLU())]
    return nn.Sequential(*s0), nn.Sequential(*[m for _ in range(depth) for m in (nn.Linear(hidden, hidden), nn.Tanh())],
                                             nn.Linear(hidden, OUT))


def batch(step, rows=BATCH):
    rng = np.random.default_rng(7 + step)
    return rng.standard_normal((rows, IN)).astype(np.float32), rng.integers(0, OUT, rows).astype(np.int64)


def make_optimizer(params):
    return flow.optim.SGD(params, lr=0.1, momentum=0.9)


def pipeline_run(threads, schedule="1F1B", micro=MICRO, widths=None, rows=BATCH, steps=STEPS):
    P0, P1 = flow.placement("cpu", [0]), flow.placement("cpu", [1])
    everywhere = flow.placement("cpu", [0, 1])
    B = flow.sbp.broadcast
    s0, s1 = make_stages(*(widths or ()))
    s0.to_global(P0, B)
    s1.to_global(P1, B)
    opt = make_optimizer(list(s0.parameters()) + list(s1.parameters()))

    class PipelineStep(nn.Graph):
        def __init__(self):
            super().__init__()
            self.s0, self.s1 = s0, s1
            self.s0.to(nn.graph.GraphModule).set_stage(0, P0)
            self.s1.to(nn.graph.GraphModule).set_stage(1, P1)
            self.add_optimizer(opt)
            self.config.set_gradient_accumulation_steps(micro)
            self.config.set_pipeline_schedule(schedule)
            self.config.threads = threads

        def build(self, x, y):
            loss = F.cross_entropy(self.s1(self.s0(x)), y)
            loss.backward()
            return loss

    graph = PipelineStep()
    losses = []
    for s in range(steps):
        x, y = batch(s, rows)
        loss = graph(flow.tensor(x).to_global(P0, B), flow.tensor(y).to_global(P1, B))
        losses.append(loss.detach().to_global(everywhere, B).to_local().numpy().tolist())
    params = {f"s0.{k}": p.to_global(everywhere, B).to_local().detach().numpy().tolist()
              for k, p in s0.named_parameters()}
    params.update({f"s1.{k}": p.to_global(everywhere, B).to_local().detach().numpy().tolist()
                   for k, p in s1.named_parameters()})
    plans = [ct.describe() for ct in graph._plans.values()]
    memory = [ct.memory()["transient"] for ct in graph._plans.values()]
    return losses, params, plans, memory


def hybrid_run():
    """2 stages x 2-way data parallelism on 4 ranks: each stage on 2 ranks,
    the batch split(0) across them."""
    P0, P1 = flow.placement("cpu", [0, 1]), flow.placement("cpu", [2, 3])
    everywhere = flow.placement("cpu", [0, 1, 2, 3])
    B, S0 = flow.sbp.broadcast, flow.sbp.split(0)
    s0, s1 = make_stages()
    s0.to_global(P0, B)
    s1.to_global(P1, B)
    opt = make_optimizer(list(s0.parameters()) + list(s1.parameters()))

    class HybridStep(nn.Graph):
        def __init__(self):
            super().__init__()
            self.s0, self.s1 = s0, s1
            self.s0.to(nn.graph.GraphModule).set_stage(0, P0)
            self.s1.to(nn.graph.GraphModule).set_stage(1, P1)
            self.add_optimizer(opt)
            self.config.set_gradient_accumulation_steps(MICRO)

        def build(self, x, y):
            loss = F.cross_entropy(self.s1(self.s0(x)), y)
            loss.backward()
            return loss

    graph = HybridStep()
    losses = []
    for s in range(STEPS):
        x, y = batch(s)
        loss = graph(flow.tensor(x).to_global(P0, S0), flow.tensor(y).to_global(P1, S0))
        losses.append(loss.detach().to_global(everywhere, B).to_local().numpy().tolist())
    params = {f"s0.{k}": p.detach().to_global(everywhere, B).to_local().numpy().tolist()
              for k, p in s0.named_parameters()}
    params.update({f"s1.{k}": p.detach().to_global(everywhere, B).to_local().numpy().tolist()
                   for k, p in s1.named_parameters()})
    return losses, params, [ct.describe() for ct in graph._plans.values()]


def reference_run():
    """The same training in this process alone: gradient accumulation by hand."""
    s0, s1 = make_stages()
    opt = make_optimizer(list(s0.parameters()) + list(s1.parameters()))
    losses = []
    for s in range(STEPS):
        x, y = batch(s)
        step = []
        for xb, yb in zip(flow.tensor(x).chunk(MICRO), flow.tensor(y).chunk(MICRO)):
            loss = F.cross_entropy(s1(s0(xb)), yb)
            loss.backward()
            step.append(float(loss.detach().numpy()))
        with flow.no_grad():
            for p in opt.param_groups[0]["params"]:
                p.grad.mul_(1.0 / MICRO)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(step)
    params = {f"s0.{k}": p.detach().numpy().tolist() for k, p in s0.named_parameters()}
    params.update({f"s1.{k}": p.detach().numpy().tolist() for k, p in s1.named_parameters()})
    return losses, params


def bad_placement():
    s0, _ = make_stages()

    class G(nn.Graph):
        def __init__(self):
            super().__init__()
            self.s0 = s0

        def build(self, x):
            return self.s0(x)

    g = G()
    try:
        g.s0.to(nn.graph.GraphModule).set_stage(0, flow.placement("cpu", [0, 5]))
        return "set_stage accepted a rank that does not exist"
    except ValueError as e:
        if "5" not in str(e) or "do not exist" not in str(e):
            return f"unexpected message: {e}"
    # parameters that are not on the stage's placement, a stage without placement
    for placement, match in ((flow.placement("cpu", [1]), "to_global"), (None, "no placement")):
        g = G()
        g.s0.to(nn.graph.GraphModule).set_stage(0, placement)
        try:
            g(flow.ones(4, IN))
            return f"a stage with {placement} and local parameters was accepted"
        except ValueError as e:
            if match not in str(e):
                return f"unexpected message: {e}"
    return "ok"


if __name__ == "__main__":
    out_dir = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "2"
    schedule = sys.argv[3] if len(sys.argv) > 3 else "1F1B"
    dist.init_process_group("gloo", timeout=60)
    res = {}

    def run():
        if dist.get_world_size() == 4:
            res["losses"], res["params"], res["plans"] = hybrid_run()
            res["ref_losses"], res["ref_params"] = reference_run()
        elif mode == "memory":  # 8 micro-batches of 512 rows through 2 x 2 hidden layers of 64: activations dominate
            for schedule_name in ("GPipe", "1F1B"):
                losses, _, _, memory = pipeline_run(2, schedule_name, micro=8, widths=(64, 2), rows=4096, steps=2)
                res[schedule_name] = {"losses": losses, "transient": memory[-1]}
        else:
            res["losses"], res["params"], res["plans"], _ = pipeline_run(int(mode), schedule)
            res["ref_losses"], res["ref_params"] = reference_run()
            res["bad_placement"] = bad_placement()
    run_and_write(out_dir, res, run)
    os._exit(0)
