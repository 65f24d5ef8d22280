"""LayerNorm, GroupNorm, RMSNorm and LocalResponseNorm."""
import numbers

from monoflow.nn import functional as F
from monoflow.nn.module import Module
from monoflow.nn import init
from monoflow.nn.modules._factory import affine_parameters, empty, reset_affine
from monoflow.nn.parameter import Parameter

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "RMSLayerNorm", "LocalResponseNorm"]


class LayerNorm(Module):
    """Layer normalisation: normalises each sample over its trailing ``normalized_shape`` dims, then
    applies an elementwise affine map: ``y = (x - mean) / sqrt(var + eps) * weight + bias`` (biased
    variance).

    Args:
        normalized_shape (int or sequence of int): the trailing dims to normalise over.
        eps (float): added to the variance for stability. Default: ``1e-5``.
        elementwise_affine (bool): learn ``weight`` (ones) and ``bias`` (zeros) of shape
            ``normalized_shape``. Default: ``True``.
        bias (bool): with ``elementwise_affine``, also learn the bias. Default: ``True``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.

    Shape:
        - Input: ``(*, *normalized_shape)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.LayerNorm(8)
        >>> y = m(flow.randn(2, 5, 8))
        >>> y.shape
        monoflow.Size([2, 5, 8])
        >>> flow.allclose(y.mean(-1), flow.zeros(2, 5), atol=1e-5)
        True
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Group normalisation: splits the channels of each sample into ``num_groups`` groups and normalises
    each group, then applies a per-channel affine map.

    Args:
        num_groups (int): the number of groups; must divide ``num_channels`` (else ``ValueError``).
        num_channels (int): the number of channels ``C`` of the input.
        eps (float): added to the variance for stability. Default: ``1e-5``.
        affine (bool): learn a per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``True``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.
        bias (bool): with ``affine``, also learn the bias (keyword only). Default: ``True``.

    Shape:
        - Input: ``(N, C, *)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.GroupNorm(2, 6)
        >>> m(flow.randn(4, 6, 5, 5)).shape
        monoflow.Size([4, 6, 5, 5])
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        affine_parameters(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalisation: ``x / sqrt(mean(x ** 2) + eps) * weight`` over the trailing
    ``normalized_shape`` dims.

    Args:
        normalized_shape (int or sequence of int): the trailing dims to normalise over.
        eps (float, optional): added to the mean square; ``None`` uses the machine epsilon of the
            input's dtype, as torch. Default: ``None``.
        elementwise_affine (bool): learn a ``weight`` (ones) of shape ``normalized_shape``. Default:
            ``True``.
        device (optional): the device of ``weight``. Default: the default device.
        dtype (optional): the dtype of ``weight``. Default: the default floating dtype.

    Shape:
        - Input: ``(*, *normalized_shape)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.RMSNorm(4)
        >>> m(flow.tensor([[1.0, -1.0, 1.0, -1.0]]))
        tensor([[ 1., -1.,  1., -1.]], grad_fn=<MulBackward0>)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(*self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class RMSLayerNorm(RMSNorm):
    """OneFlow's T5-style layer norm (``nn.RMSLayerNorm``): no mean subtraction and no bias,
    ``x / sqrt(mean(x ** 2, -1) + eps) * weight`` over the last dim; an :class:`RMSNorm` of
    ``hidden_size`` with ``eps`` (also readable as ``variance_epsilon``).

    Args:
        hidden_size (int): the size of the last dim (``weight``'s shape, initialised to ones).
        eps (float): added to the mean square. Default: ``1e-6``.

    Shape:
        - Input: ``(*, hidden_size)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.RMSLayerNorm(2)
        >>> m(flow.tensor([[3.0, -3.0]])).detach().round()
        tensor([[ 1., -1.]])
    """

    def __init__(self, hidden_size, eps=1e-6):
        super().__init__(hidden_size, eps=eps)

    @property
    def variance_epsilon(self):
        return self.eps


class LocalResponseNorm(Module):
    """Local response normalisation: each element is divided by ``(k + alpha / size * sum of x ** 2 over
    `size` neighbouring channels) ** beta``.

    Args:
        size (int): the number of neighbouring channels in the sum.
        alpha (float): the multiplicative factor. Default: ``1e-4``.
        beta (float): the exponent. Default: ``0.75``.
        k (float): the additive constant. Default: ``1.0``.

    Shape:
        - Input: ``(N, C, *)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.LocalResponseNorm(2)
        >>> m(flow.randn(2, 4, 5, 5)).shape
        monoflow.Size([2, 4, 5, 5])
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"

