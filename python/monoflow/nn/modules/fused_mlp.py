"""OneFlow's nn.FusedMLP: a stack of Linear layers with ReLU between them, as one module over
``_C.fused_mlp`` (OneFlow's fused CUDA kernel; here the unfused math on any device)."""
import math

from monoflow import _oneflow_functional
from monoflow.nn import init
from monoflow.nn.module import Module
from monoflow.nn.modules._factory import empty
from monoflow.nn.parameter import Parameter

__all__ = ["FusedMLP"]


class FusedMLP(Module):
    """Linear layers ``x = relu(x @ weight_i.T + bias_i)`` one after another (OneFlow's ``nn.FusedMLP``);
    the last layer without the ReLU when ``skip_final_activation``.

    The parameters are ``weight_0, bias_0, ..., weight_n, bias_n`` (``n = len(hidden_features)``),
    ``weight_i`` of shape ``(out_i, in_i)``, initialised as :class:`Linear`'s (OneFlow's names, so its
    checkpoints load); ``weights()`` and ``biases()`` list them.

    Args:
        in_features (int): the size of each input sample.
        hidden_features (sequence of int): the output size of each hidden layer (may be empty: one layer).
        out_features (int): the output size of the last layer.
        skip_final_activation (bool): leave the last layer's output without the ReLU. Default: ``False``.

    Shape:
        - Input: ``(N, in_features)``.
        - Output: ``(N, out_features)``.

    Example::

        >>> m = nn.FusedMLP(8, [16, 4], 2)
        >>> m(flow.randn(3, 8)).shape, [tuple(w.shape) for w in m.weights()]
        (monoflow.Size([3, 2]), [(16, 8), (4, 16), (2, 4)])
    """

    def __init__(self, in_features, hidden_features, out_features, skip_final_activation=False):
        super().__init__()
        self.in_features = in_features
        self.hidden_features = hidden_features
        self.out_features = out_features
        self.skip_final_activation = skip_final_activation
        self.hidden_layer_num = len(hidden_features)
        sizes = [in_features, *hidden_features, out_features]
        for i in range(self.hidden_layer_num + 1):
            self.register_parameter(f"weight_{i}", Parameter(empty(sizes[i + 1], sizes[i])))
            self.register_parameter(f"bias_{i}", Parameter(empty(sizes[i + 1])))
        self.reset_parameters()

    def weight(self, i):
        return getattr(self, f"weight_{i}")

    def weights(self):
        return [self.weight(i) for i in range(self.hidden_layer_num + 1)]

    def bias(self, i):
        return getattr(self, f"bias_{i}")

    def biases(self):
        return [self.bias(i) for i in range(self.hidden_layer_num + 1)]

    def reset_parameters(self):
        # each layer as Linear's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias
        for w, b in zip(self.weights(), self.biases()):
            init.kaiming_uniform_(w, a=math.sqrt(5))
            fan_in = w.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(b, -bound, bound)

    def forward(self, x):
        return _oneflow_functional.fused_mlp(x, self.weights(), self.biases(), self.skip_final_activation)

    def extra_repr(self):
        return (f"in_features={self.in_features}, hidden_features={self.hidden_features}, "
                f"out_features={self.out_features}, skip_final_activation={self.skip_final_activation}")
