"""nn.quantized's FloatFunctional: the module quantization-ready models call for their additions,
concatenations and multiplications, so that a converted model can swap in quantized arithmetic.

Unconverted, it computes in float and passes each observed result through
``activation_post_process`` (an Identity), as torch's does; monoflow has no
quantized tensors, so nothing converts it."""
from monoflow._functional import add, matmul, mul
from monoflow.ops_shape import cat
from monoflow.nn.functional import relu
from monoflow.nn.modules import Identity
from monoflow.nn.module import Module

__all__ = ["FloatFunctional"]


class FloatFunctional(Module):
    """Float arithmetic as methods (``add``, ``add_scalar``, ``mul``, ``mul_scalar``, ``cat``, ``add_relu``,
    ``matmul``); calling the module itself is an error, as in torch.

    Example::

        >>> f = flow.nn.quantized.FloatFunctional()
        >>> f.add_relu(flow.tensor([1.0, -3.0]), flow.tensor([1.0, 1.0]))
        tensor([2., 0.])
        >>> f.cat([flow.ones(1), flow.zeros(1)])
        tensor([1., 0.])
    """

    def __init__(self):
        super().__init__()
        self.activation_post_process = Identity()

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use the underlying "
                           "operation")

    def add(self, x, y):
        return self.activation_post_process(add(x, y))

    def add_scalar(self, x, y):
        # a scalar addition is not observed (it keeps the input's quantization)
        return add(x, y)

    def mul(self, x, y):
        return self.activation_post_process(mul(x, y))

    def mul_scalar(self, x, y):
        return mul(x, y)

    def cat(self, x, dim=0):
        return self.activation_post_process(cat(x, dim=dim))

    def add_relu(self, x, y):
        return self.activation_post_process(relu(add(x, y)))

    def matmul(self, x, y):
        return self.activation_post_process(matmul(x, y))
