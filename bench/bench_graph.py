"""flow.nn.Graph training step vs the same step in eager mode, and the
compile time of a deep training graph, as ratios.

    python bench/bench_graph.py [--quick]

Step time: forward + cross-entropy + backward + SGD(momentum) step +
zero_grad, synchronised after each step in both modes; a ratio > 1 means the
graph is faster. Cases:
  - MLP 64-128-128-10 at batch 8 (host overhead dominates: Python, shape
    inference, allocation, autograd bookkeeping) and batch 128;
  - LeNet-style CNN (conv 1->6 5x5, pool, conv 6->16 5x5, pool, 120, 84, 10;
    bench_training.py's model) on 28x28 at batch 8 and 64.
The graph step is a call of an nn.Graph (the plan replayed by the actor
runtime).

Compile time: the first call of a training graph over a 50-layer MLP
(width 64, SGD without momentum so that the first call already compiles),
i.e. trace (which also runs the step once) + plan build + passes; reported
in ms, per plan node, and as a ratio to one eager step and to one replay.
"""
import argparse
import time

from _timing import apply_thread_setting, best_time, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

from _graph_models import TrainGraph, eager_step, lenet, setup  # noqa: E402

import monoflow as flow  # noqa: E402
from monoflow import nn  # noqa: E402


def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))


def deep_mlp(layers, width=64):
    mods = [nn.Linear(width, width)]
    for _ in range(layers - 1):
        mods += [nn.ReLU(), nn.Linear(width, width)]
    return nn.Sequential(*mods)


def step_case(name, make, x_shape, batch, repeat, number):
    model, opt, x, y = setup(make, x_shape, batch)
    eager = eager_step(model, opt, x, y)
    g_model, g_opt, _, _ = setup(make, x_shape, batch)
    graph = TrainGraph(g_model, g_opt)
    graph(x, y)  # eager first step: creates the momentum buffers
    graph(x, y)  # compiles

    def graph_step():
        graph(x, y)
        flow.synchronize()

    t_eager = best_time(eager, repeat, number)
    t_graph = best_time(graph_step, repeat, number)
    nodes = next(iter(graph._plans.values())).stats()["nodes"]
    print(f"{name:<40}{t_eager * 1e3:>10.3f}{t_graph * 1e3:>10.3f}{t_eager / t_graph:>8.2f}{nodes:>8}")


def compile_case(layers, batch, repeats):
    best = None
    for _ in range(repeats):  # a fresh graph each time: best of `repeats` compiles
        model, opt, x, y = setup(lambda: deep_mlp(layers), (64,), batch, momentum=0)
        y = flow.randint(0, 64, (batch,))
        graph = TrainGraph(model, opt)
        flow.synchronize()
        t0 = time.perf_counter()
        graph(x, y)  # SGD without momentum has no state to warm up: this call traces and compiles
        flow.synchronize()
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    plan = next(iter(graph._plans.values()))
    nodes = plan.stats()["nodes"]

    eager = eager_step(model, opt, x, y)
    def replay():
        graph(x, y)
        flow.synchronize()
    t_eager = best_time(eager, 3, 10)
    t_replay = best_time(replay, 3, 10)
    print(f"compile of a {layers}-layer MLP training graph (batch {batch}): {best * 1e3:.1f} ms, {nodes} plan nodes, "
          f"{best / nodes * 1e6:.1f} us per node; = {best / t_eager:.1f} eager steps "
          f"({t_eager * 1e3:.3f} ms) = {best / t_replay:.1f} replays ({t_replay * 1e3:.3f} ms)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None, help="kernel threads (default: monoflow's default, then 1)")
    args = ap.parse_args()
    apply_thread_setting(THREADS)
    repeat, number = (3, 20) if args.quick else (15, 200)
    conv_number = max(number // 10, 5)
    print(f"{'case (train step)':<40}{'eager ms':>10}{'graph ms':>10}{'ratio':>8}{'nodes':>8}")
    for batch in (8, 128):
        step_case(f"MLP 64-128-128-10, batch {batch}", mlp, (64,), batch, repeat, number)
    for batch in (8, 64):
        step_case(f"LeNet CNN 28x28, batch {batch}", lenet, (1, 28, 28), batch, repeat, conv_number)
    compile_case(50, 32, 1 if args.quick else 5)


if __name__ == "__main__":
    main()
