"""Per-op converters: each writes the ONNX nodes for one monoflow call and
returns the name of its result. Function converters take the call's own
arguments (torch signatures); module converters read the layer's attributes
and reuse them."""

import math

import numpy as np

from ._errors import OnnxExporterError


def _pair(v, n=2):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


def _norm_dim(d, ndim):
    return d + ndim if d < 0 else d


# ---- linear algebra, convolution, pooling, normalization

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
        ins = [b.name(input), b.name(weight)] + ([b.name(bias)] if bias is not None else [])
        return b.node("Conv", ins, kernel_shape=k, strides=_pair(stride, n), pads=pads, dilations=_pair(dilation, n), group=int(groups))
    return conv


def _pool_attrs(kernel_size, stride, padding, ceil_mode):
    k = _pair(kernel_size)
    s = _pair(stride) if stride not in (None, [], ()) else k
    p = _pair(padding)
    return dict(kernel_shape=k, strides=s, pads=p + p, ceil_mode=int(bool(ceil_mode)))


def max_pool2d(b, out, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise OnnxExporterError("max_pool2d: return_indices=True is not supported by the ONNX exporter")
    return b.node("MaxPool", [b.name(input)], dilations=_pair(dilation),
                  **_pool_attrs(kernel_size, stride, padding, ceil_mode))


def avg_pool2d(b, out, input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    if divisor_override is not None:
        raise OnnxExporterError("avg_pool2d: divisor_override is not supported by the ONNX exporter")
    return b.node("AveragePool", [b.name(input)], count_include_pad=int(bool(count_include_pad)),
                  **_pool_attrs(kernel_size, stride, padding, ceil_mode))


def adaptive_avg_pool2d(b, out, input, output_size):
    in_hw = list(input.shape[-2:])
    o = [in_hw[i] if v is None else v for i, v in enumerate(_pair(output_size))]
    if o == [1, 1]:
        return b.node("GlobalAveragePool", [b.name(input)])
    if any(h % w for h, w in zip(in_hw, o)):
        raise OnnxExporterError(f"adaptive_avg_pool2d: output size {o} does not divide input size {in_hw}; "
                                "not supported by the ONNX exporter")
    k = [h // w for h, w in zip(in_hw, o)]
    return b.node("AveragePool", [b.name(input)], kernel_shape=k, strides=k)


def batch_norm(b, out, input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training or running_mean is None:
        raise OnnxExporterError("batch_norm: only inference mode (running statistics) can be exported to ONNX")
    c = running_mean.shape[0]
    dt = np.dtype(str(running_mean.dtype).replace("monoflow.", ""))
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
    dt = np.dtype(str(input.dtype).replace("monoflow.", ""))
    w = b.name(weight) if weight is not None else b.const(np.ones(shape, dt))
    ins = [b.name(input), w] + ([b.name(bias)] if bias is not None else [])
    return b.node("LayerNormalization", ins, axis=-n, epsilon=float(eps))


def embedding(b, out, input, weight, padding_idx=None, max_norm=None, *args, **kwargs):
    if max_norm is not None:
        raise OnnxExporterError("embedding: max_norm is not supported by the ONNX exporter")
    return b.node("Gather", [b.name(weight), _as_int64(b, input)], axis=0)


def _as_int64(b, t):
    name = b.name(t)
    return name if str(t.dtype).endswith("int64") else b.node("Cast", [name], to=7)


# ---- activations

def _unary(op):
    def conv(b, out, input, *args, **kwargs):
        return b.node(op, [b.name(input)])
    return conv


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
        return b.node(op, [b.name(input)], axis=int(dim))
    return conv


def dropout(b, out, input, *args, **kwargs):
    # inference graph: dropout is the identity (torch.onnx writes the same)
    return b.node("Identity", [b.name(input)])


def identity(b, out, input, *args, **kwargs):
    return b.node("Identity", [b.name(input)])


# ---- shapes

def _reshape_to(b, input, shape):
    # a dim equal to the input's at the same position is written 0 ("copy"):
    # a batch dim read by x.size(0) then stays dynamic in the exported graph
    in_shape = list(input.shape)
    dims = [0 if i < len(in_shape) and d == in_shape[i] and d != 0 else int(d) for i, d in enumerate(shape)]
    return b.node("Reshape", [b.name(input), b.ints(dims)])


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)) or len(shape) == 1 and hasattr(shape[0], "__len__"):
        return list(shape[0])
    return list(shape)


def view(b, out, input, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)) and not hasattr(shape[0], "__len__"):
        raise OnnxExporterError("view: a dtype view is not supported by the ONNX exporter")
    return _reshape_to(b, input, list(out.shape) if -1 not in _shape_args(shape) else _shape_args(shape))


def reshape(b, out, input, *shape):
    return _reshape_to(b, input, _shape_args(shape))


def flatten(b, out, input, start_dim=0, end_dim=-1):
    nd = input.dim()
    s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
    if nd and e == nd - 1:
        y = b.node("Flatten", [b.name(input)], axis=s)
        return y if s > 0 else b.node("Reshape", [y, b.ints([-1])])
    return _reshape_to(b, input, list(out.shape))


def permute(b, out, input, *dims):
    dims = _shape_args(dims)
    return b.node("Transpose", [b.name(input)], perm=[_norm_dim(d, input.dim()) for d in dims])


def transpose(b, out, input, dim0, dim1):
    perm = list(range(input.dim()))
    d0, d1 = _norm_dim(dim0, input.dim()), _norm_dim(dim1, input.dim())
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return b.node("Transpose", [b.name(input)], perm=perm)


def t(b, out, input):
    return b.node("Transpose", [b.name(input)], perm=list(range(input.dim()))[::-1])


def cat(b, out, tensors, dim=0, **kwargs):
    nd = tensors[0].dim()
    return b.node("Concat", [b.name(x) for x in tensors], axis=_norm_dim(dim, nd))


def squeeze(b, out, input, dim=None):
    if dim is None:
        dims = [i for i, s in enumerate(input.shape) if s == 1]
    else:
        dims = [_norm_dim(d, input.dim()) for d in _pair(dim, 1) if input.shape[d] == 1]
    return b.node("Squeeze", [b.name(input), b.ints(dims)]) if dims else identity(b, out, input)


def unsqueeze(b, out, input, dim):
    return b.node("Unsqueeze", [b.name(input), b.ints([_norm_dim(dim, input.dim() + 1)])])


def gather(b, out, input, dim, index, **kwargs):
    return b.node("GatherElements", [b.name(input), _as_int64(b, index)], axis=_norm_dim(dim, input.dim()))


def getitem(b, out, input, key):
    key = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis for k in key):
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (input.dim() - len(key) + 1) + key[i + 1:]
    starts, ends, axes, steps, squeeze_axes = [], [], [], [], []
    axis = 0
    for k in key:
        if isinstance(k, slice):
            if k != slice(None):
                step = 1 if k.step is None else int(k.step)
                if step <= 0:
                    raise OnnxExporterError("__getitem__: a non-positive slice step is not supported")
                starts.append(0 if k.start is None else int(k.start))
                ends.append(2 ** 62 if k.stop is None else int(k.stop))
                axes.append(axis)
                steps.append(step)
        elif isinstance(k, int) and not isinstance(k, bool):
            starts.append(k)
            ends.append(k + 1 if k != -1 else 2 ** 62)
            axes.append(axis)
            steps.append(1)
            squeeze_axes.append(axis)
        else:
            raise OnnxExporterError(f"__getitem__: index {type(k).__name__} is not supported by the ONNX "
                                    "exporter (only ints and slices)")
        axis += 1
    y = b.name(input)
    if axes:
        y = b.node("Slice", [y, b.ints(starts), b.ints(ends), b.ints(axes), b.ints(steps)])
    if squeeze_axes:
        y = b.node("Squeeze", [y, b.ints(squeeze_axes)])
    return y if y != b.name(input) else identity(b, out, input)


