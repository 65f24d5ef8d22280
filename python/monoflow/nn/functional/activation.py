"""Activation functions of torch.nn.functional. The pointwise math is the core's
(relu, gelu, silu, softplus, sigmoid, tanh) or monoflow._activations'
compositions; this module adds the nn-only argument forms (inplace, dim=None
for softmax, PReLU's per-channel weight)."""
import warnings

from monoflow import _C, _autocast, _composite
from monoflow import ops_math as _m
from monoflow import ops_reduce as _r
from monoflow._activations import (  # noqa: F401 - re-exported
    celu, elu, hardsigmoid, hardswish, hardtanh, leaky_relu, logsigmoid, mish, relu6, selu, softsign,
)

__all__ = ["relu", "relu_", "gelu", "silu", "sigmoid", "tanh", "softplus", "softmax", "log_softmax", "softmin",
           "prelu", "tanhshrink", "threshold", "hardshrink", "softshrink", "glu",
           "celu", "elu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "logsigmoid", "mish", "relu6",
           "selu", "softsign", "elu_", "celu_", "selu_", "leaky_relu_", "hardtanh_", "threshold_", "rrelu",
           "rrelu_", "gumbel_softmax", "quick_gelu"]


def _check(name, x):
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(x).__name__}")


def _in_place(input, compute):
    """The in-place form of a composition: ``compute`` out of place, then written back.
    When autograd records it, compute reads a copy of the input: the ops it records save
    what they read, and the write-back would change that under them (torch's in-place ops
    save the original too)."""
    source = input.clone() if input.requires_grad and _C.is_grad_enabled() else input
    return input.copy_(compute(source))


def relu(input, inplace=False):
    """Rectified linear unit, ``max(0, x)`` elementwise. See :class:`~monoflow.nn.ReLU`.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.relu(x)
        tensor([0.0000, 0.0000, 0.0000, 1.5000])
    """
    _check("relu", input)
    if inplace:
        return input.relu_()
    return _m.relu(input)


def relu_(input):
    """In-place version of :func:`relu`: ``F.relu_(input)`` writes ``max(0, input)`` into ``input`` and
    returns it.
    """
    return relu(input, inplace=True)


def gelu(input, approximate="none"):
    """Gaussian error linear unit ``x * Phi(x)`` elementwise. See :class:`~monoflow.nn.GELU`.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        approximate (str): ``'none'`` (exact, with erf) or ``'tanh'`` (tanh approximation); anything
            else raises ``ValueError``. Default: ``'none'``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.gelu(x, approximate='tanh')
        tensor([-0.0454, -0.1543,  0.0000,  1.3996])
    """
    _check("gelu", input)
    if not isinstance(approximate, str) or approximate not in ("none", "tanh"):
        raise ValueError(f"gelu(): approximate must be 'none' or 'tanh', got {approximate!r}")
    return _m.gelu(input, approximate=approximate)


def quick_gelu(input):
    """OneFlow's quick GELU ``x * sigmoid(1.702 * x)`` elementwise (CLIP's activation). See
    :class:`~monoflow.nn.QuickGELU`.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.

    Example::

        >>> F.quick_gelu(flow.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1542,  0.0000,  0.8458])
    """
    _check("quick_gelu", input)
    return input * _m.sigmoid(input * 1.702)


def silu(input, inplace=False):
    """Sigmoid linear unit ``x * sigmoid(x)`` elementwise. See :class:`~monoflow.nn.SiLU`.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.silu(x)
        tensor([-0.2384, -0.1888,  0.0000,  1.2264])
    """
    _check("silu", input)
    return _in_place(input, _m.silu) if inplace else _m.silu(input)


def sigmoid(input):
    """Logistic sigmoid ``1 / (1 + exp(-x))`` elementwise (same values as :func:`monoflow.sigmoid`).

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.sigmoid(x)
        tensor([0.1192, 0.3775, 0.5000, 0.8176])
    """
    _check("sigmoid", input)
    return _m.sigmoid(input)


