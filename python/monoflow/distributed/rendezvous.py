"""Rendezvous: from an init_method (env://, tcp://host:port, file:///dir) to a
store, this process's rank and the world size.

Rank, world size and the address of rank 0 come from the arguments, else from
the environment of whichever scheduler started the process (torchrun, SLURM,
Open MPI, MPICH/PMI: Note [Scheduler environments] in cluster_env.py).

The TCP store is served by rank 0 on MASTER_ADDR's interface (loopback when
MASTER_ADDR is local; MONOFLOW_STORE_BIND_ADDR=0.0.0.0 for every interface,
e.g. behind NAT), so ranks on other machines reach it at MASTER_ADDR. Each
rank joins it as (job id, rank, world size), optionally proving it knows the
job's secret (Note [TCPStore handshake] in collective/include/monoflow/
collective/tcp_store.h): a rank of another job or a duplicate rank is refused
at once, and a rank outside WORLD_SIZE (or one that disagrees about it) makes
every rank fail at once. The file store is a shared directory, for ranks on
one machine or a shared file system, with the same checks made through the
store itself (file_identity.py); the directory must be fresh for each run,
and one holding an earlier run's keys is refused.
"""
import os
import re
import time
import urllib.parse

from monoflow.distributed import cluster_env, file_identity
from monoflow.distributed._lib import lib as _lib

# How long a misconfigured rank tries to tell the job's store why it cannot
# join, so that the other ranks fail now rather than at their timeout.
_REPORT_S = 2.0


def job_id():
    """The job's identity, from the first of: MONOFLOW_JOB_ID (the launcher's),
    TORCHELASTIC_RUN_ID (torchrun's), SLURM_JOB_ID[.SLURM_STEP_ID], the MPI
    job's namespace (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid); "" when none
    is set (ranks started by hand: rank and world size still checked)."""
    for name in ("MONOFLOW_JOB_ID", "TORCHELASTIC_RUN_ID"):
        if os.environ.get(name):
            return os.environ[name]
    slurm = os.environ.get("SLURM_JOB_ID")
    if slurm:
        step = os.environ.get("SLURM_STEP_ID")
        return f"slurm-{slurm}" + (f".{step}" if step else "")
    for name in ("PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"):
        if os.environ.get(name):
            return f"mpi-{os.environ[name]}"
    return ""


def store_secret():
    """The shared secret that joining the store requires: MONOFLOW_STORE_SECRET,
    else the contents of the file MONOFLOW_STORE_SECRET_FILE names (without its
    trailing newline); b"" when neither is set."""
    secret = os.environ.get("MONOFLOW_STORE_SECRET")
    if secret:
        return secret.encode()
    path = os.environ.get("MONOFLOW_STORE_SECRET_FILE")
    if not path:
        return b""
    try:
        with open(path, "rb") as f:
            data = f.read().rstrip(b"\r\n")
    except OSError as e:
        raise ValueError(f"init_process_group: cannot read MONOFLOW_STORE_SECRET_FILE={path!r}: {e}") from None
    if not data:
        raise ValueError(f"init_process_group: MONOFLOW_STORE_SECRET_FILE={path!r} is empty")
    return data


def bind_address(host):
    return os.environ.get("MONOFLOW_STORE_BIND_ADDR") or host


def tcp_store(host, port, is_server, timeout_s, rank=-1, world_size=-1):
    """A TCP store joined with this process's identity (job id, secret)."""
    return _lib().tcp_store(host, int(port), bool(is_server), timeout_s, bind_address(host), job_id(), rank,
                            world_size, store_secret())


def _rank_and_world(env, rank, world_size):
    """The explicit arguments where given (>= 0), else what the scheduler's
    environment says (Note [Scheduler environments] in cluster_env.py)."""
    if rank is None or rank < 0:
        rank = env.require_rank()
    if world_size is None or world_size < 0:
        world_size = env.require_world_size()
    return rank, world_size


def rendezvous(init_method, rank, world_size, timeout_s):
    """Returns (store, rank, world_size, master_addr)."""
    url = urllib.parse.urlparse(init_method)
    env = cluster_env.current()
    if url.scheme == "env":
        if env.scheduler is None and not os.environ.get("MASTER_ADDR") and not os.environ.get("MASTER_PORT"):
            raise ValueError("init_process_group: MASTER_ADDR and MASTER_PORT not set for init_method='env://', "
                             "and no scheduler's rank variable either (RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, "
                             "PMI_RANK); run under `python -m monoflow.distributed.run`, srun or mpirun")
        rank, world_size = _rank_and_world(env, rank, world_size)
        addr = env.master_addr(world_size)
        port = env.master_port(world_size)
        return _tcp(addr, port, rank, world_size, timeout_s)
    if url.scheme == "tcp":
        if not url.hostname or url.port is None:
            raise ValueError(f"init_process_group: init_method {init_method!r} should look like tcp://host:port")
        rank, world_size = _rank_and_world(env, rank, world_size)
        return _tcp(url.hostname, url.port, rank, world_size, timeout_s)
    if url.scheme == "file":
        rank, world_size = _rank_and_world(env, rank, world_size)
        _check(rank, world_size)
        path = urllib.parse.unquote(url.path)
        store = _lib().file_store(path, timeout_s)
        file_identity.join(store, path, job_id(), rank, world_size, timeout_s)
        return store, rank, world_size, "127.0.0.1"
    raise ValueError(f"init_process_group: unsupported init_method {init_method!r} "
                     "(expected env://, tcp://host:port or file:///path)")


def _check(rank, world_size):
    if world_size < 1:
        raise ValueError(f"init_process_group: world_size must be positive, got {world_size}")
    if not 0 <= rank < world_size:
        raise ValueError(f"init_process_group: rank {rank} is out of range for world_size {world_size}")


def _tcp(host, port, rank, world_size, timeout_s):
    try:
        _check(rank, world_size)
    except ValueError as e:
        raise ValueError(f"{e}{_report_misfit(host, port, rank, world_size, timeout_s)}") from None
    if rank == 0:
        return tcp_store(host, port, True, timeout_s, rank, world_size), rank, world_size, host
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return tcp_store(host, port, False, timeout_s, rank, world_size), rank, world_size, host
        except RuntimeError as e:
            if not _earlier_attempt(str(e)) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


_RESTART = re.compile(r"^(.*)-restart(\d+)$")
_SERVED = re.compile(r"serves job '([^']*)'")


def _attempt(job):
    m = _RESTART.match(job)
    return (m.group(1), int(m.group(2))) if m else (job, 0)


def _earlier_attempt(message):
    """Whether the store refused this rank because an earlier attempt of its own job still serves there
    (Note [Restarts] in launch.py): on several nodes, this node's launcher may restart its ranks before
    node 0's has restarted rank 0, whose store then goes away; so the rank tries again until its timeout."""
    m = _SERVED.search(message)
    if not m or "belongs to job" not in message:
        return False
    mine, theirs = _attempt(job_id()), _attempt(m.group(1))
    return mine[0] == theirs[0] and theirs[1] < mine[1]


def _report_misfit(host, port, rank, world_size, timeout_s):
    """Joins the store as the misfit rank, briefly, so that the server aborts
    the job and its other ranks fail now; returns what to add to the error."""
    if rank == -1 or world_size < 1:
        return ""  # claims no rank / nothing the store could check
    try:
        tcp_store(host, port, False, min(timeout_s, _REPORT_S), rank, world_size)
    except RuntimeError as e:
        return f"; the job's store answered: {e}"
    return ""
