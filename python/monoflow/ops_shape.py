"""The shape ops: functions (monoflow.<name>) and the matching Tensor methods."""
from monoflow import _C  # noqa: F401

__all__ = []


class TensorMethods:
    """Mixed into monoflow.Tensor."""
