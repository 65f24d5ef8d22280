"""Convolution and pooling beside PyTorch (same process; thread settings:
Note [Bench thread settings] in _timing.py).

    python bench/bench_conv.py [--quick] [--threads N]

Rows, each a ratio torch time / monoflow time (> 1: monoflow is faster):
  - conv2d on small-convnet shapes (LeNet, examples/train_digits.py's CNN,
    ResNet blocks on 32x32 inputs): forward with bias, the input gradient
    (conv_transpose2d, as the backward runs it), the weight gradient, and
    forward + backward of input, weight and bias through autograd;
  - a LeNet-ish stack forward + backward;
  - one training step (forward, cross-entropy, backward, AdamW) of
    examples/train_digits.py's DigitsCNN on 8x8 digits, batch 64;
  - max_pool2d forward (+ backward).
The machine may be shared: the two libraries are timed in alternating rounds
and each row is the median of the rounds' ratios, so that load which comes and
goes hits both alike. On a crowded machine `--clock process` times the CPU
the process used instead of wall time (steadier where other jobs preempt it;
with several threads it adds up their work, spinning included, so read it at
--threads 1).
"""
import argparse
import statistics
import time

import numpy as np

from _timing import apply_thread_setting, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

import monoflow as flow  # noqa: E402
from monoflow.nn.functional import conv as FC  # noqa: E402
from monoflow.nn.functional import pooling as FP  # noqa: E402

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover
    torch = None

# (N, C, O, H=W, kernel, stride, padding)
SHAPES = [
    (64, 1, 32, 8, 3, 1, 1),     # train_digits conv1
    (64, 32, 64, 8, 3, 1, 1),    # train_digits conv2
    (64, 1, 6, 28, 5, 1, 2),     # LeNet conv1
    (64, 6, 16, 14, 5, 1, 0),    # LeNet conv2
    (32, 3, 16, 32, 3, 1, 1),    # ResNet stem
    (32, 16, 32, 32, 3, 1, 1),
    (32, 32, 64, 32, 3, 2, 1),   # downsampling block
    (32, 64, 64, 16, 3, 1, 1),
    (32, 32, 64, 32, 1, 2, 0),   # 1x1 shortcut, stride 2
    (32, 64, 64, 16, 1, 1, 0),   # 1x1
]


def lenet(F, P, x, p):
    """conv(1->6,5) relu pool2 conv(6->16,5) relu pool2 -> sum; the loss is a sum so no Linear is needed."""
    y = P.max_pool2d(F.conv2d(x, p[0], p[1]).relu(), 2)
    y = P.max_pool2d(F.conv2d(y, p[2], p[3]).relu(), 2)
    return y.sum()


