"""Sharded data parallel: per-rank memory and step time of ZeRO stages 0-3 on 2 and 4 processes.

    python bench/bench_zero.py [--quick] [--ranks 2 4]

Model: the MLP 784-1024-1024-1024-10 (about 2.9M parameters), AdamW, batch 64 per process, one kernel
thread per process. For each stage, each rank counts the bytes it holds between steps in parameters,
gradients and optimizer state (exact, from the tensors), the allocator's peak above that during one step
("step peak": activations, gathered parameters, buffers), and the median step time:

    stage 0  DistributedDataParallel + AdamW                      (everything replicated)
    stage 1  DistributedDataParallel + ZeroRedundancyOptimizer    (optimizer state sharded)
    stage 2  FullyShardedDataParallel(SHARD_GRAD_OP)              (+ gradients sharded)
    stage 3  FullyShardedDataParallel(FULL_SHARD)                 (+ parameters sharded)

Memory is printed as MiB and as a fraction of stage 0 (the aim: stage 3 at 1/N); time as a ratio to
stage 0 (DDP) in the same run (> 1: slower than DDP).
"""
import argparse
import json
import os
import subprocess
import sys

from _timing import free_port, median_time


def held_bytes(tensors):
    seen, total = set(), 0
    for t in tensors:
        if t is None or id(t) in seen or t.dim() == 0:
            continue
        seen.add(id(t))
        total += t.numel() * t.element_size()
    return total


def rank_main(iters):
    import numpy as np

    import monoflow as flow
    import monoflow.distributed as dist
    from monoflow.distributed.fsdp import FullyShardedDataParallel as FSDP
    from monoflow.distributed.fsdp import ShardingStrategy
    from monoflow.distributed.optim import ZeroRedundancyOptimizer

    dist.init_process_group()
    rank = dist.get_rank()
    rng = np.random.default_rng(rank)
    x = flow.tensor(rng.standard_normal((64, 784)).astype(np.float32))
    y = flow.tensor(rng.integers(0, 10, 64).astype(np.int64))

    def mlp():
        flow.manual_seed(0)
        nn = flow.nn
        return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                             nn.ReLU(), nn.Linear(1024, 10))

    def stage(k):
        if k == 0:
            model = flow.nn.parallel.DistributedDataParallel(mlp())
            return model, flow.optim.AdamW(model.parameters(), lr=1e-3)
        if k == 1:
            model = flow.nn.parallel.DistributedDataParallel(mlp())
            return model, ZeroRedundancyOptimizer(model.parameters(), flow.optim.AdamW, lr=1e-3)
        strategy = ShardingStrategy.SHARD_GRAD_OP if k == 2 else ShardingStrategy.FULL_SHARD
        model = FSDP(mlp(), sharding_strategy=strategy)
        return model, flow.optim.AdamW(model.parameters(), lr=1e-3)

    out = {}
    for k in range(4):
        model, opt = stage(k)

        def step():
            opt.zero_grad(set_to_none=False)
            flow.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()

        step()
        dist.barrier()
        flow.synchronize()
        flow.memory.reset_peak_memory_stats("cpu")
        before = flow.memory.memory_allocated("cpu")
        step()
        flow.synchronize()
        peak = flow.memory.max_memory_allocated("cpu") - before  # what a step adds at its peak
        t = median_time(step, iters, 2)
        params = list(model.parameters())
        state = [v for s in opt.state.values() for v in s.values() if isinstance(v, flow.Tensor)]
        out[k] = {"time": t, "params": held_bytes(params), "grads": held_bytes([p.grad for p in params]),
                  "state": held_bytes(state), "peak": peak}
        dist.barrier()
    dist.destroy_process_group()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--_rank", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--iters", type=int, default=None)
    args = parser.parse_args()
    iters = args.iters or (5 if args.quick else 20)
    if args._rank:
        res = rank_main(iters)
        with open(os.environ["MF_OUT"] % int(os.environ["RANK"]), "w") as f:
            json.dump(res, f)
        return
    import tempfile

    names = ["DDP + AdamW", "DDP + ZeroRedundancyOptimizer", "FSDP SHARD_GRAD_OP", "FSDP FULL_SHARD"]
    for n in args.ranks:
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, MF_OUT=os.path.join(tmp, "rank%d.json"), MONOFLOW_NUM_THREADS="1",
                       OMP_NUM_THREADS="1")
            subprocess.run([sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", str(n),
                            "--master-port", str(free_port()), __file__, "--_rank", "--iters", str(iters)],
                           env=env, check=True)
            ranks = [json.load(open(os.path.join(tmp, f"rank{r}.json"))) for r in range(n)]
        print(f"\n{n} ranks: per-rank bytes held between steps (max over ranks), median step time")
        print(f"{'stage':<36}{'params':>10}{'grads':>10}{'state':>10}{'total':>10}{'x stage0':>10}"
              f"{'step peak':>10}{'ms/step':>10}{'x DDP':>8}")
        base_mem = base_t = None
        for k, name in enumerate(names):
            rows = [r[str(k)] for r in ranks]
            mem = {f: max(r[f] for r in rows) for f in ("params", "grads", "state")}
            total = sum(mem.values())
            t = max(r["time"] for r in rows)
            base_mem = base_mem or total
            base_t = base_t or t
            mib = lambda b: f"{b / 2 ** 20:10.2f}"  # noqa: E731
            print(f"{k} {name:<34}{mib(mem['params'])}{mib(mem['grads'])}{mib(mem['state'])}{mib(total)}"
                  f"{total / base_mem:10.3f}{mib(max(r['peak'] for r in rows))}{t * 1e3:10.2f}{t / base_t:8.2f}")


if __name__ == "__main__":
    main()
