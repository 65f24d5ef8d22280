"""flow.nn.Graph training step vs the same step in eager mode, as ratios.

    python bench/bench_graph.py [--quick]

One step = forward + cross-entropy + backward + SGD(momentum) step + zero_grad
of an MLP 64-128-128-10, at batch 8 (host overhead dominates: Python, shape
inference, allocation, autograd bookkeeping) and batch 128. The graph step is
a call of an nn.Graph (the plan replayed by the actor runtime, the learning
rate fed as a tensor input each call). Each step ends with a synchronize in
both modes. A ratio > 1 means the graph is faster.
"""
import argparse

from _timing import best_time

import monoflow as flow
from monoflow import nn


class TrainGraph(nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def setup(batch):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = flow.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, opt, flow.randn(batch, 64), flow.randint(0, 10, (batch,))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    repeat, number = (3, 20) if args.quick else (15, 200)
    print(f"{'case':<36}{'eager ms':>10}{'graph ms':>10}{'ratio':>8}")
    for batch in (8, 128):
        model, opt, x, y = setup(batch)

        def eager():
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            flow.synchronize()

        g_model, g_opt, _, _ = setup(batch)
        graph = TrainGraph(g_model, g_opt)
        graph(x, y)  # eager first step: creates the momentum buffers
        graph(x, y)  # compiles

        def graph_step():
            graph(x, y)
            flow.synchronize()

        t_eager = best_time(eager, repeat, number)
        t_graph = best_time(graph_step, repeat, number)
        print(f"{f'MLP train step, batch {batch}':<36}{t_eager * 1e3:>10.3f}{t_graph * 1e3:>10.3f}"
              f"{t_eager / t_graph:>8.2f}")


if __name__ == "__main__":
    main()
