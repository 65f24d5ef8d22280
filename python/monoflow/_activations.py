"""Activation functions that torch has in torch.nn.functional only (plus selu
and celu, which torch also has at the top level), as compositions of the
differentiable math ops; monoflow.nn.functional imports them.

The piecewise-linear ones (leaky_relu, hardtanh, relu6, hardsigmoid) pass their result
through ``_C.formal_input``, so that under create_graph their gradient is
connected to the input as torch's native backward is (autograd.h, Note
[Formal inputs of piecewise-linear backward]).

The compositions reproduce torch's gradients at the kinks too: hardtanh and
relu6 pass the gradient strictly inside (min_val, max_val), hardsigmoid
strictly inside (-3, 3), hardswish uses x/3 + 1/2 on (-3, 3), leaky_relu
gives negative_slope at 0 and elu alpha at 0.

``inplace=True`` writes the result into ``input`` with ``copy_`` (so the
usual in-place rules apply: a leaf that requires grad is refused). When
``input`` records history, the result is computed from a copy of it, so that
no recorded op has saved the tensor being overwritten.
"""
from monoflow import _C, _composite, _dtypes
from monoflow import ops_math as _m

__all__ = ["leaky_relu", "elu", "selu", "celu", "hardtanh", "relu6", "hardsigmoid", "hardswish", "mish",
           "logsigmoid", "softsign"]

# The SELU constants (Klambauer et al., 2017).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check(name, x):
    if not _C.check_tensor(x, name).dtype.is_floating_point:
        # named after the op the user called (multilabel_soft_margin_loss over logsigmoid)
        raise TypeError(_C.name_op_in_progress(f"expected a floating-point tensor, got {x.dtype}"))


def _source(x, inplace):
    # (inplace checked here, before any work: the op in progress is named)
    return x.clone() if _composite.flag(None, "inplace", inplace) and x.requires_grad else x


def _result(x, out, inplace):
    return x.copy_(out) if inplace else out


def _wide(x):
    # float16/bfloat16: the composition runs in float32 and rounds once at the end (as torch's and OneFlow's
    # kernels compute these activations), not once per step
    return x.float() if x.dtype in (_dtypes.float16, _dtypes.bfloat16) else x


def _narrow(out, like):
    return out.to(like.dtype) if out.dtype != like.dtype else out


def _negative_part(x, alpha, input_scale):
    # alpha * (exp(x * input_scale) - 1) for x <= 0; the clamp keeps the
    # branch where() discards finite, so that its zero gradient stays zero.
    z = x.clamp(max=0)
    if input_scale != 1.0:
        z = z * input_scale
    return _m.expm1(z) * alpha


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise, elementwise. See
    :class:`~monoflow.nn.LeakyReLU`.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        negative_slope (float): slope of the negative part. Default: ``0.01``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.leaky_relu(x, 0.1)
        tensor([-0.2000, -0.0500,  0.0000,  1.5000])
    """
    _check("leaky_relu", input)
    if not (isinstance(negative_slope, _C.TensorBase) and negative_slope.dim() == 0):  # (torch's Number: 0-dim too)
        _composite.number("leaky_relu", "negative_slope", 2, negative_slope)  # (else Python's '*' message)
    x = _source(input, inplace)
    return _result(input, _C.formal_input("leaky_relu", _m.where(x > 0, x, x * negative_slope), x), inplace)


def elu(input, alpha=1.0, inplace=False):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise. See
    :class:`~monoflow.nn.ELU`.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        alpha (float): scale of the negative part. Default: ``1.0``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.elu(x)
        tensor([-0.8647, -0.3935,  0.0000,  1.5000])
    """
    _check("elu", input)
    _C.check_float(alpha, "elu", "alpha", 2)
    x = _source(input, inplace)
    return _result(input, _m.where(x > 0, x, _negative_part(x, alpha, 1.0)), inplace)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants."""
    _check("selu", input)
    x = _source(input, inplace)
    return _result(input, _m.where(x > 0, x, _negative_part(x, _SELU_ALPHA, 1.0)) * _SELU_SCALE, inplace)


def celu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise."""
    _check("celu", input)
    if _C.check_float(alpha, "celu", "alpha", 2) == 0:
        raise ValueError("celu: alpha must not be zero")
    x = _source(input, inplace)
    return _result(input, _m.where(x > 0, x, _negative_part(x, alpha, 1.0 / alpha)), inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamps into ``[min_val, max_val]``; the gradient passes strictly inside. ``min_val > max_val``
    raises ``ValueError``.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        min_val (float): lower bound. Default: ``-1.0``.
        max_val (float): upper bound. Default: ``1.0``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.hardtanh(x)
        tensor([-1.0000, -0.5000,  0.0000,  1.0000])
    """
    _check("hardtanh", input)
    if _C.check_float(min_val, "hardtanh", "min_val", 2) > _C.check_float(max_val, "hardtanh", "max_val", 3):
        raise ValueError("hardtanh: min_val cannot be greater than max_val")
    x = _source(input, inplace)
    out = _m.where(x <= min_val, min_val, _m.where(x >= max_val, max_val, x))
    return _result(input, _C.formal_input("hardtanh", out, x), inplace)


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)`` elementwise.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.relu6(x * 4)
        tensor([0., 0., 0., 6.])
    """
    _check("relu6", input)
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input, inplace=False):
    """Hard sigmoid: 0 for ``x <= -3``, 1 for ``x >= 3``, ``x / 6 + 1/2`` between.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.hardsigmoid(x)
        tensor([0.1667, 0.4167, 0.5000, 0.7500])
    """
    _check("hardsigmoid", input)
    x = _source(input, inplace)
    out = _m.where(x <= -3, 0.0, _m.where(x >= 3, 1.0, x / 6 + 0.5))
    # (torch has no second derivative here; OneFlow's is 0)
    return _result(input, _C.formal_input("hardsigmoid", out, x), inplace)


def hardswish(input, inplace=False):
    """Hard swish: 0 for ``x <= -3``, ``x`` for ``x >= 3``, ``x * (x + 3) / 6`` between.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.hardswish(x)
        tensor([-0.3333, -0.2083,  0.0000,  1.1250])
    """
    _check("hardswish", input)
    x = _source(input, inplace)
    w = _wide(x)
    out = _narrow(_m.where(w <= -3, 0.0, _m.where(w < 3, w * (w + 3) / 6, w)), x)
    return _result(input, out, inplace)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))`` elementwise.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.mish(x)
        tensor([-0.2525, -0.2207,  0.0000,  1.4034])
    """
    _check("mish", input)
    x = _source(input, inplace)
    w = _wide(x)
    return _result(input, _narrow(w * _m.tanh(_m.softplus(w)), x), inplace)


def logsigmoid(input):
    """``log(sigmoid(x))`` elementwise, as ``-softplus(-x)``: finite for large ``|x|``.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.logsigmoid(x)
        tensor([-2.1269, -0.9741, -0.6931, -0.2014])
    """
    _check("logsigmoid", input)
    return _m.softplus(input, -1.0, 20.0)


def softsign(input):
    """``x / (1 + |x|)`` elementwise.

    Args:
        input (Tensor): the input, a floating-point tensor of any shape.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> F.softsign(x)
        tensor([-0.6667, -0.3333,  0.0000,  0.6000])
    """
    _check("softsign", input)
    w = _wide(input)
    return _narrow(w / (_m.abs(w) + 1), input)
