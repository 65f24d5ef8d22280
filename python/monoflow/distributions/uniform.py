"""Uniform over the half-open interval [low, high)."""
import numbers

from monoflow._creation import full_like
from monoflow._tensor import Size
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.utils import broadcast_all
from monoflow.ops_math import log
from monoflow.ops_random import rand


class Uniform(Distribution):
    arg_constraints = {"low": constraints.dependent, "high": constraints.dependent}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        both_numbers = isinstance(low, numbers.Number) and isinstance(high, numbers.Number)
        super().__init__(Size() if both_numbers else self.low.size(), validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError(f"Expected parameter low of distribution {self!r} to be less than high, but found invalid values:\n{self.low}")

    @property
    def support(self):
        return constraints.half_open_interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return full_like(self.high, float("nan"))

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return log(lb.mul(ub)) - log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return log(self.high - self.low)
