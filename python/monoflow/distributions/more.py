"""Cauchy, HalfNormal, StudentT, Chi2, Poisson, Geometric and MixtureSameFamily, as torch.distributions
(log_prob, cdf where closed, mean/variance/entropy, samplers)."""
import math
import numbers

import numpy as np

import monoflow.nn.functional as F
from monoflow._creation import full_like, tensor, zeros_like
from monoflow._tensor import Size
from monoflow._type_info import finfo
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.exponential import _uniform_open
from monoflow.distributions.gamma import Gamma
from monoflow.distributions.normal import LocationScale
from monoflow.distributions.utils import broadcast_all
from monoflow.ops_math import atan, erf, log, log1p, rsqrt, sigmoid, tan, where
from monoflow.ops_random import rand, randint, randn
from monoflow.ops_reduce import log_softmax, logsumexp
from monoflow.ops_shape import gather
from monoflow.ops_special import digamma, lgamma

__all__ = ["Cauchy", "HalfNormal", "StudentT", "Chi2", "Poisson", "Geometric", "MixtureSameFamily"]


def _full(like, value):
    return full_like(like, value)


class Cauchy(LocationScale):
    """The Cauchy (Lorentz) distribution of location ``loc`` and scale ``scale``.

    Example::

        >>> m = flow.distributions.Cauchy(flow.tensor([0.0]), flow.tensor([1.0]))
        >>> m.log_prob(flow.tensor([0.0]))
        tensor([-1.1447])
    """

    @property
    def mean(self):
        return _full(self.loc, float("nan"))

    @property
    def variance(self):
        return _full(self.loc, float("inf"))

    def rsample(self, sample_shape=Size()):
        u = _uniform_open(self._extended_shape(sample_shape), self.loc)
        return self.loc + self.scale * tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        return atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class HalfNormal(Distribution):
    """The absolute value of a ``Normal(0, scale)``.

    Example::

        >>> m = flow.distributions.HalfNormal(flow.tensor([1.0]))
        >>> m.log_prob(flow.tensor([0.0]))
        tensor([-0.2258])
    """
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = broadcast_all(scale)
        super().__init__(Size() if isinstance(scale, numbers.Number) else self.scale.size(),
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=Size()):
        eps = randn(self._extended_shape(sample_shape), dtype=self.scale.dtype, device=self.scale.device)
        return (eps * self.scale).abs()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lp = -(value ** 2) / (2 * self.scale ** 2) - self.scale.log() - 0.5 * math.log(2 * math.pi) + math.log(2)
        return where(value >= 0, lp, _full(lp, -float("inf")))

    def cdf(self, value):
        return erf(value / (self.scale * math.sqrt(2)))

    def entropy(self):
        return 0.5 * log(math.pi * self.scale.pow(2) / 2) + 0.5


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    Example::

        >>> flow.distributions.Chi2(flow.tensor([3.0])).mean
        tensor([3.])
    """
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        if isinstance(df, numbers.Number):
            df = tensor(float(df))
        super().__init__(0.5 * df, _full(df, 0.5), validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale ``scale``.

    Example::

        >>> m = flow.distributions.StudentT(flow.tensor([3.0]))
        >>> m.log_prob(flow.tensor([0.0]))
        tensor([-1.0009])
    """
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df, validate_args=False)
        super().__init__(self.df.size(), validate_args=validate_args)

    @property
    def mean(self):
        return where(self.df > 1, self.loc, _full(self.loc, float("nan")))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        var = self.scale.pow(2) * self.df / (self.df - 2)
        var = where(self.df > 2, var, _full(var, float("inf")))
        return where(self.df > 1, var, _full(var, float("nan")))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        x = randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + lgamma(0.5 * self.df)
             - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * log1p(y ** 2.0 / self.df) - z

    def entropy(self):
        lbeta = lgamma(0.5 * self.df) + math.lgamma(0.5) - lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (digamma(0.5 * (self.df + 1))
                                                        - digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)


