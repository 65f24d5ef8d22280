"""Activation functions of torch.nn.functional. The pointwise math is the core's
(relu, gelu, silu, softplus, sigmoid, tanh) or monoflow._activations'
compositions; this module adds the nn-only argument forms (inplace, dim=None
for softmax, PReLU's per-channel weight)."""
import warnings

from monoflow import _C
from monoflow import ops_math as _m
from monoflow import ops_reduce as _r
from monoflow._activations import (  # noqa: F401 - re-exported
    celu, elu, hardsigmoid, hardswish, hardtanh, leaky_relu, logsigmoid, mish, relu6, selu, softsign,
)

__all__ = ["relu", "relu_", "gelu", "silu", "sigmoid", "tanh", "softplus", "softmax", "log_softmax", "softmin",
           "prelu", "tanhshrink", "threshold", "hardshrink", "softshrink", "glu",
           "celu", "elu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "logsigmoid", "mish", "relu6",
           "selu", "softsign", "elu_", "celu_", "selu_", "leaky_relu_", "hardtanh_", "threshold_", "rrelu",
           "rrelu_", "gumbel_softmax"]


def _check(name, x):
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(x).__name__}")


def _inplace_result(input, out):
    # The in-place form of a composition: compute out of place, write back.
    return input.copy_(out)


def relu(input, inplace=False):
    _check("relu", input)
    if inplace:
        return input.relu_()
    return _m.relu(input)


def relu_(input):
    return relu(input, inplace=True)


def gelu(input, approximate="none"):
    _check("gelu", input)
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu(): approximate must be 'none' or 'tanh', got {approximate!r}")
    return _m.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    _check("silu", input)
    out = _m.silu(input)
    return _inplace_result(input, out) if inplace else out


def sigmoid(input):
    _check("sigmoid", input)
    return _m.sigmoid(input)


def tanh(input):
    _check("tanh", input)
    return _m.tanh(input)


def softplus(input, beta=1.0, threshold=20.0):
    _check("softplus", input)
    return _m.softplus(input, beta, threshold)


def _softmax_dim(name, ndim):
    # torch's legacy implicit dim, with the same deprecation warning.
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    _check("softmax", input)
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    return _r.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    _check("log_softmax", input)
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    return _r.log_softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    _check("softmin", input)
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return _r.softmax(-input, dim, dtype=dtype)


def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or shared."""
    _C.check_tensor(input, "prelu", "input", 1)
    _C.check_tensor(weight, "prelu", "weight", 2)
    _check("prelu", input)
    if weight.numel() != 1:
        if input.dim() == 0 or input.shape[1 if input.dim() > 1 else 0] != weight.numel():
            raise RuntimeError(f"prelu: mismatch of parameter numbers and input channel size. Found parameter "
                               f"numbers = {weight.numel()} and channel size = "
                               f"{input.shape[1] if input.dim() > 1 else (input.shape[0] if input.dim() else 1)}.")
        if input.dim() > 1:
            weight = weight.reshape([weight.numel()] + [1] * (input.dim() - 2))
    return _m.where(input > 0, input, weight * input)


def tanhshrink(input):
    return input - _m.tanh(input)


def threshold(input, threshold, value, inplace=False):
    _C.check_tensor(input, "threshold", "input", 1)
    out = _m.where(input > threshold, input, value)
    return _inplace_result(input, out) if inplace else out


def hardshrink(input, lambd=0.5):
    _C.check_tensor(input, "hardshrink", "input", 1)
    return _m.where((input > lambd) | (input < -lambd), input, 0.0)


def softshrink(input, lambd=0.5):
    _C.check_tensor(input, "softshrink", "input", 1)
    return _m.where(input > lambd, input - lambd, _m.where(input < -lambd, input + lambd, 0.0))


def glu(input, dim=-1):
    _C.check_tensor(input, "glu", "input", 1)
    if input.shape[dim] % 2:
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {dim} is size {input.shape[dim]}")
    a, b = input.chunk(2, dim)
    return a * _m.sigmoid(b)


# -- the in-place spellings torch.nn.functional also has
def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold_value, value):
    _C.check_tensor(input, "threshold_", "input", 1)
    return threshold(input, threshold_value, value, inplace=True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomised leaky ReLU: in training each negative element gets a slope
    drawn from U(lower, upper); in eval the slope is their mean."""
    _check("rrelu", input)
    if training:
        from monoflow.ops_random import rand_like

        slope = rand_like(input) * (upper - lower) + lower
        out = _m.where(input >= 0, input, input * slope)
    else:
        out = leaky_relu(input, (lower + upper) / 2)
    return _inplace_result(input, out) if inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution over ``dim``: softmax((logits + g) / tau)
    with g ~ Gumbel(0, 1); ``hard`` returns the one-hot argmax with the soft sample's gradient."""
    _check("gumbel_softmax", logits)
    from monoflow.ops_random import rand_like

    # -log(Exponential(1)) is Gumbel(0, 1); an exponential sample is -log(U)
    gumbels = -(-(rand_like(logits).clamp(min=eps).log())).log()
    soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    from monoflow._creation import zeros_like

    one_hot = zeros_like(soft).scatter(dim, index, value=1.0)
    return one_hot - soft.detach() + soft
