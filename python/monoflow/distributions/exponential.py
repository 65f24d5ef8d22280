"""Exponential (rate) and Laplace (loc, scale): closed-form families with reparameterized samplers."""
import numbers

from monoflow._creation import zeros_like
from monoflow._tensor import Size
from monoflow._type_info import finfo
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.normal import LocationScale
from monoflow.distributions.utils import broadcast_all
from monoflow.ops_math import exp, expm1, log, log1p
from monoflow.ops_random import rand


def _uniform_open(shape, like):
    # a draw in (0, 1): the logs below must stay finite
    eps = finfo(like.dtype).eps
    return rand(shape, dtype=like.dtype, device=like.device).clamp(min=eps, max=1 - eps)


class Exponential(Distribution):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(Size() if isinstance(rate, numbers.Number) else self.rate.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return zeros_like(self.rate)

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        u = _uniform_open(self._extended_shape(sample_shape), self.rate)
        return -u.log() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        return 1 - exp(-self.rate * value)

    def icdf(self, value):
        return -log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - log(self.rate)


class Laplace(LocationScale):

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape=Size()):
        u = _uniform_open(self._extended_shape(sample_shape), self.loc) * 2 - 1
        return self.loc - self.scale * u.sign() * log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        return 0.5 - 0.5 * (value - self.loc).sign() * expm1(-(value - self.loc).abs() / self.scale)

    def entropy(self):
        return 1 + log(2 * self.scale)


__all__ = ["Exponential", "Laplace"]
