"""Small questions scripts ask torch.distributed: which backends exist, which
rank this process has on its node, how many groups there are, whether a
launcher started it."""
import datetime
import enum
import inspect
import os

from monoflow.distributed import collectives, process_group

default_pg_timeout = datetime.timedelta(minutes=30)  # init_process_group's default timeout


def is_backend_available(backend):
    """Whether `backend` ("gloo", "nccl", "mpi", "ucc", "xccl") can be used here.

    Args:
        backend (str): the backend's name.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_backend_available("ucc")
        False
    """
    name = str(backend).lower()
    if name == "gloo":
        return process_group.is_gloo_available()
    if name == "nccl":
        return process_group.is_nccl_available()
    if name == "mpi":
        return process_group.is_mpi_available()
    return False  # monoflow has no UCC or XCCL backend


def is_mpi_available():
    """Whether the mpi backend can open an MPICH-compatible MPI library (``pip install mpich``, or the
    system's; Note [MPI opened at run time] in collective/mpi/mpi_communicator.cc).

    Example::

        >>> import monoflow.distributed as dist
        >>> isinstance(dist.is_mpi_available(), bool)
        True
    """
    return process_group.is_mpi_available()


def is_ucc_available():
    """False: monoflow has no UCC backend (gloo and nccl only).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_ucc_available()
        False
    """
    return False


def is_xccl_available():
    """False: monoflow has no XCCL backend (gloo and nccl only).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_xccl_available()
        False
    """
    return False


def get_default_backend_for_device(device):
    """The backend collectives on `device` use: "gloo" for the CPU, "nccl" for CUDA.

    Args:
        device (str or monoflow.device): the device or its type.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.get_default_backend_for_device("cpu")
        'gloo'
    """
    kind = str(getattr(device, "type", device)).split(":")[0]
    backends = {"cpu": "gloo", "cuda": "nccl"}
    if kind not in backends:
        raise ValueError(f"get_default_backend_for_device(): no default backend for device type '{kind}'")
    return backends[kind]


def is_torchelastic_launched():
    """Whether a launcher started this process: torchrun (``TORCHELASTIC_RUN_ID``) or
    ``python -m monoflow.distributed.launch`` (``MONOFLOW_JOB_ID``), which both set the
    env:// variables.

    Example::

        >>> import monoflow.distributed as dist
        >>> isinstance(dist.is_torchelastic_launched(), bool)
        True
    """
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None or os.environ.get("MONOFLOW_JOB_ID") is not None


def get_node_local_rank(fallback_rank=None):
    """This process's rank among those of its machine (``LOCAL_RANK``, or the local rank srun or mpirun gave:
    ``SLURM_LOCALID``, ``OMPI_COMM_WORLD_LOCAL_RANK``, ``MPI_LOCALRANKID``), else `fallback_rank`.

    Args:
        fallback_rank (int, optional): returned when no scheduler set a local rank.

    Raises:
        RuntimeError: neither is there.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.get_node_local_rank(fallback_rank=0) >= 0
        True
    """
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    from monoflow.distributed import cluster_env

    env = cluster_env.current()
    if env.scheduler is not None and any(os.environ.get(v) for v in (
            "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID")):
        return env.local_rank
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def get_group_rank(group, global_rank):
    """The position in `group` of the process with global rank `global_rank`.

    Args:
        group (ProcessGroup): a group from ``new_group`` (or the default group).
        global_rank (int): the process's rank in the default group.

    Raises:
        ValueError: the process is not in `group`.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.init_process_group("gloo", init_method="tcp://127.0.0.1:0", rank=0, world_size=1)
        >>> dist.get_group_rank(dist.new_group([0]), 0)
        0
        >>> dist.destroy_process_group()
    """
    g = process_group._group(group, "get_group_rank")
    if g is None:
        raise ValueError("get_group_rank(): this process is not a member of the group")
    return g.group_rank(global_rank, "get_group_rank")


def get_pg_count():
    """How many process groups this process has made (the default one included).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.get_pg_count() >= 0
        True
    """
    return len(process_group._state.groups)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that fails instead of hanging when a rank never arrives.

    Every monoflow collective already does: a rank that does not arrive makes
    the others raise RuntimeError after the group's timeout (the one given to
    ``init_process_group``/``new_group``). `timeout` and `wait_all_ranks` are
    accepted for torch's signature; that timeout is the one that applies.

    Args:
        group (ProcessGroup, optional): the group (default: the default group).
        timeout: accepted (see above).
        wait_all_ranks (bool): accepted (see above).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.init_process_group("gloo", init_method="tcp://127.0.0.1:0", rank=0, world_size=1)
        >>> dist.monitored_barrier()
        >>> dist.destroy_process_group()
    """
    collectives.barrier(group)


class DebugLevel(enum.IntEnum):
    """The distributed debug levels (``TORCH_DISTRIBUTED_DEBUG``): ``OFF``, ``INFO``, ``DETAIL``.
    monoflow's collectives log nothing more at higher levels; the level is kept for the programs
    that set and read it.

    Args:
        value (int): the level's number: ``DebugLevel(2)`` is ``DETAIL``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.DebugLevel.DETAIL > dist.DebugLevel.OFF
        True
    """

    OFF = 0
    INFO = 1
    DETAIL = 2


DebugLevel.__signature__ = inspect.Signature([inspect.Parameter("value", inspect.Parameter.POSITIONAL_ONLY)])
_debug_level = [DebugLevel.OFF]


def get_debug_level():
    """The distributed debug level last set (``DebugLevel.OFF`` by default).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.get_debug_level()
        <DebugLevel.OFF: 0>
    """
    return _debug_level[0]


def set_debug_level(level):
    """Sets the distributed debug level.

    Args:
        level (DebugLevel): the new level.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.set_debug_level(dist.DebugLevel.INFO); dist.get_debug_level()
        <DebugLevel.INFO: 1>
        >>> dist.set_debug_level(dist.DebugLevel.OFF)
    """
    if not isinstance(level, DebugLevel):
        raise TypeError(f"set_debug_level(): argument 'level' must be DebugLevel, not {type(level).__name__}")
    _debug_level[0] = level


def set_debug_level_from_env():
    """Sets the debug level from ``TORCH_DISTRIBUTED_DEBUG`` (``OFF``, ``INFO`` or ``DETAIL``; unset: ``OFF``).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.set_debug_level_from_env()
    """
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if value not in DebugLevel.__members__:
        raise ValueError(f"The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL, but got {value!r}")
    _debug_level[0] = DebugLevel[value]
