"""monoflow.nn.parallel: data-parallel training across processes."""
from monoflow.nn.parallel.distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DistributedDataParallel"]
