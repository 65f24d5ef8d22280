"""monoflow.env: OneFlow's process environment queries (flow.env.get_rank() ...).

They answer from the default process group when there is one, otherwise from
the environment of whichever scheduler started the process (torchrun's
RANK/WORLD_SIZE/LOCAL_RANK, srun's SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID,
mpirun's OMPI_COMM_WORLD_* or PMI_RANK/PMI_SIZE: Note [Scheduler environments]
in distributed/cluster_env.py), so that a script may ask before (or without)
initializing communication.
"""


def _dist():
    import monoflow.distributed as dist
    return dist


def _cluster():
    from monoflow.distributed import cluster_env
    return cluster_env


def init(backend=None, timeout=None):
    """Joins the default process group from the launcher's environment (``env://``), once; a no-op when already
    initialized.

    Args:
        backend (str, optional): ``"gloo"`` or ``"nccl"``. Default: the best engine present (see
            ``flow.distributed.init_process_group``).
        timeout (datetime.timedelta or float, optional): the collectives' timeout.
            Default: 30 minutes.

    Example::

        >>> callable(flow.env.init)
        True
        >>> flow.env.init()  # under the launcher (MASTER_ADDR, RANK, ... set)  # doctest: +SKIP
    """
    dist = _dist()
    if not dist.is_initialized():
        dist.init_process_group(backend=backend, init_method="env://", timeout=timeout)


def get_rank():
    """Returns this process's rank: from the default process group when there is one, else the scheduler's
    environment (``RANK``, ``SLURM_PROCID``, ``OMPI_COMM_WORLD_RANK`` or ``PMI_RANK``; 0 when none is set).

    Example::

        >>> flow.env.get_rank()  # a plain process
        0
    """
    dist = _dist()
    return dist.get_rank() if dist.is_initialized() else _cluster().rank(0)


def get_world_size():
    """Returns the number of processes of the job: from the default process group when there is one, else the
    scheduler's environment (``WORLD_SIZE``, ``SLURM_NTASKS``, ``OMPI_COMM_WORLD_SIZE`` or ``PMI_SIZE``; 1 when
    none is set).

    Example::

        >>> flow.env.get_world_size()  # a plain process
        1
    """
    dist = _dist()
    return dist.get_world_size() if dist.is_initialized() else _cluster().world_size(1)


def get_local_rank():
    """Returns this process's rank on its machine, from the scheduler's environment (``LOCAL_RANK``,
    ``SLURM_LOCALID``, ``OMPI_COMM_WORLD_LOCAL_RANK`` or ``MPI_LOCALRANKID``; 0 when none is set).

    Example::

        >>> flow.env.get_local_rank()  # a plain process
        0
    """
    return _cluster().local_rank(0)


def get_node_size():
    """Returns the number of nodes (machines) of the job: ``NNODES`` (the launcher's), else SLURM's node count
    (1 when unset).

    Example::

        >>> flow.env.get_node_size()  # a plain process
        1
    """
    nnodes = _cluster().current().nnodes
    return 1 if nnodes is None else nnodes


def is_multi_client():
    """Returns whether the job has more than one process (``get_world_size() > 1``).

    Example::

        >>> flow.env.is_multi_client()  # a plain process
        False
    """
    return get_world_size() > 1


def all_device_placement(device_type):
    """Returns the placement of every process of the job on ``device_type`` (ranks ``0 .. world_size - 1``, one
    device each), OneFlow's shorthand for ``flow.placement(device_type, ranks=range(world_size))``.

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.

    Example::

        >>> flow.env.all_device_placement("cpu")  # a plain process
        monoflow.placement(type="cpu", ranks=[0])
    """
    from monoflow._global.placement import placement

    return placement(device_type, ranks=list(range(get_world_size())))


def init_rdma():
    """OneFlow's switch to RDMA transport between machines. monoflow's collectives run over
    Gloo's TCP transport (host memory) and NCCL (CUDA memory, which picks InfiniBand by itself
    when the machine has it); there is no RDMA transport to turn on, so this raises
    RuntimeError rather than pretend. ``rdma_is_initialized()`` answers False.

    Example::

        >>> try:
        ...     flow.env.init_rdma()
        ... except RuntimeError as e:
        ...     print(str(e).split(";")[0])
        flow.env.init_rdma(): this build has no RDMA transport
    """
    raise RuntimeError("flow.env.init_rdma(): this build has no RDMA transport; collectives run over Gloo's TCP "
                       "transport (host memory) and NCCL (CUDA memory, which uses InfiniBand by itself when present)")


def rdma_is_initialized():
    """False: monoflow has no RDMA transport to initialise (see ``init_rdma``).

    Example::

        >>> flow.env.rdma_is_initialized()
        False
    """
    return False
