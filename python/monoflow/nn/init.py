"""Parameter initialisation (torch.nn.init): in place, under no_grad, drawing
from monoflow's generators so that manual_seed makes it reproducible."""
import math
import warnings

import numpy as np

from monoflow import _C
from monoflow.autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_"]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for an activation (torch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) samples conditioned on [a, b]: out-of-range draws are
    redrawn until none is left (rejection keeps the exact distribution)."""
    if a >= b:
        raise ValueError(f"trunc_normal_: a ({a}) must be less than b ({b})")
    with no_grad():
        tensor.normal_(mean, std, generator=generator)
        for _ in range(1000):
            bad = (tensor < a) | (tensor > b)
            if not bool(bad.any()):
                break
            fresh = _C.empty(tuple(tensor.shape), tensor.dtype, tensor.device)
            fresh.normal_(mean, std, generator=generator)
            tensor.copy_(fresh.where(bad, tensor))
        return tensor.clamp_(a, b)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def eye_(tensor):
    """The identity matrix (2-D tensors)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from monoflow.ops_random import eye

    with no_grad():
        return tensor.copy_(eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor, groups=1):
    """The Dirac delta of convolution weights (3-, 4- or 5-D): the identity map."""
    d = tensor.dim()
    if d not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per_group = tensor.shape[0] // groups
    min_dim = min(out_per_group, tensor.shape[1])
    arr = np.zeros(tuple(tensor.shape), dtype=np.float64)
    for g in range(groups):
        for i in range(min_dim):
            arr[(g * out_per_group + i, i) + tuple(s // 2 for s in tensor.shape[2:])] = 1
    from monoflow._creation import tensor as _tensor

    with no_grad():
        return tensor.copy_(_tensor(arr, dtype=tensor.dtype, device=tensor.device))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix (over the flattened trailing dims): the Q of
    a QR decomposition of a Gaussian matrix drawn from monoflow's generator,
    sign-corrected so that it is uniformly (Haar) distributed."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    g = _C.empty((rows, cols), _C.get_default_dtype() if not tensor.dtype.is_floating_point else tensor.dtype,
                 tensor.device)
    g.normal_(0.0, 1.0, generator=generator)
    a = g.double().cpu().numpy()
    if rows < cols:
        a = a.T
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    from monoflow._creation import tensor as _tensor

    with no_grad():
        tensor.copy_(_tensor(np.ascontiguousarray(q).reshape(tuple(tensor.shape)), dtype=tensor.dtype,
                             device=tensor.device))
        return tensor.mul_(gain)


# torch's deprecated non-underscore aliases
def _deprecated(fn):
    def alias(*args, **kwargs):
        warnings.warn(f"nn.init.{fn.__name__[:-1]} is now deprecated in favor of nn.init.{fn.__name__}.",
                      FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)

    alias.__name__ = fn.__name__[:-1]
    return alias


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
