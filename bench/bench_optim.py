"""Optimizer step time beside torch.optim (when installed), as ratios.

    python bench/bench_optim.py [--quick] [--threads N]

Runs at each library's default thread count, then at 1 thread each (Note
[Bench thread settings] in _timing.py); --threads N gives both N.

One step of SGD (momentum 0.9) and of Adam over an MLP's parameters
(784x512, 512x512, 512x10 and the biases: 0.67 M floats), gradients fixed.
A monoflow step is timed up to ``flow.synchronize()``, since its kernels run
asynchronously on the device's stream. A ratio > 1 means monoflow is faster.
"""
import argparse
import sys

import numpy as np

from _timing import apply_thread_setting, best_time, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

import monoflow as flow  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

SHAPES = [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]


def make_params(lib, arrays):
    params = []
    for a in arrays:
        p = lib.tensor(a).requires_grad_()
        p.grad = lib.tensor(a * 0.01)
        params.append(p)
    return params


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None,
                    help="kernel threads for both (default: each library's default, then 1 each)")
    args = ap.parse_args()
    apply_thread_setting(THREADS, torch)
    repeat, number = (3, 5) if args.quick else (5, 20)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    cases = [("SGD(momentum=0.9)", "SGD", dict(lr=0.01, momentum=0.9)),
             ("Adam", "Adam", dict(lr=1e-3)),
             ("Adam(amsgrad, weight_decay)", "Adam", dict(lr=1e-3, amsgrad=True, weight_decay=1e-2))]
    n = sum(a.size for a in arrays)
    print(f"parameters: {n / 1e6:.2f} M floats in {len(arrays)} tensors")
    print(f"{'optimizer (ms per step)':<32}{'monoflow':>10}{'torch':>10}{'vs torch':>10}")
    for label, name, opts in cases:
        res = {}
        params = make_params(flow, arrays)
        opt = getattr(flow.optim, name)(params, **opts)

        def mf_step():
            opt.step()
            flow.synchronize()

        res["monoflow"] = best_time(mf_step, repeat, number) * 1e3
        if torch is not None:
            tparams = make_params(torch, arrays)
            topt = getattr(torch.optim, name)(tparams, **opts)
            res["torch"] = best_time(topt.step, repeat, number) * 1e3
        t = res.get("torch")
        ratio = f"{t / res['monoflow']:.2f}" if t else "-"
        print(f"{label:<32}{res['monoflow']:>10.3f}{(t or float('nan')):>10.3f}{ratio:>10}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
