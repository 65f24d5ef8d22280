"""Autograd overhead beside PyTorch (when installed), as ratios.

    python bench/bench_autograd.py [--quick]

The forward + backward of a chain of N elementwise ops on 1-element tensors
measures the per-op cost of recording a node and running it backward (the
arithmetic is negligible). A ratio > 1 means monoflow is faster.
"""
import argparse
import sys

from _timing import apply_thread_setting, best_time, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

import monoflow as flow  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def chain(lib, x, n):
    y = x
    for i in range(n):
        y = y * 1.0001 if i % 2 else y + 0.5
    return y.sum()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None,
                    help="kernel threads for both (default: each library's default, then 1 each)")
    args = ap.parse_args()
    apply_thread_setting(THREADS, torch)
    repeat, number = (3, 20) if args.quick else (7, 50)
    n = 100
    rows = []

    def measure(label, make_fn):
        res = {}
        x = flow.ones(1, requires_grad=True)
        res["monoflow"] = make_fn(flow, x)
        if torch is not None:
            res["torch"] = make_fn(torch, torch.ones(1, requires_grad=True))
        rows.append((label, res))

    def fwd(lib, x):
        return best_time(lambda: chain(lib, x, n), repeat, number) / n * 1e6

    def fwd_bwd(lib, x):
        def step():
            chain(lib, x, n).backward()
            x.grad = None
        return best_time(step, repeat, number) / n * 1e6

    def no_grad(lib, x):
        def step():
            with lib.no_grad():
                chain(lib, x, n)
        return best_time(step, repeat, number) / n * 1e6

    measure(f"forward, {n}-op chain (recorded)", fwd)
    measure(f"forward+backward, {n}-op chain", fwd_bwd)
    measure(f"forward under no_grad, {n}-op chain", no_grad)
    print(f"{'benchmark (us per op)':<40}{'monoflow':>10}{'torch':>10}{'vs torch':>10}")
    for label, res in rows:
        t = res.get("torch")
        ratio = f"{t / res['monoflow']:.2f}" if t else "-"
        print(f"{label:<40}{res['monoflow']:>10.3f}{(t or float('nan')):>10.3f}{ratio:>10}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
