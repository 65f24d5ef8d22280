"""OneFlow's ``oneflow.boxing``: the settings of the collectives that move global tensors between
layouts (``flow.boxing.nccl.set_fusion_threshold_mbytes(16)`` in OneFlow training scripts)."""
from monoflow.boxing import nccl  # noqa: F401

__all__ = ["nccl"]
