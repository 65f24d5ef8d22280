"""OneFlow's documentation programs for 2 processes, run as written with `oneflow` = monoflow
(through monoflow.mock_torch's extra_dict): the global tensor page (placement, SBP, local <->
global, the SBP a matmul deduces, boxing to broadcast) and the pipeline parallelism page (the
quickstart network in two stages on two ranks, gradient accumulation of 2 micro-batches), with
the stages set the three ways OneFlow's versions spell it (0.9: to(GraphModule).set_stage, 0.8:
config.set_stage, 0.7: config.stage_id with the placement taken from the stage's parameters).
The pipeline's first losses are checked against the same network run eagerly.

Run: python -m monoflow.distributed.launch --nproc-per-node 2 oneflow_docs_global.py OUT_DIR"""
import json
import os
import sys

import numpy as np

import monoflow.mock_torch as mock

mock.enable(extra_dict={"oneflow": "monoflow"})
import oneflow as flow  # noqa: E402

out_dir = sys.argv[1]
rank = flow.env.get_rank()
res = {}

# ---------------------------------------------------------------- global tensor page
placement = flow.placement("cpu", ranks=[0, 1])
x = flow.randn(4, 5, placement=placement, sbp=flow.sbp.split(0))
res["global"] = [list(x.shape), list(x.to_local().shape), x.is_global]
local = flow.ones(2, 5) * (rank + 1)
y = local.to_global(placement=placement, sbp=flow.sbp.split(0))
res["local_to_global"] = [list(y.shape), y.to_global(sbp=flow.sbp.broadcast).to_local().sum(1).tolist()]
a = flow.randn(4, 5, placement=placement, sbp=flow.sbp.split(0))
w = flow.randn(5, 8, placement=placement, sbp=flow.sbp.broadcast)
res["data_parallel_sbp"] = str(flow.matmul(a, w).sbp)
a = flow.randn(4, 5, placement=placement, sbp=flow.sbp.broadcast)
w = flow.randn(5, 8, placement=placement, sbp=flow.sbp.split(1))
res["model_parallel_sbp"] = str(flow.matmul(a, w).sbp)
a = flow.ones(4, 6, placement=placement, sbp=flow.sbp.split(1))
w = flow.ones(6, 3, placement=placement, sbp=flow.sbp.split(0))
z = flow.matmul(a, w)
res["partial_sum"] = [str(z.sbp), z.to_global(sbp=flow.sbp.broadcast).to_local().tolist()]

# ---------------------------------------------------------------- pipeline parallelism page
BATCH_SIZE = 16
BROADCAST = [flow.sbp.broadcast]
P0 = flow.placement("cpu", ranks=[0])
P1 = flow.placement("cpu", ranks=[1])


class Stage0Module(flow.nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = flow.nn.Flatten()
        self.linear0 = flow.nn.Linear(28 * 28, 64)
        self.relu0 = flow.nn.ReLU()

    def forward(self, x):
        out = self.flatten(x)
        out = self.linear0(out)
        out = self.relu0(out)
        return out


class Stage1Module(flow.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = flow.nn.Linear(64, 64)
        self.relu1 = flow.nn.ReLU()
        self.linear2 = flow.nn.Linear(64, 10)
        self.relu2 = flow.nn.ReLU()

    def forward(self, x):
        out = self.linear1(x)
        out = self.relu1(out)
        out = self.linear2(out)
        out = self.relu2(out)
        return out


class PipelineModule(flow.nn.Module):
    def __init__(self):
        super().__init__()
        self.m_stage0 = Stage0Module()
        self.m_stage1 = Stage1Module()
        self.m_stage0.to_global(placement=P0, sbp=BROADCAST)
        self.m_stage1.to_global(placement=P1, sbp=BROADCAST)

    def forward(self, x):
        out_stage0 = self.m_stage0(x)
        in_stage1 = out_stage0.to_global(placement=P1, sbp=BROADCAST)
        out_stage1 = self.m_stage1(in_stage1)
        return out_stage1


def pipeline(variant):
    flow.manual_seed(1)
    module_pipeline = PipelineModule()
    sgd = flow.optim.SGD(module_pipeline.parameters(), lr=0.1)

    class PipelineGraph(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.module_pipeline = module_pipeline
            if variant == "0.9":
                from oneflow.nn.graph import GraphModule
                self.module_pipeline.m_stage0.to(GraphModule).set_stage(stage_id=0, placement=P0)
                self.module_pipeline.m_stage1.to(GraphModule).set_stage(stage_id=1, placement=P1)
            elif variant == "0.8":
                self.module_pipeline.m_stage0.config.set_stage(stage_id=0, placement=P0)
                self.module_pipeline.m_stage1.config.set_stage(stage_id=1, placement=P1)
            else:
                self.module_pipeline.m_stage0.config.stage_id = 0
                self.module_pipeline.m_stage1.config.stage_id = 1
            self.loss_fn = flow.nn.CrossEntropyLoss()
            self.config.set_gradient_accumulation_steps(2)
            self.add_optimizer(sgd)

        def build(self, x, y):
            out = self.module_pipeline(x)
            loss = self.loss_fn(out, y)
            loss.backward()
            return loss

    graph_pipeline = PipelineGraph()
    rng = np.random.default_rng(0)
    losses, eager = [], None
    for t in range(4):
        x = flow.tensor(rng.standard_normal((BATCH_SIZE, 1, 28, 28)).astype(np.float32))
        y = flow.tensor(rng.integers(0, 10, BATCH_SIZE))
        x = x.to_global(P0, BROADCAST)
        y = y.to_global(P1, BROADCAST)
        if t == 0:
            with flow.no_grad():
                lf = flow.nn.CrossEntropyLoss()
                eager = [lf(module_pipeline(x[i:i + 8]), y[i:i + 8]).to_local().tolist() for i in (0, 8)]
        loss = graph_pipeline(x, y)
        losses.append(loss.to_local().tolist() if rank == 1 else None)
    return dict(losses=losses, eager=eager if rank == 1 else None)


for v in ("0.9", "0.8", "0.7"):
    res["pipeline " + v] = pipeline(v)
with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
    json.dump(res, f)
