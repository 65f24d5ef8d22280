"""Eager training step vs its traced replay on the actor runtime, as ratios.

    python bench/bench_graph_replay.py [--quick]

One step = zero_grad + forward + cross-entropy + backward + SGD(momentum)
step of an MLP 64-128-128-10, at batch 8 (where Python, shape inference and
allocation dominate) and batch 128. The replay runs the same kernels without
any of that (monoflow._graph; docs/graph_runtime.md). Each timed step ends
with a synchronize in both modes, so both include the device round trip.
Also timed: N steps in one run() call (iterations=N), the form micro-batching
and consecutive steps use, and the slots/threads settings on it.
A ratio > 1 means the replay is faster.
"""
import argparse

from _timing import apply_thread_setting, best_time, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

import monoflow as flow  # noqa: E402
from monoflow import _graph, nn  # noqa: E402


def setup(batch):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = flow.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = flow.randn(batch, 64), flow.randint(0, 10, (batch,))

    def step(x, y):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    step(x, y)  # momentum buffers exist before the trace
    return step, x, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None, help="kernel threads (default: monoflow's default, then 1)")
    args = ap.parse_args()
    apply_thread_setting(THREADS)
    repeat, number = (3, 20) if args.quick else (15, 200)
    n_iter = 10
    print(f"{'case':<44}{'eager ms':>10}{'graph ms':>10}{'ratio':>8}")
    for batch in (8, 128):
        step, x, y = setup(batch)

        def eager():
            step(x, y)
            flow.synchronize()
        ct = _graph.trace(step, x, y)
        t_eager = best_time(eager, repeat, number)
        t_graph = best_time(lambda: ct.run(x, y), repeat, number)
        print(f"{f'MLP step, batch {batch}':<44}{t_eager * 1e3:>10.3f}{t_graph * 1e3:>10.3f}"
              f"{t_eager / t_graph:>8.2f}")

        def eager_n():
            for _ in range(n_iter):
                step(x, y)
            flow.synchronize()
        t_eager_n = best_time(eager_n, repeat, max(number // n_iter, 2)) / n_iter
        for slots, threads in ((1, 1), (2, 1), (2, 2)):
            t = best_time(lambda: ct.run(x, y, iterations=n_iter, slots=slots, threads=threads), repeat,
                          max(number // n_iter, 2)) / n_iter
            name = f"  {n_iter} steps per run, slots={slots} threads={threads}"
            print(f"{name:<44}{t_eager_n * 1e3:>10.3f}{t * 1e3:>10.3f}{t_eager_n / t:>8.2f}")
        print(f"  ({ct.stats()['nodes']} kernels per step)")


if __name__ == "__main__":
    main()