def T(b, out, input):
    return b.node("Transpose", [b.name(input)], perm=list(range(input.dim()))[::-1])


def mT(b, out, input):
    return transpose(b, out, input, -2, -1)


def cast(b, out, input, *args, **kwargs):
    from ._builder import _NP_TO_ONNX
    return b.node("Cast", [b.name(input)], to=_NP_TO_ONNX[str(out.dtype).replace("monoflow.", "")])


def _reduce(op):
    def conv(b, out, input, dim=None, keepdim=False, *args, dtype=None, **kwargs):
        if args or dtype is not None:
            raise OnnxExporterError(f"{op}: extra arguments are not supported by the ONNX exporter")
        axes = list(range(input.dim())) if dim is None else [_norm_dim(d, input.dim()) for d in _pair(dim, 1)]
        if op == "ReduceMean" and b.opset < 18:  # axes became an input in opset 18
            return b.node(op, [b.name(input)], axes=axes, keepdims=int(bool(keepdim)))
        return b.node(op, [b.name(input), b.ints(axes)], keepdims=int(bool(keepdim)))
    return conv


def _split_like(b, out, input, dim):
    # the pieces' sizes are read from the results: chunk and split share one node
    d = _norm_dim(dim, input.dim())
    sizes = [o.shape[d] for o in out]
    names = b.node("Split", [b.name(input), b.ints(sizes)], n_out=len(sizes), axis=d)
    return names if isinstance(names, list) else [names]


