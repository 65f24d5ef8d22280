"""Mixed precision on the CPU beside PyTorch (issue 18): a bfloat16 matmul
(1024, 4096) @ (4096, 1024), and a training step of bench_models.py's
GPT-style model under autocast(bfloat16), each beside float32.

    python bench/bench_amp.py [--quick]

Both frameworks at their default threads, timed interleaved in one process
(so load hits both alike). Printed: median ms and torch/monoflow (> 1 means
monoflow is faster).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_models  # noqa: E402  (the GPT-style model and the interleaved timer)


def matmul_step(lib, dtype):
    g = lib.Generator().manual_seed(0)
    a = lib.randn(1024, 4096, generator=g).to(getattr(lib, dtype))
    b = lib.randn(4096, 1024, generator=g).to(getattr(lib, dtype))
    return lambda: (a @ b)[0, 0]


def gpt_amp_step(lib, amp):
    model, opt, (x, y) = bench_models.gpt_setup(lib)

    def step():
        with lib.autocast("cpu", dtype=lib.bfloat16, enabled=amp):
            loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    import torch

    import monoflow as flow
    rounds, per_round = (3, 1) if args.quick else (7, 2)
    cases = {
        "matmul (1024,4096)@(4096,1024) float32": (matmul_step(flow, "float32"), matmul_step(torch, "float32")),
        "matmul (1024,4096)@(4096,1024) bfloat16": (matmul_step(flow, "bfloat16"), matmul_step(torch, "bfloat16")),
        "GPT step float32": (gpt_amp_step(flow, False), gpt_amp_step(torch, False)),
        "GPT step autocast bfloat16": (gpt_amp_step(flow, True), gpt_amp_step(torch, True)),
    }
    print(f"{'case':42s} {'monoflow':>10s} {'torch':>10s} {'vs torch':>9s}   (ms; torch threads {torch.get_num_threads()})")
    for name, (mf, pt) in cases.items():
        t = bench_models.interleaved({"monoflow": (mf, flow.synchronize), "torch": (pt, lambda: None)},
                                     rounds, per_round)
        print(f"{name:42s} {t['monoflow'] * 1e3:10.2f} {t['torch'] * 1e3:10.2f} {t['torch'] / t['monoflow']:9.2f}")


if __name__ == "__main__":
    main()
