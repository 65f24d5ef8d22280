"""A short CUDA benchmark: monoflow's CUDA plugin beside CUDA PyTorch
(when installed), per op family. Times are medians of synchronised runs;
the ratio is torch time / monoflow time (> 1: monoflow is faster)."""
import time

import numpy as np

import monoflow as flow

try:
    import torch
    if not torch.cuda.is_available():
        torch = None
except ImportError:
    torch = None


def timeit(fn, sync, repeat=20):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main():
    if not flow.cuda.is_available():
        print("no CUDA device")
        return
    rng = np.random.default_rng(0)
    cases = {
        "add 16M f32": ((1 << 24,), (1 << 24,), lambda lib, a, b: a + b),
        "mul bcast 4Kx4K": ((4096, 4096), (4096, 1), lambda lib, a, b: a * b),
        "exp 16M f32": ((1 << 24,), None, lambda lib, a, b: lib.exp(a)),
        "sum 4Kx4K dim1": ((4096, 4096), None, lambda lib, a, b: a.sum(1)),
        "softmax 4Kx4K": ((4096, 4096), None, lambda lib, a, b: lib.nn.functional.softmax(a, -1)),
        "matmul 4K f32": ((4096, 4096), (4096, 4096), lambda lib, a, b: a @ b),
        "matmul 4K f16": ((4096, 4096), (4096, 4096), lambda lib, a, b: a.half() @ b.half()),
        "copy T 4Kx4K": ((4096, 4096), None, lambda lib, a, b: a.t().contiguous()),
    }
    print(f"{'op':<20}{'monoflow ms':>14}{'torch ms':>12}{'ratio':>8}")
    for name, (sa, sb, fn) in cases.items():
        a = rng.standard_normal(sa, dtype=np.float32)
        b = rng.standard_normal(sb, dtype=np.float32) if sb else None
        fa, fb = flow.tensor(a).to("cuda"), (flow.tensor(b).to("cuda") if sb else None)
        tm = timeit(lambda: fn(flow, fa, fb), flow.cuda.synchronize)
        line = f"{name:<20}{tm * 1e3:>14.3f}"
        if torch is not None:
            ta, tb = torch.from_numpy(a).cuda(), (torch.from_numpy(b).cuda() if sb else None)
            tt = timeit(lambda: fn(torch, ta, tb), torch.cuda.synchronize)
            line += f"{tt * 1e3:>12.3f}{tt / tm:>8.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
