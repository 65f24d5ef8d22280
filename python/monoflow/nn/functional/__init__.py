"""monoflow.nn.functional: torch.nn.functional's API. One file per family;
this package re-exports them all."""
from monoflow.nn.functional.activation import *  # noqa: F401,F403
from monoflow.nn.functional.attention import *  # noqa: F401,F403
from monoflow.nn.functional.conv import *  # noqa: F401,F403
from monoflow.nn.functional.ctc_loss import *  # noqa: F401,F403
from monoflow.nn.functional.deform_conv import *  # noqa: F401,F403
from monoflow.nn.functional.depend import *  # noqa: F401,F403
from monoflow.nn.functional.distance import *  # noqa: F401,F403
from monoflow.nn.functional.dropout import *  # noqa: F401,F403
from monoflow.nn.functional.embedding_bag import *  # noqa: F401,F403
from monoflow.nn.functional.fold import *  # noqa: F401,F403
from monoflow.nn.functional.fractional_pool import *  # noqa: F401,F403
from monoflow.nn.functional.grid_sample import *  # noqa: F401,F403
from monoflow.nn.functional.interpolate import *  # noqa: F401,F403
from monoflow.nn.functional.linear import *  # noqa: F401,F403
from monoflow.nn.functional.local_response_norm import *  # noqa: F401,F403
from monoflow.nn.functional.loss import *  # noqa: F401,F403
from monoflow.nn.functional.margin_losses import *  # noqa: F401,F403
from monoflow.nn.functional.normalization import *  # noqa: F401,F403
from monoflow.nn.functional.oneflow_losses import *  # noqa: F401,F403
from monoflow.nn.functional.pixel_shuffle import *  # noqa: F401,F403
from monoflow.nn.functional.pooling import *  # noqa: F401,F403
from monoflow.nn.functional.rms_norm import *  # noqa: F401,F403
from monoflow.nn.functional.sparse import *  # noqa: F401,F403
from monoflow.nn.functional.torch_function import *  # noqa: F401,F403
from monoflow.ops_shape import pad  # noqa: F401
from monoflow import _not_implemented  # noqa: E402  (placeholders for names not implemented yet)

__getattr__ = _not_implemented.module_getattr(__name__)
