"""Converters of the nn.functional layers: linear, convolution (also transposed),
pooling (max, average, adaptive; 1-D and 2-D), normalisation (batch, layer, group,
instance, RMS), embedding, dropout and the activations (torch's formulas; an
activation ONNX lacks at opset 17 is written from its definition)."""

import math

import numpy as np

from ._common import _as_int64, _batched, _norm_dim, _pair, as_type, np_dtype, reduce
from ._errors import OnnxExporterError


# ---- linear and convolution

def linear(b, out, input, weight, bias=None):
    if input.dim() == 2 and bias is not None:
        return b.node("Gemm", [b.name(input), b.name(weight), b.name(bias)], transB=1)
    wt = b.node("Transpose", [b.name(weight)], perm=[1, 0])
    y = b.node("MatMul", [b.name(input), wt])
    return b.node("Add", [y, b.name(bias)]) if bias is not None else y


def _conv(n):
    def conv(b, out, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        k = list(weight.shape[2:])
        if padding == "valid":
            padding = 0
        if padding == "same":
            # torch pads the extra element (an even kernel) at the end, as begins/ends can say
            total = [d * (kk - 1) for d, kk in zip(_pair(dilation, n), k)]
            begins = [t // 2 for t in total]
            pads = begins + [t - s for t, s in zip(total, begins)]
        elif isinstance(padding, str):
            raise OnnxExporterError(f"conv{n}d: padding={padding!r} is not supported by the ONNX exporter")
        else:
            pads = _pair(padding, n) * 2
        ins = [b.name(weight)] + ([b.name(bias)] if bias is not None else [])
        attrs = dict(kernel_shape=k, strides=_pair(stride, n), pads=pads, dilations=_pair(dilation, n),
                     group=int(groups))
        return _batched(b, input, n, lambda x: b.node("Conv", [x] + ins, **attrs))
    return conv


def _conv_transpose(n):
    def conv(b, out, input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        if isinstance(padding, str):
            raise OnnxExporterError(f"conv_transpose{n}d: padding={padding!r} is not supported by the ONNX exporter")
        ins = [b.name(weight)] + ([b.name(bias)] if bias is not None else [])
        attrs = dict(kernel_shape=list(weight.shape[2:]), strides=_pair(stride, n), pads=_pair(padding, n) * 2,
                     output_padding=_pair(output_padding, n), dilations=_pair(dilation, n), group=int(groups))
        return _batched(b, input, n, lambda x: b.node("ConvTranspose", [x] + ins, **attrs))
    return conv


# ---- pooling

def _pool_attrs(n, kernel_size, stride, padding, ceil_mode):
    k = _pair(kernel_size, n)
    s = _pair(stride, n) if stride not in (None, [], ()) else k
    p = _pair(padding, n)
    return dict(kernel_shape=k, strides=s, pads=p + p, ceil_mode=int(bool(ceil_mode)))


def _max_pool(n):
    def conv(b, out, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
             return_indices=False):
        if return_indices:
            raise OnnxExporterError(f"max_pool{n}d: return_indices=True is not supported by the ONNX exporter")
        attrs = _pool_attrs(n, kernel_size, stride, padding, ceil_mode)
        return _batched(b, input, n, lambda x: b.node("MaxPool", [x], dilations=_pair(dilation, n), **attrs))
    return conv


def _avg_pool(n):
    def conv(b, out, input, kernel_size, stride=None, padding=0, ceil_mode=False,
             count_include_pad=True, divisor_override=None):
        if divisor_override is not None:
            raise OnnxExporterError(f"avg_pool{n}d: divisor_override is not supported by the ONNX exporter")
        attrs = _pool_attrs(n, kernel_size, stride, padding, ceil_mode)
        attrs["count_include_pad"] = int(bool(count_include_pad))
        return _batched(b, input, n, lambda x: b.node("AveragePool", [x], **attrs))
    return conv


max_pool1d, max_pool2d, avg_pool1d, avg_pool2d = _max_pool(1), _max_pool(2), _avg_pool(1), _avg_pool(2)


def _adaptive(n, kind):
    """Adaptive pooling: a global pool for output 1, a pool with kernel = stride where every
    output size divides its input size, else per axis one Slice + Reduce per output bin (the
    bins are rectangular, so averaging or taking the max axis by axis gives torch's answer)."""
    op = {"avg": "AveragePool", "max": "MaxPool"}[kind]
    red = {"avg": "ReduceMean", "max": "ReduceMax"}[kind]

    def conv(b, out, input, output_size, return_indices=False):
        if return_indices:
            raise OnnxExporterError(f"adaptive_max_pool{n}d: return_indices=True is not supported by the ONNX "
                                    "exporter")
        nd = input.dim()
        ins = list(input.shape[-n:])
        o = [ins[i] if v is None else int(v) for i, v in enumerate(_pair(output_size, n))]
        if o == [1] * n:
            return _batched(b, input, n, lambda x: b.node("Global" + op, [x]))
        if not any(i % w for i, w in zip(ins, o)):
            k = [i // w for i, w in zip(ins, o)]
            return _batched(b, input, n, lambda x: b.node(op, [x], kernel_shape=k, strides=k))
        y = b.name(input)
        for j, (size, bins) in enumerate(zip(ins, o)):
            axis = nd - n + j
            if size == bins:
                continue
            parts = []
            for i in range(bins):
                lo, hi = (i * size) // bins, -((-(i + 1) * size) // bins)  # torch's floor / ceil bin edges
                piece = b.node("Slice", [y, b.ints([lo]), b.ints([hi]), b.ints([axis])])
                parts.append(reduce(b, red, piece, [axis], True))
            y = b.node("Concat", parts, axis=axis)
        return y
    return conv


adaptive_avg_pool1d, adaptive_avg_pool2d = _adaptive(1, "avg"), _adaptive(2, "avg")
adaptive_max_pool1d, adaptive_max_pool2d = _adaptive(1, "max"), _adaptive(2, "max")


# ---- normalisation and embedding

def batch_norm(b, out, input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training or running_mean is None:
        raise OnnxExporterError("batch_norm: only inference mode (running statistics) can be exported to ONNX")
    c = running_mean.shape[0]
    dt = np_dtype(running_mean)
    w = b.name(weight) if weight is not None else b.const(np.ones(c, dt))
    bb = b.name(bias) if bias is not None else b.const(np.zeros(c, dt))
    x = b.name(input)
    if input.dim() == 2:  # (N, C): ONNX normalizes axis 1 of an input with spatial dims
        x = b.node("Unsqueeze", [x, b.ints([2])])
    y = b.node("BatchNormalization", [x, w, bb, b.name(running_mean), b.name(running_var)], epsilon=float(eps))
    return b.node("Squeeze", [y, b.ints([2])]) if input.dim() == 2 else y


def layer_norm(b, out, input, normalized_shape, weight=None, bias=None, eps=1e-5):
    n = len(_pair(normalized_shape, 1))
    shape = list(input.shape[-n:])
    dt = np_dtype(input)
    w = b.name(weight) if weight is not None else b.const(np.ones(shape, dt))
    ins = [b.name(input), w] + ([b.name(bias)] if bias is not None else [])
    return b.node("LayerNormalization", ins, axis=-n, epsilon=float(eps))


def embedding(b, out, input, weight, padding_idx=None, max_norm=None, *args, **kwargs):
    if max_norm is not None:
        raise OnnxExporterError("embedding: max_norm is not supported by the ONNX exporter")
    return b.node("Gather", [b.name(weight), _as_int64(b, input)], axis=0)


def _channel_view(b, t, ndim):
    """A per-channel (C,) tensor shaped (C, 1, ...) to broadcast against an (N, C, *) input."""
    return b.node("Reshape", [b.name(t), b.ints([-1] + [1] * (ndim - 2))])


def group_norm(b, out, input, num_groups, weight=None, bias=None, eps=1e-5):
    # per group: an InstanceNormalization of the (N, G, C/G * spatial) view, then the
    # per-channel affine (ONNX GroupNormalization's scale is per group before opset 21)
    x, g, nd, dt = b.name(input), int(num_groups), input.dim(), np_dtype(input)
    grouped = b.node("Reshape", [x, b.ints([0, g, -1])])
    normed = b.node("InstanceNormalization", [grouped, b.const(np.ones(g, dt)), b.const(np.zeros(g, dt))],
                    epsilon=float(eps))
    y = b.node("Reshape", [normed, b.node("Shape", [x])])
    if weight is not None:
        y = b.node("Mul", [y, _channel_view(b, weight, nd)])
    if bias is not None:
        y = b.node("Add", [y, _channel_view(b, bias, nd)])
    return y


def instance_norm(b, out, input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if not use_input_stats:  # running statistics: a batch norm with them
        return batch_norm(b, out, input, running_mean, running_var, weight, bias, False, 0, eps)
    c, dt = input.shape[1], np_dtype(input)
    w = b.name(weight) if weight is not None else b.const(np.ones(c, dt))
    bb = b.name(bias) if bias is not None else b.const(np.zeros(c, dt))
    return b.node("InstanceNormalization", [b.name(input), w, bb], epsilon=float(eps))


def rms_norm(b, out, input, normalized_shape, weight=None, eps=None):
    n = len(_pair(normalized_shape, 1))
    if eps is None:
        eps = float(np.finfo(np_dtype(input)).eps)
    x = b.name(input)
    ms = reduce(b, "ReduceMean", b.node("Mul", [x, x]), list(range(input.dim() - n, input.dim())), True)
    y = b.node("Div", [x, b.node("Sqrt", [b.node("Add", [ms, as_type(b, eps, input.dtype)])])])
    return b.node("Mul", [y, b.name(weight)]) if weight is not None else y


def normalize(b, out, input, p=2.0, dim=1, eps=1e-12, out_=None, **kwargs):
    x, axis = b.name(input), [_norm_dim(dim, input.dim())]
    if p == 2:
        norm = reduce(b, "ReduceL2", x, axis, True)
    elif p == 1:
        norm = reduce(b, "ReduceL1", x, axis, True)
    elif p == math.inf:
        norm = reduce(b, "ReduceMax", b.node("Abs", [x]), axis, True)
    else:
        powed = b.node("Pow", [b.node("Abs", [x]), as_type(b, float(p), input.dtype)])
        norm = b.node("Pow", [reduce(b, "ReduceSum", powed, axis, True), as_type(b, 1.0 / p, input.dtype)])
    return b.node("Div", [x, b.node("Max", [norm, as_type(b, eps, input.dtype)])])


# ---- activations

def relu(b, out, input, inplace=False):
    return b.node("Relu", [b.name(input)])


def gelu(b, out, input, approximate="none"):
    x = b.name(input)
    half, one = b.name(0.5, input), b.name(1.0, input)
    if approximate == "tanh":
        c, k = b.name(math.sqrt(2 / math.pi), input), b.name(0.044715, input)
        x3 = b.node("Mul", [b.node("Mul", [x, x]), x])
        inner = b.node("Mul", [c, b.node("Add", [x, b.node("Mul", [k, x3])])])
        t = b.node("Tanh", [inner])
    else:
        t = b.node("Erf", [b.node("Div", [x, b.name(math.sqrt(2.0), input)])])
    return b.node("Mul", [b.node("Mul", [half, x]), b.node("Add", [one, t])])


def _default_softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def _softmax(op):
    def conv(b, out, input, dim=None, *args, **kwargs):
        if dim is None:
            dim = _default_softmax_dim(input.dim())
        # dtype=: computed in the result's type, as torch does
        return b.node(op, [as_type(b, input, out.dtype)], axis=int(dim))
    return conv


def dropout(b, out, input, p=0.5, training=True, inplace=False):
    if training and p > 0:
        raise OnnxExporterError("dropout: training=True (random) is not supported by the ONNX exporter")
    # inference graph: dropout is the identity (torch.onnx writes the same)
    return b.node("Identity", [b.name(input)])


def silu(b, out, input, inplace=False):
    x = b.name(input)
    return b.node("Mul", [x, b.node("Sigmoid", [x])])


def leaky_relu(b, out, input, negative_slope=0.01, inplace=False):
    return b.node("LeakyRelu", [b.name(input)], alpha=float(negative_slope))


def _attr_act(op, **fixed):
    """An activation that is one ONNX node with attributes read from the call's arguments."""
    def make(read):
        def conv(b, out, input, *args, **kwargs):
            return b.node(op, [b.name(input)], **fixed, **read(*args, **kwargs))
        return conv
    return make


def _clip(b, input, lo, hi):
    return b.node("Clip", [b.name(input), as_type(b, lo, input.dtype), as_type(b, hi, input.dtype)])


def relu6(b, out, input, inplace=False):
    return _clip(b, input, 0.0, 6.0)


def hardtanh(b, out, input, min_val=-1.0, max_val=1.0, inplace=False):
    return _clip(b, input, min_val, max_val)


def _softplus(b, x):
    return b.node("Softplus", [x])


def softplus(b, out, input, beta=1.0, threshold=20.0):
    # torch: x where beta * x > threshold, else log(1 + exp(beta * x)) / beta
    x = b.name(input)
    bx = x if beta == 1 else b.node("Mul", [x, as_type(b, beta, input.dtype)])
    sp = _softplus(b, bx)
    if beta != 1:
        sp = b.node("Div", [sp, as_type(b, beta, input.dtype)])
    return b.node("Where", [b.node("Greater", [bx, as_type(b, threshold, input.dtype)]), x, sp])


def logsigmoid(b, out, input):
    # -softplus(-x): finite for large |x|, where log(sigmoid(x)) underflows to -inf
    return b.node("Neg", [_softplus(b, b.node("Neg", [b.name(input)]))])


def mish(b, out, input, inplace=False):
    x = b.name(input)
    if b.opset >= 18:
        return b.node("Mish", [x])
    return b.node("Mul", [x, b.node("Tanh", [_softplus(b, x)])])


def prelu(b, out, input, weight):
    slope = b.name(weight)
    if weight.numel() != 1 and input.dim() > 2:
        slope = _channel_view(b, weight, input.dim())
    return b.node("PRelu", [b.name(input), slope])


def threshold(b, out, input, threshold, value, inplace=False):
    x = b.name(input)
    keep = b.node("Greater", [x, as_type(b, threshold, input.dtype)])
    return b.node("Where", [keep, x, as_type(b, value, input.dtype)])


def tanhshrink(b, out, input):
    x = b.name(input)
    return b.node("Sub", [x, b.node("Tanh", [x])])


def glu(b, out, input, dim=-1):
    d = _norm_dim(dim, input.dim())
    half = input.shape[d] // 2
    a, g = b.node("Split", [b.name(input), b.ints([half, half])], n_out=2, axis=d)
    return b.node("Mul", [a, b.node("Sigmoid", [g])])


def softmin(b, out, input, dim=None, _stacklevel=3, dtype=None):
    d = _default_softmax_dim(input.dim()) if dim is None else dim
    return b.node("Softmax", [b.node("Neg", [as_type(b, input, out.dtype)])], axis=int(d))


def rrelu(b, out, input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if training:
        raise OnnxExporterError("rrelu: training=True (a random slope) is not supported by the ONNX exporter")
    return b.node("LeakyRelu", [b.name(input)], alpha=float((lower + upper) / 2))


def hardsigmoid(b, out, input, inplace=False):
    return b.node("HardSigmoid", [b.name(input)], alpha=1.0 / 6, beta=0.5)  # relu6(x + 3) / 6




FUNCTIONS = {
    "linear": linear, "conv1d": _conv(1), "conv2d": _conv(2),
    "conv_transpose1d": _conv_transpose(1), "conv_transpose2d": _conv_transpose(2),
    "max_pool1d": max_pool1d, "max_pool2d": max_pool2d, "avg_pool1d": avg_pool1d, "avg_pool2d": avg_pool2d,
    "adaptive_avg_pool1d": adaptive_avg_pool1d, "adaptive_avg_pool2d": adaptive_avg_pool2d,
    "adaptive_max_pool1d": adaptive_max_pool1d, "adaptive_max_pool2d": adaptive_max_pool2d,
    "batch_norm": batch_norm, "layer_norm": layer_norm, "group_norm": group_norm, "instance_norm": instance_norm,
    "rms_norm": rms_norm, "normalize": normalize, "embedding": embedding, "dropout": dropout,
    "relu": relu, "relu_": relu, "gelu": gelu, "softmax": _softmax("Softmax"), "log_softmax": _softmax("LogSoftmax"),
    "silu": silu, "leaky_relu": leaky_relu, "leaky_relu_": leaky_relu,
    "elu": _attr_act("Elu")(lambda alpha=1.0, inplace=False: dict(alpha=float(alpha))),
    "celu": _attr_act("Celu")(lambda alpha=1.0, inplace=False: dict(alpha=float(alpha))),
    "selu": _attr_act("Selu")(lambda inplace=False: {}),
    "hardswish": _attr_act("HardSwish")(lambda inplace=False: {}),
    "softsign": _attr_act("Softsign")(lambda: {}),
    "hardshrink": _attr_act("Shrink")(lambda lambd=0.5, inplace=False: dict(lambd=float(lambd), bias=0.0)),
    "softshrink": _attr_act("Shrink")(lambda lambd=0.5, inplace=False: dict(lambd=float(lambd), bias=float(lambd))),
    "hardsigmoid": hardsigmoid, "relu6": relu6, "hardtanh": hardtanh, "softplus": softplus,
    "logsigmoid": logsigmoid, "mish": mish, "prelu": prelu, "threshold": threshold, "tanhshrink": tanhshrink,
    "glu": glu, "softmin": softmin, "rrelu": rrelu,
    # in place (F.elu_, ...): the tensor's name is rebound to the result
    "elu_": _attr_act("Elu")(lambda alpha=1.0: dict(alpha=float(alpha))),
    "celu_": _attr_act("Celu")(lambda alpha=1.0: dict(alpha=float(alpha))),
    "selu_": _attr_act("Selu")(lambda: {}), "hardtanh_": hardtanh, "threshold_": threshold,
}
