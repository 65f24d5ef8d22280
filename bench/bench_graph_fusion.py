"""What the fusion passes buy: an nn.Graph training step with the default
passes vs the same graph without fuse_elementwise/fuse_epilogue, and eager
mode, as ratios; plus the plan's node count with and without fusion.

    python bench/bench_graph_fusion.py [--quick]

Step: forward + cross-entropy + backward + SGD(momentum 0.9) step +
zero_grad, synchronised after each step. Models: MLP 64-128-128-10 and
784-1024-1024-10 at batch 8 and 128, and the LeNet-style CNN of
bench_graph.py at batch 8 and 64. The three variants are timed interleaved
(best of `repeat` rounds each), so machine load affects them alike.
Columns: ms per step; "fused/unf" = unfused ms / fused ms (> 1: fusion is
faster); "fused/eager" = eager ms / fused ms; nodes unfused -> fused.

Second table, the conv epilogue's share (Note [Conv epilogue fusion] in
core/src/graph/pass_fuse_epilogue.cc): the LeNet train step and its conv
stack in an eval graph (conv-ReLU-pool x 2, where only convs have
epilogues), each eager, unfused (neither fusion pass), "no epi"
(fuse_elementwise only: the activation is its own node) and fused (both:
conv + ReLU is one conv_epilogue node). "epi gain" = no-epi ms / fused ms.
"""
import argparse

from _timing import apply_thread_setting, best_time, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

from _graph_models import TrainGraph, eager_step, lenet, setup  # noqa: E402

import monoflow as flow  # noqa: E402
from monoflow import _C, nn  # noqa: E402

FUSION = ("fuse_elementwise", "fuse_epilogue")


def mlp(widths):
    def make():
        layers = []
        for a, b in zip(widths[:-1], widths[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        return nn.Sequential(*layers[:-1])
    return make


def lenet_convs():
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2))


class EvalGraph(nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x):
        return self.model(x)


def graph_step(make, x_shape, batch, passes):
    model, opt, x, y = setup(make, x_shape, batch)
    graph = TrainGraph(model, opt)
    graph.config.passes = passes
    graph(x, y)  # eager first step: creates the momentum buffers
    graph(x, y)  # compiles
    nodes = next(iter(graph._plans.values())).stats()["nodes"]

    def step():
        graph(x, y)
        flow.synchronize()
    return step, nodes


def case(name, make, x_shape, batch, repeat, number):
    model, opt, x, y = setup(make, x_shape, batch)
    eager = eager_step(model, opt, x, y)
    default = list(_C._graph_default_passes())
    fused, n_fused = graph_step(make, x_shape, batch, default)
    unfused, n_unfused = graph_step(make, x_shape, batch, [p for p in default if p not in FUSION])
    best = {"eager": float("inf"), "fused": float("inf"), "unfused": float("inf")}
    for _ in range(repeat):  # interleaved rounds
        for key, fn in (("eager", eager), ("unfused", unfused), ("fused", fused)):
            best[key] = min(best[key], best_time(fn, 1, number))
    e, u, f = best["eager"], best["unfused"], best["fused"]
    print(f"{name:<34}{e * 1e3:>9.3f}{u * 1e3:>9.3f}{f * 1e3:>9.3f}{u / f:>10.2f}{e / f:>12.2f}"
          f"{n_unfused:>7} -> {n_fused}")


def eval_step(model, x, passes):
    graph = EvalGraph(model)
    graph.config.passes = passes
    graph(x)  # compiles
    nodes = next(iter(graph._plans.values())).stats()["nodes"]

    def step():
        graph(x)
        flow.synchronize()
    return step, nodes


def conv_case(name, train, batch, repeat, number):
    """eager / unfused / fuse_elementwise only / both fusion passes."""
    default = list(_C._graph_default_passes())
    variants = {"unfused": [p for p in default if p not in FUSION],
                "no epi": [p for p in default if p != "fuse_epilogue"], "fused": default}
    fns, nodes = {}, {}
    if train:
        model, opt, x, y = setup(lenet, (1, 28, 28), batch)
        eager = eager_step(model, opt, x, y)
        for key, passes in variants.items():
            fns[key], nodes[key] = graph_step(lenet, (1, 28, 28), batch, passes)
    else:
        flow.manual_seed(0)
        model, x = lenet_convs().eval(), flow.randn(batch, 1, 28, 28)

        def eager():
            model(x)
            flow.synchronize()
        for key, passes in variants.items():
            fns[key], nodes[key] = eval_step(model, x, passes)
    fns = {"eager": eager, **fns}
    best = {key: float("inf") for key in fns}
    for _ in range(repeat):  # interleaved rounds
        for key, fn in fns.items():
            best[key] = min(best[key], best_time(fn, 1, number))
    e, u, n, f = best["eager"], best["unfused"], best["no epi"], best["fused"]
    print(f"{name:<34}{e * 1e3:>9.3f}{u * 1e3:>9.3f}{n * 1e3:>9.3f}{f * 1e3:>9.3f}{n / f:>10.2f}{u / f:>10.2f}"
          f"{e / f:>12.2f}{nodes['unfused']:>7} -> {nodes['no epi']} -> {nodes['fused']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None, help="kernel threads (default: monoflow's default, then 1)")
    args = ap.parse_args()
    apply_thread_setting(THREADS)
    repeat, number = (3, 10) if args.quick else (20, 20)  # many short rounds: the best resists machine load
    print(f"{'case (train step)':<34}{'eager':>9}{'unfused':>9}{'fused':>9}{'fused/unf':>10}{'fused/eager':>12}"
          f"{'nodes':>9}")
    for widths in ((64, 128, 128, 10), (784, 1024, 1024, 10)):
        for batch in (8, 128):
            big = widths[1] > 512
            case(f"MLP {'-'.join(map(str, widths))}, batch {batch}", mlp(widths), (widths[0],), batch, repeat,
                 max(number // 10, 3) if big else number)
    for batch in (8, 64):
        case(f"LeNet CNN 28x28, batch {batch}", lenet, (1, 28, 28), batch, repeat, max(number // 5, 3))
    print()
    print(f"{'conv epilogue':<34}{'eager':>9}{'unfused':>9}{'no epi':>9}{'fused':>9}{'epi gain':>10}"
          f"{'fused/unf':>10}{'fused/eager':>12}{'nodes':>9}")
    for train in (True, False):
        for batch in (8, 64):
            kind = "LeNet train step" if train else "LeNet convs, eval"
            conv_case(f"{kind}, batch {batch}", train, batch, repeat, max(number // 5, 3))


if __name__ == "__main__":
    main()
