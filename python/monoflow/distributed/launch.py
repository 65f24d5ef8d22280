"""The launcher: starts this node's ranks of a job.

    python -m monoflow.distributed.launch --nproc-per-node N \
        [--nnodes M --node-rank K --master-addr A --master-port P] [--log-dir D] \
        [--max-restarts R] [--standalone] [-m | --no-python] script.py args...

Each rank gets MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK,
LOCAL_WORLD_SIZE, NODE_RANK, NNODES and MONOFLOW_JOB_ID (the job's identity
in the store handshake: a rank of another job on the same port is refused),
and torchrun's GROUP_RANK, GROUP_WORLD_SIZE, ROLE_RANK, ROLE_WORLD_SIZE,
ROLE_NAME, TORCHELASTIC_RUN_ID, TORCHELASTIC_RESTART_COUNT and
TORCHELASTIC_MAX_RESTARTS, so that scripts written for torchrun find them.
Its output lines are prefixed with "[rank R] " (or go to D/rank_R.log with
--log-dir). SIGINT and SIGTERM are forwarded to the ranks. When a rank fails,
the others are stopped and the launcher exits non-zero, naming the rank that
failed first (not the ones that failed because it did), its exit code or
signal, and the last lines of its output (stderr is merged into stdout, so
that a traceback stays where the rank wrote it).

Note [Restarts]: with --max-restarts R, a failed rank does not end the job
while restarts are left: as torchrun does, the launcher stops every local rank
and starts them all again (a collective cannot go on with one member
replaced), with TORCHELASTIC_RESTART_COUNT counting the restarts, so that a
script that resumes from its checkpoint survives a lost rank. Each attempt
joins the store under its own job id (MONOFLOW_JOB_ID gets "-restartK"), so a
rank left over from an earlier attempt is refused instead of joining the new
one. On several nodes each node's launcher restarts its own ranks: a rank
lost on one node fails its peers' collectives on the others, so every node
restarts, and the attempts meet again at rank 0's store. When a rank fails
after the last restart the launcher reports it as without restarts (the rank,
its exit code or signal, its last output lines) and exits non-zero.

A build without Gloo runs a one-node job under MPI's mpiexec instead (Note
[Launching without Gloo] in mpiexec_fallback.py).
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

from monoflow.distributed import error_file, mpiexec_fallback

GRACE_S = 5.0  # how long a stopped rank gets between SIGTERM and SIGKILL
TAIL_LINES = 20  # lines of a failed rank's output repeated in the report
# The launcher learns of a rank killed by a signal only when it reaps it; its
# peers see its sockets close at the same instant and may raise first. A kill
# within this long after a peer's exception is taken as that exception's cause.
SIGNAL_SLACK_S = 0.5
# The same race with a rank that exits without an exception (os._exit, a
# lost host's process, sys.exit): its peers' collectives fail when its sockets
# close, before its exit is reaped. An exception that says it is the echo of
# a peer's death (the collective engines' words) is taken as caused by any
# failure up to SIGNAL_SLACK_S after it.
PEER_LOSS_WORDS = ("a peer died", "Connection reset by peer", "Connection closed by peer")


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m monoflow.distributed.launch",
                                description="Start the ranks of a monoflow job on this node.")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=_nproc, default=1,
                   help="ranks to start on this node: a number, or torchrun's 'cpu' (one per core), 'gpu' (one "
                        "per CUDA device) or 'auto' (gpu when there are CUDA devices, else cpu); default 1")
    p.add_argument("--nnodes", type=_nnodes, default=1, help="number of nodes, N or N:N (default 1)")
    p.add_argument("--node-rank", "--node_rank", type=int, default=None,
                   help="this node's index (default 0 for one node; with several, NODE_RANK or SLURM_NODEID "
                        "from the environment)")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                   help="address of node 0, where rank 0 serves the store (default 127.0.0.1)")
    p.add_argument("--master-port", "--master_port", type=int, default=None,
                   help="port of the store on node 0 (default 29500; with --standalone a free port)")
    p.add_argument("--standalone", action="store_true",
                   help="a one-node job on this host on a free port (torchrun's --standalone)")
    p.add_argument("--max-restarts", "--max_restarts", type=int, default=0,
                   help="restart all of this node's ranks up to this many times when one fails (default 0)")
    p.add_argument("--job-id", "--job_id", "--rdzv-id", "--rdzv_id", default=None,
                   help="the job's identity, the same on every node (default: MONOFLOW_JOB_ID when set, else a "
                        "fresh id for a one-node job, else one derived from the master address and sizes)")
    p.add_argument("--log-dir", "--log_dir", default=None,
                   help="write each rank's output to LOG_DIR/rank_R.log instead of prefixing it")
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true",
                   help="run the script as a program, not with python (torchrun's --no-python)")
    p.add_argument("training_script", help="the script (or module with -m) each rank runs")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.nproc_per_node < 1:
        p.error(f"--nproc-per-node must be at least 1, got {args.nproc_per_node}")
    if args.nnodes < 1:
        p.error(f"--nnodes must be at least 1, got {args.nnodes}")
    if args.module and args.no_python:
        p.error("-m and --no-python do not go together")
    if args.max_restarts < 0:
        p.error(f"--max-restarts must be at least 0, got {args.max_restarts}")
    if args.standalone:
        if args.nnodes != 1:
            p.error("--standalone is a one-node job: --nnodes must be 1")
        args.master_addr = "127.0.0.1"
        if args.master_port is None:
            args.master_port = free_port()
    if args.master_port is None:
        args.master_port = 29500
    if args.node_rank is None:
        args.node_rank = 0 if args.nnodes == 1 else _node_rank_from_env(p)
    if not 0 <= args.node_rank < args.nnodes:
        p.error(f"--node-rank {args.node_rank} is out of range for --nnodes {args.nnodes}")
    if args.job_id is None:
        args.job_id = default_job_id(args)
    return args


def _nproc(text):
    if text in ("cpu", "gpu", "auto"):
        gpus = _cuda_devices()
        if text == "gpu" and gpus == 0:
            raise argparse.ArgumentTypeError("'gpu' needs CUDA devices, and this host has none")
        return gpus if text == "gpu" or (text == "auto" and gpus) else (os.cpu_count() or 1)
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, 'cpu', 'gpu' or 'auto', got {text!r}") from None


def _cuda_devices():
    try:
        from monoflow import cuda
        return cuda.device_count() if cuda.is_available() else 0
    except Exception:
        return 0


def _nnodes(text):
    lo, colon, hi = text.partition(":")
    try:
        lo, hi = int(lo), int(hi) if colon else int(lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N or N:N, got {text!r}") from None
    if lo != hi:
        raise argparse.ArgumentTypeError(f"elastic node counts ({text}) are not supported: the job's membership is "
                                         f"fixed; give one number")
    return lo


def _node_rank_from_env(p):
    # srun torchrun ... --nnodes N (one launcher per node) gives no --node-rank:
    # torchrun's c10d rendezvous would number the nodes, monoflow's static one
    # takes the scheduler's number.
    for name in ("NODE_RANK", "GROUP_RANK", "SLURM_NODEID", "OMPI_COMM_WORLD_NODE_RANK"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    p.error("--node-rank is needed with --nnodes > 1 (or NODE_RANK / SLURM_NODEID in the environment)")


def free_port(host="127.0.0.1"):
    import socket
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


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


def rank_env(args, local_rank, restart=0):
    env = dict(os.environ)
    world = args.nproc_per_node * args.nnodes
    rank = args.node_rank * args.nproc_per_node + local_rank
    job = args.job_id if restart == 0 else f"{args.job_id}-restart{restart}"  # Note [Restarts]
    env.update(MASTER_ADDR=args.master_addr, MASTER_PORT=str(args.master_port), WORLD_SIZE=str(world),
               RANK=str(rank), LOCAL_RANK=str(local_rank),
               LOCAL_WORLD_SIZE=str(args.nproc_per_node), NODE_RANK=str(args.node_rank),
               NNODES=str(args.nnodes), MONOFLOW_JOB_ID=job, PYTHONUNBUFFERED="1",
               GROUP_RANK=str(args.node_rank), GROUP_WORLD_SIZE=str(args.nnodes), ROLE_RANK=str(rank),
               ROLE_WORLD_SIZE=str(world), ROLE_NAME="default", TORCHELASTIC_RUN_ID=args.job_id,
               TORCHELASTIC_RESTART_COUNT=str(restart), TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts))
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


RESTART = object()  # monitor()'s answer when the job is to be started again


class Launcher:
    def __init__(self, args):
        self.args = args
        self.restart = 0     # restarts so far (Note [Restarts])
        self.error_dir = tempfile.mkdtemp(prefix="monoflow-launch-")
        self.signalled = None
        self.signal_count = 0  # SIGINT/SIGTERM received so far
        self._new_attempt()

    def _new_attempt(self):
        self.procs = []      # (global rank, Popen)
        self.forwarded = {}  # pid -> how many of the launcher's signals it was sent (each gets each once)
        self.tails = {}      # global rank -> its last output lines, or its log file
        self.pumps = []
        self.files = []
        self.exits = queue.Queue()  # (global rank, Popen, exit code, time reaped), in the order they ended
        self.waiters = []

    def start(self):
        a = self.args
        self._new_attempt()
        if a.no_python:
            cmd = [a.training_script] + a.training_script_args
        else:
            cmd = [sys.executable, "-u"] + (["-m"] if a.module else []) + [a.training_script] + a.training_script_args
        if a.log_dir:
            os.makedirs(a.log_dir, exist_ok=True)
        out = sys.stdout.buffer
        lock = threading.Lock()
        for local in range(a.nproc_per_node):
            env = rank_env(a, local, self.restart)
            rank = int(env["RANK"])
            env[error_file.ENV] = self.error_path(rank)
            try:
                os.unlink(self.error_path(rank))   # an earlier attempt's record
            except FileNotFoundError:
                pass
            if a.log_dir:
                path = self.tails[rank] = os.path.join(a.log_dir, f"rank_{rank}.log")
                f = open(path, "wb" if self.restart == 0 else "ab")  # a restart continues the rank's log
                if self.restart:
                    f.write(f"--- launch: restart {self.restart} of {a.max_restarts} ---\n".encode())
                    f.flush()
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
        # A signal handled while a rank was being started (after its Popen, before it was in self.procs)
        # did not reach it; a loaded machine makes that window long enough for a rank to start up.
        if self.signalled is not None:
            self._send_pending()

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
        self.signal_count += 1
        self._send_pending()

    def _send_pending(self):
        for _, p in list(self.procs):
            while self.forwarded.get(p.pid, 0) < self.signal_count and p.poll() is None:
                self.forwarded[p.pid] = self.forwarded.get(p.pid, 0) + 1
                p.send_signal(self.signalled)

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
        """Waits for the ranks; returns the launcher's exit code, or RESTART."""
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
                if any(w in str(record.get("message", "")) for w in PEER_LOSS_WORDS):
                    when += SIGNAL_SLACK_S
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
        self.finish_attempt()
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
        restarts = self.args.max_restarts
        if self.restart < restarts:
            lines = [f"launch: rank {rank} (pid {p.pid}) failed first: {what}; stopped the other ranks; restarting "
                     f"all {self.args.nproc_per_node} local ranks (restart {self.restart + 1} of {restarts})"]
        else:
            after = f" (after {restarts} restart{'s' if restarts != 1 else ''})" if restarts else ""
            lines = [f"launch: rank {rank} (pid {p.pid}) failed first{after}: {what}; stopped the other ranks"]
        tail = self._tail(rank)
        if tail:
            lines.append(f"launch: last lines of rank {rank}'s output:")
            lines += ["    " + line for line in tail.splitlines()]
        else:
            lines.append(f"launch: rank {rank} wrote no output")
        print("\n".join(lines), file=sys.stderr, flush=True)
        if self.restart < restarts:
            self.restart += 1
            return RESTART
        return code if code > 0 else 128 - code

    def finish_attempt(self):
        for t in self.pumps:
            t.join(timeout=2.0)
        for f in self.files:
            f.close()
        self.pumps, self.files = [], []

    def finish(self):
        self.finish_attempt()
        shutil.rmtree(self.error_dir, ignore_errors=True)


def main(argv=None):
    args = parse_args(argv)
    try:
        via_mpiexec = mpiexec_fallback.needed(args)  # Note [Launching without Gloo]
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    if via_mpiexec:
        env = rank_env(args, 0)
        for k in ("RANK", "LOCAL_RANK", "ROLE_RANK"):  # each rank's own come from MPI
            env.pop(k)
        return mpiexec_fallback.run(args, env)
    launcher = Launcher(args)
    signal.signal(signal.SIGINT, launcher.forward)
    signal.signal(signal.SIGTERM, launcher.forward)
    launcher.start()
    code = launcher.monitor()
    while code is RESTART and launcher.signalled is None:
        launcher.start()
        code = launcher.monitor()
    if code is RESTART:   # a signal came while the job was being restarted
        code = 128 + launcher.signalled
    launcher.finish()
    if code == 0 and launcher.signalled is not None:
        code = 128 + launcher.signalled
    return code


if __name__ == "__main__":
    sys.exit(main())
