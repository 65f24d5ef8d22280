# Bindings of the convolution and pooling ops (included by _C.pyx; uses its
# helpers: wrap, _dims, TensorBase, and the argument converters of _args.pxi). Argument forms ('same' padding, None
# strides, 1-D variants) are sorted out in monoflow/nn/functional.
from libcpp.utility cimport pair


def nn_conv2d(x, w, bias, stride, padding, dilation, groups):
    cdef TensorBase xt = _tensor_obj(x, "conv2d", "input"), wt = _tensor_obj(w, "conv2d", "weight")
    return wrap(c_conv2d(xt.t, wt.t, _opt_tt(bias, "conv2d", "bias"), _dims(stride, "conv2d"),
                         _dims(padding, "conv2d"), _dims(dilation, "conv2d"), _int_arg(groups, "conv2d", "groups")))


def nn_conv_transpose2d(x, w, bias, stride, padding, output_padding, groups, dilation):
    cdef TensorBase xt = _tensor_obj(x, "conv_transpose2d", "input")
    cdef TensorBase wt = _tensor_obj(w, "conv_transpose2d", "weight")
    return wrap(c_conv_transpose2d(xt.t, wt.t, _opt_tt(bias, "conv_transpose2d", "bias"),
                                   _dims(stride, "conv_transpose2d"), _dims(padding, "conv_transpose2d"),
                                   _dims(output_padding, "conv_transpose2d"),
                                   _int_arg(groups, "conv_transpose2d", "groups"),
                                   _dims(dilation, "conv_transpose2d")))


def nn_conv2d_weight_grad(x, gy, weight_shape, stride, padding, dilation, int64_t groups):
    return wrap(c_conv2d_weight_grad(_tt(x, "conv2d_weight_grad", "input"), _tt(gy, "conv2d_weight_grad", "grad_output"), _dims(weight_shape, "conv2d_weight_grad"),
                                     _dims(stride, "conv2d_weight_grad"), _dims(padding, "conv2d_weight_grad"),
                                     _dims(dilation, "conv2d_weight_grad"), groups))


def nn_max_pool2d(x, kernel_size, stride, padding, dilation, bint ceil_mode):
    cdef TensorBase xt = _tensor_obj(x, "max_pool2d", "input")
    cdef Dims st
    if stride is not None:
        st = _dims(stride, "max_pool2d")
    cdef pair[Tensor, Tensor] r = c_max_pool2d(xt.t, _dims(kernel_size, "max_pool2d"), st,
                                               _dims(padding, "max_pool2d"), _dims(dilation, "max_pool2d"), ceil_mode)
    return (wrap(r.first), wrap(r.second))


def nn_avg_pool2d(x, kernel_size, stride, padding, bint ceil_mode, bint count_include_pad, divisor_override):
    cdef TensorBase xt = _tensor_obj(x, "avg_pool2d", "input")
    cdef Dims st
    if stride is not None:
        st = _dims(stride, "avg_pool2d")
    return wrap(c_avg_pool2d(xt.t, _dims(kernel_size, "avg_pool2d"), st, _dims(padding, "avg_pool2d"),
                             ceil_mode, count_include_pad, _int_arg(divisor_override, "avg_pool2d", "divisor_override")))


def nn_adaptive_avg_pool2d(x, output_size):
    cdef TensorBase xt = _tensor_obj(x, "adaptive_avg_pool2d", "input")
    return wrap(c_adaptive_avg_pool2d(xt.t, _dims(output_size, "adaptive_avg_pool2d")))


def nn_adaptive_max_pool2d(x, output_size):
    cdef TensorBase xt = _tensor_obj(x, "adaptive_max_pool2d", "input")
    cdef pair[Tensor, Tensor] r = c_adaptive_max_pool2d(xt.t, _dims(output_size, "adaptive_max_pool2d"))
    return (wrap(r.first), wrap(r.second))


def nn_layer_norm(x, int64_t normalized_ndim, weight, bias, double eps):
    """The fused layer norm over the last `normalized_ndim` dims (core/src/ops_norm.cc)."""
    cdef TensorBase xt = _tensor_obj(x, "layer_norm", "input")
    return wrap(c_layer_norm(xt.t, normalized_ndim, _opt_tt(weight, "layer_norm", "weight"),
                             _opt_tt(bias, "layer_norm", "bias"), eps))
