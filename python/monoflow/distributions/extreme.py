"""Gumbel, Weibull, Pareto, HalfCauchy, InverseGamma, Kumaraswamy, LogisticNormal and FisherSnedecor, as
torch.distributions: most are a simple base distribution pushed through transforms (so rsample, log_prob,
cdf and icdf come from TransformedDistribution), with the moments and entropy in closed form."""
import math
import numbers

from monoflow import _type_info
from monoflow._creation import as_tensor, full, full_like, ones_like, zeros_like
from monoflow._tensor import Size
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.exponential import Exponential
from monoflow.distributions.gamma import Gamma
from monoflow.distributions.more import Cauchy
from monoflow.distributions.normal import Normal
from monoflow.distributions.transformed_distribution import TransformedDistribution
from monoflow.distributions.transforms import (AbsTransform, AffineTransform, ExpTransform, PowerTransform,
                                               StickBreakingTransform)
from monoflow.distributions.uniform import Uniform
from monoflow.distributions.utils import broadcast_all
from monoflow.ops_math import exp, log, log1p, where
from monoflow.ops_special import digamma, lgamma

__all__ = ["Gumbel", "Weibull", "Pareto", "HalfCauchy", "InverseGamma", "Kumaraswamy", "LogisticNormal",
           "FisherSnedecor"]

_EULER = 0.57721566490153286060


def _scalar_or_shape(args, tensor):
    return Size() if all(isinstance(a, numbers.Number) for a in args) else tensor.size()


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution of location ``loc`` and scale ``scale``.

    Args:
        loc (float or Tensor): location.
        scale (float or Tensor): scale (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.Gumbel(flow.tensor([0.0]), flow.tensor([1.0]))
        >>> m.log_prob(flow.tensor([0.0]))
        tensor([-1.])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = _type_info.finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(full_like(self.loc, finfo.tiny), full_like(self.loc, 1 - finfo.eps),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER)


class Weibull(TransformedDistribution):
    """The two-parameter Weibull distribution: ``scale * E ** (1 / concentration)`` for ``E ~ Exponential(1)``.

    Args:
        scale (float or Tensor): scale (positive).
        concentration (float or Tensor): shape (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.Weibull(flow.tensor([1.0]), flow.tensor([1.0]))
        >>> m.mean
        tensor([1.])
    """
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * exp(lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self):
        return self.scale.pow(2) * (exp(lgamma(1 + 2 * self.concentration_reciprocal))
                                    - exp(2 * lgamma(1 + self.concentration_reciprocal)))

    def entropy(self):
        return (_EULER * (1 - self.concentration_reciprocal) + log(self.scale * self.concentration_reciprocal)
                + 1)


class Pareto(TransformedDistribution):
    """The Pareto type-I distribution: ``scale * exp(E)`` for ``E ~ Exponential(alpha)``.

    Args:
        scale (float or Tensor): the minimum value (positive).
        alpha (float or Tensor): the tail index (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.Pareto(flow.tensor([1.0]), flow.tensor([3.0]))
        >>> m.mean
        tensor([1.5000])
    """
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class HalfCauchy(TransformedDistribution):
    """The absolute value of a ``Cauchy(0, scale)``.

    Args:
        scale (float or Tensor): scale (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.HalfCauchy(flow.tensor([1.0]))
        >>> m.log_prob(flow.tensor([0.0]))
        tensor([-0.4516])
    """
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return full(self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def mode(self):
        return zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = as_tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, full_like(log_prob, -math.inf))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class InverseGamma(TransformedDistribution):
    """``1 / X`` for ``X ~ Gamma(concentration, rate)``.

    Args:
        concentration (float or Tensor): shape (positive).
        rate (float or Tensor): the rate of the underlying Gamma, the scale of this one (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.InverseGamma(flow.tensor([3.0]), flow.tensor([2.0]))
        >>> m.mean
        tensor([1.])
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -ones_like(base_dist.rate)
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return where(self.concentration > 1, result, full_like(result, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return where(self.concentration > 2, result, full_like(result, math.inf))

    def entropy(self):
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())


def _moments(a, b, n):
    arg1 = 1 + n / a
    log_value = lgamma(arg1) + lgamma(b) - lgamma(arg1 + b)
    return b * exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on (0, 1): ``(1 - U ** (1 / concentration0)) ** (1 / concentration1)``.

    Args:
        concentration1 (float or Tensor): first shape parameter (positive).
        concentration0 (float or Tensor): second shape parameter (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.Kumaraswamy(flow.tensor([1.0]), flow.tensor([1.0]))
        >>> m.mean
        tensor([0.5000])
    """
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(full_like(self.concentration0, 0), full_like(self.concentration0, 1),
                            validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        log_mode = (self.concentration0.reciprocal() * (-self.concentration0).log1p()
                    - (-self.concentration0 * self.concentration1).log1p())
        bad = (self.concentration0 < 1) | (self.concentration1 < 1)
        return log_mode.masked_fill(bad, math.nan).exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = digamma(self.concentration0 + 1) + _EULER
        return t0 + t1 * H0 - log(self.concentration1) - log(self.concentration0)


class LogisticNormal(TransformedDistribution):
    """A point of the simplex: ``StickBreakingTransform()(X)`` for ``X ~ Normal(loc, scale)`` (vectors of length
    K - 1 give points of the K-simplex).

    Args:
        loc (Tensor): mean of the underlying Normal.
        scale (Tensor): standard deviation of the underlying Normal (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.LogisticNormal(flow.zeros(2), flow.ones(2))
        >>> m.sample().shape
        monoflow.Size([3])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom: ``(X1 / df1) / (X2 / df2)`` for
    chi-squared ``X1``, ``X2``.

    Args:
        df1 (float or Tensor): numerator degrees of freedom (positive).
        df2 (float or Tensor): denominator degrees of freedom (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.FisherSnedecor(flow.tensor([2.0]), flow.tensor([4.0]))
        >>> m.mean
        tensor([2.])
    """
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(_scalar_or_shape((df1, df2), self.df1), validate_args=validate_args)

    @property
    def mean(self):
        df2 = self.df2.masked_fill(self.df2 <= 2, math.nan)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return mode.masked_fill(self.df1 <= 2, math.nan)

    @property
    def variance(self):
        df2 = self.df2.masked_fill(self.df2 <= 4, math.nan)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        X1 = self._gamma1.rsample(sample_shape).view(shape)
        X2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = _type_info.finfo(X2.dtype).tiny
        return (X1 / X2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * log(value)
        t3 = (ct1 + ct2) * log1p(ct3 * value)
        return t1 + t2 - t3
