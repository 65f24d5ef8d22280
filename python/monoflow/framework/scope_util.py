"""``oneflow.framework.scope_util``: where OneFlow programs (and its graph tests) ask for the scope
the running code of an nn.Graph's build is in. The scopes themselves live in graph_build_util."""
from monoflow.framework.graph_build_util import current_scope

__all__ = ["current_scope"]
