"""Exponential (rate) and Laplace (loc, scale): closed-form families with reparameterized samplers."""
import numbers

import monoflow as flow
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.normal import LocationScale
from monoflow.distributions.utils import broadcast_all


def _uniform_open(shape, like):
    # a draw in (0, 1): the logs below must stay finite
    eps = flow.finfo(like.dtype).eps
    return flow.rand(shape, dtype=like.dtype, device=like.device).clamp(min=eps, max=1 - eps)


class Exponential(Distribution):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(flow.Size() if isinstance(rate, numbers.Number) else self.rate.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return flow.zeros_like(self.rate)

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=flow.Size()):
        u = _uniform_open(self._extended_shape(sample_shape), self.rate)
        return -u.log() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        return 1 - flow.exp(-self.rate * value)

    def icdf(self, value):
        return -flow.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - flow.log(self.rate)


class Laplace(LocationScale):

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape=flow.Size()):
        u = _uniform_open(self._extended_shape(sample_shape), self.loc) * 2 - 1
        return self.loc - self.scale * u.sign() * flow.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -flow.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        return 0.5 - 0.5 * (value - self.loc).sign() * flow.expm1(-(value - self.loc).abs() / self.scale)

    def entropy(self):
        return 1 + flow.log(2 * self.scale)


__all__ = ["Exponential", "Laplace"]
