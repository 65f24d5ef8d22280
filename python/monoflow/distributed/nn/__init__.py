"""torch.distributed.nn's path: collectives that autograd differentiates (see functional)."""
from monoflow.distributed.nn.functional import (  # noqa: F401
    all_gather, all_reduce, all_to_all, broadcast, reduce_scatter,
)

__all__ = ["all_gather", "all_reduce", "all_to_all", "broadcast", "reduce_scatter"]
