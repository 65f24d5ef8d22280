"""monoflow: a deep-learning framework with a pluggable C++ core and a
PyTorch-compatible API. ``import monoflow as flow``."""
import builtins as _builtins

from monoflow import _plugins

_plugins.discover()

from monoflow._C import (  # noqa: E402
    OutOfMemoryError,
    can_cast,
    device,
    dtype,
    get_default_dtype,
    promote_types,
    set_default_dtype,
    synchronize,
)
from monoflow._dtypes import (  # noqa: E402
    bfloat16, complex64, complex128, float16, float32, float64, int8, int16, int32, int64, uint8,
)
from monoflow._dtypes import complex64 as cfloat, complex128 as cdouble  # noqa: E402
from monoflow._dtypes import bool_ as bool  # noqa: E402,A001
from monoflow._tensor import Size, Tensor  # noqa: E402
from monoflow._legacy_tensor import (  # noqa: E402
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
    ShortTensor,
)
from monoflow._creation import (  # noqa: E402
    arange, as_tensor, empty, empty_like, from_dlpack, from_numpy, full, full_like, ones, ones_like, tensor, zeros,
    zeros_like,
)
from monoflow._functional import *  # noqa: E402,F401,F403
from monoflow.ops_math import *  # noqa: E402,F401,F403
from monoflow.ops_reduce import *  # noqa: E402,F401,F403
from monoflow.ops_shape import *  # noqa: E402,F401,F403
from monoflow.ops_random import *  # noqa: E402,F401,F403
from monoflow.ops_linalg import *  # noqa: E402,F401,F403
from monoflow.ops_pointwise import *  # noqa: E402,F401,F403
from monoflow.ops_join import *  # noqa: E402,F401,F403
from monoflow.ops_layout import *  # noqa: E402,F401,F403
from monoflow.ops_index_reduce import *  # noqa: E402,F401,F403
from monoflow.ops_stats import *  # noqa: E402,F401,F403
from monoflow.ops_set import *  # noqa: E402,F401,F403
from monoflow.ops_sampling import *  # noqa: E402,F401,F403
from monoflow.ops_matrix import *  # noqa: E402,F401,F403
from monoflow.ops_inplace import *  # noqa: E402,F401,F403
from monoflow.ops_windows import *  # noqa: E402,F401,F403
from monoflow.ops_detection import *  # noqa: E402,F401,F403
from monoflow.ops_spectral import *  # noqa: E402,F401,F403
from monoflow.ops_special import *  # noqa: E402,F401,F403
from monoflow.ops_extra_names import *  # noqa: E402,F401,F403
from monoflow.ops_oneflow_names import *  # noqa: E402,F401,F403
from monoflow.ops_join import broadcast_shapes  # noqa: E402
from monoflow._type_info import finfo, iinfo  # noqa: E402
from monoflow._print_options import set_printoptions  # noqa: E402
from monoflow._matmul_precision import (  # noqa: E402
    get_float32_matmul_precision, set_float32_matmul_precision,
)
from monoflow._threads import (  # noqa: E402
    get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads,
)
from monoflow._complex import (  # noqa: E402
    angle, complex, conj, conj_physical, imag, is_complex, polar, real, view_as_complex, view_as_real,
)
from monoflow import fft  # noqa: E402
from monoflow import devices, memory  # noqa: E402
from monoflow import autograd  # noqa: E402
from monoflow import linalg, special  # noqa: E402
from monoflow.ops_foreach import *  # noqa: E402,F401,F403
from monoflow.linalg._legacy import geqrf, igamma, igammac, lu, lu_solve, lu_unpack, matrix_rank, orgqr, ormqr, triangular_solve  # noqa: E402,E501
from monoflow.autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402
grad_enable = enable_grad  # OneFlow's name for it
from monoflow.autograd import is_inference_mode_enabled  # noqa: E402,F401
from monoflow.serialization import load, save  # noqa: E402
from monoflow import nn  # noqa: E402
from monoflow.ops_nn import *  # noqa: E402,F401,F403
from monoflow import optim  # noqa: E402
from monoflow import one_embedding  # noqa: E402,F401  (OneFlow's: its FTRL optimizer)
from monoflow import utils  # noqa: E402

half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
char = int8  # OneFlow's name of int8 (as CharTensor's dtype)

__version__ = "0.1.0"
del _builtins
from monoflow import distributed  # noqa: E402
from monoflow._global.placement import placement  # noqa: E402
from monoflow import sbp  # noqa: E402
from monoflow._global import install as _global_install  # noqa: E402

