"""The converter tables the recorder looks calls up in.

Each converter writes the ONNX nodes for one monoflow call and returns the name
of its result (a list of names for a call with several results). Function
converters take the call's own arguments (torch signatures) and live, one topic
per file, in ``_ops_nn`` (layers and activations), ``_ops_tensor`` (tensor ops),
``_ops_attention`` and ``_ops_rnn``; module converters read a layer's attributes
and reuse the function converters."""

from . import _ops_attention, _ops_nn, _ops_rnn, _ops_tensor
from ._errors import OnnxExporterError


def _merged(*tables):
    merged = {}
    for table in tables:
        twice = merged.keys() & table.keys()
        if twice:  # one name, one converter: a second one would silently win
            raise RuntimeError(f"monoflow.onnx: converters defined twice: {sorted(twice)}")
        merged.update(table)
    return merged


FUNCTIONS = _merged(_ops_nn.FUNCTIONS, _ops_tensor.FUNCTIONS, _ops_attention.FUNCTIONS)


def _module_converters():
    """Layer class -> converter(b, out, mod, *args, **kwargs): the layers written as a whole
    from their attributes (their inner calls are not recorded)."""
    from ..nn import modules as m
    nn = _ops_nn

    def conv_mod(n, transposed=False):
        def conv(b, out, mod, x):
            if mod.padding_mode != "zeros":
                raise OnnxExporterError(f"{type(mod).__name__}: padding_mode={mod.padding_mode!r} is not "
                                        "supported by the ONNX exporter")
            if transposed:
                return nn._conv_transpose(n)(b, out, x, mod.weight, mod.bias, mod.stride, mod.padding,
                                             mod.output_padding, mod.groups, mod.dilation)
            return nn._conv(n)(b, out, x, mod.weight, mod.bias, mod.stride, mod.padding, mod.dilation, mod.groups)
        return conv

    def bn(b, out, mod, x):
        use_batch_stats = mod.training or not mod.track_running_stats
        return nn.batch_norm(b, out, x, None if use_batch_stats else mod.running_mean,
                             None if use_batch_stats else mod.running_var, mod.weight, mod.bias, False, 0, mod.eps)

    def max_pool(f):
        return lambda b, out, mod, x: f(b, out, x, mod.kernel_size, mod.stride, mod.padding, mod.dilation,
                                        mod.ceil_mode, mod.return_indices)

    def avg_pool(f):
        return lambda b, out, mod, x: f(b, out, x, mod.kernel_size, mod.stride, mod.padding, mod.ceil_mode,
                                        mod.count_include_pad, getattr(mod, "divisor_override", None))

    def adaptive(f):
        return lambda b, out, mod, x: f(b, out, x, mod.output_size, getattr(mod, "return_indices", False))

    def act(op):
        return lambda b, out, mod, x: b.node(op, [b.name(x)])

    def identity(b, out, mod, x, *args, **kwargs):
        return b.node("Identity", [b.name(x)])

    def dropout(b, out, mod, x):
        return nn.dropout(b, out, x, mod.p, mod.training)

    table = {
        "Linear": lambda b, out, mod, x: nn.linear(b, out, x, mod.weight, mod.bias),
        "Conv1d": conv_mod(1), "Conv2d": conv_mod(2), "ConvTranspose1d": conv_mod(1, True),
        "ConvTranspose2d": conv_mod(2, True),
        "ReLU": act("Relu"), "Sigmoid": act("Sigmoid"), "Tanh": act("Tanh"),
        "GELU": lambda b, out, mod, x: nn.gelu(b, out, x, mod.approximate),
        "Softmax": lambda b, out, mod, x: nn._softmax("Softmax")(b, out, x, mod.dim),
        "LogSoftmax": lambda b, out, mod, x: nn._softmax("LogSoftmax")(b, out, x, mod.dim),
        "MaxPool1d": max_pool(nn.max_pool1d), "MaxPool2d": max_pool(nn.max_pool2d),
        "AvgPool1d": avg_pool(nn.avg_pool1d), "AvgPool2d": avg_pool(nn.avg_pool2d),
        "AdaptiveAvgPool1d": adaptive(nn.adaptive_avg_pool1d), "AdaptiveAvgPool2d": adaptive(nn.adaptive_avg_pool2d),
        "AdaptiveMaxPool1d": adaptive(nn.adaptive_max_pool1d), "AdaptiveMaxPool2d": adaptive(nn.adaptive_max_pool2d),
        "BatchNorm1d": bn, "BatchNorm2d": bn,
        "GroupNorm": lambda b, out, mod, x: nn.group_norm(b, out, x, mod.num_groups, mod.weight, mod.bias, mod.eps),
        "LayerNorm": lambda b, out, mod, x: nn.layer_norm(b, out, x, mod.normalized_shape, mod.weight, mod.bias,
                                                          mod.eps),
        "Dropout": dropout, "Dropout1d": dropout, "Dropout2d": dropout, "Identity": identity,
        "Flatten": lambda b, out, mod, x: _ops_tensor.flatten(b, out, x, mod.start_dim, mod.end_dim),
        "Embedding": lambda b, out, mod, x: nn.embedding(b, out, x, mod.weight, mod.padding_idx, mod.max_norm),
        "RNN": _ops_rnn.rnn, "LSTM": _ops_rnn.rnn, "GRU": _ops_rnn.rnn,
    }
    return {getattr(m, k): v for k, v in table.items() if hasattr(m, k)}