def tanh(input):
    """Hyperbolic tangent elementwise (same values as :func:`monoflow.tanh`).

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.tanh(x)
        tensor([-0.9640, -0.4621,  0.0000,  0.9051])
    """
    _check("tanh", input)
    return _m.tanh(input)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta`` elementwise; ``x`` itself where ``beta * x > threshold``.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        beta (float): sharpness. Default: ``1.0``.
        threshold (float): the linear region starts where ``beta * x > threshold``. Default: ``20.0``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.softplus(x)
        tensor([0.1269, 0.4741, 0.6931, 1.7014])
    """
    _check("softplus", input)
    return _m.softplus(input, beta, threshold)


def _softmax_dim(name, ndim):
    # torch's legacy implicit dim, with the same deprecation warning.
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along ``dim``: ``exp(x) / exp(x).sum(dim)``, computed stably.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to normalise. ``None`` uses torch's legacy implicit choice (0
            for 0-, 1- and 3-d inputs, else 1) and warns. Default: ``None``.
        _stacklevel (int): kept for torch compatibility; unused.
        dtype (monoflow.dtype, optional): cast the input to this dtype first. Default: ``None``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.softmax(x, dim=0)
        tensor([0.0217, 0.0975, 0.1607, 0.7201])
    """
    _check("softmax", input)
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    return _r.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably in one step.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to normalise; ``None`` uses the legacy implicit choice and
            warns. Default: ``None``.
        _stacklevel (int): kept for torch compatibility; unused.
        dtype (monoflow.dtype, optional): cast the input to this dtype first. Default: ``None``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.log_softmax(x, dim=0)
        tensor([-3.8283, -2.3283, -1.8283, -0.3283])
    """
    _check("log_softmax", input)
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    return _r.log_softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)`` along ``dim``.

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to normalise; ``None`` uses the legacy implicit choice and
            warns. Default: ``None``.
        _stacklevel (int): kept for torch compatibility; unused.
        dtype (monoflow.dtype, optional): cast the input to this dtype first. Default: ``None``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.softmin(x, dim=0)
        tensor([0.7201, 0.1607, 0.0975, 0.0217])
    """
    _check("softmin", input)
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return _r.softmax(-input, dim, dtype=dtype)


@_autocast.lower
def prelu(input, weight):
    """``max(0, x) + weight * min(0, x)`` elementwise, with a learnt slope. See
    :class:`~monoflow.nn.PReLU`.

    Args:
        input (Tensor): the input; the channels are dim 1 (dim 0 for a 1-d input).
        weight (Tensor): one slope (``numel() == 1``) or one per channel; a mismatch raises
            ``RuntimeError``.

    Example::

        >>> F.prelu(flow.tensor([[-2.0, 1.0]]), flow.tensor([0.5]))
        tensor([[-1.,  1.]])
    """
    _C.check_tensor(input, "prelu", "input", 1)
    _C.check_tensor(weight, "prelu", "weight", 2)
    _check("prelu", input)
    if weight.numel() != 1:
        if input.dim() == 0 or input.shape[1 if input.dim() > 1 else 0] != weight.numel():
            channels = input.shape[1] if input.dim() > 1 else (input.shape[0] if input.dim() else 1)
            # (OneFlow's wording first, then torch's numbers)
            raise RuntimeError(f"prelu: num_parameters in prelu must be 1 or {channels}: mismatch of parameter "
                               f"numbers and input channel size. Found parameter numbers = {weight.numel()} and "
                               f"channel size = {channels}.")
        if input.dim() > 1:
            weight = weight.reshape([weight.numel()] + [1] * (input.dim() - 2))
    return _m.where(input > 0, input, weight * input)


def tanhshrink(input):
    """``x - tanh(x)`` elementwise.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.tanhshrink(x)
        tensor([-1.0360, -0.0379,  0.0000,  0.5949])
    """
    return input - _m.tanh(input)


def threshold(input, threshold, value, inplace=False):
    """Replaces the elements ``<= threshold`` with ``value``.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        threshold (float): the elements not greater than it are replaced.
        value (float): the replacement.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.threshold(x, 0.0, -1.0)
        tensor([-1.0000, -1.0000, -1.0000,  1.5000])
    """
    _C.check_tensor(input, "threshold", "input", 1)
    _C.check_float(threshold, "threshold", "threshold", 2)
    _C.check_float(value, "threshold", "value", 3)
    inplace = _composite.flag("threshold", "inplace", inplace)
    def compute(x):  # (formal_input: autograd.h, Note [Formal inputs of piecewise-linear backward])
        return _C.formal_input("threshold", _m.where(x > threshold, x, value), x)
    return _in_place(input, compute) if inplace else compute(input)


def hardshrink(input, lambd=0.5, inplace=False):
    """Keeps the elements with ``|x| > lambd``, zeroes the rest.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        lambd (float): half-width of the zeroed band. Default: ``0.5``.
        inplace (bool): write the result into the input tensor and return it (OneFlow's argument).
            Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.hardshrink(x)
        tensor([-2.0000,  0.0000,  0.0000,  1.5000])
    """
    _C.check_tensor(input, "hardshrink", "input", 1)
    _C.check_float(lambd, "hardshrink", "lambd", 2)

    def compute(x):
        return _C.formal_input("hardshrink", _m.where((x >= -lambd) & (x <= lambd), 0.0, x), x)
    return _in_place(input, compute) if inplace else compute(input)


