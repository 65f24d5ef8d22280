"""all_reduce on 2 processes: monoflow (gloo backend) beside torch.distributed (gloo).

    python bench/bench_collectives.py [--quick]

Algorithm bandwidth = bytes / time of a 64 MiB float32 all_reduce (median);
latency = median time of a 4-byte all_reduce. Ratios > 1 mean monoflow is
better (more bandwidth, less latency).

monoflow's ranks on one host all-reduce through shared memory (Note
[Shared-memory all-reduce]); MONOFLOW_SHM_COLLECTIVES=0 measures its Gloo path
instead, which is the same ring as torch's.

Both libraries run in the same two processes, on separate stores, and take
turns call by call, alternating which goes first. Timing one library's block
after the other's charged the load swings of a shared machine to whichever ran
in the busier seconds (one build measured 0.6x-1.5x that way), and a call's
place in a round shifts its time by a few percent. Both call Gloo's ring
all-reduce with 1 MiB segments on the same TCP transport (same syscalls per
call), so expect about 1.0x; single runs still vary by +-10% on a busy machine.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from _timing import free_port


def interleaved_medians(calls, iters, warmup):
    """Median time of each of `calls` over `iters` rounds that call each once.
    Every other round runs them in reverse order: a call's place in the round
    affects its time, and must not always favour one library."""
    for _ in range(warmup):
        for fn in calls:
            fn()
    times = [[] for _ in calls]
    for i in range(iters):
        order = list(zip(calls, times))
        for fn, ts in (order if i % 2 == 0 else order[::-1]):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
    return [statistics.median(ts) for ts in times]


def rank_main(quick):
    big_n = (64 << 20) // 4
    big_iters, small_iters = (4, 200) if quick else (16, 2000)
    import monoflow as flow
    import monoflow.distributed as dist
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ['MF_PORT']}", timeout=120)
    big, small = flow.ones(big_n), flow.ones(1)
    calls_big, calls_small, names = [lambda: dist.all_reduce(big)], [lambda: dist.all_reduce(small)], ["monoflow"]
    try:
        import torch
        import torch.distributed as tdist
    except ImportError:
        torch = None
    if torch is not None:
        tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ['TORCH_PORT']}",
                                 rank=int(os.environ["RANK"]), world_size=2)
        tbig, tsmall = torch.ones(big_n), torch.ones(1)
        calls_big.append(lambda: tdist.all_reduce(tbig))
        calls_small.append(lambda: tdist.all_reduce(tsmall))
        names.append("torch")
        tdist.barrier()
    dist.barrier()
    res = {}
    for name, t in zip(names, interleaved_medians(calls_big, big_iters, 2)):
        res[name + "_big"] = t
    for name, t in zip(names, interleaved_medians(calls_small, small_iters, 20)):
        res[name + "_small"] = t
    dist.destroy_process_group()
    if torch is not None:
        tdist.destroy_process_group()
    if os.environ["RANK"] == "0":
        print(json.dumps(res))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rank-main", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.rank_main:
        return rank_main(args.quick)
    env = dict(os.environ, MF_PORT=str(free_port()), TORCH_PORT=str(free_port()), WORLD_SIZE="2",
               MASTER_ADDR="127.0.0.1")
    cmd = [sys.executable, __file__, "--rank-main"] + (["--quick"] if args.quick else [])
    procs = [subprocess.Popen(cmd, env=dict(env, RANK=str(r)), stdout=subprocess.PIPE, text=True) for r in range(2)]
    out = procs[0].communicate()[0]
    procs[1].wait()
    if any(p.returncode for p in procs):
        sys.exit("benchmark ranks failed")
    res = json.loads(out.strip().splitlines()[-1])
    mib = 64.0
    print(f"{'all_reduce, 2 processes':<28}{'monoflow':>14}{'torch':>14}{'ratio':>8}")
    bw_m = mib / 1024 / res["monoflow_big"]
    lat_m = res["monoflow_small"] * 1e6
    if "torch_big" in res:
        bw_t = mib / 1024 / res["torch_big"]
        lat_t = res["torch_small"] * 1e6
        print(f"{'64 MiB float32 algbw GiB/s':<28}{bw_m:>14.2f}{bw_t:>14.2f}{bw_m / bw_t:>8.2f}")
        print(f"{'4 B latency us (median)':<28}{lat_m:>14.1f}{lat_t:>14.1f}{lat_t / lat_m:>8.2f}")
    else:
        print(f"{'64 MiB float32 algbw GiB/s':<28}{bw_m:>14.2f}{'-':>14}")
        print(f"{'4 B latency us (median)':<28}{lat_m:>14.1f}{'-':>14}")


if __name__ == "__main__":
    main()
