"""Core speed of monoflow beside numpy and PyTorch (when installed), as ratios.

    python bench/bench_core.py            # full run
    python bench/bench_core.py --quick    # fewer repeats

monoflow operands are copies (flow.tensor), not numpy-shared views: memory
shared with numpy is kept coherent by completing each op eagerly, which is
not what a benchmark of the asynchronous path should time.

Runs at each library's default thread count, then at 1 thread each (Note
[Bench thread settings] in _timing.py); --threads N gives both N.

Per-op overhead is the time of one Python-level call on a tiny tensor (lower
is better); throughputs are GFLOP/s or GB/s (higher is better). The kernel
rows cover the CPU plugin's loop shapes beyond contiguous float32 a + b: math
functions, float16, broadcast, transposed and strided operands, dim-wise
reductions. The ratio column is monoflow's speed relative to each reference:
> 1 means monoflow is faster.
"""
import argparse
import os

import numpy as np

from _timing import apply_thread_setting, best_time, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

import monoflow as flow  # noqa: E402

try:
    import torch
except ImportError:  # PyTorch is optional
    torch = None


def sync_flow(x):
    flow.synchronize()
    return x


class Table:
    def __init__(self):
        self.rows = []

    def add(self, name, unit, lower_is_better, results):
        self.rows.append((name, unit, lower_is_better, results))

    def show(self):
        print(f"{'benchmark':<34}{'unit':>8}{'monoflow':>12}{'numpy':>12}{'torch':>12}"
              f"{'vs numpy':>10}{'vs torch':>10}")
        for name, unit, lower, res in self.rows:
            mf = res.get("monoflow")

            def cell(k):
                return f"{res[k]:12.3f}" if res.get(k) is not None else f"{'-':>12}"

            def ratio(k):
                ref = res.get(k)
                if ref is None or mf is None:
                    return f"{'-':>10}"
                return f"{(ref / mf if lower else mf / ref):10.2f}"

            print(f"{name:<34}{unit:>8}{cell('monoflow')}{cell('numpy')}{cell('torch')}"
                  f"{ratio('numpy')}{ratio('torch')}")


def bench_overhead(table, repeat):
    for n in (1, 100):
        a_np = np.random.rand(n).astype(np.float32)
        b_np = np.random.rand(n).astype(np.float32)
        res = {}
        a, b = flow.tensor(a_np.copy()), flow.tensor(b_np.copy())
        res["monoflow"] = best_time(lambda: a + b, repeat, 20000) * 1e6
        flow.synchronize()
        res["numpy"] = best_time(lambda: a_np + b_np, repeat, 20000) * 1e6
        if torch:
            ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
            res["torch"] = best_time(lambda: ta + tb, repeat, 20000) * 1e6
        table.add(f"a + b, {n} element(s)", "us/op", True, res)

    def chain(x, y):
        z = x + y
        z = z * y
        z = z - x
        z = z / y
        z = z + 1.0
        z = z * 0.5
        z = -z
        z = z - y
        z = z * x
        return z + y

    a_np = np.random.rand(100).astype(np.float32) + 1
    b_np = np.random.rand(100).astype(np.float32) + 1
    a, b = flow.tensor(a_np), flow.tensor(b_np)
    res = {"monoflow": best_time(lambda: chain(a, b), repeat, 2000) * 1e6}
    flow.synchronize()
    res["numpy"] = best_time(lambda: chain(a_np, b_np), repeat, 2000) * 1e6
    if torch:
        ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
        res["torch"] = best_time(lambda: chain(ta, tb), repeat, 2000) * 1e6
    table.add("10-op chain, 100 elements", "us", True, res)