def softshrink(input, lambd=0.5, inplace=False):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        lambd (float): the shrinkage, ``>= 0`` (else ``RuntimeError``). Default: ``0.5``.
        inplace (bool): write the result into the input tensor and return it (OneFlow's argument).
            Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.softshrink(x)
        tensor([-1.5000,  0.0000,  0.0000,  1.0000])
    """
    _C.check_tensor(input, "softshrink", "input", 1)
    if _C.check_float(lambd, "softshrink", "lambd", 2) < 0:
        raise RuntimeError(f"softshrink: lambd must be greater or equal to 0, but found to be {lambd}.")

    def compute(x):
        # (NaN fails both range tests and stays NaN, as in torch)
        out = _m.where((x >= -lambd) & (x <= lambd), 0.0, _m.where(x > 0, x - lambd, x + lambd))
        return _C.formal_input("softshrink", out, x)
    return _in_place(input, compute) if inplace else compute(input)


def glu(input, dim=-1):
    """Gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the two halves of ``input`` along ``dim``.

    Args:
        input (Tensor): the input; its size along ``dim`` must be even (else ``RuntimeError``).
        dim (int): the dimension to halve. Default: ``-1``.

    Example::

        >>> F.glu(flow.tensor([1.0, 2.0, 0.0, 0.0]))
        tensor([0.5000, 1.0000])
    """
    _C.check_tensor(input, "glu", "input", 1)
    if input.dim() == 0:  # (torch's and OneFlow's check and wording)
        raise RuntimeError("glu: glu does not support scalars because halving size must be even")
    size = input.size(dim)  # (a bad dim: refused by name)
    if size % 2:  # the dim as torch and OneFlow name it: wrapped
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {dim % input.dim()} is size {size}")
    a, b = input.chunk(2, dim)
    return a * _m.sigmoid(b)


# -- the in-place spellings torch.nn.functional also has
def elu_(input, alpha=1.0):
    """In-place version of :func:`elu`: ``F.elu_(input, alpha=1.0)`` writes the result into ``input``."""
    return elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    """In-place version of :func:`celu`: ``F.celu_(input, alpha=1.0)`` writes the result into ``input``."""
    return celu(input, alpha, inplace=True)


def selu_(input):
    """In-place version of :func:`selu`: ``F.selu_(input)`` writes the result into ``input``."""
    return selu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    """In-place version of :func:`leaky_relu`: ``F.leaky_relu_(input, negative_slope=0.01)`` writes the
    result into ``input``.
    """
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place version of :func:`hardtanh`: ``F.hardtanh_(input, min_val=-1.0, max_val=1.0)`` writes the
    result into ``input``.
    """
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold_value, value):
    """In-place version of :func:`threshold`: ``F.threshold_(input, threshold_value, value)`` writes the
    result into ``input``.
    """
    _C.check_tensor(input, "threshold_", "input", 1)
    _C.check_float(threshold_value, "threshold_", "threshold", 2)  # (torch's name for it)
    return threshold(input, threshold_value, value, inplace=True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomised leaky ReLU. In training each negative element gets a slope drawn from ``U(lower,
    upper)``; otherwise the slope is ``(lower + upper) / 2``. See :class:`~monoflow.nn.RReLU`.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        lower (float): lower bound of the slope. Default: ``1/8``.
        upper (float): upper bound of the slope. Default: ``1/3``.
        training (bool): draw random slopes (``True``) or use their mean. Default: ``False``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.rrelu(x, 0.1, 0.3)
        tensor([-0.4000, -0.1000,  0.0000,  1.5000])
    """
    _check("rrelu", input)
    _C.check_float(lower, "rrelu", "lower", 2)
    _C.check_float(upper, "rrelu", "upper", 3)
    if not input.dtype.is_floating_point:
        raise TypeError(_C.name_op_in_progress(f"expected a floating-point tensor, got {input.dtype}"))  # (or rrelu_)
    def compute(x):
        if not training:
            return leaky_relu(x, (lower + upper) / 2)
        from monoflow.ops_random import rand_like

        slope = rand_like(x) * (upper - lower) + lower
        return _m.where(x >= 0, x, x * slope)
    return _in_place(input, compute) if inplace else compute(input)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place version of :func:`rrelu`: ``F.rrelu_(input, lower=1/8, upper=1/3, training=False)`` writes
    the result into ``input``.
    """
    return rrelu(input, lower, upper, training, inplace=True)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Draws a sample of the Gumbel-softmax distribution over ``dim``: ``softmax((logits + g) / tau)`` with
    ``g ~ Gumbel(0, 1)``.

    Args:
        logits (Tensor): unnormalised log-probabilities.
        tau (float): the temperature; small values give samples close to one-hot. Default: ``1.0``.
        hard (bool): return the one-hot argmax of the sample, with the soft sample's gradient
            (straight-through).
            Default: ``False``.
        eps (float): lower clamp of the uniform noise, keeps ``log`` finite. Default: ``1e-10``.
        dim (int): the dimension of the categories. Default: ``-1``.

    Example::

        >>> y = F.gumbel_softmax(flow.randn(2, 5), tau=0.5, hard=True)
        >>> y.shape, y.sum(-1)
        (monoflow.Size([2, 5]), tensor([1., 1.]))
    """
    _check("gumbel_softmax", logits)
    _C.check_float(tau, "gumbel_softmax", "tau", 2)
    _C.check_float(eps, "gumbel_softmax", "eps", 4)
    if not logits.dtype.is_floating_point:
        raise RuntimeError(f"gumbel_softmax(): expected a floating-point tensor, got {logits.dtype}")
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
