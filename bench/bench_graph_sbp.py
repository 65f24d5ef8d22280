"""Whole-graph SBP deduction vs op-by-op (greedy) SBP choice in nn.Graph
training graphs on 2 processes: bytes moved by boxing per step.

    python bench/bench_graph_sbp.py

For each model, one training graph with config.enable_whole_graph_sbp(False)
(dispatch's greedy choice) and one with it on (the default): the cost
model's bytes per step (graph report: "sbp: greedy N -> whole-graph M") and
the bytes the communicator counted over a replayed step (received bytes,
summed over the ranks), with the step time of the replay (the fastest of 3
rounds of 8 steps, 1 kernel thread per process). Models:

  trap      x S(1) (64 x 32) into a broadcast Linear(32, 512), relu, sum:
            greedy takes the free row-parallel signature and pays a
            reduce-scatter (and its backward all-gather) of the 64 x 512
            output; whole-graph all-to-alls the input instead.
  tp_mlp    examples/global_tp_mlp.py's model (fc1 column parallel, fc2 row
            parallel, broadcast batch, cross-entropy, SGD).
  tp_mlp_big  the same layout at 128 x 512-2048-512.
"""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
from _timing import run_two_ranks  # noqa: E402

STEPS = 8
ROUNDS = 3


def rank_main():
    import monoflow as flow
    import monoflow.distributed as dist
    import monoflow.nn as nn
    import monoflow.nn.functional as F

    dist.init_process_group("gloo")
    P = flow.placement("cpu", [0, 1])
    B, S0, S1 = flow.sbp.broadcast, flow.sbp.split(0), flow.sbp.split(1)

    class Train(nn.Graph):
        def __init__(self, model, opt, loss_fn):
            super().__init__()
            self.m = model
            self.add_optimizer(opt)
            self.loss_fn = loss_fn

        def build(self, x, y):
            loss = self.loss_fn(self.m(x), y)
            loss.backward()
            return loss

    def trap():
        model = nn.Linear(32, 512)
        model.to_global(P, B)
        rng = np.random.default_rng(0)
        x = flow.tensor(rng.standard_normal((64, 32)).astype(np.float32), placement=P, sbp=S1)
        y = flow.tensor(np.zeros(1, np.float32), placement=P, sbp=B)
        return model, (lambda out, _y: F.relu(out).sum()), x, y

    def tp_mlp(batch, sizes):
        class MLP(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(sizes[0], sizes[1])
                self.fc2 = nn.Linear(sizes[1], sizes[2])

            def forward(self, x):
                return self.fc2(F.relu(self.fc1(x)))

        def make():
            model = MLP()
            model.fc1.to_global(P, S0)
            model.fc2.to_global(P, S1)
            rng = np.random.default_rng(0)
            x = flow.tensor(rng.standard_normal((batch, sizes[0])).astype(np.float32), placement=P, sbp=B)
            y = flow.tensor(rng.integers(0, sizes[2], batch).astype(np.int64), placement=P, sbp=B)
            return model, F.cross_entropy, x, y
        return make

    from global_common import BATCH, HIDDEN, IN, OUT

    models = {"trap": trap, "tp_mlp": tp_mlp(BATCH, (IN, HIDDEN, OUT)), "tp_mlp_big": tp_mlp(128, (512, 2048, 512))}
    res = {}
    for name, make in models.items():
        row = {}
        for mode in ("greedy", "whole"):
            flow.manual_seed(0)
            model, loss_fn, x, y = make()
            graph = Train(model, flow.optim.SGD(model.parameters(), lr=0.01), loss_fn)
            graph.config.enable_whole_graph_sbp(mode == "whole")
            for _ in range(3):  # trace (and re-trace) then replay
                graph(x, y)
            rounds = []
            for _ in range(ROUNDS):  # the fastest round: the machine is shared
                dist.barrier()
                dist.reset_comm_stats()
                start = time.perf_counter()
                for _ in range(STEPS):
                    graph(x, y)
                rounds.append((time.perf_counter() - start) / STEPS)
            seconds = min(rounds)
            moved = flow.tensor([dist.get_comm_stats()["bytes"] / STEPS], dtype=flow.float64)
            dist.all_reduce(moved)
            report = next(iter(graph._sbp_reports.values()), "")
            row[mode] = {"measured": float(moved.numpy()[0]), "seconds": seconds, "report": report}
        res[name] = row
    if dist.get_rank() == 0:
        print(json.dumps(res))
    dist.destroy_process_group()


def main():
    if "--rank-main" in sys.argv:
        return rank_main()
    res = run_two_ranks([__file__, "--rank-main"])
    print(f"{'bytes per training step (all ranks)':<28}{'greedy':>12}{'whole':>12}{'ratio':>8}"
          f"{'greedy ms':>11}{'whole ms':>10}{'ratio':>8}")
    for name, row in res.items():
        g, w = row["greedy"], row["whole"]
        ratio = f"{g['measured'] / w['measured']:.2f}" if w["measured"] else "inf"
        print(f"{name + ' (measured)':<28}{g['measured']:>12.0f}{w['measured']:>12.0f}{ratio:>8}"
              f"{g['seconds'] * 1e3:>11.2f}{w['seconds'] * 1e3:>10.2f}{g['seconds'] / w['seconds']:>8.2f}")
        print(f"{'  cost model':<28}{w['report']}")
    print("ratio > 1: whole-graph SBP moves fewer bytes (is faster) than the op-by-op choice")


if __name__ == "__main__":
    main()
