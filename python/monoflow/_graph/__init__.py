"""Static-graph foundation (internal API): trace a function's kernel launches
into a plan and replay it on the core's actor runtime. nn.Graph builds on
this; see docs/graph_runtime.md."""
from monoflow._graph._trace import CompiledTrace, trace

__all__ = ["CompiledTrace", "trace"]
