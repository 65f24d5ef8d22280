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

Covered layers (written whole from their attributes): Linear, Conv1d/2d,
ConvTranspose1d/2d, Max/AvgPool1d/2d, AdaptiveAvg/MaxPool1d/2d (uneven bins
too), BatchNorm1d/2d (eval), LayerNorm, GroupNorm, Dropout (eval), Embedding,
Flatten, Identity, ReLU, GELU, Sigmoid, Tanh, (Log)Softmax, RNN/LSTM/GRU
(batch_first, multi-layer, bidirectional, initial states; one ONNX node per
layer). Recorded call by
call, with converters for: nn.functional's layers and activations (also
group/instance/RMS norm, normalize, glu, prelu, ...),
scaled_dot_product_attention and multi_head_attention_forward (so
MultiheadAttention and the Transformer layers export with masks and a dynamic
batch), shapes and indexing (view, reshape, permute, transpose, cat, stack,
split/chunk/unbind, expand, repeat, narrow, select, index_select, gather,
flip, slicing with ints/slices/None/one index tensor), arithmetic and
elementwise math (exp, sqrt, log, trig, rounding, pow, remainder, ...),
comparisons, logic, where, masked_fill, clamp, casts, and reductions (sum,
mean, max/min with indices, amax, argmax, prod, logsumexp, norm, var, std).
Random ops (dropout in training) are refused. Needs the ``onnx``
package (``pip install monoflow[onnx]``)."""

from ._errors import OnnxExporterError
from ._export import export
from . import _state
from ._custom_symbolics import register_custom_op_symbolic, unregister_custom_op_symbolic
from . import symbolic_helper, symbolic_opset11  # noqa: F401  (imported by libraries that register symbolics)

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError", "register_custom_op_symbolic",
           "unregister_custom_op_symbolic"]


def is_in_onnx_export():
    """True while :func:`export` is tracing the model, False otherwise (torch.onnx's name):
    a ``forward`` can take an export-friendly path.

    Example::

        >>> flow.onnx.is_in_onnx_export()
        False
    """
    return _state.exporting
