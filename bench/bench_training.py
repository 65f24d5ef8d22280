"""Training-step speed beside PyTorch (when installed), as ratios.

    python bench/bench_training.py [--quick] [--threads N]

One step = forward + cross-entropy + backward + SGD(momentum) step, on the
same shapes in both frameworks:
  - MLP 784-512-512-10, batch 128
  - LeNet-style CNN (conv 1->6 5x5, pool, conv 6->16 5x5, pool, 120, 84, 10) on 28x28, batch 64
  - conv2d forward 32x3x32x32, 3->32, 3x3, padding 1
A ratio > 1 means monoflow is faster. Thread settings: each framework's
default, then 1 thread each (Note [Bench thread settings] in _timing.py);
--threads N gives both N.
"""
import argparse

from _timing import apply_thread_setting, best_time, thread_setting

THREADS = thread_setting()  # Note [Bench thread settings]

import monoflow as flow  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def mlp(nn):
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def lenet(nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def train_step_fn(lib, model, x, y):
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = lib.nn.functional.cross_entropy

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return step


def conv_forward_fn(lib):
    conv, x = lib.nn.Conv2d(3, 32, 3, padding=1), lib.randn(32, 3, 32, 32)

    def fwd():
        with lib.no_grad():
            conv(x)
    return fwd


def cases(lib):
    lib.manual_seed(0)
    return {
        "MLP 784-512-512-10, batch 128 (train step)":
            lambda: train_step_fn(lib, mlp(lib.nn), lib.randn(128, 784), lib.randint(0, 10, (128,))),
        "LeNet CNN 28x28, batch 64 (train step)":
            lambda: train_step_fn(lib, lenet(lib.nn), lib.randn(64, 1, 28, 28), lib.randint(0, 10, (64,))),
        "conv2d fwd 32x3x32x32, 3->32, 3x3": lambda: conv_forward_fn(lib),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None,
                    help="kernel threads for both (default: each library's default, then 1 each)")
    args = ap.parse_args()
    repeat, number = (3, 5) if args.quick else (5, 20)
    apply_thread_setting(THREADS, torch)
    print(f"{'benchmark (ms per call)':<46}{'monoflow':>10}{'torch':>10}{'vs torch':>10}")
    flow_cases = cases(flow)
    torch_cases = cases(torch) if torch is not None else {}
    for name, make in flow_cases.items():
        mf = best_time(make(), repeat, number, flow.synchronize) * 1e3
        t = best_time(torch_cases[name](), repeat, number, lambda: None) * 1e3 if torch_cases else None
        ratio = f"{t / mf:.2f}" if t else "-"
        print(f"{name:<46}{mf:>10.3f}{(t or float('nan')):>10.3f}{ratio:>10}", flush=True)


if __name__ == "__main__":
    main()
