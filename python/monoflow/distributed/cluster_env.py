"""Who am I in the job: rank, world size, local rank and the address of rank 0,
read from whatever scheduler started this process, with no monoflow-specific
variable needed.

Note [Scheduler environments]
-----------------------------
Each launcher tells its processes who they are in its own variables. They are
read in this order; the first scheduler whose rank variable is set answers
rank, world size and local rank (its variables are never mixed with
another's, so a SLURM_PROCID inherited from a batch step cannot override the
rank mpirun gave):

  torchrun, Kubernetes, monoflow's launcher   RANK, WORLD_SIZE, LOCAL_RANK
                                              (LOCAL_WORLD_SIZE)
  Open MPI (mpirun / srun --mpi=pmix)         OMPI_COMM_WORLD_RANK, _SIZE,
                                              _LOCAL_RANK (_LOCAL_SIZE)
  MPICH / Intel MPI (hydra) and other PMI     PMI_RANK, PMI_SIZE
                                              (MPI_LOCALRANKID, MPI_LOCALNRANKS)
  SLURM (srun)                                SLURM_PROCID, SLURM_NTASKS,
                                              SLURM_LOCALID

The address of rank 0's store is MASTER_ADDR when set (every scheduler);
else, under SLURM (any of the above started inside an allocation), the first
host of the step's node list (SLURM_STEP_NODELIST, else SLURM_JOB_NODELIST /
SLURM_NODELIST, in Slurm's hostlist syntax: `node[01-04,07]`); else 127.0.0.1
when the job is known to fit on this host (a world of one, or every rank
local: LOCAL_WORLD_SIZE / OMPI_COMM_WORLD_LOCAL_SIZE / MPI_LOCALNRANKS equal
to the world size). Otherwise ValueError names MASTER_ADDR.

The port is MASTER_PORT when set; else one derived from the job's id, the
same on every rank: 10000 + (SLURM_JOB_ID + SLURM_STEP_ID) mod 20000 under
SLURM (below Linux's ephemeral range, so that a client socket rarely holds
it), or from the MPI job's namespace (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid)
under mpirun; else 29500 (torch's default) under MPI; a world of one takes any
free port. torchrun-style variables without MASTER_PORT are an error naming it,
as in torch. Two jobs that meet on one port are told apart by the store's
handshake (rendezvous.job_id), never silently mixed.
"""
import hashlib
import os
import re

DEFAULT_MPI_PORT = 29500
SLURM_PORT_BASE, SLURM_PORT_SPAN = 10000, 20000

