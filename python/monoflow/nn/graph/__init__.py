"""flow.nn.Graph: OneFlow's static-graph API over the trace-and-replay
foundation (monoflow._graph, docs/graph_runtime.md)."""
from monoflow.nn.graph.config import GraphConfig
from monoflow.nn.graph.graph import Graph
from monoflow.nn.graph.graph_module import GraphModule, ModuleView

# OneFlow's names for the class of a graph's module attributes: Block (0.7/0.8, with .config and
# .origin), ProxyModule (0.9) and Proxy, its base class since (isinstance(graph.m, nn.graph.Proxy)).
Block = ProxyModule = Proxy = ModuleView

__all__ = ["Graph", "GraphConfig", "GraphModule", "ModuleView", "Block", "ProxyModule", "Proxy"]
