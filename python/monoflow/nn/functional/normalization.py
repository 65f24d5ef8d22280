"""batch_norm, layer_norm, group_norm, instance_norm and normalize as
compositions of the core's differentiable reductions."""
from monoflow import _C
from monoflow._composite import int_tuple
from monoflow._dtypes import bfloat16, float16
from monoflow.autograd.grad_mode import no_grad

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "normalize"]


def _channel_shape(x):
    # [1, C, 1, ...]: broadcasts per-channel vectors against x.
    return [1, x.shape[1]] + [1] * (x.dim() - 2)


def _check_channel_vectors(op, channels, **vectors):
    # Per-channel vectors (None: absent) must hold one value per channel:
    # checked here so that a mismatch names the op in progress (instance_norm
    # over batch_norm), not the reshape it reaches.
    for pos, (name, v) in enumerate(vectors.items(), 2):
        if _C.check_optional_tensor(v, op, name, pos) is not None and v.numel() != channels:
            raise RuntimeError(_C.name_op_in_progress(f"{name} should contain {channels} elements not {v.numel()}"))


def reduced_input_mixed(input, *params):
    """True when a float16/bfloat16 input meets weights or statistics of another dtype: torch then
    computes in float32 and returns the input's dtype, so the callers run on input.float() and
    round back (type promotion alone would return float32)."""
    return input.dtype in (float16, bfloat16) and any(
        isinstance(t, _C.TensorBase) and t.dtype != input.dtype for t in params)


