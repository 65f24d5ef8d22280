"""Peak memory of a training step: flow.nn.Graph vs eager mode, as ratios.

    python bench/bench_graph_memory.py

One step = forward + cross-entropy + backward + SGD(momentum 0.9) step +
zero_grad(set_to_none=True) for
  - an MLP 784-1024-1024-10 at batch 128,
  - the LeNet-style CNN (conv 1->6 5x5, pool, conv 6->16 5x5, pool, 120, 84,
    10; bench_graph.py's model) on 28x28 at batch 128.
Peak = the caching allocator's peak of allocated bytes
(flow.memory.max_memory_allocated) during one step, after the peak was reset
to what is allocated between steps: parameters, momentum buffers, the batch,
and for a graph what its plan holds (the arena of intermediates, constants).
Everything is counted in both modes. Graph cases: the default passes (memory
planning last) and no passes (every intermediate its own block); then what
the plan holds, from CompiledTrace.memory(). A ratio < 1 means the graph
needs less memory. Each measurement runs in a fresh process.

Allocated bytes are what the blocks hold: a request rounded up to 512
bytes (the unused tail of a large segment is a free block of its own, not
part of the request's block). docs/graph_runtime.md ("memory") says what
the peaks are made of.
"""
import argparse
import json
import subprocess
import sys

from _graph_models import TrainGraph, lenet, setup

import monoflow as flow
from monoflow import nn


def mlp():
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def step_peak(step):
    """(bytes allocated before the step, peak during it)."""
    flow.synchronize()
    flow.memory.reset_peak_memory_stats()
    base = flow.memory.memory_allocated()
    step()
    flow.synchronize()
    return base, flow.memory.max_memory_allocated()


def mb(n):
    return f"{n / 2**20:.2f}"


def eager_case(make, x_shape, batch):
    model, opt, x, y = setup(make, x_shape, batch)

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        del loss

    step()  # creates the momentum buffers
    step()
    base, peak = step_peak(step)
    params = sum(p.numel() * 4 for p in model.parameters())
    return base, peak, params


def graph_case(make, x_shape, batch, passes):
    model, opt, x, y = setup(make, x_shape, batch)
    graph = TrainGraph(model, opt)
    graph.config.passes = passes
    graph(x, y)  # eager first step: creates the momentum buffers
    graph(x, y)  # traces (one step) and compiles
    graph(x, y)
    base, peak = step_peak(lambda: graph(x, y))
    ct = next(iter(graph._plans.values()))
    return base, peak, ct


def measure(case, mode):
    """One measurement in this (fresh) process: a JSON line on stdout."""
    name, make, x_shape, batch = CASES[case]
    if mode == "eager":
        base, peak, params = eager_case(make, x_shape, batch)
        print(json.dumps({"base": base, "peak": peak, "params": params}))
        return
    base, peak, ct = graph_case(make, x_shape, batch, "default" if mode == "graph" else None)
    memory = [s for n, s in ct.passes if n == "memory"]
    print(json.dumps({"base": base, "peak": peak, "plan": ct.memory(), "summary": memory[0] if memory else ""}))


CASES = [("MLP 784-1024-1024-10, batch 128", mlp, (784,), 128),
         ("LeNet CNN 28x28, batch 128", lenet, (1, 28, 28), 128)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", type=int)
    ap.add_argument("--mode", choices=["eager", "graph", "graph-no-passes"])
    args = ap.parse_args()
    if args.case is not None:
        measure(args.case, args.mode)
        return
    print(f"{'case (train step)':<34}{'mode':<18}{'before MB':>10}{'peak MB':>10}{'peak/eager':>11}")
    for case, (name, *_rest) in enumerate(CASES):
        runs = {}
        for mode in ("eager", "graph", "graph-no-passes"):  # each in a fresh process: nothing else allocated
            out = subprocess.run([sys.executable, __file__, "--case", str(case), "--mode", mode], check=True,
                                 capture_output=True, text=True).stdout
            runs[mode] = json.loads(out.strip().splitlines()[-1])
        e_peak = runs["eager"]["peak"]
        for mode, r in runs.items():
            print(f"{name if mode == 'eager' else '':<34}{mode:<18}{mb(r['base']):>10}{mb(r['peak']):>10}"
                  f"{r['peak'] / e_peak:>11.2f}")
        print(f"{'':<34}parameters {mb(runs['eager']['params'])} MB, momentum as much again")
        for mode in ("graph", "graph-no-passes"):
            m = runs[mode]["plan"]
            print(f"{'':<34}{mode} plan: persistent {mb(m['persistent'])} MB, transient "
                  f"{mb(m['transient_traced'])} -> {mb(m['transient'])} MB, output {m['output']} B")
        print(f"{'':<34}memory pass: {runs['graph']['summary']}")


if __name__ == "__main__":
    main()
