"""``oneflow.framework``: the module paths OneFlow's own packages (flowvision,
libai) import from, answered with monoflow's objects: ``framework.tensor.Tensor``,
``framework.dtype``'s numpy conversions, ``framework.distribute``'s rank queries, ``framework.scope_util.current_scope``."""
from monoflow.framework import distribute, dtype, graph_build_util, scope_util, tensor

__all__ = ["distribute", "dtype", "graph_build_util", "scope_util", "tensor"]
