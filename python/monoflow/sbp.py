"""SBP signatures of global tensors: ``flow.sbp.split(dim)``,
``flow.sbp.broadcast``, ``flow.sbp.partial_sum``."""
from monoflow._global.sbp import broadcast, partial_sum, sbp, split  # noqa: F401

__all__ = ["sbp", "split", "broadcast", "partial_sum"]
