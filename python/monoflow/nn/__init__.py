"""monoflow.nn: torch.nn's API (Module, Parameter, layers, losses,
functional, init, utils)."""
from monoflow.nn.parameter import Parameter  # noqa: F401
from monoflow.nn.module import Module  # noqa: F401
from monoflow.nn.modules import *  # noqa: F401,F403
from monoflow.nn import common_types, functional, init, utils  # noqa: F401,E402
from monoflow.nn import parallel  # noqa: F401,E402
from monoflow.nn.parallel import DataParallel  # noqa: F401,E402
from monoflow.nn.graph import Graph  # noqa: F401,E402
