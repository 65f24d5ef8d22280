"""Activation layers: thin Modules over nn.functional, with torch's reprs."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module
from monoflow.nn.modules._factory import empty
from monoflow.nn.modules.attention import MultiheadAttention  # noqa: F401  (torch defines it here: scripts' safe_globals lists name torch.nn.modules.activation.MultiheadAttention)
from monoflow.nn.parameter import Parameter

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax",
           "LogSoftmax", "Softmin", "Softmax2d", "Softplus", "Mish", "Hardtanh", "Hardswish", "Hardsigmoid", "PReLU",
           "Softsign", "LogSigmoid", "Tanhshrink", "Threshold", "Hardshrink", "Softshrink", "GLU", "RReLU",
           "QuickGELU"]


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """Applies the rectified linear unit elementwise: ``max(0, x)``.

    Args:
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.ReLU()(x)
        tensor([0.0000, 0.0000, 0.0000, 1.5000])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Hardtanh(Module):
    """Clamps each element into ``[min_val, max_val]`` (the gradient passes strictly inside the range).

    Raises ``AssertionError`` when ``max_val <= min_val``.

    Args:
        min_val (float): lower end of the linear range. Default: ``-1.0``.
        max_val (float): upper end of the linear range. Default: ``1.0``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.
        min_value (float, optional): torch's deprecated name of ``min_val``; overrides it when given.
        max_value (float, optional): torch's deprecated name of ``max_val``; overrides it when given.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Hardtanh(-1.0, 1.0)(x)
        tensor([-1.0000, -0.5000,  0.0000,  1.0000])
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:  # torch's deprecated keyword names
            min_val = min_value
        if max_value is not None:
            max_val = max_value
        if max_val <= min_val:
            raise AssertionError("max_val must be greater than min_val")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        s = f"min_val={self.min_val}, max_val={self.max_val}"
        return s + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """Applies ``min(max(0, x), 6)`` elementwise (a :class:`Hardtanh` on ``[0, 6]``).

    Args:
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.ReLU6()(x)
        tensor([0.0000, 0.0000, 0.0000, 1.5000])
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    """Applies ``x`` for ``x > 0`` and ``negative_slope * x`` otherwise, elementwise.

    Args:
        negative_slope (float): slope of the negative part. Default: ``0.01``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.LeakyReLU(0.1)(x)
        tensor([-0.2000, -0.0500,  0.0000,  1.5000])
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """Applies the exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Args:
        alpha (float): the value the negative part tends to is ``-alpha``. Default: ``1.0``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.ELU()(x)
        tensor([-0.8647, -0.3935,  0.0000,  1.5000])
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """Applies the continuously differentiable ELU: ``x`` for ``x > 0``, ``alpha * (exp(x / alpha) - 1)``
    otherwise.

    Args:
        alpha (float): scale of the negative part; must not be zero. Default: ``1.0``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.CELU(alpha=2.0)(x)
        tensor([-1.2642, -0.4424,  0.0000,  1.5000])
    """

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(Module):
    """Applies the self-normalising ELU: ``scale * elu(x, alpha)`` with ``alpha = 1.6733`` and ``scale =
    1.0507``.

    Args:
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.SELU()(x)
        tensor([-1.5202, -0.6918,  0.0000,  1.5761])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class GELU(Module):
    """Applies the Gaussian error linear unit ``x * Phi(x)``, ``Phi`` the standard normal CDF.

    Args:
        approximate (str): ``'none'`` for the exact erf form, ``'tanh'`` for the tanh approximation.
            Default: ``'none'``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.GELU()(x)
        tensor([-0.0455, -0.1543,  0.0000,  1.3998])
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class QuickGELU(Module):
    """Applies OneFlow's quick GELU ``x * sigmoid(1.702 * x)`` (the activation of CLIP's transformer).

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> nn.QuickGELU()(flow.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1542,  0.0000,  0.8458])
    """

    def forward(self, input):
        return F.quick_gelu(input)


