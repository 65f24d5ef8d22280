"""One training step of the main job's CNN (examples/train_digits.py: conv,
batch norm, pool, dropout, linear, AdamW) on each accelerator device beside
the CPU: per op family, the time on the device and on the CPU, and how many of
the step's ops ran natively on the device vs through the CPU fallback.

    MONOFLOW_DEVICE_PLUGINS=/tmp/ocl-build/libmonoflow_opencl.so python bench/bench_devices.py
    python bench/bench_devices.py --device opencl --batch 64 --steps 5

Per-family times come from monoflow's profiler (microseconds per step, each
op waiting for its kernels: MONOFLOW_LAUNCH_BLOCKING=1), the step time from the
wall clock with the usual asynchronous launches; the first steps are warm-up
(kernel compilation).
"""
import argparse
import collections
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
# Every op waits for its kernels, so the profiler charges device time to the
# op that launched it (read when monoflow starts).
os.environ.setdefault("MONOFLOW_LAUNCH_BLOCKING", "1")

import monoflow as flow  # noqa: E402
from monoflow.profiler import profile  # noqa: E402
from train_digits import DigitsCNN  # noqa: E402

FAMILIES = [
    ("conv", ("conv",)),
    ("pool", ("pool",)),
    ("matmul", ("matmul", "addmm", "linear")),
    ("norm", ("norm", "var", "mean", "std")),
    ("reduce", ("sum", "amax", "amin", "max", "min", "argmax", "logsumexp", "prod", "all", "any")),
    ("softmax/loss", ("softmax", "nll", "cross_entropy", "log_softmax")),
    ("random", ("bernoulli", "uniform", "normal", "randint", "dropout")),
    ("optimizer", ("add_alpha", "addcmul", "addcdiv", "sgd_momentum", "lerp")),
    ("copy/fill", ("copy", "fill", "arange", "index", "masked_fill")),
]


def family(op):
    for name, keys in FAMILIES:
        if any(k in op for k in keys):
            return name
    return "elementwise"


def step_profile(device, batch, steps):
    flow.manual_seed(0)
    model = DigitsCNN().to(device)
    opt = flow.optim.AdamW(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = flow.tensor(rng.standard_normal((batch, 1, 8, 8)).astype(np.float32)).to(device)
    y = flow.tensor(rng.integers(0, 10, batch)).to(device)

    def step():
        loss = flow.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(2):  # warm-up: kernel builds, allocator
        step()
    before = dict(flow.devices.fallback_counts())
    with profile() as prof:
        for _ in range(steps):
            step()
    fallbacks = collections.Counter()
    for (dev, op), n in flow.devices.fallback_counts().items():
        if dev == device.split(":")[0]:
            fallbacks[op] += n - before.get((dev, op), 0)
    ops = {e.key: (e.count / steps, e.cpu_time_total / steps) for e in prof.key_averages()
           if not e.key.endswith("Backward0") and e.key != "AccumulateGrad"}  # autograd nodes contain ops
    return ops, {op: n / steps for op, n in fallbacks.items() if n}, step_time(step, steps)


def step_time(step, steps):
    t = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - t) / steps * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None, help="device type (default: every non-cpu device loaded)")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    devices = [args.device] if args.device else [d for d in flow.devices.available() if d not in ("cpu", "testdev")]
    if not devices:
        print("no accelerator device loaded (set MONOFLOW_DEVICE_PLUGINS or build one); nothing to compare")
        return
    cpu_ops, _, cpu_ms = step_profile("cpu", args.batch, args.steps)
    for dev in devices:
        ops, fallbacks, dev_ms = step_profile(f"{dev}:0", args.batch, args.steps)
        rows = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])  # dev time, cpu time, ops, fallback ops
        for op, (count, t) in ops.items():
            r = rows[family(op)]
            r[0] += t
            r[2] += count
            r[3] += fallbacks.get(op, 0)
        for op, (_, t) in cpu_ops.items():
            rows[family(op)][1] += t
        print(f"\none training step of DigitsCNN, batch {args.batch}: {dev} {dev_ms:.1f} ms, cpu {cpu_ms:.1f} ms "
              f"(wall clock); per op family, profiler microseconds per step:")
        print(f"{'family':<14}{dev + ' time':>14}{'cpu time':>14}{'ratio':>8}{'ops':>7}{'native':>8}")
        total = [0.0, 0.0, 0.0, 0.0]
        for fam in sorted(rows, key=lambda f: -rows[f][0]):
            t_dev, t_cpu, n, nf = rows[fam]
            total = [a + b for a, b in zip(total, rows[fam])]
            ratio = f"{t_dev / t_cpu:.1f}x" if t_cpu else "-"
            native = f"{100 * (n - nf) / n:.0f}%" if n else "-"
            print(f"{fam:<14}{t_dev:>14.0f}{t_cpu:>14.0f}{ratio:>8}{n:>7.0f}{native:>8}")
        t_dev, t_cpu, n, nf = total
        print(f"{'total':<14}{t_dev:>14.0f}{t_cpu:>14.0f}{t_dev / max(t_cpu, 1e-9):>7.1f}x{n:>7.0f}"
              f"{100 * (n - nf) / max(n, 1):>7.0f}%")
        if fallbacks:
            print("through the CPU fallback (per step): " + ", ".join(f"{op} x{n:g}" for op, n in sorted(fallbacks.items())))


if __name__ == "__main__":
    main()