def _channel_affine(out, weight, bias, shape):
    # out * weight + bias with per-channel vectors reshaped to `shape` (either may be None).
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalisation of each channel (dim 1): with the batch's statistics when ``training`` (updating
    ``running_mean``/``running_var`` in place with ``momentum``), with the running ones otherwise. See
    :class:`~monoflow.nn.BatchNorm2d`.

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor, optional): ``(C,)``, updated in place in training.
        running_var (Tensor, optional): ``(C,)``, updated in place (with the unbiased variance) in
            training.
        weight (Tensor, optional): the per-channel scale ``(C,)``. Default: ``None``.
        bias (Tensor, optional): the per-channel shift ``(C,)``. Default: ``None``.
        training (bool): use batch statistics. Default: ``False``.
        momentum (float): the update weight of the running statistics. Default: ``0.1``.
        eps (float): added to the variance. Default: ``1e-5``.

    Example::

        >>> x = flow.randn(8, 3, 4)
        >>> rm, rv = flow.zeros(3), flow.ones(3)
        >>> F.batch_norm(x, rm, rv, training=True).shape
        monoflow.Size([8, 3, 4])
        >>> bool((rm != 0).all())
        True
    """
    if _C.check_tensor(input, "batch_norm", "input", 1).dim() < 2:
        raise ValueError(_C.name_op_in_progress(f"expected at least 2D input (got {input.dim()}D input)"))
    _check_channel_vectors("batch_norm", input.shape[1], running_mean=running_mean, running_var=running_var,
                           weight=weight, bias=bias)
    if reduced_input_mixed(input, running_mean, running_var, weight, bias):
        return batch_norm(input.float(), running_mean, running_var, weight, bias, training, momentum,
                          eps).to(input.dtype)
    shape = _channel_shape(input)
    if training:
        dims = [0] + list(range(2, input.dim()))
        n = 1
        for i, size in enumerate(input.shape):  # (numel() // channels divides by zero with no channel)
            n *= size if i != 1 else 1
        if n == 0:  # an empty batch: an empty result, the running statistics as they were (as torch)
            return _channel_affine(input.clone(), weight, bias, shape)
        if n == 1:
            raise ValueError(_C.name_op_in_progress(f"Expected more than 1 value per channel when training, got input "
                                                    f"size {list(input.shape)}"))
        mean = input.mean(dims)
        var = input.var(dims, unbiased=False)
        if running_mean is not None or running_var is not None:
            with no_grad():
                if running_mean is not None:
                    running_mean.mul_(1.0 - momentum).add_(mean.detach().to(running_mean.dtype) * momentum)
                if running_var is not None:
                    unbiased = var.detach() * (n / (n - 1))
                    running_var.mul_(1.0 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError(_C.name_op_in_progress(
                "running_mean and running_var must be defined in evaluation mode"))
        mean, var = running_mean, running_var
    out = (input - mean.reshape(shape)) * (var.reshape(shape) + eps).rsqrt()
    return _channel_affine(out, weight, bias, shape)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Instance normalisation: every (sample, channel) of ``(N, C, *)`` normalised over its own positions.
    See :class:`~monoflow.nn.InstanceNorm2d`.

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor, optional): ``(C,)`` running means, updated when ``use_input_stats``.
            Default: ``None``.
        running_var (Tensor, optional): ``(C,)`` running variances. Default: ``None``.
        weight (Tensor, optional): per-channel scale ``(C,)``. Default: ``None``.
        bias (Tensor, optional): per-channel shift ``(C,)``. Default: ``None``.
        use_input_stats (bool): normalise with the input's statistics (else with the running ones).
            Default: ``True``.
        momentum (float): the update weight of the running statistics. Default: ``0.1``.
        eps (float): added to the variance. Default: ``1e-5``.

    Example::

        >>> y = F.instance_norm(flow.randn(2, 3, 5, 5))
        >>> flow.allclose(y.mean((2, 3)), flow.zeros(2, 3), atol=1e-5)
        True
    """
    _C.check_optional_tensor(running_mean, "instance_norm", "running_mean", 2)
    _C.check_optional_tensor(running_var, "instance_norm", "running_var", 3)
    _C.check_optional_tensor(weight, "instance_norm", "weight", 4)
    _C.check_optional_tensor(bias, "instance_norm", "bias", 5)
    _C.check_tensor(input, "instance_norm", "input", 1)
    if input.dim() < 2:
        raise ValueError(f"instance_norm(): Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    if reduced_input_mixed(input, running_mean, running_var, weight, bias):
        return instance_norm(input.float(), running_mean, running_var, weight, bias, use_input_stats, momentum,
                             eps).to(input.dtype)
    n, c = input.shape[0], input.shape[1]
    x = input.reshape(1, n * c, *input.shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    out = batch_norm(x, rm, rv, None, None, use_input_stats, momentum, eps).reshape(input.shape)
    if running_mean is not None and use_input_stats:
        with no_grad():
            running_mean.copy_(rm.reshape(n, c).mean(0))
            running_var.copy_(rv.reshape(n, c).mean(0))
    return _channel_affine(out, weight, bias, _channel_shape(input))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalisation over the trailing ``normalized_shape`` dims, then ``* weight + bias``. See
    :class:`~monoflow.nn.LayerNorm`.

    Args:
        input (Tensor): ``(*, *normalized_shape)``.
        normalized_shape (sequence of int): the trailing dims to normalise over.
        weight (Tensor, optional): the elementwise scale, shape ``normalized_shape``. Default: ``None``.
        bias (Tensor, optional): the elementwise shift, shape ``normalized_shape``. Default: ``None``.
        eps (float): added to the variance. Default: ``1e-5``.

    Example::

        >>> F.layer_norm(flow.tensor([[1.0, 2.0, 3.0]]), (3,))
        tensor([[-1.2247,  0.0000,  1.2247]])
    """
    _C.check_tensor(input, "layer_norm", "input", 1)
    normalized_shape = int_tuple("layer_norm", "normalized_shape", normalized_shape)
    k = len(normalized_shape)
    if k == 0 or input.dim() < k or tuple(input.shape[-k:]) != normalized_shape:
        raise RuntimeError(_C.name_op_in_progress(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}"))
    if reduced_input_mixed(input, weight, bias):
        return layer_norm(input.float(), normalized_shape, weight, bias, eps).to(input.dtype)
    if not input.is_global and input.dtype.is_floating_point and all(
            t is None or (isinstance(t, _C.TensorBase) and not t.is_global and tuple(t.shape) == normalized_shape
                          and t.dtype == input.dtype and t.device == input.device) for t in (weight, bias)):
        # one kernel forward and backward (Note [Fused layer norm], core/src/ops_norm.cc)
        return _C.nn_layer_norm(input, k, weight, bias, _C.check_float(eps, "layer_norm", "eps", 5))
    dims = list(range(input.dim() - k, input.dim()))
    mean = input.mean(dims, keepdim=True)
    var = input.var(dims, unbiased=False, keepdim=True)
    out = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalisation: the channels of each sample are split into ``num_groups`` groups, each
    normalised on its own. See :class:`~monoflow.nn.GroupNorm`.

    Args:
        input (Tensor): ``(N, C, *)``, ``C`` divisible by ``num_groups``.
        num_groups (int): the number of groups.
        weight (Tensor, optional): per-channel scale ``(C,)``. Default: ``None``.
        bias (Tensor, optional): per-channel shift ``(C,)``. Default: ``None``.
        eps (float): added to the variance. Default: ``1e-5``.

    Example::

        >>> F.group_norm(flow.randn(2, 6, 4), 3).shape
        monoflow.Size([2, 6, 4])
    """
    _C.check_tensor(input, "group_norm", "input", 1)
    if input.dim() < 2:
        raise RuntimeError(f"group_norm: expected at least 2 dimensions for input tensor but received {input.dim()}")
    n, c = input.shape[0], input.shape[1]
    num_groups = _C.check_int(num_groups, "group_norm", "num_groups", 2)
    _C.check_optional_tensor(weight, "group_norm", "weight", 3)
    _C.check_optional_tensor(bias, "group_norm", "bias", 4)
    if num_groups <= 0:
        raise RuntimeError(f"group_norm(): Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"group_norm(): Expected number of channels in input to be divisible by num_groups, but got "
                           f"input of shape {list(input.shape)} and num_groups={num_groups}")
    if reduced_input_mixed(input, weight, bias):
        return group_norm(input.float(), num_groups, weight, bias, eps).to(input.dtype)
    group_size = c // num_groups
    for size in input.shape[2:]:
        group_size *= size
    x = input.reshape(n, num_groups, group_size)  # (not -1: N = 0 leaves it undetermined)
    if not input.is_global and input.dtype.is_floating_point:
        # each group is a layer norm over its last dim: the fused kernel, forward and backward
        out = _C.nn_layer_norm(x, 1, None, None, _C.check_float(eps, "group_norm", "eps", 5))
    else:
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, unbiased=False, keepdim=True)
        out = (x - mean) * (var + eps).rsqrt()
    return _channel_affine(out.reshape(input.shape), weight, bias, _channel_shape(input))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """Divides by the p-norm along ``dim``: ``input / max(||input||_p, eps)``.

    Args:
        input (Tensor): the input.
        p (float): the norm degree. Default: ``2.0``.
        dim (int or tuple): the dim(s) of the norm. Default: ``1``.
        eps (float): the lower bound of the norm. Default: ``1e-12``.
        out (Tensor, optional): not supported; passing it raises ``TypeError``. Default: ``None``.

    Example::

        >>> F.normalize(flow.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
        >>> F.normalize(flow.tensor([[3.0, 4.0]]), p=1.0)
        tensor([[0.4286, 0.5714]])
    """
    _C.check_tensor(input, "normalize", "input", 1)
    if out is not None:
        raise TypeError("normalize(): the out= argument is not supported")
    p = _C.check_float(p, "normalize", "p", 2)
    _C.check_float(eps, "normalize", "eps", 4)
    if not isinstance(dim, int):
        dim = int_tuple("normalize", "dim", dim)
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return input / denom

