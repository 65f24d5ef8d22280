"""monoflow.distributed.optim: ZeroRedundancyOptimizer (ZeRO stage 1: optimizer state sharded)."""
from monoflow.distributed.optim.zero_redundancy import ZeroRedundancyOptimizer  # noqa: F401

__all__ = ["ZeroRedundancyOptimizer"]