def chunk(b, out, input, chunks, dim=0):
    return _split_like(b, out, input, dim)


def split(b, out, input, split_size_or_sections, dim=0):
    return _split_like(b, out, input, dim)


# ---- arithmetic

def _binary(op, reverse=False):
    def conv(b, out, input, other, *args, alpha=1, **kwargs):
        x, y = (other, input) if reverse else (input, other)
        like = input
        xn, yn = b.name(x, like), b.name(y, like)
        if alpha != 1:
            yn = b.node("Mul", [yn, b.name(alpha, like)])
        return b.node(op, [xn, yn])
    return conv


def silu(b, out, input, inplace=False):
    x = b.name(input)
    return b.node("Mul", [x, b.node("Sigmoid", [x])])


def leaky_relu(b, out, input, negative_slope=0.01, inplace=False):
    return b.node("LeakyRelu", [b.name(input)], alpha=float(negative_slope))


def pow_(b, out, input, exponent):
    return b.node("Pow", [b.name(input), b.name(exponent, input)])


def neg(b, out, input):
    return b.node("Neg", [b.name(input)])


def matmul(b, out, input, other):
    return b.node("MatMul", [b.name(input), b.name(other)])


FUNCTIONS = {
    # nn.functional
    "linear": linear, "conv1d": _conv(1), "conv2d": _conv(2), "relu": _unary("Relu"), "gelu": gelu,
    "sigmoid": _unary("Sigmoid"), "tanh": _unary("Tanh"), "softmax": _softmax("Softmax"),
    "log_softmax": _softmax("LogSoftmax"), "max_pool2d": max_pool2d, "avg_pool2d": avg_pool2d,
    "adaptive_avg_pool2d": adaptive_avg_pool2d, "batch_norm": batch_norm, "layer_norm": layer_norm,
    "embedding": embedding, "dropout": dropout,
    # tensor functions and methods
    "view": view, "reshape": reshape, "flatten": flatten, "permute": permute, "transpose": transpose,
    "t": t, "cat": cat, "concat": cat, "concatenate": cat, "squeeze": squeeze, "unsqueeze": unsqueeze,
    "gather": gather, "__getitem__": getitem, "add": _binary("Add"), "sub": _binary("Sub"),
    "mul": _binary("Mul"), "div": _binary("Div"), "matmul": matmul, "mm": matmul, "neg": neg,
    "__add__": _binary("Add"), "__radd__": _binary("Add", True), "__sub__": _binary("Sub"),
    "__rsub__": _binary("Sub", True), "__mul__": _binary("Mul"), "__rmul__": _binary("Mul", True),
    "__truediv__": _binary("Div"), "__rtruediv__": _binary("Div", True), "__matmul__": matmul,
    "__neg__": neg, "contiguous": identity, "clone": identity, "detach": identity, "exp": _unary("Exp"),
    "sqrt": _unary("Sqrt"), "abs": _unary("Abs"), "T": T, "mT": mT,
    "float": cast, "double": cast, "half": cast, "long": cast, "int": cast, "to": cast, "type_as": cast,
    "mean": _reduce("ReduceMean"), "sum": _reduce("ReduceSum"),
    "chunk": chunk, "split": split, "silu": silu, "leaky_relu": leaky_relu, "pow": pow_, "__pow__": pow_,
    # in place: the tensor's name is rebound to the new value (no aliasing views are tracked)
    "__iadd__": _binary("Add"), "__isub__": _binary("Sub"), "__imul__": _binary("Mul"),
    "__itruediv__": _binary("Div"), "add_": _binary("Add"), "sub_": _binary("Sub"),
    "mul_": _binary("Mul"), "div_": _binary("Div"), "relu_": _unary("Relu"),
}


