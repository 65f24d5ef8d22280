"""flow.nn.Graph: OneFlow's static-graph API over the trace-and-replay
foundation (monoflow._graph, docs/graph_runtime.md)."""
from monoflow.nn.graph.config import GraphConfig
from monoflow.nn.graph.graph import Graph
from monoflow.nn.graph.graph_module import GraphModule

__all__ = ["Graph", "GraphConfig", "GraphModule"]