def bench_matmul(table, repeat):
    for n in (256, 1024, 2048):
        a_np = np.random.rand(n, n).astype(np.float32)
        b_np = np.random.rand(n, n).astype(np.float32)
        flops = 2.0 * n ** 3
        number = 20 if n == 256 else 2 if n == 1024 else 1
        rep = repeat if n < 2048 else max(2, repeat // 2)
        a, b = flow.tensor(a_np), flow.tensor(b_np)
        res = {"monoflow": flops / best_time(lambda: sync_flow(a @ b), rep, number) / 1e9}
        res["numpy"] = flops / best_time(lambda: a_np @ b_np, rep, number) / 1e9
        if torch:
            ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
            res["torch"] = flops / best_time(lambda: ta @ tb, rep, number) / 1e9
        table.add(f"matmul {n}x{n} float32", "GFLOP/s", False, res)


def bench_bandwidth(table, repeat):
    n = 16 * 1024 * 1024
    a_np = np.random.rand(n).astype(np.float32)
    b_np = np.random.rand(n).astype(np.float32)
    a, b = flow.tensor(a_np), flow.tensor(b_np)
    moved = 3 * 4 * n  # read a, read b, write c
    res = {"monoflow": moved / best_time(lambda: sync_flow(a + b), repeat, 5) / 1e9,
           "numpy": moved / best_time(lambda: a_np + b_np, repeat, 5) / 1e9}
    if torch:
        ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
        res["torch"] = moved / best_time(lambda: ta + tb, repeat, 5) / 1e9
    table.add("add 16M float32 (new output)", "GB/s", False, res)

    moved = 4 * n
    res = {"monoflow": moved / best_time(lambda: a.sum().item(), repeat, 5) / 1e9,
           "numpy": moved / best_time(lambda: a_np.sum(), repeat, 5) / 1e9}
    if torch:
        res["torch"] = moved / best_time(lambda: ta.sum().item(), repeat, 5) / 1e9
    table.add("sum 16M float32", "GB/s", False, res)


def bench_softmax(table, repeat):
    x_np = np.random.rand(4096, 1024).astype(np.float32)
    moved = 2 * 4 * x_np.size  # read x, write the result

    def np_softmax(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    res = {"numpy": moved / best_time(lambda: np_softmax(x_np), repeat, 3) / 1e9}
    if hasattr(flow, "softmax"):
        x = flow.tensor(x_np)
        res["monoflow"] = moved / best_time(lambda: sync_flow(flow.softmax(x, 1)), repeat, 3) / 1e9
    if torch:
        tx = torch.from_numpy(x_np)
        res["torch"] = moved / best_time(lambda: torch.softmax(tx, 1), repeat, 3) / 1e9
    table.add("softmax (4096, 1024) float32", "GB/s", False, res)


def bench_kernels(table, repeat):
    """Elementwise and reduction kernels off the a + b fast path: math
    functions, half precision, broadcast, transposed (tiled) and strided
    operands, dim-wise reductions. GB/s of operand bytes read and written."""
    rng = np.random.default_rng(0)
    x_np = rng.random((2048, 2048), dtype=np.float32) + 0.5
    col_np = rng.random((2048, 1), dtype=np.float32)
    h_np = x_np.astype(np.float16)
    nbytes = x_np.nbytes
    cases = [
        ("exp (2048, 2048) float32", lambda m, x, c, h: m.exp(x), 2 * nbytes),
        ("sigmoid (2048, 2048) float32", lambda m, x, c, h: m.sigmoid(x), 2 * nbytes),
        ("add float16 (2048, 2048)", lambda m, x, c, h: h + h, 3 * nbytes // 2),
        ("x + column (broadcast)", lambda m, x, c, h: x + c, 2 * nbytes),
        ("x + x.t() (transposed operand)", lambda m, x, c, h: x + x.t(), 3 * nbytes),
        ("x[:, ::2] * 2 (strided)", lambda m, x, c, h: x[:, ::2] * 2.0, nbytes),
        ("sum over dim 0", lambda m, x, c, h: x.sum(0), nbytes),
        ("amax over dim 1", lambda m, x, c, h: x.amax(1), nbytes),
    ]
    args = {"monoflow": (flow, flow.tensor(x_np), flow.tensor(col_np), flow.tensor(h_np))}
    if torch:
        args["torch"] = (torch, torch.from_numpy(x_np), torch.from_numpy(col_np), torch.from_numpy(h_np))
    for name, fn, moved in cases:
        res = {}
        for lib, a in args.items():
            call = (lambda: sync_flow(fn(*a))) if lib == "monoflow" else (lambda: fn(*a))
            res[lib] = moved / best_time(call, repeat, 5) / 1e9
        table.add(name, "GB/s", False, res)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=None,
                        help="kernel threads for both (default: each library's default, then 1 each)")
    args = parser.parse_args()
    apply_thread_setting(THREADS, torch)
    repeat = 3 if args.quick else 7
    table = Table()
    bench_overhead(table, repeat)
    bench_matmul(table, repeat)
    bench_bandwidth(table, repeat)
    bench_softmax(table, repeat)
    bench_kernels(table, repeat)
    print(f"monoflow {flow.__version__}, numpy {np.__version__}, torch {torch.__version__ if torch else 'n/a'}, "
          f"{os.cpu_count()} CPU(s)")
    table.show()


if __name__ == "__main__":
    main()
