"""Gamma (concentration, rate) and Beta (concentration1, concentration0).

Samples come from Marsaglia and Tsang's rejection method on monoflow's
generators (Beta as X / (X + Y) of two Gammas). ``rsample`` differentiates
through the samples by implicit reparameterization (see _gamma_grad)."""
import numbers

from monoflow._creation import ones_like, zeros_like
from monoflow._dtypes import bool_
from monoflow._tensor import Size
from monoflow._type_info import finfo
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions._gamma_grad import attach_gradient
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.utils import broadcast_all
from monoflow.ops_math import log, where
from monoflow.ops_pointwise import xlogy
from monoflow.ops_random import rand, randn
from monoflow.ops_special import digamma, lgamma


def _standard_gamma(alpha, generator=None):
    """One Gamma(alpha, 1) draw per element of ``alpha`` (no gradient), from ``generator`` (the default one if
    None)."""
    with no_grad():
        boost = alpha < 1  # Gamma(a) = Gamma(a + 1) * U^(1/a) for a < 1
        a = where(boost, alpha + 1, alpha)
        d = a - 1.0 / 3.0
        c = (9 * d).rsqrt()
        result = zeros_like(alpha)
        done = zeros_like(alpha, dtype=bool_)
        while not bool(done.all()):
            x = randn(alpha.shape, dtype=alpha.dtype, device=alpha.device, generator=generator)
            v = (1 + c * x).pow(3)
            u = rand(alpha.shape, dtype=alpha.dtype, device=alpha.device, generator=generator)
            accept = (v > 0) & (u.log() < 0.5 * x * x + d - d * v + d * v.clamp(min=1e-30).log())
            result = where(accept & ~done, d * v, result)
            done = done | accept
        u = rand(alpha.shape, dtype=alpha.dtype, device=alpha.device, generator=generator)
        result = where(boost, result * u.pow(1 / alpha), result)
        return result.clamp(min=finfo(alpha.dtype).tiny)


class Gamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        both_numbers = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(Size() if both_numbers else self.rate.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        alpha = self.concentration.expand(shape)
        x = attach_gradient(alpha, _standard_gamma(alpha.detach()))
        return (x / self.rate.expand(shape)).clamp(min=finfo(x.dtype).tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return xlogy(a, b) + xlogy(a - 1, value) - b * value - lgamma(a)

    def entropy(self):
        a = self.concentration
        return a - log(self.rate) + lgamma(a) + (1.0 - a) * digamma(a)


class Beta(Distribution):
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        both_numbers = isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number)
        super().__init__(Size() if both_numbers else self.concentration1.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        # torch's (through Dirichlet): concentrations below 1 clamp to 0; both below 1 -> 1 (torch's
        # argmax of a nan mode picks the first vertex)
        a, b = self.concentration1, self.concentration0
        am1, bm1 = (a - 1).clamp(min=0), (b - 1).clamp(min=0)
        mode = am1 / (am1 + bm1)
        return where((a < 1) & (b < 1), ones_like(mode), mode)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        x = _standard_gamma(self.concentration1.expand(shape))
        y = _standard_gamma(self.concentration0.expand(shape))
        eps = finfo(x.dtype).eps
        return (x / (x + y)).clamp(min=eps, max=1 - eps)

    def rsample(self, sample_shape=Size()):
        # X / (X + Y) of two reparameterised Gammas: a pathwise gradient for both concentrations
        shape = self._extended_shape(sample_shape)
        a, b = self.concentration1.expand(shape), self.concentration0.expand(shape)
        x = attach_gradient(a, _standard_gamma(a.detach()))
        y = attach_gradient(b, _standard_gamma(b.detach()))
        eps = finfo(x.dtype).eps
        return (x / (x + y)).clamp(min=eps, max=1 - eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
        return xlogy(a - 1, value) + xlogy(b - 1, 1 - value) - log_beta

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
        return (log_beta - (a - 1) * digamma(a) - (b - 1) * digamma(b)
                + (a + b - 2) * digamma(a + b))
