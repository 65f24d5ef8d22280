"""Normal (Gaussian) distribution with mean ``loc`` and standard deviation ``scale``."""
import math
import numbers

from monoflow._tensor import Size
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.utils import broadcast_all
from monoflow.ops_math import erf, log
from monoflow.ops_random import normal, randn
from monoflow.ops_special import erfinv


class LocationScale(Distribution):
    """A family with a real location ``loc`` and a positive ``scale``, broadcast
    together (Normal, Laplace): its batch shape, mean and mode."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        both_numbers = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(Size() if both_numbers else self.loc.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class Normal(LocationScale):
    """``rsample`` draws ``loc + scale * eps`` so that gradients reach loc and scale (a VAE's reparameterization).

    Example::

        >>> m = flow.distributions.Normal(flow.tensor([0.0]), flow.tensor([1.0]))
        >>> m.log_prob(flow.tensor([0.0]))
        tensor([-0.9189])
    """


    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + log(self.scale)
