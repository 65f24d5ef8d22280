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
    """Joins the default process group from the launcher's environment (once)."""
    dist = _dist()
    if not dist.is_initialized():
        dist.init_process_group(backend=backend, init_method="env://", timeout=timeout)


def get_rank():
    dist = _dist()
    return dist.get_rank() if dist.is_initialized() else int(os.environ.get("RANK", 0))


def get_world_size():
    dist = _dist()
    return dist.get_world_size() if dist.is_initialized() else int(os.environ.get("WORLD_SIZE", 1))


def get_local_rank():
    return int(os.environ.get("LOCAL_RANK", 0))


def get_node_size():
    """Number of nodes (machines) of the job."""
    return int(os.environ.get("NNODES", 1))


def is_multi_client():
    return get_world_size() > 1