class SiLU(Module):
    """Applies the sigmoid linear unit (swish) ``x * sigmoid(x)`` elementwise.

    Args:
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.SiLU()(x)
        tensor([-0.2384, -0.1888,  0.0000,  1.2264])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Mish(SiLU):
    """Applies ``x * tanh(softplus(x))`` elementwise.

    Args:
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Mish()(x)
        tensor([-0.2525, -0.2207,  0.0000,  1.4034])
    """

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(Module):
    """Applies the hard swish: ``0`` for ``x <= -3``, ``x`` for ``x >= 3``, ``x * (x + 3) / 6`` between.

    Args:
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Hardswish()(x)
        tensor([-0.3333, -0.2083,  0.0000,  1.1250])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Hardsigmoid(Hardswish):
    """Applies the hard sigmoid: ``0`` for ``x <= -3``, ``1`` for ``x >= 3``, ``x / 6 + 1 / 2`` between.

    Args:
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Hardsigmoid()(x)
        tensor([0.1667, 0.4167, 0.5000, 0.7500])
    """

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Sigmoid(Module):
    """Applies the logistic sigmoid ``1 / (1 + exp(-x))`` elementwise.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Sigmoid()(x)
        tensor([0.1192, 0.3775, 0.5000, 0.8176])
    """

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """Applies the hyperbolic tangent elementwise.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Tanh()(x)
        tensor([-0.9640, -0.4621,  0.0000,  0.9051])
    """

    def forward(self, input):
        return F.tanh(input)


class Softsign(Module):
    """Applies ``x / (1 + |x|)`` elementwise.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Softsign()(x)
        tensor([-0.6667, -0.3333,  0.0000,  0.6000])
    """

    def forward(self, input):
        return F.softsign(input)


class LogSigmoid(Module):
    """Applies ``log(sigmoid(x))`` elementwise, computed as ``-softplus(-x)`` so it stays finite for large
    ``|x|``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.LogSigmoid()(x)
        tensor([-2.1269, -0.9741, -0.6931, -0.2014])
    """

    def forward(self, input):
        return F.logsigmoid(input)


class Tanhshrink(Module):
    """Applies ``x - tanh(x)`` elementwise.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Tanhshrink()(x)
        tensor([-1.0360, -0.0379,  0.0000,  0.5949])
    """

    def forward(self, input):
        return F.tanhshrink(input)


