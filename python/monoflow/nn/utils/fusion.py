"""Folding an eval-mode BatchNorm into the preceding convolution or linear
layer (torch.nn.utils.fusion): the same outputs from one layer."""
import copy

from monoflow import _creation
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn.parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The ``(weight, bias)`` parameters of a convolution that computes the convolution followed by the
    batch norm's normalisation and affine map.

    Args:
        conv_w (Tensor): the convolution weight.
        conv_b (Tensor, optional): the convolution bias (``None``: zeros).
        bn_rm (Tensor): the batch norm's running mean.
        bn_rv (Tensor): the batch norm's running variance.
        bn_eps (float): the batch norm's eps.
        bn_w (Tensor, optional): the batch norm's weight (``None``: ones).
        bn_b (Tensor, optional): the batch norm's bias (``None``: zeros).
        transpose (bool): the weight is a transposed convolution's ``(C_in, C_out, ...)``. Default:
            ``False``.

    Returns:
        tuple of Parameter: ``(fused_weight, fused_bias)``.

    Example::

        >>> conv, bn = nn.Conv2d(3, 4, 3).eval(), nn.BatchNorm2d(4).eval()
        >>> w, b = nn.utils.fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
        >>> w.shape, b.shape
        (monoflow.Size([4, 3, 3, 3]), monoflow.Size([4]))
    """
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
    """A copy of ``conv`` that computes ``bn(conv(x))``, for inference. Both modules must be in eval mode
    (else ``AssertionError``).

    Args:
        conv (Module): a Conv1d/2d/3d (or a transposed one, with ``transpose=True``).
        bn (Module): the BatchNorm that follows, with running statistics.
        transpose (bool): ``conv`` is a transposed convolution. Default: ``False``.

    Example::

        >>> conv, bn = nn.Conv2d(3, 4, 3).eval(), nn.BatchNorm2d(4).eval()
        >>> fused = nn.utils.fuse_conv_bn_eval(conv, bn)
        >>> x = flow.randn(1, 3, 5, 5)
        >>> flow.allclose(fused(x), bn(conv(x)), atol=1e-5)
        True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("fuse_conv_bn_eval: the batch norm has no running statistics")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps,
                                                    bn.weight, bn.bias, transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The ``(weight, bias)`` parameters of a linear layer that computes the linear map followed by the
    batch norm.

    Args:
        linear_w (Tensor): the linear weight ``(out, in)``.
        linear_b (Tensor, optional): the linear bias (``None``: zeros).
        bn_rm (Tensor): the running mean.
        bn_rv (Tensor): the running variance.
        bn_eps (float): the batch norm's eps.
        bn_w (Tensor): the batch norm's weight.
        bn_b (Tensor): the batch norm's bias.

    Returns:
        tuple of Parameter: ``(fused_weight, fused_bias)``.

    Example::

        >>> lin, bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
        >>> w, b = nn.utils.fuse_linear_bn_weights(lin.weight, lin.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
        >>> w.shape, b.shape
        (monoflow.Size([4, 3]), monoflow.Size([4]))
    """
    with no_grad():
        b_requires_grad = linear_b.requires_grad if linear_b is not None else False
        linear_b = linear_b if linear_b is not None else _creation.zeros_like(bn_rm)
        scale = bn_w * (bn_rv + bn_eps).rsqrt()
        w = linear_w * scale.unsqueeze(-1)
        b = (linear_b - bn_rm) * scale + bn_b
    return Parameter(w, linear_w.requires_grad), Parameter(b, b_requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` that computes ``bn(linear(x))``, for inference. Both must be in eval mode and
    ``linear.out_features`` must equal ``bn.num_features`` (else ``AssertionError``).

    Args:
        linear (Module): a :class:`~monoflow.nn.Linear`.
        bn (Module): the BatchNorm1d that follows.

    Example::

        >>> lin, bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
        >>> x = flow.randn(2, 3)
        >>> flow.allclose(nn.utils.fuse_linear_bn_eval(lin, bn)(x), bn(lin(x)), atol=1e-5)
        True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features:
        raise AssertionError("To fuse, linear.out_features must equal bn.num_features")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused
