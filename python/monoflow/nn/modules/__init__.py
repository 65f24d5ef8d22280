"""The layer families of monoflow.nn, one file each."""
from monoflow.nn.module import Module  # noqa: F401
from monoflow.nn.modules.activation import *  # noqa: F401,F403
from monoflow.nn.modules.attention import *  # noqa: F401,F403
from monoflow.nn.modules.batchnorm import *  # noqa: F401,F403
from monoflow.nn.modules.container import *  # noqa: F401,F403
from monoflow.nn.modules.conv import *  # noqa: F401,F403
from monoflow.nn.modules.dropout import *  # noqa: F401,F403
from monoflow.nn.modules.flatten import *  # noqa: F401,F403
from monoflow.nn.modules.linear import *  # noqa: F401,F403
from monoflow.nn.modules.loss import *  # noqa: F401,F403
from monoflow.nn.modules.normalization import *  # noqa: F401,F403
from monoflow.nn.modules.pooling import *  # noqa: F401,F403
from monoflow.nn.modules.rnn import *  # noqa: F401,F403
from monoflow.nn.modules.sparse import *  # noqa: F401,F403
from monoflow.nn.modules.transformer import *  # noqa: F401,F403
