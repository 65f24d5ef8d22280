"""Global tensors on 2 processes: what boxing moves, and what tensor
parallelism costs.

    python bench/bench_global.py [--quick]

(a) Bytes per boxing: every 1-D conversion between S(0), S(1), B and P of a
    float32 tensor on 2 ranks, the bytes the communicator counted
    (monoflow.distributed.get_comm_stats, received bytes summed over the
    ranks) beside the cost model's prediction (monoflow._global.boxing.cost,
    the same convention). An uneven shape checks the balanced splits.
(b) Step time of a tensor-parallel MLP (Megatron layout: the first Linear
    column parallel, the second row parallel; forward, cross-entropy,
    backward, SGD step) on 2 ranks, beside the same model in one process
    (monoflow, and torch if installed). One kernel thread per process
    everywhere (OMP_NUM_THREADS=1). Ratio > 1 means the 2-rank run is faster.
"""
import argparse
import json
import os

import numpy as np

from _timing import median_time, run_two_ranks

SHAPES = [(512, 256), (255, 129)]
MLP = (512, 2048, 512)  # in, hidden, out
BATCH = 128


def sbps(flow):
    S, B, P = flow.sbp.split, flow.sbp.broadcast, flow.sbp.partial_sum
    return {"S(0)": S(0), "S(1)": S(1), "B": B, "P": P}


def comm_bytes(group):
    """Bytes this rank received in `group` since the last reset (the
    communicator's traffic counters)."""
    from monoflow.distributed.collectives import get_comm_stats

    return int(get_comm_stats(group)["bytes"])


def boxing_table(flow):
    import monoflow.distributed as dist
    from monoflow._global import boxing, groups
    from monoflow.distributed.collectives import reset_comm_stats

    P = flow.placement("cpu", [0, 1])
    world = groups.world_group()
    rows = []
    for shape in SHAPES:
        full = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        for src_name, src in sbps(flow).items():
            x = flow.tensor(full, placement=P, sbp=src)
            for dst_name, dst in sbps(flow).items():
                if src_name == dst_name:
                    continue
                predicted = boxing.cost(shape, 4, P, (src,), (dst,))
                dist.barrier()
                reset_comm_stats(world)
                y = x.to_global(P, dst, check_meta=False)  # no metadata agreement: boxing only
                mine = comm_bytes(world)
                total = flow.tensor([mine], dtype=flow.int64)
                dist.all_reduce(total)
                np.testing.assert_allclose(y.numpy(), full)  # (and the value is right)
                rows.append((f"{list(shape)} {src_name}->{dst_name}", predicted, int(total.item())))
    return rows


def tp_step_time(flow, iters):
    import monoflow.nn.functional as F

    P = flow.placement("cpu", [0, 1])
    B = flow.sbp.broadcast
    flow.manual_seed(0)
    fc1, fc2 = flow.nn.Linear(MLP[0], MLP[1]), flow.nn.Linear(MLP[1], MLP[2])
    fc1.to_global(P, flow.sbp.split(0))
    fc2.to_global(P, flow.sbp.split(1))
    params = list(fc1.parameters()) + list(fc2.parameters())
    opt = flow.optim.SGD(params, lr=0.01)
    rng = np.random.default_rng(0)
    x = flow.tensor(rng.standard_normal((BATCH, MLP[0])).astype(np.float32), placement=P, sbp=B)
    y = flow.tensor(rng.integers(0, MLP[2], BATCH).astype(np.int64), placement=P, sbp=B)

    def step():
        loss = F.cross_entropy(fc2(F.relu(fc1(x))), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()  # waits for the queued kernels, as a training loop's logging would

    return median_time(step, iters, 3)


def local_step_time(lib, iters):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(MLP[0], MLP[1]), nn.ReLU(), nn.Linear(MLP[1], MLP[2]))
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((BATCH, MLP[0])).astype(np.float32))
    y = lib.tensor(rng.integers(0, MLP[2], BATCH).astype(np.int64))

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()

    return median_time(step, iters, 3)


def rank_main(args):
    import monoflow as flow

    res = {}
    if args.part in ("all", "boxing"):
        res["boxing"] = boxing_table(flow)
    if args.part in ("all", "tp"):
        res["tp"] = tp_step_time(flow, args.iters)
    if flow.env.get_rank() == 0:
        print(json.dumps(res))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--part", choices=["all", "boxing", "tp"], default="all")
    p.add_argument("--rank-main", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--iters", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.rank_main:
        return rank_main(args)
    iters = 10 if args.quick else 50
    res = run_two_ranks([__file__, "--rank-main", "--iters", str(iters), "--part", args.part])

    if "boxing" in res:
        print(f"{'boxing, float32, 2 ranks (bytes received, all ranks)':<44}{'model':>10}{'measured':>10}{'ratio':>8}")
        for name, predicted, measured in res["boxing"]:
            ratio = f"{measured / predicted:.2f}" if predicted else ("-" if measured == 0 else "inf")
            print(f"{name:<44}{predicted:>10}{measured:>10}{ratio:>8}")
    if "tp" in res:
        # the single-process references run here, with one kernel thread too
        os.environ["OMP_NUM_THREADS"] = "1"
        import monoflow as flow

        single = local_step_time(flow, iters)
        line = f"TP MLP {MLP[0]}-{MLP[1]}-{MLP[2]} b{BATCH} step (ms)"
        tp = res["tp"]
        print(f"{line:<44}{'2 ranks':>10}{'1 proc':>10}{'ratio':>8}")
        print(f"{'  monoflow global vs monoflow local':<44}{tp * 1e3:>10.2f}{single * 1e3:>10.2f}{single / tp:>8.2f}")
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            torch.set_num_threads(1)
            t = local_step_time(torch, iters)
            print(f"{'  monoflow global vs torch local':<44}{tp * 1e3:>10.2f}{t * 1e3:>10.2f}{t / tp:>8.2f}")


if __name__ == "__main__":
    main()