class Poisson(Distribution):
    """The Poisson distribution of rate ``rate``. Samples are drawn by numpy from a seed taken from monoflow's
    generator (reproducible under ``manual_seed``; not torch's stream).

    Example::

        >>> m = flow.distributions.Poisson(flow.tensor([2.0]))
        >>> m.log_prob(flow.tensor([1.0]))
        tensor([-1.3069])
    """
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(Size() if isinstance(rate, numbers.Number) else self.rate.size(),
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        seed = int(randint(0, 2 ** 31 - 1, (1,)).item())
        rate = np.broadcast_to(self.rate.detach().cpu().numpy(), shape)
        out = np.random.default_rng(seed).poisson(rate).astype(rate.dtype)
        return tensor(out, dtype=self.rate.dtype, device=self.rate.device)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value * rate.clamp(min=finfo(rate.dtype).tiny).log() * (value != 0).to(rate.dtype) \
            - rate - lgamma(value + 1)


class Geometric(Distribution):
    """The number of failures before the first success of Bernoulli trials of success ``probs`` (or
    ``logits``).

    Example::

        >>> m = flow.distributions.Geometric(probs=flow.tensor([0.3]))
        >>> m.log_prob(flow.tensor([2.0]))
        tensor([-1.9173])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self.logits = log(self.probs) - log1p(-self.probs)
            param = probs
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = sigmoid(self.logits)
            param = logits
        super().__init__(Size() if isinstance(param, numbers.Number) else self.probs.size(),
                         validate_args=validate_args)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()):
        with no_grad():
            tiny = finfo(self.probs.dtype).tiny
            u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype,
                     device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs = where((probs == 1) & (value == 0), _full(probs, 0.0), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class MixtureSameFamily(Distribution):
    """A mixture of the components of ``component_distribution`` (its rightmost batch dimension) weighted by
    ``mixture_distribution`` (a Categorical), e.g. a Gaussian mixture.

    Example::

        >>> D = flow.distributions
        >>> mix = D.Categorical(flow.tensor([0.5, 0.5]))
        >>> gmm = D.MixtureSameFamily(mix, D.Normal(flow.tensor([-1.0, 1.0]), flow.tensor([1.0, 1.0])))
        >>> gmm.mean
        tensor(0.)
    """
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        from monoflow.distributions.categorical import Categorical

        if not isinstance(mixture_distribution, Categorical):
            raise ValueError("The Mixture distribution needs to be an instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of torch.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mdbs, cdbs = tuple(mixture_distribution.batch_shape), tuple(component_distribution.batch_shape)[:-1]
        for a, b in zip(reversed(mdbs), reversed(cdbs)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                                 f"`component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(batch_shape=cdbs, event_shape=component_distribution.event_shape,
                         validate_args=validate_args)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def support(self):
        return self._component_distribution.support

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        x = x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)
        return x

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(dim=-1 - self._event_ndims)

    @property
    def variance(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        d = -1 - self._event_ndims
        mean_cond_var = (probs * self.component_distribution.variance).sum(dim=d)
        var_cond_mean = (probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)).sum(dim=d)
        return mean_cond_var + var_cond_mean

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def cdf(self, x):
        x = self._pad(x)
        cdf_x = self.component_distribution.cdf(x)
        return (cdf_x * self.mixture_distribution.probs).sum(dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        x = self._pad(x)
        log_prob_x = self.component_distribution.log_prob(x)
        log_mix_prob = log_softmax(self.mixture_distribution.logits, dim=-1)
        return logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape=Size()):
        with no_grad():
            sample_len = len(sample_shape)
            batch_len = len(self.batch_shape)
            gather_dim = sample_len + batch_len
            es = self.event_shape
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            mix_sample_r = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            mix_sample_r = mix_sample_r.expand(mix_shape + (1,) + tuple(es))
            samples = gather(comp_samples, gather_dim, mix_sample_r)
            return samples.squeeze(gather_dim)
