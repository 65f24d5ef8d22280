"""The launcher: starts this node's ranks of a job.

    python -m monoflow.distributed.launch --nproc-per-node N \
        [--nnodes M --node-rank K --master-addr A --master-port P] [--log-dir D] \
        [-m] script.py args...

Each rank gets MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK,
LOCAL_WORLD_SIZE, NODE_RANK, NNODES and MONOFLOW_JOB_ID (the job's identity
in the store handshake: a rank of another job on the same port is refused).
Its output lines are prefixed with "[rank R] " (or go to D/rank_R.log with
--log-dir). SIGINT and SIGTERM are forwarded to the ranks. When a rank fails,
the others are stopped and the launcher exits non-zero, naming the rank that
failed first (not the ones that failed because it did), its exit code or
signal, and the last lines of its output (stderr is merged into stdout, so
that a traceback stays where the rank wrote it).
"""
import argparse
import collections
import hashlib
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from monoflow.distributed import error_file

GRACE_S = 5.0  # how long a stopped rank gets between SIGTERM and SIGKILL
TAIL_LINES = 20  # lines of a failed rank's output repeated in the report
# The launcher learns of a rank killed by a signal only when it reaps it; its
# peers see its sockets close at the same instant and may raise first. A kill
# within this long after a peer's exception is taken as that exception's cause.
SIGNAL_SLACK_S = 0.5


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
    p.add_argument("--job-id", "--job_id", "--rdzv-id", "--rdzv_id", default=None,
                   help="the job's identity, the same on every node (default: MONOFLOW_JOB_ID when set, else a "
                        "fresh id for a one-node job, else one derived from the master address and sizes)")
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
    if args.job_id is None:
        args.job_id = default_job_id(args)
    return args


def default_job_id(args):
    """One launcher starts every rank of a one-node job: a fresh id. The
    launchers of a multi-node job must agree without talking to each other,
    so theirs is derived from what they share (pass --job-id for a real one)."""
    if os.environ.get("MONOFLOW_JOB_ID"):
        return os.environ["MONOFLOW_JOB_ID"]
    if args.nnodes == 1:
        return uuid.uuid4().hex
    shared = f"{args.master_addr}:{args.master_port}/{args.nnodes}x{args.nproc_per_node}"
    return "derived-" + hashlib.sha256(shared.encode()).hexdigest()[:16]


