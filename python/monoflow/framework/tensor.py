"""``oneflow.framework.tensor``: where OneFlow defines its Tensor class."""
from monoflow._tensor import Tensor

__all__ = ["Tensor"]
