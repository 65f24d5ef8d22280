"""Who may join a file:// rendezvous (the file store's counterpart of the TCP
store's handshake, Note [TCPStore handshake]).

The directory is the job: each rank records (job id, world size, pid, host)
under keys of its own before Gloo sees the store, so that

- a rank of another job (different job id) is refused at once, and the job
  it tried to join is not disturbed;
- a duplicate rank, or a directory still holding an earlier run's keys, is
  refused at once with who holds the rank;
- ranks of one job that disagree about the world size all fail at once,
  every rank naming the disagreement, instead of waiting out the timeout.

Rank 0 writes the job's record; the others compare theirs with it before
they claim their rank. Keys start with "__monoflow/", which Gloo never uses.
"""
import os
import socket
import time

_PREFIX = "__monoflow/identity/"
_POLL_S = 0.005


def _me():
    return f"{socket.gethostname()}:{os.getpid()}"


def _pid_alive(where):
    host, _, pid = where.rpartition(":")
    if host != socket.gethostname():
        return True  # cannot tell for another machine: assume it runs
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        return True
    return True


def _wait_for(store, key, deadline, path, what):
    while not store.check([key]):
        if time.monotonic() >= deadline:
            raise RuntimeError(f"init_process_group: timed out waiting in the file store '{path}' for {what}")
        time.sleep(_POLL_S)
    return store.get(key).decode()


def _fail_job(store, reason):
    store.set(_PREFIX + "failed", reason.encode())
    raise RuntimeError(reason)


def join(store, path, job_id, rank, world_size, timeout_s):
    """Claims `rank` of the job in the file store at `path`, or raises
    RuntimeError saying which rank, job or world size does not fit."""
    deadline = time.monotonic() + timeout_s
    record = f"{job_id}\n{world_size}"
    job_name = repr(job_id) if job_id else "(no job id)"
    if rank != 0:
        theirs = _wait_for(store, _PREFIX + "job", deadline, path, "rank 0's record of the job")
        their_job, _, their_world = theirs.partition("\n")
        if their_job != job_id:
            raise RuntimeError(f"init_process_group: rank {rank} of job {job_name} cannot join the file store "
                               f"'{path}': it belongs to job {their_job!r} (use a directory of your own)")
        if their_world != str(world_size):
            _fail_job(store, f"init_process_group: rank {rank} has WORLD_SIZE={world_size} but rank 0 of job "
                             f"{job_name} has WORLD_SIZE={their_world} (file store '{path}'); the job cannot form")
    claim = _PREFIX + f"rank/{rank}"
    if store.add(claim, 1) > 1:
        holder = _wait_for(store, claim + "/by", deadline, path, f"the holder of rank {rank}")
        if _pid_alive(holder):
            raise RuntimeError(f"init_process_group: duplicate rank {rank} in job {job_name}: rank {rank} already "
                               f"joined the file store '{path}' from {holder}")
        raise RuntimeError(f"init_process_group: the file store '{path}' holds an earlier run's keys (rank {rank} "
                           f"was joined by {holder}, which has exited); use a fresh directory for each run")
    store.set(claim + "/by", _me().encode())
    if rank == 0:
        store.set(_PREFIX + "job", record.encode())
    # Everyone waits for everyone, so a failure recorded by one rank reaches all.
    store.add(_PREFIX + "arrived", 1)
    while True:
        if store.check([_PREFIX + "failed"]):
            raise RuntimeError(store.get(_PREFIX + "failed").decode())
        if store.add(_PREFIX + "arrived", 0) >= world_size:
            return
        if time.monotonic() >= deadline:
            raise RuntimeError(f"init_process_group: timed out after {timeout_s:g} s in the file store '{path}' "
                               f"waiting for all {world_size} ranks of job {job_name} to join")
        time.sleep(_POLL_S)
