"""2-stage pipeline throughput (samples/s) vs one process, same model and
global batch, as a ratio.

    python bench/bench_graph_pipeline.py [--quick]

The model: an MLP of 2 * LAYERS Linear+ReLU layers of width WIDTH plus a
classifier, trained with SGD(momentum) and cross-entropy on a global batch
of BATCH samples split into MICRO micro-batches (gradient accumulation).
  - one process: the whole model in one nn.Graph (accumulation, no stages);
  - pipeline: 2 processes (the launcher), the first half of the layers on
    rank 0 and the rest on rank 1, as stages of one nn.Graph
    (set_stage), activations and their gradients sent between them.
Each measurement is the best of several rounds of STEPS calls, with a
synchronisation (reading the loss) per call. A ratio > 1 means the pipeline
is faster. On a 2-core machine shared with other jobs expect noise; the
pipeline's gain is bounded by 2 (two stages) minus the bubble
(MICRO + 1) / MICRO and the transfers.
"""
import argparse
import os
import socket
import subprocess
import sys
import time

WIDTH, LAYERS, IN, OUT = 1024, 3, 256, 10


def build_model(flow, nn):
    flow.manual_seed(0)

    def half(first):
        layers = [nn.Linear(IN if first else WIDTH, WIDTH), nn.ReLU()]
        for _ in range(LAYERS - 1):
            layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
        if not first:
            layers.append(nn.Linear(WIDTH, OUT))
        return nn.Sequential(*layers)
    return half(True), half(False)


def make_graph(flow, nn, s0, s1, micro, stages):
    opt = flow.optim.SGD(list(s0.parameters()) + list(s1.parameters()), lr=0.01, momentum=0.9)

    class Step(nn.Graph):
        def __init__(self):
            super().__init__()
            self.s0, self.s1 = s0, s1
            if stages:
                self.s0.to(nn.graph.GraphModule).set_stage(0, stages[0])
                self.s1.to(nn.graph.GraphModule).set_stage(1, stages[1])
            self.add_optimizer(opt)
            self.config.set_gradient_accumulation_steps(micro)
            self.config.threads = 2

        def build(self, x, y):
            loss = nn.functional.cross_entropy(self.s1(self.s0(x)), y)
            loss.backward()
            return loss
    return Step()


def measure(step, rounds, steps):
    step()  # eager warm-up step (optimizer state) and trace
    step()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        best = min(best, (time.perf_counter() - t0) / steps)
    return best


def single_process(batch, micro, rounds, steps):
    import monoflow as flow
    from monoflow import nn

    s0, s1 = build_model(flow, nn)
    graph = make_graph(flow, nn, s0, s1, micro, None)
    x, y = flow.randn(batch, IN), flow.randint(0, OUT, (batch,))
    return measure(lambda: graph(x, y).detach().numpy(), rounds, steps)


def pipeline_worker(batch, micro, rounds, steps, out):
    import monoflow as flow
    import monoflow.distributed as dist
    from monoflow import nn

    dist.init_process_group("gloo", timeout=120)
    P0, P1 = flow.placement("cpu", [0]), flow.placement("cpu", [1])
    B = flow.sbp.broadcast
    s0, s1 = build_model(flow, nn)
    s0.to_global(P0, B)
    s1.to_global(P1, B)
    graph = make_graph(flow, nn, s0, s1, micro, (P0, P1))
    x = flow.randn(batch, IN).to_global(P0, B)
    y = flow.randint(0, OUT, (batch,)).to_global(P1, B)

    def step():
        loss = graph(x, y)
        if dist.get_rank() == 1:
            loss.detach().to_local().numpy()  # the last stage holds the losses: wait for them
        dist.barrier()  # and rank 0 waits for the step's end too

    t = measure(step, rounds, steps)
    if dist.get_rank() == 0:
        with open(out, "w") as f:
            f.write(repr(t))
    dist.barrier()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--micro", type=int, default=4)
    args = p.parse_args()
    rounds, steps = (2, 3) if args.quick else (3, 5)
    if args.worker:
        pipeline_worker(args.batch, args.micro, rounds, steps, args.worker)
        return
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"bench_graph_pipeline_{os.getpid()}.txt")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "2", "--master-port",
           str(free_port()), os.path.abspath(__file__), "--worker", out, "--batch", str(args.batch), "--micro",
           str(args.micro)] + (["--quick"] if args.quick else [])
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if r.returncode != 0:
        sys.exit(f"the pipeline run failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    with open(out) as f:
        t_pipe = float(f.read())
    os.remove(out)
    os.environ["OMP_NUM_THREADS"] = "1"  # one core per process in both runs
    t_one = single_process(args.batch, args.micro, rounds, steps)
    print(f"MLP {IN}-{WIDTH}x{2 * LAYERS}-{OUT}, global batch {args.batch}, {args.micro} micro-batches, SGD momentum")
    print(f"{'case':<28}{'ms/step':>10}{'samples/s':>12}")
    print(f"{'1 process':<28}{t_one * 1e3:>10.2f}{args.batch / t_one:>12.0f}")
    print(f"{'2-stage pipeline (2 ranks)':<28}{t_pipe * 1e3:>10.2f}{args.batch / t_pipe:>12.0f}")
    print(f"throughput ratio pipeline / 1 process: {t_one / t_pipe:.2f}")


if __name__ == "__main__":
    main()