def rank_env(args, local_rank):
    env = dict(os.environ)
    world = args.nproc_per_node * args.nnodes
    env.update(MASTER_ADDR=args.master_addr, MASTER_PORT=str(args.master_port), WORLD_SIZE=str(world),
               RANK=str(args.node_rank * args.nproc_per_node + local_rank), LOCAL_RANK=str(local_rank),
               LOCAL_WORLD_SIZE=str(args.nproc_per_node), NODE_RANK=str(args.node_rank),
               NNODES=str(args.nnodes), MONOFLOW_JOB_ID=args.job_id, PYTHONUNBUFFERED="1")
    if args.nproc_per_node > 1 and "MONOFLOW_NUM_THREADS" not in env and "OMP_NUM_THREADS" not in env:
        # Several ranks share the machine's cores: each would otherwise size
        # its kernel team for the whole machine (Note [Kernel threads]). Each
        # gets its share, with no core held back for the enqueueing thread:
        # it mostly waits for the kernels it enqueued (same note).
        cores = os.cpu_count() or 1
        env["MONOFLOW_NUM_THREADS"] = str(max(1, cores // args.nproc_per_node))
    return env


def _pieces(stream):
    """The stream's output in pieces that end with a newline or a carriage
    return: a progress bar redraws its line with '\r' and no newline, and each
    redraw must get the rank prefix again or the bar overwrites it."""
    pending = b""
    for chunk in iter(lambda: stream.read1(65536), b""):
        pending += chunk
        start = 0
        for m in _LINE_END.finditer(pending):
            yield pending[start:m.end()]
            start = m.end()
        pending = pending[start:]
    if pending:
        yield pending


_LINE_END = re.compile(rb"\r\n|\n|\r(?!$)")  # a '\r' at a chunk's end may be half of '\r\n': wait


def _pump(stream, prefix, out, lock, tail=None):
    # Whole lines (and whole redraws), so that ranks' lines interleave whole.
    for piece in _pieces(stream):
        if tail is not None and not piece.endswith(b"\r"):  # a redraw is not worth a line of the failure report
            tail.append(piece)
        with lock:
            out.write(prefix + piece)
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
        self.tails = {}      # global rank -> its last output lines, or its log file
        self.pumps = []
        self.files = []
        self.exits = queue.Queue()  # (global rank, Popen, exit code, time reaped), in the order they ended
        self.waiters = []
        self.error_dir = tempfile.mkdtemp(prefix="monoflow-launch-")
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
            env[error_file.ENV] = self.error_path(rank)
            if a.log_dir:
                path = self.tails[rank] = os.path.join(a.log_dir, f"rank_{rank}.log")
                f = open(path, "wb")
                self.files.append(f)
                proc = subprocess.Popen(cmd, env=env, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
            else:
                tail = self.tails[rank] = collections.deque(maxlen=TAIL_LINES)
                proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True)
                t = threading.Thread(target=_pump, args=(proc.stdout, f"[rank {rank}] ".encode(), out, lock, tail),
                                     daemon=True)
                t.start()
                self.pumps.append(t)
            self.procs.append((rank, proc))
            waiter = threading.Thread(target=self._wait_for, args=(rank, proc), daemon=True)
            waiter.start()
            self.waiters.append(waiter)

    def error_path(self, rank):
        return os.path.join(self.error_dir, f"rank_{rank}.json")

    def _tail(self, rank):
        tail = self.tails.get(rank, ())
        if isinstance(tail, str):   # --log-dir: the end of the rank's log file
            try:
                with open(tail, "rb") as f:
                    f.seek(max(0, os.path.getsize(tail) - 64 * 1024))
                    tail = f.read().splitlines(keepends=True)[-TAIL_LINES:]
            except OSError:
                tail = ()
        return b"".join(tail).decode(errors="replace").rstrip("\n")

    def _wait_for(self, rank, proc):
        # One waiter per rank, so that each exit is seen (and timed) when it happens.
        code = proc.wait()
        self.exits.put((rank, proc, code, time.time()))

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
        ended = 0
        while ended < len(self.procs):
            try:
                first = self.exits.get(timeout=0.1)  # a timeout, so that signal handlers run
            except queue.Empty:
                continue
            ended += 1
            if first[2] != 0:
                return self.fail(first)
        return 0

    def cause(self, ended, stopping):
        """The rank that failed first: by the time of its uncaught exception
        (error_file) when it wrote one, else of its exit; ranks that ended only
        because the launcher stopped them are not candidates."""
        best = None
        for rank, p, code, reaped in ended:
            if code == 0:
                continue
            record = error_file.read(self.error_path(rank))
            if record is not None and record["time"] < stopping:
                when = record["time"]
            elif reaped < stopping:
                when, record = reaped - (SIGNAL_SLACK_S if code < 0 else 0.0), None
            else:
                continue
            if best is None or when < best[0]:
                best = (when, rank, p, code, record, reaped >= stopping)
        return best[1:]

    def fail(self, first):
        stopping = time.time()
        self.stop_all()
        for w in self.waiters:
            w.join(timeout=2.0)
        ended = [first]
        while not self.exits.empty():
            ended.append(self.exits.get_nowait())
        rank, p, code, record, stopped = self.cause(ended, stopping)
        self.finish()
        if self.signalled is not None:
            sig = signal.Signals(self.signalled).name
            msg = f"launch: got {sig}, forwarded to the ranks; rank {rank} {_describe(code)}"
            print(msg, file=sys.stderr, flush=True)
            return 128 + self.signalled
        what = f"it {_describe(code)}"
        if record is not None:
            what = f"it raised {record.get('type')}: {record.get('message')}"
            if stopped:   # it was still shutting down when the others were stopped
                what += f" (then {_describe(code)} by the launcher)"
                code = 1
        lines = [f"launch: rank {rank} (pid {p.pid}) failed first: {what}; stopped the other ranks"]
        tail = self._tail(rank)
        if tail:
            lines.append(f"launch: last lines of rank {rank}'s output:")
            lines += ["    " + line for line in tail.splitlines()]
        else:
            lines.append(f"launch: rank {rank} wrote no output")
        print("\n".join(lines), file=sys.stderr, flush=True)
        return code if code > 0 else 128 - code

    def finish(self):
        for t in self.pumps:
            t.join(timeout=2.0)
        for f in self.files:
            f.close()
        shutil.rmtree(self.error_dir, ignore_errors=True)


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