class _SoftmaxBase(Module):
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """Applies softmax along ``dim``: the slices along ``dim`` become non-negative and sum to 1.

    Args:
        dim (int, optional): the dimension to normalise. ``None`` picks torch's legacy implicit
            dimension (0 for 0-, 1- and 3-d inputs, else 1) with a deprecation warning. Default:
            ``None``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Softmax(dim=0)(x)
        tensor([0.0217, 0.0975, 0.1607, 0.7201])
    """

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    """Applies ``log(softmax(x))`` along ``dim``, computed in one stable step.

    Args:
        dim (int, optional): the dimension to normalise; ``None`` picks torch's legacy implicit
            dimension with a deprecation warning. Default: ``None``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.LogSoftmax(dim=0)(x)
        tensor([-3.8283, -2.3283, -1.8283, -0.3283])
    """

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmin(_SoftmaxBase):
    """Applies ``softmax(-x)`` along ``dim``: large inputs get small weights.

    Args:
        dim (int, optional): the dimension to normalise; ``None`` picks torch's legacy implicit
            dimension with a deprecation warning. Default: ``None``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Softmin(dim=0)(x)
        tensor([0.7201, 0.1607, 0.0975, 0.0217])
    """

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Applies softmax over the channels (dim ``-3``) of each spatial position.

    Raises ``ValueError`` unless the input is 3-d or 4-d.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: the shape of the input.

    Example::

        >>> y = nn.Softmax2d()(flow.randn(2, 3, 4, 4))
        >>> y.shape
        monoflow.Size([2, 3, 4, 4])
        >>> flow.allclose(y.sum(1), flow.ones(2, 4, 4))
        True
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class Softplus(Module):
    """Applies ``log(1 + exp(beta * x)) / beta`` elementwise; linear where ``beta * x > threshold``.

    Args:
        beta (float): sharpness of the curve. Default: ``1.0``.
        threshold (float): above ``beta * x > threshold`` the result is ``x`` itself, for stability.
            Default: ``20.0``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Softplus()(x)
        tensor([0.1269, 0.4741, 0.6931, 1.7014])
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """Applies ``max(0, x) + a * min(0, x)`` with a learnt slope ``a`` (the parameter ``weight``).

    Args:
        num_parameters (int): 1 to share one slope across channels, or the number of channels (dim 1 of
            the
            input) for one slope each. Default: ``1``.
        init (float): initial value of the slopes. Default: ``0.25``.
        device (optional): device of ``weight``. Default: the current default device.
        dtype (optional): dtype of ``weight``. Default: the default floating dtype.

    Shape:
        - Input: ``(*)``; with ``num_parameters > 1``, ``(N, C, *)`` with ``C == num_parameters``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.PReLU()
        >>> m.weight.shape
        monoflow.Size([1])
        >>> m(flow.tensor([-2.0, 1.0]))
        tensor([-0.5000,  1.0000], grad_fn=<WhereBackward0>)
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        from monoflow.nn import init as _init

        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Threshold(Module):
    """Replaces each element that is not greater than ``threshold`` with ``value``.

    Args:
        threshold (float): the elements ``<= threshold`` are replaced.
        value (float): the replacement value.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Threshold(0.1, 20.0)(x)
        tensor([20.0000, 20.0000, 20.0000,  1.5000])
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class Hardshrink(Module):
    """Keeps the elements with ``|x| > lambd`` and sets the others to 0.

    Args:
        lambd (float): the half-width of the zeroed band. Default: ``0.5``.
        inplace (bool): write the result into the input tensor (OneFlow's argument). Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Hardshrink()(x)
        tensor([-2.0000,  0.0000,  0.0000,  1.5000])
    """

    def __init__(self, lambd=0.5, inplace=False):
        super().__init__()
        self.lambd = lambd
        self.inplace = inplace

    def forward(self, input):
        return F.hardshrink(input, self.lambd, self.inplace)

    def extra_repr(self):
        return f"{self.lambd}" + (", inplace=True" if self.inplace else "")


class Softshrink(Hardshrink):
    """Shrinks towards zero by ``lambd``: ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0
    between.

    Args:
        lambd (float): the amount of shrinkage, ``>= 0``. Default: ``0.5``.
        inplace (bool): write the result into the input tensor (OneFlow's argument). Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> x = flow.tensor([-2.0, -0.5, 0.0, 1.5])
        >>> nn.Softshrink()(x)
        tensor([-1.5000,  0.0000,  0.0000,  1.0000])
    """

    def forward(self, input):
        return F.softshrink(input, self.lambd, self.inplace)


class GLU(Module):
    """Applies the gated linear unit: splits the input in halves ``a, b`` along ``dim`` and returns ``a *
    sigmoid(b)``.

    Args:
        dim (int): the dimension to split; its size must be even. Default: ``-1``.

    Shape:
        - Input: ``(*, 2M, *)``, the size along ``dim`` even.
        - Output: ``(*, M, *)``.

    Example::

        >>> nn.GLU()(flow.randn(4, 6)).shape
        monoflow.Size([4, 3])
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class RReLU(Module):
    """Applies the randomised leaky ReLU: in training each negative element gets a slope drawn from
    ``U(lower, upper)``; in eval mode the slope is ``(lower + upper) / 2``.

    Args:
        lower (float): lower bound of the random slope. Default: ``1/8``.
        upper (float): upper bound of the random slope. Default: ``1/3``.
        inplace (bool): write the result into the input tensor and return it. Default: ``False``.

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the shape of the input.

    Example::

        >>> m = nn.RReLU(0.1, 0.3).eval()
        >>> m(flow.tensor([-1.0, 2.0]))
        tensor([-0.2000,  2.0000])
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")