_global_install.install()
del _global_install
from monoflow import comm  # noqa: E402
from monoflow import env  # noqa: E402
from monoflow import asyncs  # noqa: E402  (OneFlow's flow.asyncs.thread / Thread)
from monoflow import mock_torch  # noqa: E402  (OneFlow's flow.mock_torch.enable(), reachable after `import oneflow`)
from monoflow import boxing  # noqa: E402  (OneFlow's flow.boxing.nccl settings)
from monoflow import _oneflow_internal, unittest  # noqa: E402  (OneFlow's test tooling: flow.unittest.TestCase ...)
from monoflow import framework  # noqa: E402  (OneFlow's module paths: framework.tensor.Tensor, framework.dtype ...)
from monoflow.framework.graph_build_util import current_scope  # noqa: E402  (OneFlow's flow.current_scope())
_C.__getattr__ = _oneflow_internal.functional_fallback  # flow._C.relu ... as OneFlow's tests call ops
from monoflow import _oneflow_c_api  # noqa: E402
_C.one_hot = _oneflow_c_api.one_hot  # OneFlow's _C.one_hot(input, num_classes, on_value, off_value)
_C.pad = ops_shape.pad  # OneFlow's _C.pad: circular too, and a zero value with any mode (value=0 is its default)
from monoflow._defaults import get_default_device, set_default_device, set_default_tensor_type  # noqa: E402
from monoflow import accelerator, amp, backends, cuda, multiprocessing  # noqa: E402
from monoflow import xpu  # noqa: E402  (torch.xpu: unavailable without an 'xpu' plugin)
from monoflow import cpu  # noqa: E402  (torch.cpu: is_available, device_count, synchronize, amp)
from monoflow import version  # noqa: E402,F401  (torch.version: __version__, cuda, hip, ...)
from monoflow import sysconfig  # noqa: E402,F401  (OneFlow's: with_cuda(), get_include(), ...)
from monoflow import compiler, jit, _dynamo  # noqa: E402  (torch.compiler / jit / _dynamo: eager stand-ins, as compile)
from monoflow import profiler  # noqa: E402  (torch.profiler over autograd.profiler's recorder)
from monoflow import func  # noqa: E402  (torch.func: grad, vmap, functional_call ...)
from monoflow.func import vmap  # noqa: E402
from monoflow import hub  # noqa: E402  (torch.hub: checkpoint cache, local hubconf, tqdm)
from monoflow import library, _custom_ops  # noqa: E402  (torch.library: Python-defined operators)
from monoflow import fx  # noqa: E402  (torch.fx.wrap; no symbolic tracer)
from monoflow import ao  # noqa: E402  (torch.ao.quantization's stubs)
from monoflow._ops import ops  # noqa: E402  (torch.ops.<namespace>.<name>: monoflow.library's operators)
from monoflow import _dispatch_keys  # noqa: E402

_C.DispatchKey, _C.DispatchKeySet = _dispatch_keys.DispatchKey, _dispatch_keys.DispatchKeySet
_C._ExcludeDispatchKeyGuard = _dispatch_keys._ExcludeDispatchKeyGuard
del _dispatch_keys
from monoflow._torch_function_guards import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402

_C.DisableTorchFunction, _C.DisableTorchFunctionSubclass = DisableTorchFunction, DisableTorchFunctionSubclass
del DisableTorchFunction, DisableTorchFunctionSubclass
from monoflow._usage_log import _get_tracing_state, _log_api_usage_once  # noqa: E402

_C._log_api_usage_once, _C._get_tracing_state = _log_api_usage_once, _get_tracing_state
del _log_api_usage_once, _get_tracing_state
from monoflow import onnx  # noqa: E402  (torch.onnx: export by recording one forward; the onnx package is optional)
from monoflow.amp import (  # noqa: E402
    GradScaler, autocast, clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype,
    is_autocast_cache_enabled, is_autocast_cpu_enabled, is_autocast_enabled, set_autocast_cache_enabled,
    set_autocast_cpu_dtype, set_autocast_cpu_enabled, set_autocast_dtype, set_autocast_enabled, set_autocast_gpu_dtype,
)
from monoflow._compile import compile  # noqa: E402
from monoflow import _alias_import  # noqa: E402

_alias_import.install()  # sys.modules["torch"] = monoflow, then import torch.nn: monoflow.nn itself
from monoflow import testing  # noqa: E402  (torch.testing: assert_close, make_tensor)
from monoflow import random  # noqa: E402  (torch.random: seeds, RNG state, fork_rng)
from monoflow import distributions  # noqa: E402  (torch.distributions: Categorical, Normal, kl_divergence ...)
from monoflow.distributions.dirichlet import _sample_dirichlet  # noqa: E402  (torch's, used by torchvision's AugMix)
from monoflow import _not_implemented  # noqa: E402  (placeholders for names not implemented yet)

__getattr__ = _not_implemented.module_getattr(__name__)
_not_implemented.install_tensor_placeholders(Tensor)

# Last: it defines `range` and `e`, which nothing below may mean as builtins.
from monoflow.ops_torch_names2 import *  # noqa: E402,F401,F403
from monoflow.ops_torch_names3 import *  # noqa: E402,F401,F403
from monoflow.ops_sparse import *  # noqa: E402,F401,F403
from monoflow import sparse  # noqa: E402  (torch.sparse: mm, sum, softmax, legacy FloatTensor)
from monoflow import types  # noqa: E402  (torch.types: Number, _size ... for annotations)
from monoflow import _docs  # noqa: E402

_docs.apply(Tensor)  # one docstring per op, on the function and the Tensor method
from monoflow import _out_arg  # noqa: E402  (out= on torch's free functions; after the docs, which it copies)

_out_arg.install(_out_arg_namespace := __import__(__name__))
from monoflow import _numpy_kwargs  # noqa: E402  (axis=/keepdims= as torch's parser takes them)

_numpy_kwargs.install(_out_arg_namespace)
_numpy_kwargs.install_methods(Tensor)
del _out_arg_namespace
