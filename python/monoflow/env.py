"""monoflow.env: OneFlow's process environment queries (flow.env.get_rank() ...).

They answer from the default process group when there is one, otherwise from
the launcher's environment (RANK, WORLD_SIZE, LOCAL_RANK, NNODES), so that a
script may ask before (or without) initializing communication.
"""
import os


def _dist():
    import monoflow.distributed as dist
    return dist


def init(backend=None, timeout=None):
    """Joins the default process group from the launcher's environment (``env://``), once; a no-op when already
    initialized.

    Args:
        backend (str, optional): ``"gloo"`` or ``"nccl"``. Default: ``"gloo"``.
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
    """Returns this process's rank: from the default process group when there is one, else the ``RANK`` environment
    variable (0 when unset).

    Example::

        >>> flow.env.get_rank()  # a plain process
        0
    """
    dist = _dist()
    return dist.get_rank() if dist.is_initialized() else int(os.environ.get("RANK", 0))


def get_world_size():
    """Returns the number of processes of the job: from the default process group when there is one, else
    ``WORLD_SIZE`` (1 when unset).

    Example::

        >>> flow.env.get_world_size()  # a plain process
        1
    """
    dist = _dist()
    return dist.get_world_size() if dist.is_initialized() else int(os.environ.get("WORLD_SIZE", 1))


def get_local_rank():
    """Returns this process's rank on its machine: the ``LOCAL_RANK`` environment variable (0 when unset).

    Example::

        >>> flow.env.get_local_rank()  # a plain process
        0
    """
    return int(os.environ.get("LOCAL_RANK", 0))


def get_node_size():
    """Returns the number of nodes (machines) of the job: the ``NNODES`` environment variable (1 when unset).

    Example::

        >>> flow.env.get_node_size()  # a plain process
        1
    """
    return int(os.environ.get("NNODES", 1))


def is_multi_client():
    """Returns whether the job has more than one process (``get_world_size() > 1``).

    Example::

        >>> flow.env.is_multi_client()  # a plain process
        False
    """
    return get_world_size() > 1
