"""Convolution and pooling beside PyTorch (same process; thread settings:
Note [Bench thread settings] in _timing.py).

    python bench/bench_conv.py [--quick] [--threads N]

Rows: conv2d forward (32x3x32x32, 3->32, 3x3, pad 1), the same forward +
backward (input, weight, bias), a LeNet-ish stack forward + backward, and
max_pool2d forward (+ backward). Times are the best of several runs; a
ratio > 1 means monoflow is faster.
"""
import argparse

import numpy as np

from _timing import apply_thread_setting, best_time, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

import monoflow as flow  # noqa: E402
from monoflow.nn.functional import conv as FC  # noqa: E402
from monoflow.nn.functional import pooling as FP  # noqa: E402

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover
    torch = None


def lenet(lib, F, P, x, p):
    """conv(1->6,5) relu pool2 conv(6->16,5) relu pool2 -> sum; the loss is a sum so no Linear is needed."""
    y = P.max_pool2d(F.conv2d(x, p[0], p[1]).relu(), 2)
    y = P.max_pool2d(F.conv2d(y, p[2], p[3]).relu(), 2)
    return y.sum()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None,
                    help="kernel threads for both (default: each library's default, then 1 each)")
    args = ap.parse_args()
    repeat, number = (3, 5) if args.quick else (5, 20)
    apply_thread_setting(THREADS, torch)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 3, 32, 32)).astype(np.float32)
    w = rng.standard_normal((32, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    xl = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    lp = [rng.standard_normal(s).astype(np.float32) * 0.2 for s in [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,)]]
    xp = rng.standard_normal((32, 32, 32, 32)).astype(np.float32)

    def mf_sync():
        flow.synchronize() if hasattr(flow, "synchronize") else None

    def cases(lib):
        if lib == "monoflow":
            T = lambda a, g=False: flow.tensor(a).requires_grad_(g)  # noqa: E731
            F, P, grad = FC, FP, flow.autograd.grad
        else:
            T = lambda a, g=False: torch.tensor(a).requires_grad_(g)  # noqa: E731
            F, P, grad = TF, TF, torch.autograd.grad
        xt, wt, bt = T(x), T(w), T(b)
        xg, wg, bg = T(x, True), T(w, True), T(b, True)
        xlt = T(xl, True)
        lpt = [T(a, True) for a in lp]
        xpt, xpg = T(xp), T(xp, True)

        def fwd():
            return F.conv2d(xt, wt, bt, padding=1)

        def fwd_bwd():
            return grad([F.conv2d(xg, wg, bg, padding=1).sum()], [xg, wg, bg])

        def net():
            return grad([lenet(lib, F, P, xlt, lpt)], [xlt] + lpt)

        def pool():
            return P.max_pool2d(xpt, 2)

        def pool_bwd():
            return grad([P.max_pool2d(xpg, 3, 2, 1).sum()], [xpg])

        return [("conv2d fwd 32x3x32x32 3->32 k3 p1", fwd), ("conv2d fwd+bwd (x, w, b)", fwd_bwd),
                ("LeNet-ish 64x1x28x28 fwd+bwd", net), ("max_pool2d 32x32x32x32 k2", pool),
                ("max_pool2d k3 s2 p1 fwd+bwd", pool_bwd)]

    mf = cases("monoflow")
    th = cases("torch") if torch is not None else [(n, None) for n, _ in mf]
    print(f"{'case':40s} {'monoflow ms':>12s} {'torch ms':>10s} {'ratio':>7s}")
    for (name, f), (_, g) in zip(mf, th):
        tm = best_time(f, repeat, number, mf_sync)
        if g is None:
            print(f"{name:40s} {tm * 1e3:12.3f} {'-':>10s} {'-':>7s}")
            continue
        tt = best_time(g, repeat, number, lambda: None)
        print(f"{name:40s} {tm * 1e3:12.3f} {tt * 1e3:10.3f} {tt / tm:7.2f}")


if __name__ == "__main__":
    main()
