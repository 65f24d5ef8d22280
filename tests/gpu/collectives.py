"""Collectives on CUDA tensors (tests/gpu/run.sh).

    python tests/gpu/collectives.py nccl          # a world of 1, NCCL
    python -m monoflow.distributed.launch --nproc-per-node 2 tests/gpu/collectives.py gloo

Prints what ran and what failed; exits non-zero on a wrong value or an
unexpected error. NCCL is not yet wired to the CUDA plugin's streams (see
docs/devices_cuda.md), so with nccl a clear "not wired" CommError is
reported as such, not as a failure.
"""
import os
import sys

import numpy as np

import monoflow as flow
import monoflow.distributed as dist


def main(backend):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    os.environ.setdefault("WORLD_SIZE", "1")
    os.environ.setdefault("RANK", "0")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    if not flow.cuda.is_available():
        print("no CUDA device")
        return 1
    flow.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % flow.cuda.device_count())
    try:
        dist.init_process_group(backend)
    except Exception as exc:
        print(f"{backend}: init_process_group failed: {type(exc).__name__}: {exc}")
        return 0 if backend == "nccl" and "no CUDA device plugin" in str(exc) else 1
    x = flow.ones(1000, device="cuda") * (rank + 1)
    dist.all_reduce(x)
    want = sum(range(1, world + 1))
    ok = np.allclose(x.cpu().numpy(), want)
    print(f"rank {rank}: all_reduce on cuda over {backend}: {'ok' if ok else 'WRONG'}")
    gathered = [flow.zeros(3, device="cuda") for _ in range(world)]
    dist.all_gather(gathered, flow.full((3,), float(rank), device="cuda"))
    ok2 = all(np.allclose(g.cpu().numpy(), r) for r, g in enumerate(gathered))
    print(f"rank {rank}: all_gather on cuda over {backend}: {'ok' if ok2 else 'WRONG'}")
    if world > 1:
        placement = flow.placement("cuda", ranks=list(range(world)))
        g = flow.arange(8.0).to_global(placement, flow.sbp.broadcast).to_global(sbp=flow.sbp.split(0))
        ok3 = np.allclose(g.to_global(sbp=flow.sbp.broadcast).to_local().cpu().numpy(), np.arange(8.0))
        print(f"rank {rank}: global tensor on cuda (B -> S -> B): {'ok' if ok3 else 'WRONG'}")
        ok = ok and ok3
    dist.destroy_process_group()
    return 0 if ok and ok2 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "nccl"))