# scheduler name -> (rank, world size, local rank, local world size) variables
_SCHEDULERS = (
    ("torchrun", ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")),
    ("openmpi", ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                 "OMPI_COMM_WORLD_LOCAL_SIZE")),
    ("pmi", ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS")),
    ("slurm", ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", None)),
)
_NODELISTS = ("SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST")
_SLURM_TASKS_FALLBACK = ("SLURM_STEP_NUM_TASKS", "SLURM_NPROCS")
_RANK_NAMES = " / ".join(s[1][0] for s in _SCHEDULERS)


class ClusterEnv:
    """What the environment says about this process's place in the job.

    Attributes: scheduler ("torchrun", "openmpi", "pmi", "slurm" or None),
    rank, world_size, local_rank, local_world_size (None when unknown),
    nnodes (None when unknown), and the variables they came from
    (rank_var, world_var)."""

    def __init__(self, environ=None):
        env = os.environ if environ is None else environ
        self._env = env
        self.scheduler = None
        self.rank_var = self.world_var = None
        self.rank = self.world_size = None
        self.local_rank, self.local_world_size = 0, None
        for name, (rank_var, world_var, local_var, local_world_var) in _SCHEDULERS:
            if not env.get(rank_var):
                continue
            self.scheduler, self.rank_var = name, rank_var
            self.rank = _int(env, rank_var)
            if name == "slurm" and not env.get(world_var):
                world_var = next((v for v in _SLURM_TASKS_FALLBACK if env.get(v)), world_var)
            self.world_var = world_var
            if env.get(world_var):
                self.world_size = _int(env, world_var)
            if env.get(local_var):
                self.local_rank = _int(env, local_var)
            elif env.get("SLURM_LOCALID"):   # e.g. mpirun/PMI ranks started by srun
                self.local_rank = _int(env, "SLURM_LOCALID")
            if local_world_var and env.get(local_world_var):
                self.local_world_size = _int(env, local_world_var)
            break
        if self.scheduler is None and env.get("WORLD_SIZE"):  # the world size alone (OneFlow's test tooling)
            self.world_var, self.world_size = "WORLD_SIZE", _int(env, "WORLD_SIZE")
        self.nnodes = None
        for var in ("NNODES", "SLURM_STEP_NUM_NODES", "SLURM_JOB_NUM_NODES", "SLURM_NNODES"):
            if env.get(var):
                self.nnodes = _int(env, var)
                break

    # -- rank and world size ------------------------------------------------
    def require_rank(self, what="init_process_group"):
        if self.rank is None:
            raise ValueError(f"{what}: this process's rank is not in the environment: set RANK (torchrun's "
                             f"variables), or start it with srun (SLURM_PROCID), mpirun (OMPI_COMM_WORLD_RANK / "
                             f"PMI_RANK) or `python -m monoflow.distributed.run`; or pass rank= explicitly")
        return self.rank

    def require_world_size(self, what="init_process_group"):
        if self.world_size is None:
            if self.world_var is None:
                raise ValueError(f"{what}: the world size is not in the environment: set WORLD_SIZE, or start "
                                 f"the processes with srun, mpirun or `python -m monoflow.distributed.run`; "
                                 f"or pass world_size= explicitly")
            raise ValueError(f"{what}: {self.rank_var} is set but {self.world_var} is not: the world size is "
                             f"unknown (set {self.world_var} or pass world_size=)")
        return self.world_size

    # -- where rank 0 serves the store --------------------------------------
    def single_host(self, world_size=None):
        world = self.world_size if world_size is None else world_size
        if world == 1:
            return True
        return self.local_world_size is not None and self.local_world_size == world

    def master_addr(self, world_size=None, what="init_process_group"):
        env = self._env
        if env.get("MASTER_ADDR"):
            return env["MASTER_ADDR"]
        nodelist = next((env[v] for v in _NODELISTS if env.get(v)), None)
        if nodelist:
            return first_host(nodelist)
        if self.single_host(world_size):
            return "127.0.0.1"
        how = {"torchrun": "torchrun's variables need it too",
               "openmpi": "mpirun does not say where rank 0 runs, and OMPI_COMM_WORLD_LOCAL_SIZE does not "
                          "show a one-host job",
               "pmi": "the PMI variables do not say where rank 0 runs, and MPI_LOCALNRANKS does not show a "
                      "one-host job"}.get(self.scheduler, "no SLURM node list is set either")
        raise ValueError(f"{what}: MASTER_ADDR is not set ({how}): export MASTER_ADDR=<host of rank 0> "
                         f"on every rank, e.g. `mpirun -x MASTER_ADDR=$(hostname) ...`")

    def master_port(self, world_size=None, what="init_process_group"):
        env = self._env
        if env.get("MASTER_PORT"):
            return _int(env, "MASTER_PORT")
        world = self.world_size if world_size is None else world_size
        if env.get("SLURM_JOB_ID"):
            return slurm_port(env["SLURM_JOB_ID"], env.get("SLURM_STEP_ID"))
        if world == 1:
            return 0    # nobody else must find it: any free port
        if self.scheduler in ("openmpi", "pmi"):
            ns = env.get("PMIX_NAMESPACE") or env.get("OMPI_MCA_ess_base_jobid")
            return derived_port(ns) if ns else DEFAULT_MPI_PORT
        raise ValueError(f"{what}: MASTER_PORT is not set (the port where rank 0 serves the job's store); "
                         f"export MASTER_PORT on every rank")


def _int(env, name):
    value = env.get(name)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"init_process_group: environment variable {name}={value!r} is not an integer") from None


def slurm_port(job_id, step_id=None):
    """The store's port for a SLURM job step when MASTER_PORT is unset: the same on every task of the step."""
    try:
        n = int(job_id) + (int(step_id) if step_id and step_id.isdigit() else 0)
    except ValueError:
        return derived_port(f"{job_id}.{step_id}")
    return SLURM_PORT_BASE + n % SLURM_PORT_SPAN


def derived_port(text):
    digest = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
    return SLURM_PORT_BASE + digest % SLURM_PORT_SPAN


# -- Slurm hostlists ----------------------------------------------------------

def _split_top(text, sep=","):
    """Splits at `sep` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"bad Slurm node list {text!r}: unbalanced ']'")
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise ValueError(f"bad Slurm node list {text!r}: unbalanced '['")
    parts.append(text[start:])
    return parts


_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def _expand_range(body, whole):
    out = []
    for piece in body.split(","):
        m = _RANGE.match(piece.strip())
        if not m:
            raise ValueError(f"bad Slurm node list {whole!r}: cannot read range {piece!r}")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        width = len(lo)    # Slurm keeps the lower bound's zero padding: [009-012] -> 009 ... 012
        if int(hi) < int(lo):
            raise ValueError(f"bad Slurm node list {whole!r}: range {piece!r} runs backwards")
        out += [str(n).zfill(width) for n in range(int(lo), int(hi) + 1)]
    return out


def _expand_host(item, whole):
    """One host pattern, possibly with several bracket groups (rack[1-2]-n[01-02]): their product."""
    m = re.search(r"\[([^\[\]]*)\]", item)
    if not m:
        if "[" in item or "]" in item:
            raise ValueError(f"bad Slurm node list {whole!r}")
        return [item]
    head, tail = item[:m.start()], item[m.end():]
    return [head + n + rest for n in _expand_range(m.group(1), whole) for rest in _expand_host(tail, whole)]


def expand_nodelist(nodelist):
    """Slurm's compressed host list -> the hosts, in order.

    >>> expand_nodelist("node[01-03,07],login1")
    ['node01', 'node02', 'node03', 'node07', 'login1']
    """
    hosts = []
    for item in _split_top(nodelist.strip()):
        item = item.strip()
        if item:
            hosts += _expand_host(item, nodelist)
    if not hosts:
        raise ValueError(f"bad Slurm node list {nodelist!r}: no hosts")
    return hosts


def first_host(nodelist):
    """The first host of a Slurm node list (where rank 0 runs with srun's default block distribution)."""
    first = _split_top(nodelist.strip())[0].strip()
    return _expand_host(first, nodelist)[0] if first else expand_nodelist(nodelist)[0]


# -- what flow.env and the rendezvous ask --------------------------------------

def current():
    return ClusterEnv()


def rank(default=0):
    e = ClusterEnv()
    return default if e.rank is None else e.rank


def world_size(default=1):
    e = ClusterEnv()
    return default if e.world_size is None else e.world_size


def local_rank(default=0):
    e = ClusterEnv()
    return e.local_rank if e.scheduler is not None else (
        int(os.environ["LOCAL_RANK"]) if os.environ.get("LOCAL_RANK") else default)


def launched():
    """Whether a scheduler's variables name this process's rank and the world size."""
    e = ClusterEnv()
    return e.rank is not None and e.world_size is not None
