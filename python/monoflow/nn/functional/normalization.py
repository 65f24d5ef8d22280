"""batch_norm, layer_norm, group_norm, instance_norm and normalize as
compositions of the core's differentiable reductions."""
from monoflow import _C
from monoflow.autograd.grad_mode import no_grad

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "normalize"]


def _channel_shape(x):
    # [1, C, 1, ...]: broadcasts per-channel vectors against x.
    return [1, x.shape[1]] + [1] * (x.dim() - 2)


def _check_channel_vectors(op, channels, **vectors):
    # Per-channel vectors (None: absent) must hold one value per channel:
    # checked here so that a mismatch names `op`, not the reshape it reaches.
    for pos, (name, v) in enumerate(vectors.items(), 2):
        if _C.check_optional_tensor(v, op, name, pos) is not None and v.numel() != channels:
            raise RuntimeError(f"{op}: {name} should contain {channels} elements not {v.numel()}")


def _channel_affine(out, weight, bias, shape):
    # out * weight + bias with per-channel vectors reshaped to `shape` (either may be None).
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """Normalises each channel (dim 1) with the batch's statistics (training;
    updating the running ones with `momentum`) or the running ones (eval)."""
    if _C.check_tensor(input, "batch_norm", "input", 1).dim() < 2:
        raise ValueError(f"batch_norm: expected at least 2D input (got {input.dim()}D input)")
    _check_channel_vectors("batch_norm", input.shape[1], running_mean=running_mean, running_var=running_var,
                           weight=weight, bias=bias)
    shape = _channel_shape(input)
    if training:
        dims = [0] + list(range(2, input.dim()))
        n = input.numel() // input.shape[1]
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
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
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in evaluation mode")
        mean, var = running_mean, running_var
    out = (input - mean.reshape(shape)) * (var.reshape(shape) + eps).rsqrt()
    return _channel_affine(out, weight, bias, shape)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """batch_norm of every (sample, channel) on its own."""
    _C.check_tensor(input, "instance_norm", "input", 1)
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
    """Normalises over the trailing dims given by normalized_shape."""
    _C.check_tensor(input, "layer_norm", "input", 1)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or input.dim() < k or tuple(input.shape[-k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
                           f"{list(input.shape)}")
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
    """Normalises each group of num_channels / num_groups channels per sample."""
    _C.check_tensor(input, "group_norm", "input", 1)
    if input.dim() < 2:
        raise RuntimeError(f"group_norm: expected at least 2 dimensions for input tensor but received {input.dim()}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    x = input.reshape(n, num_groups, -1)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    out = ((x - mean) * (var + eps).rsqrt()).reshape(input.shape)
    return _channel_affine(out, weight, bias, _channel_shape(input))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p over dim, eps)."""
    _C.check_tensor(input, "normalize", "input", 1)
    if out is not None:
        raise TypeError("normalize(): the out= argument is not supported")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return input / denom

