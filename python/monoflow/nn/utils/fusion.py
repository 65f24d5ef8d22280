"""Folding an eval-mode BatchNorm into the preceding convolution or linear
layer (torch.nn.utils.fusion): the same outputs from one layer."""
import copy

from monoflow import _creation
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn.parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """(weight, bias) parameters of the convolution followed by the batch norm's affine map."""
    with no_grad():
        w_dtype = conv_w.dtype
        b_dtype = conv_b.dtype if conv_b is not None else w_dtype
        b_requires_grad = conv_b.requires_grad if conv_b is not None else False
        conv_b = conv_b if conv_b is not None else _creation.zeros_like(bn_rm)
        bn_w = bn_w if bn_w is not None else _creation.ones_like(bn_rm)
        bn_b = bn_b if bn_b is not None else _creation.zeros_like(bn_rm)
        rsqrt = (bn_rv + bn_eps).rsqrt()
        shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
        w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
        b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(w, conv_w.requires_grad), Parameter(b, b_requires_grad)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` that computes bn(conv(x)) (both in eval mode)."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("fuse_conv_bn_eval: the batch norm has no running statistics")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps,
                                                    bn.weight, bn.bias, transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    with no_grad():
        b_requires_grad = linear_b.requires_grad if linear_b is not None else False
        linear_b = linear_b if linear_b is not None else _creation.zeros_like(bn_rm)
        scale = bn_w * (bn_rv + bn_eps).rsqrt()
        w = linear_w * scale.unsqueeze(-1)
        b = (linear_b - bn_rm) * scale + bn_b
    return Parameter(w, linear_w.requires_grad), Parameter(b, b_requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` that computes bn(linear(x)) (both in eval mode)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features:
        raise AssertionError("To fuse, linear.out_features must equal bn.num_features")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused
