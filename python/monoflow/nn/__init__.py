"""monoflow.nn: torch.nn's API (Module, Parameter, layers, losses,
functional, init, utils)."""
from monoflow.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from monoflow.nn.module import Module  # noqa: F401
from monoflow.nn.modules import *  # noqa: F401,F403
from monoflow.nn.modules._factory import factory_kwargs  # noqa: F401
from monoflow.nn import common_types, functional, grad, init, utils  # noqa: F401,E402
import importlib as _importlib  # noqa: E402

# torch.nn.attention (sdpa_kernel, SDPBackend): the star import above bound nn.modules.attention to this name
attention = _importlib.import_module("monoflow.nn.attention")
del _importlib
from monoflow.nn import parallel  # noqa: F401,E402
from monoflow.nn import quantized  # noqa: F401,E402  (FloatFunctional, which quantization-ready models hold)
from monoflow.nn.parallel import DataParallel  # noqa: F401,E402
from monoflow.nn.graph import Graph  # noqa: F401,E402
from monoflow import _not_implemented  # noqa: E402  (placeholders for names not implemented yet)

__getattr__ = _not_implemented.module_getattr(__name__)
