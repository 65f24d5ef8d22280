"""monoflow.nn.parallel: data-parallel training across processes (and the
single-process DataParallel wrapper)."""
from monoflow.nn.parallel.data_parallel import DataParallel, data_parallel  # noqa: F401
from monoflow.nn.parallel.distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
