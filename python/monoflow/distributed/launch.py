"""The launcher: starts this node's ranks of a job.

    python -m monoflow.distributed.launch --nproc-per-node N \
        [--nnodes M --node-rank K --master-addr A --master-port P] [--log-dir D] \
        [-m] script.py args...

Each rank gets MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK,
LOCAL_WORLD_SIZE, NODE_RANK and NNODES. Its output lines are prefixed with
"[rank R] " (or go to D/rank_R.log with --log-dir). SIGINT and SIGTERM are
forwarded to the ranks. When a rank fails, the others are stopped and the
launcher exits non-zero, naming the rank and its exit code or signal.
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time

GRACE_S = 5.0  # how long a stopped rank gets between SIGTERM and SIGKILL


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m monoflow.distributed.launch",
                                description="Start the ranks of a monoflow job on this node.")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1,
                   help="ranks to start on this node (default 1)")
    p.add_argument("--nnodes", type=int, default=1, help="number of nodes (default 1)")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0, help="this node's index (default 0)")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                   help="address of node 0, where rank 0 serves the store (default 127.0.0.1)")
    p.add_argument("--master-port", "--master_port", type=int, default=29500,
                   help="port of the store on node 0 (default 29500)")
    p.add_argument("--log-dir", "--log_dir", default=None,
                   help="write each rank's output to LOG_DIR/rank_R.log instead of prefixing it")
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    p.add_argument("training_script", help="the script (or module with -m) each rank runs")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.nproc_per_node < 1:
        p.error(f"--nproc-per-node must be at least 1, got {args.nproc_per_node}")
    if args.nnodes < 1:
        p.error(f"--nnodes must be at least 1, got {args.nnodes}")
    if not 0 <= args.node_rank < args.nnodes:
        p.error(f"--node-rank {args.node_rank} is out of range for --nnodes {args.nnodes}")
    return args


def rank_env(args, local_rank):
    env = dict(os.environ)
    world = args.nproc_per_node * args.nnodes
    env.update(MASTER_ADDR=args.master_addr, MASTER_PORT=str(args.master_port), WORLD_SIZE=str(world),
               RANK=str(args.node_rank * args.nproc_per_node + local_rank), LOCAL_RANK=str(local_rank),
               LOCAL_WORLD_SIZE=str(args.nproc_per_node), NODE_RANK=str(args.node_rank),
               NNODES=str(args.nnodes), PYTHONUNBUFFERED="1")
    if args.nproc_per_node > 1 and "MONOFLOW_NUM_THREADS" not in env and "OMP_NUM_THREADS" not in env:
        # Several ranks share the machine's cores: each would otherwise size
        # its kernel team for the whole machine (Note [Kernel threads]).
        cores = os.cpu_count() or 1
        env["MONOFLOW_NUM_THREADS"] = str(max(1, cores // args.nproc_per_node - 1))
    return env


def _pump(stream, prefix, out, lock):
    # Line by line, so that ranks' lines interleave whole.
    for line in iter(stream.readline, b""):
        with lock:
            out.write(prefix + line)
            out.flush()
    stream.close()


def _describe(code):
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class Launcher:
    def __init__(self, args):
        self.args = args
        self.procs = []      # (global rank, Popen)
        self.pumps = []
        self.files = []
        self.signalled = None

    def start(self):
        a = self.args
        cmd = [sys.executable, "-u"] + (["-m"] if a.module else []) + [a.training_script] + a.training_script_args
        if a.log_dir:
            os.makedirs(a.log_dir, exist_ok=True)
        out = sys.stdout.buffer
        lock = threading.Lock()
        for local in range(a.nproc_per_node):
            env = rank_env(a, local)
            rank = int(env["RANK"])
            if a.log_dir:
                f = open(os.path.join(a.log_dir, f"rank_{rank}.log"), "wb")
                self.files.append(f)
                proc = subprocess.Popen(cmd, env=env, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
            else:
                proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True)
                t = threading.Thread(target=_pump, args=(proc.stdout, f"[rank {rank}] ".encode(), out, lock),
                                     daemon=True)
                t.start()
                self.pumps.append(t)
            self.procs.append((rank, proc))

    def forward(self, signum, frame):
        # The ranks run in their own sessions (a terminal's Ctrl-C reaches only
        # the launcher), so every signal reaches them exactly once, from here.
        self.signalled = signum
        for _, p in self.procs:
            if p.poll() is None:
                p.send_signal(signum)

    def stop_all(self):
        for _, p in self.procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.monotonic() + GRACE_S
        for _, p in self.procs:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def monitor(self):
        """Waits for the ranks; returns the launcher's exit code."""
        while True:
            running = 0
            for rank, p in self.procs:
                code = p.poll()
                if code is None:
                    running += 1
                elif code != 0:
                    return self.fail(rank, p, code)
            if running == 0:
                return 0
            time.sleep(0.05)

    def fail(self, rank, p, code):
        self.stop_all()
        self.finish()
        if self.signalled is not None:
            sig = signal.Signals(self.signalled).name
            msg = f"launch: got {sig}, forwarded to the ranks; rank {rank} {_describe(code)}"
            print(msg, file=sys.stderr, flush=True)
            return 128 + self.signalled
        print(f"launch: rank {rank} (pid {p.pid}) {_describe(code)}; stopped the other ranks",
              file=sys.stderr, flush=True)
        return code if code > 0 else 128 - code

    def finish(self):
        for t in self.pumps:
            t.join(timeout=2.0)
        for f in self.files:
            f.close()


def main(argv=None):
    args = parse_args(argv)
    launcher = Launcher(args)
    signal.signal(signal.SIGINT, launcher.forward)
    signal.signal(signal.SIGTERM, launcher.forward)
    launcher.start()
    code = launcher.monitor()
    launcher.finish()
    if code == 0 and launcher.signalled is not None:
        code = 128 + launcher.signalled
    return code


if __name__ == "__main__":
    sys.exit(main())
