"""monoflow.distributed: processes that compute together (torch.distributed's API).

    python -m monoflow.distributed.launch --nproc-per-node 2 train.py
    import monoflow.distributed as dist
    dist.init_process_group("gloo")          # env:// from the launcher
    dist.all_reduce(t)                       # in place, SUM
"""
from monoflow.distributed import error_file as _error_file
from monoflow.distributed.collectives import (  # noqa: F401
    P2POp, all_gather, all_gather_into_tensor, all_reduce, all_to_all, all_to_all_single, barrier,
    batch_isend_irecv, broadcast, gather, get_comm_stats, irecv, isend, recv, reduce, reduce_scatter,
    reduce_scatter_tensor, reset_comm_stats, scatter, send,
)
from monoflow.distributed.process_group import (  # noqa: F401
    GroupMember, ProcessGroup, destroy_process_group, group, get_backend, get_global_rank, get_process_group_ranks,
    get_rank, get_world_size, init_process_group, is_available, is_gloo_available, is_initialized,
    is_nccl_available, new_group,
)
from monoflow.distributed.object_collectives import (  # noqa: F401
    all_gather_object, broadcast_object_list, gather_object, recv_object_list, scatter_object_list,
    send_object_list,
)
from monoflow.distributed.queries import (  # noqa: F401
    DebugLevel, default_pg_timeout, get_debug_level, get_default_backend_for_device, set_debug_level,
    set_debug_level_from_env, get_group_rank, get_node_local_rank, get_pg_count,
    is_backend_available, is_mpi_available, is_torchelastic_launched, is_ucc_available, is_xccl_available,
    monitored_barrier,
)
from monoflow.distributed.reduce_op import ReduceOp  # noqa: F401


def get_local_rank():
    """Returns this process's rank on its machine (OneFlow's ``flow.distributed.get_local_rank``): the
    launcher's ``LOCAL_RANK`` (or the scheduler's equivalent), 0 in a plain process. Takes no arguments.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.get_local_rank()  # a plain process
        0
    """
    from monoflow import env

    return env.get_local_rank()
from monoflow.distributed.store import (  # noqa: F401
    DistBackendError, DistError, DistNetworkError, DistStoreError, FileStore, QueueEmptyError, HashStore, PrefixStore, Store, TCPStore,
)
from monoflow.distributed.work import Work  # noqa: F401

_error_file.install()  # under the launcher: when an uncaught exception happened


class Backend:
    """The names of the backends, for ``init_process_group(backend=...)``: ``GLOO`` and ``NCCL``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.Backend.GLOO, dist.Backend.NCCL
        ('gloo', 'nccl')
    """

    GLOO = "gloo"
    NCCL = "nccl"
