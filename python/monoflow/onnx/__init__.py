"""monoflow.onnx: export a model to an ONNX file (torch.onnx's API).

How the computation is recorded. :func:`export` runs the model once (eval mode,
no grad) in a recording mode: for the duration of the call, the public
functions of every ``monoflow`` module (``flow.*``, ``nn.functional`` and the
submodules layers call directly), the Tensor methods, operators and ``T``/``mT``,
and ``nn.Module.__call__`` are replaced by wrappers that run the
real op and then write its ONNX nodes, keyed by the identity of the result
tensor; the originals are restored when the export ends, so the ordinary op
path has no extra cost. Known layers (Linear, Conv, BatchNorm, pooling, ...)
are written as one node from their attributes and their inner calls are not
recorded; any other module's ``forward`` runs as written, so custom code that
uses ``x.view``, ``flow.flatten``, ``F.relu``, ``x + y`` or ``matmul`` is
recorded call by call. A call whose inputs do not depend on the model's inputs
is computed once and stored as a constant (constant folding by construction).
A call on a traced tensor with no converter raises :class:`OnnxExporterError`
naming the op and the module it ran in.

nn.Graph's tracer (``monoflow._graph``) was not used: its plan keeps kernels,
not the op names and attributes an ONNX node needs. A pure module walker
would miss custom ``forward`` code.

Covered: Linear, Conv1d/Conv2d, ReLU, GELU, Sigmoid, Tanh, Softmax, LogSoftmax,
MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, BatchNorm1d/2d (eval), Dropout
(identity), Identity, Flatten, view, reshape, flatten, permute, transpose, t,
squeeze, unsqueeze, cat, add, sub, mul, div, neg, matmul, LayerNorm, Embedding,
slicing with ints and slices, gather, exp, sqrt, abs, pow, silu, leaky_relu,
T/mT, squeeze/unsqueeze, chunk/split, mean/sum, casts, in-place add/sub/mul/div/relu. Needs the ``onnx``
package (``pip install monoflow[onnx]``)."""

from ._errors import OnnxExporterError
from ._export import export
from . import _state

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError"]


def is_in_onnx_export():
    """True while :func:`export` is tracing the model, False otherwise."""
    return _state.exporting
