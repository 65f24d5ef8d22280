"""DistributedDataParallel step time on 2 processes: monoflow beside torch (gloo).

    python bench/bench_ddp.py [--quick] [--bucket-mb 25]

The MLP 784-512-512-10 of bench_training.py, batch 128 per process: forward,
cross-entropy, zero_grad, backward (gradients averaged in buckets during
backward), SGD step. Median step time over the iterations. Both libraries run
in the same two processes, one after the other, one kernel thread each
(OMP_NUM_THREADS=1, torch.set_num_threads(1)), so that the two ranks do not
oversubscribe the cores. Ratio > 1 means monoflow is faster.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

from _timing import free_port, median_time


def mlp(nn):
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def run_lib(lib, dist, ddp_cls, F, port, rank, iters, bucket_mb):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    rng = np.random.default_rng(rank)
    x = lib.tensor(rng.standard_normal((128, 784)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 128).astype(np.int64))
    lib.manual_seed(0)
    model = ddp_cls(mlp(lib.nn), bucket_cap_mb=bucket_mb)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    dist.barrier()
    t = median_time(step, iters, 3)
    dist.destroy_process_group()
    return t


def rank_main(args):
    rank = int(os.environ["RANK"])
    res = {}
    import monoflow as flow
    import monoflow.distributed as fdist
    import monoflow.nn.functional as fF
    from monoflow.nn.parallel import DistributedDataParallel as FDDP

    res["monoflow"] = run_lib(flow, fdist, FDDP, fF, os.environ["MF_PORT"], rank, args.iters, args.bucket_mb)
    try:
        import torch
        import torch.distributed as tdist
        import torch.nn.functional as tF
        from torch.nn.parallel import DistributedDataParallel as TDDP
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(1)
        res["torch"] = run_lib(torch, tdist, TDDP, tF, os.environ["TORCH_PORT"], rank, args.iters, args.bucket_mb)
    if rank == 0:
        print(json.dumps(res))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--bucket-mb", type=float, default=25)
    p.add_argument("--rank-main", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--iters", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.rank_main:
        return rank_main(args)
    iters = 10 if args.quick else 50
    env = dict(os.environ, MF_PORT=str(free_port()), TORCH_PORT=str(free_port()), WORLD_SIZE="2",
               MASTER_ADDR="127.0.0.1", OMP_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--rank-main", "--iters", str(iters), "--bucket-mb", str(args.bucket_mb)]
    procs = [subprocess.Popen(cmd, env=dict(env, RANK=str(r)), stdout=subprocess.PIPE, text=True) for r in range(2)]
    out = procs[0].communicate()[0]
    procs[1].wait()
    if any(p.returncode for p in procs):
        sys.exit("benchmark ranks failed")
    res = json.loads(out.strip().splitlines()[-1])
    name = f"DDP step, MLP b128/rank, 2 procs, {args.bucket_mb:g} MiB buckets (ms)"
    print(f"{name:<62}{'monoflow':>10}{'torch':>10}{'ratio':>8}")
    m = res["monoflow"] * 1e3
    if "torch" in res:
        t = res["torch"] * 1e3
        print(f"{'':<62}{m:>10.2f}{t:>10.2f}{t / m:>8.2f}")
    else:
        print(f"{'':<62}{m:>10.2f}{'-':>10}")


if __name__ == "__main__":
    main()