def _module_converters():
    from ..nn import modules as m

    def conv_mod(n):
        f = _conv(n)

        def conv(b, out, mod, x):
            if mod.padding_mode != "zeros":
                raise OnnxExporterError(f"{type(mod).__name__}: padding_mode={mod.padding_mode!r} is not "
                                        "supported by the ONNX exporter")
            return f(b, out, x, mod.weight, mod.bias, mod.stride, mod.padding, mod.dilation, mod.groups)
        return conv

    def bn(b, out, mod, x):
        use_batch_stats = mod.training or not mod.track_running_stats
        return batch_norm(b, out, x, None if use_batch_stats else mod.running_mean,
                          None if use_batch_stats else mod.running_var, mod.weight, mod.bias, False, 0, mod.eps)

    def act(op):
        return lambda b, out, mod, x: b.node(op, [b.name(x)])

    table = {
        "Linear": lambda b, out, mod, x: linear(b, out, x, mod.weight, mod.bias),
        "Conv1d": conv_mod(1), "Conv2d": conv_mod(2),
        "ReLU": act("Relu"), "Sigmoid": act("Sigmoid"), "Tanh": act("Tanh"),
        "GELU": lambda b, out, mod, x: gelu(b, out, x, mod.approximate),
        "Softmax": lambda b, out, mod, x: _softmax("Softmax")(b, out, x, mod.dim),
        "LogSoftmax": lambda b, out, mod, x: _softmax("LogSoftmax")(b, out, x, mod.dim),
        "MaxPool2d": lambda b, out, mod, x: max_pool2d(b, out, x, mod.kernel_size, mod.stride, mod.padding,
                                                       mod.dilation, mod.ceil_mode, mod.return_indices),
        "AvgPool2d": lambda b, out, mod, x: avg_pool2d(b, out, x, mod.kernel_size, mod.stride, mod.padding,
                                                       mod.ceil_mode, mod.count_include_pad,
                                                       mod.divisor_override),
        "AdaptiveAvgPool2d": lambda b, out, mod, x: adaptive_avg_pool2d(b, out, x, mod.output_size),
        "BatchNorm1d": bn, "BatchNorm2d": bn,
        "Dropout": lambda b, out, mod, x: identity(b, out, x),
        "Identity": lambda b, out, mod, x, *a, **k: identity(b, out, x),
        "Flatten": lambda b, out, mod, x: flatten(b, out, x, mod.start_dim, mod.end_dim),
        "LayerNorm": lambda b, out, mod, x: layer_norm(b, out, x, mod.normalized_shape, mod.weight, mod.bias,
                                                       mod.eps),
        "Embedding": lambda b, out, mod, x: embedding(b, out, x, mod.weight, mod.padding_idx, mod.max_norm),
    }
    return {getattr(m, k): v for k, v in table.items() if hasattr(m, k)}
