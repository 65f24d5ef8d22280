"""The launcher's way to many processes without Gloo: under mpiexec.

Note [Launching without Gloo]
    monoflow's host-memory engines are Gloo (built when Debian's libgloo-dev
    was present at build time) and MPI (libmpi opened at run time: the
    `mpich` wheel, i.e. pip alone). The MPI engine needs its ranks started
    by an MPI process manager, which forms the MPI world. So when this
    build has no Gloo, a one-node `monoflow.distributed.launch` hands the
    job to the `mpiexec` that comes with the MPI library (hydra, from the
    same wheel), rather than starting ranks the MPI engine could not join.
    Each rank first runs this module's ``rank_main``, which adds torchrun's
    variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, from MPI's
    PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS) to the launcher's
    (MASTER_ADDR, MASTER_PORT, MONOFLOW_JOB_ID ...) so that scripts written
    for torchrun find them, then runs the script as the launcher would.
    Output lines carry the launcher's "[rank R] " prefix (mpiexec's); a failed rank ends the job
    (mpiexec stops the others) with a non-zero exit code, and
    --max-restarts reruns the whole job.
"""
import os
import runpy
import shutil
import subprocess
import sys

__all__ = ["needed", "run", "rank_main"]


def _mpiexec():
    path = os.path.join(sys.prefix, "bin") + os.pathsep + os.environ.get("PATH", "")
    return shutil.which("mpiexec", path=path)


def needed(args):
    """Whether this launch must go through mpiexec (Note [Launching without
    Gloo]); raises RuntimeError when neither engine can run it."""
    from monoflow.distributed import process_group

    if args.nproc_per_node * args.nnodes == 1 or process_group.is_gloo_available():
        return False
    if not (process_group.is_mpi_available() and _mpiexec()):
        raise RuntimeError("monoflow.distributed.launch: this monoflow was built without Gloo and no MPI was found "
                           "for its ranks' collectives: pip install mpich (monoflow's [mpi] extra), or install "
                           "Debian's libgloo-dev and rebuild monoflow")
    if args.nnodes != 1:
        raise RuntimeError("monoflow.distributed.launch: this monoflow was built without Gloo; a job of several "
                           "nodes goes through MPI's own launcher: mpiexec -hosts A,B -n N python script.py (or "
                           "srun), or rebuild monoflow with Debian's libgloo-dev installed")
    return True


def run(args, env):
    """Runs the job under mpiexec, restarting it up to --max-restarts times;
    returns the exit code."""
    n = args.nproc_per_node
    target = ["--no-python"] if args.no_python else (["-m"] if args.module else [])
    # one write per line (line buffering in rank_main, not -u), so that each line gets one prefix
    cmd = [_mpiexec(), "-n", str(n), "-prepend-pattern", "[rank %r] ", sys.executable, "-m", __name__] + target + \
          [args.training_script] + args.training_script_args
    print(f"monoflow.distributed.launch: no Gloo in this build; starting {n} ranks with MPI's mpiexec",
          file=sys.stderr, flush=True)
    env = {k: v for k, v in env.items() if k != "PYTHONUNBUFFERED"}
    code = 1
    for attempt in range(args.max_restarts + 1):
        env = dict(env, TORCHELASTIC_RESTART_COUNT=str(attempt),
                   MONOFLOW_JOB_ID=args.job_id if attempt == 0 else f"{args.job_id}-restart{attempt}")
        code = subprocess.call(cmd, env=env)
        if code == 0:
            break
        if attempt < args.max_restarts:
            print(f"monoflow.distributed.launch: the job failed (exit code {code}); restart {attempt + 1} of "
                  f"{args.max_restarts}", file=sys.stderr, flush=True)
    return code


def rank_main(argv):
    """In each rank under mpiexec: torchrun's variables from MPI's, then the script."""
    sys.stdout.reconfigure(line_buffering=True)
    sys.stderr.reconfigure(line_buffering=True)
    e = os.environ
    rank, size = e.get("PMI_RANK", "0"), e.get("PMI_SIZE", "1")
    e.update(RANK=rank, WORLD_SIZE=size, LOCAL_RANK=e.get("MPI_LOCALRANKID", rank),
             LOCAL_WORLD_SIZE=e.get("MPI_LOCALNRANKS", size), ROLE_RANK=rank, ROLE_WORLD_SIZE=size)
    if argv and argv[0] == "--no-python":
        os.execvp(argv[1], argv[1:])
    if argv and argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    rank_main(sys.argv[1:])
