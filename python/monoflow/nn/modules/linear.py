"""Identity, Linear, Bilinear."""
import math

from monoflow.nn import functional as F
from monoflow.nn import init
from monoflow.nn.module import Module
from monoflow.nn.modules._factory import empty
from monoflow.nn.parameter import Parameter

__all__ = ["Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    """Returns its input unchanged: a placeholder layer (any constructor arguments are accepted and
    ignored).

    Args:
        args: ignored.
        kwargs: ignored.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: the input itself.

    Example::

        >>> m = nn.Identity(54, unused_argument=0.1)
        >>> x = flow.randn(2, 3)
        >>> m(x) is x
        True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """Applies an affine map to the last dimension: ``y = x @ weight.T + bias``.

    Args:
        in_features (int): the size of each input sample.
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input: ``(*, in_features)``.
        - Output: ``(*, out_features)``.
        - Weight: ``(out_features, in_features)``; bias: ``(out_features,)``. Both start as
          ``U(-1/sqrt(in_features), 1/sqrt(in_features))``, as in torch.

    Example::

        >>> m = nn.Linear(20, 30)
        >>> m(flow.randn(128, 20)).shape
        monoflow.Size([128, 30])
        >>> m
        Linear(in_features=20, out_features=30, bias=True)
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # torch's default: kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)), same bound for bias
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A :class:`Linear` under the name torch gives ``MultiheadAttention.out_proj`` (for checkpoints and
    reprs); it behaves as Linear.

    Args:
        in_features (int): the size of each input sample.
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input: ``(*, in_features)``.
        - Output: ``(*, out_features)``.

    Example::

        >>> m = nn.NonDynamicallyQuantizableLinear(4, 2)
        >>> isinstance(m, nn.Linear), m(flow.randn(3, 4)).shape
        (True, monoflow.Size([3, 2]))
    """


class Bilinear(Module):
    """Applies a bilinear map of two inputs: ``y[k] = x1 @ weight[k] @ x2 + bias[k]``.

    Args:
        in1_features (int): the size of each first input sample.
        in2_features (int): the size of each second input sample.
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - Input1: ``(*, in1_features)``; Input2: ``(*, in2_features)`` with the same leading dims.
        - Output: ``(*, out_features)``.
        - Weight: ``(out_features, in1_features, in2_features)``; weight and bias start as
          ``U(-1/sqrt(in1_features), 1/sqrt(in1_features))``.

    Example::

        >>> m = nn.Bilinear(5, 6, 3)
        >>> m(flow.randn(8, 5), flow.randn(8, 6)).shape
        monoflow.Size([8, 3])
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in1_features, in2_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
