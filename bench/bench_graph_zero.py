"""ZeRO stages 1 and 3 in nn.Graph on 2 processes (graph.config.enable_zero).

    python bench/bench_graph_zero.py [--quick]

A data-parallel MLP 256-1024-1024-10 (parameters broadcast on 2 ranks,
batch 64 split S(0)) trained with Adam in an nn.Graph, without ZeRO and
with stages 1 and 3: this rank's parameter bytes at rest and optimizer-state
bytes (Adam's two moments: the shards of the global state tensors), the
bytes it received in one step (the communicator's traffic counters) and the
median step time. One kernel thread per process (OMP_NUM_THREADS=1).
Printed side by side with the ratios to no ZeRO.
"""
import argparse
import json

import numpy as np

from _timing import median_time, run_two_ranks

SIZES = (256, 1024, 1024, 10)
BATCH = 64


def measure(flow, stage, iters):
    import monoflow.distributed as dist
    import monoflow.nn as nn
    import monoflow.nn.functional as F
    from monoflow.nn.graph.zero import state_bytes

    P = flow.placement("cpu", [0, 1])
    B, S0 = flow.sbp.broadcast, flow.sbp.split(0)
    flow.manual_seed(0)
    layers = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    model = nn.Sequential(*layers[:-1]).to_global(P, B)
    opt = flow.optim.Adam(model.parameters(), lr=1e-3)

    class Step(nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = model
            self.add_optimizer(opt)
            if stage:
                self.config.enable_zero(stage=stage, shard_min_size=1)

        def build(self, x, y):
            loss = F.cross_entropy(self.m(x), y)
            loss.backward()
            return loss

    graph = Step()
    rng = np.random.default_rng(dist.get_rank())
    x = flow.tensor(rng.standard_normal((BATCH // 2, SIZES[0])).astype(np.float32)).to_global(P, S0)
    y = flow.tensor(rng.integers(0, SIZES[-1], BATCH // 2).astype(np.int64)).to_global(P, S0)

    def step():
        graph(x, y).detach().to_local().numpy()

    for _ in range(2):  # the eager warm-up step, then the compile
        step()
    dist.reset_comm_stats()
    step()
    comm = dist.get_comm_stats()["bytes"]
    t = median_time(step, iters, 2)
    params = sum(p.to_local().numel() * p.element_size() for p in model.parameters())
    return {"params": params, "state": state_bytes(opt), "comm": comm, "time": t}


def rank_main(args):
    import monoflow as flow

    res = {str(stage): measure(flow, stage, args.iters) for stage in (0, 1, 3)}
    if flow.env.get_rank() == 0:
        print(json.dumps(res))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rank-main", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--iters", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.rank_main:
        return rank_main(args)
    iters = 5 if args.quick else 20
    res = run_two_ranks([__file__, "--rank-main", "--iters", str(iters)])
    off, one, three = res["0"], res["1"], res["3"]
    title = f"DP MLP {'-'.join(map(str, SIZES))} b{BATCH}, Adam, 2 ranks (rank 0)"
    print(f"{title:<44}{'no ZeRO':>11}{'ZeRO-1':>11}{'ratio':>7}{'ZeRO-3':>11}{'ratio':>7}")
    for label, key, scale, fmt in (("parameters at rest (bytes)", "params", 1, "d"),
                                   ("optimizer state (bytes)", "state", 1, "d"),
                                   ("received per step (bytes)", "comm", 1, "d"),
                                   ("step time (ms)", "time", 1e3, ".2f")):
        a, b, c = (r[key] * scale for r in (off, one, three))
        a, b, c = (int(v) if fmt == "d" else v for v in (a, b, c))
        print(f"{'  ' + label:<44}{a:>11{fmt}}{b:>11{fmt}}{b / a:>7.3f}{c:>11{fmt}}{c / a:>7.3f}")


if __name__ == "__main__":
    main()