def digits_cnn(nn):
    """examples/train_digits.py's DigitsCNN (batch norm, dropout 0.2)."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10))


def cases(lib, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    if lib == "monoflow":
        mod, F, P, grad, sync = flow, FC, FP, flow.autograd.grad, flow.synchronize
    else:
        mod, F, P, grad, sync = torch, TF, TF, torch.autograd.grad, (lambda: None)

    def T(a, g=False):
        return mod.tensor(a).requires_grad_(g)

    out = []
    for (N, C, O, H, k, s, p) in SHAPES:
        OH = (H + 2 * p - k) // s + 1
        opad = (H + 2 * p - k) % s
        x = rng.standard_normal((N, C, H, H)).astype(np.float32)
        w = rng.standard_normal((O, C, k, k)).astype(np.float32) * 0.1
        b = rng.standard_normal(O).astype(np.float32)
        gy = rng.standard_normal((N, O, OH, OH)).astype(np.float32)
        xt, wt, bt, gyt = T(x), T(w), T(b), T(gy)
        xg, wg, bg = T(x, True), T(w, True), T(b, True)
        name = f"{N}x{C}x{H}x{H} {C}->{O} k{k} s{s} p{p}"

        def fwd(xt=xt, wt=wt, bt=bt, s=s, p=p):
            return F.conv2d(xt, wt, bt, s, p)

        def gx(gyt=gyt, wt=wt, s=s, p=p, opad=opad):
            return F.conv_transpose2d(gyt, wt, None, s, p, opad)

        if lib == "monoflow":
            def gw(xt=xt, gyt=gyt, ws=list(w.shape), s=s, p=p):
                return flow._C.nn_conv2d_weight_grad(xt, gyt, ws, [s, s], [p, p], [1, 1], 1)
        else:
            def gw(xt=xt, gyt=gyt, wt=wt, s=s, p=p):
                return torch.ops.aten.convolution_backward(gyt, xt, wt, None, [s, s], [p, p], [1, 1], False,
                                                           [0, 0], 1, [False, True, False])

        def both(xg=xg, wg=wg, bg=bg, gyt=gyt, s=s, p=p):
            return grad([F.conv2d(xg, wg, bg, s, p)], [xg, wg, bg], [gyt])

        out += [(f"{name} fwd", fwd), (f"{name} grad input", gx), (f"{name} grad weight", gw),
                (f"{name} fwd+bwd", both)]

    xl = T(rng.standard_normal((64, 1, 28, 28)).astype(np.float32), True)
    lp = [T(rng.standard_normal(s).astype(np.float32) * 0.2, True) for s in [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,)]]
    out.append(("LeNet-ish 64x1x28x28 fwd+bwd", lambda: grad([lenet(F, P, xl, lp)], [xl] + lp)))

    mod.manual_seed(0)
    model = digits_cnn(mod.nn)
    opt = mod.optim.AdamW(model.parameters(), lr=1e-3)
    xd = T(rng.random((64, 1, 8, 8)).astype(np.float32))
    yd = mod.tensor(rng.integers(0, 10, 64))

    def digits_step():
        opt.zero_grad()
        loss = mod.nn.functional.cross_entropy(model(xd), yd)
        loss.backward()
        opt.step()
    out.append(("train_digits CNN step, batch 64", digits_step))

    xp = rng.standard_normal((32, 32, 32, 32)).astype(np.float32)
    xpt, xpg = T(xp), T(xp, True)
    out.append(("max_pool2d 32x32x32x32 k2", lambda: P.max_pool2d(xpt, 2)))
    out.append(("max_pool2d k3 s2 p1 fwd+bwd", lambda: grad([P.max_pool2d(xpg, 3, 2, 1).sum()], [xpg])))
    return [(n, f, sync) for n, f in out]


CLOCKS = {"wall": time.perf_counter, "process": time.process_time}


def round_time(fn, sync, number, clock=time.perf_counter):
    t0 = clock()
    for _ in range(number):
        fn()
    sync()
    return (clock() - t0) / number


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None,
                    help="kernel threads for both (default: each library's default, then 1 each)")
    ap.add_argument("--only", default="", help="run only the rows whose name contains this text")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                    help="wall time, or the CPU time of the process (steadier on a shared machine)")
    args = ap.parse_args()
    clock = CLOCKS[args.clock]
    rounds = 3 if args.quick else 7
    apply_thread_setting(THREADS, torch)
    mf = [c for c in cases("monoflow") if args.only in c[0]]
    th = [c for c in cases("torch") if args.only in c[0]] if torch is not None else [None] * len(mf)
    print(f"{'case':48s} {'monoflow ms':>12s} {'torch ms':>10s} {'ratio':>7s}")
    ratios = []
    for (name, f, fsync), tcase in zip(mf, th):
        f(), fsync()
        t1 = round_time(f, fsync, 1)
        number = max(1, min(200, int(0.05 / max(t1, 1e-6))))  # ~50 ms per round
        tm, tt, rs = [], [], []
        if tcase is not None:
            tcase[1]()
        for _ in range(rounds):
            tm.append(round_time(f, fsync, number, clock))
            if tcase is not None:
                tt.append(round_time(tcase[1], tcase[2], number, clock))
                rs.append(tt[-1] / tm[-1])
        m = statistics.median(tm)
        if tcase is None:
            print(f"{name:48s} {m * 1e3:12.3f} {'-':>10s} {'-':>7s}")
            continue
        r = statistics.median(rs)
        ratios.append(r)
        print(f"{name:48s} {m * 1e3:12.3f} {statistics.median(tt) * 1e3:10.3f} {r:7.2f}", flush=True)
    if ratios:
        print(f"{'geometric mean of ratios':48s} {'':12s} {'':10s} {statistics.geometric_mean(ratios):7.2f}")


if __name__ == "__main__":
    main()
