"""The layer families of monoflow.nn, one file each."""
from monoflow.nn.module import Module  # noqa: F401
from monoflow.nn.modules.activation import *  # noqa: F401,F403
from monoflow.nn.modules.attention import *  # noqa: F401,F403
from monoflow.nn.modules.batchnorm import *  # noqa: F401,F403
from monoflow.nn.modules.fused_batchnorm import *  # noqa: F401,F403
from monoflow.nn.modules.fused_mlp import *  # noqa: F401,F403
from monoflow.nn.modules.coin_flip import *  # noqa: F401,F403
from monoflow.nn.modules.container import *  # noqa: F401,F403
from monoflow.nn.modules.conv import *  # noqa: F401,F403
from monoflow.nn.modules.distance import *  # noqa: F401,F403
from monoflow.nn.modules.dropout import *  # noqa: F401,F403
from monoflow.nn.modules.flatten import *  # noqa: F401,F403
from monoflow.nn.modules.fold import *  # noqa: F401,F403
from monoflow.nn.modules.fractional_pool import *  # noqa: F401,F403
from monoflow.nn.modules.instancenorm import *  # noqa: F401,F403
from monoflow.nn.modules.linear import *  # noqa: F401,F403
from monoflow.nn.modules.loss import *  # noqa: F401,F403
from monoflow.nn.modules.min_max_observer import *  # noqa: F401,F403
from monoflow.nn.modules.qat_conv import *  # noqa: F401,F403
from monoflow.nn.modules.combined_margin_loss import *  # noqa: F401,F403
from monoflow.nn.modules.normalization import *  # noqa: F401,F403
from monoflow.nn.modules.padding import *  # noqa: F401,F403
from monoflow.nn.modules.pixelshuffle import *  # noqa: F401,F403
from monoflow.nn.modules.pooling import *  # noqa: F401,F403
from monoflow.nn.modules.rnn import *  # noqa: F401,F403
from monoflow.nn.modules.sparse import *  # noqa: F401,F403
from monoflow.nn.modules.transformer import *  # noqa: F401,F403
from monoflow.nn.modules.upsampling import *  # noqa: F401,F403
from monoflow.nn.modules.lazy import *  # noqa: F401,F403
from monoflow.nn.modules.ctc_loss import *  # noqa: F401,F403
from monoflow.nn.modules.adaptive import *  # noqa: F401,F403


def __getattr__(name):
    # torch.nn.modules.module / .utils are reachable as attributes; imported on first use so that the
    # star import into monoflow.nn does not rebind nn.module / nn.utils to them.
    if name in ("module", "utils"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
