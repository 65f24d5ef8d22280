"""Binomial, Multinomial and NegativeBinomial: counts of successes, as torch.distributions (log_prob with
gradients in the probabilities, moments, entropy, enumerate_support, samplers on monoflow's generator)."""
import numbers

import monoflow.nn.functional as F
from monoflow import ops_math
from monoflow._creation import arange, tensor, zeros_like
from monoflow._tensor import Size
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions.categorical import Categorical
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.gamma import Gamma
from monoflow.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits
from monoflow.ops_join import broadcast_tensors
from monoflow.ops_math import exp, log1p, sigmoid
from monoflow.ops_random import poisson, rand
from monoflow.ops_special import lgamma

__all__ = ["Binomial", "Multinomial", "NegativeBinomial"]

_CHUNK = 256  # Bernoulli trials drawn at once per sample when counting successes


def _clamp_by_zero(x):
    # max(x, 0) with a gradient of 1/2 at 0 (torch's choice)
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


def _binomial_draw(total_count, probs):
    """Counts of successes of ``total_count`` Bernoulli(probs) trials (elementwise, same shapes), drawn with
    monoflow's generator in chunks of trials."""
    n_max = int(total_count.max()) if total_count.numel() else 0
    counts = zeros_like(probs)
    start = 0
    while start < n_max:
        k = min(_CHUNK, n_max - start)
        u = rand(tuple(probs.shape) + (k,), dtype=probs.dtype, device=probs.device)
        trial = arange(start, start + k, dtype=probs.dtype, device=probs.device)
        hit = (u < probs.unsqueeze(-1)) & (trial < total_count.unsqueeze(-1))
        counts = counts + hit.to(probs.dtype).sum(-1)
        start += k
    return counts


def _one_param(probs, logits, total_count):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return probs if probs is not None else logits


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent trials of success probability ``probs``
    (or ``logits``).

    Args:
        total_count (int or Tensor): the number of trials (nonnegative integers). Default: 1.
        probs (Tensor): success probabilities in [0, 1].
        logits (Tensor): success log-odds.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.Binomial(4, flow.tensor([0.5]))
        >>> m.log_prob(flow.tensor([2.0])).exp()
        tensor([0.3750])
    """
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        param = _one_param(probs, logits, total_count)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        is_scalar = isinstance(param, numbers.Number) and isinstance(total_count, numbers.Number)
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _binomial_draw(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = lgamma(self.total_count + 1)
        log_factorial_k = lgamma(value + 1)
        log_factorial_nmk = lgamma(self.total_count - value + 1)
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * log1p(exp(-ops_math.abs(self.logits))) - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total_count = int(self.total_count.max())
        if not float(self.total_count.min()) == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max())
        if not float(self.total_count.min()) == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Multinomial(Distribution):
    """Counts of each of K categories over ``total_count`` draws from ``Categorical(probs/logits)``.

    Args:
        total_count (int): the number of draws. Default: 1.
        probs (Tensor): event probabilities over the last dim (normalized).
        logits (Tensor): unnormalized event log-probabilities.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.Multinomial(2, flow.tensor([0.5, 0.5]))
        >>> m.log_prob(flow.tensor([1.0, 1.0])).exp()
        tensor(0.5000)
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        from monoflow.distributions.binomial import Binomial
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape if isinstance(sample_shape, (tuple, list)) else (sample_shape,))
        with no_grad():
            idx = self._categorical.sample(Size((self.total_count,)) + sample_shape)
            counts = F.one_hot(idx, self._event_shape[0]).to(self.probs.dtype).sum(0)
        return counts.reshape(self._extended_shape(sample_shape))

    def entropy(self):
        n = tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = exp(self._binomial.log_prob(support))
        weights = lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_tensors(self.logits, value.to(self.logits.dtype))
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        logits = logits.masked_fill((value == 0) & (logits == -float("inf")), 0.0)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers


class NegativeBinomial(Distribution):
    """The number of successes before ``total_count`` failures, each trial succeeding with ``probs``.

    Args:
        total_count (float or Tensor): the number of failures (nonnegative; need not be an integer).
        probs (Tensor): success probabilities in [0, 1).
        logits (Tensor): success log-odds.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.NegativeBinomial(2.0, flow.tensor([0.5]))
        >>> m.mean
        tensor([2.])
    """
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        param = _one_param(probs, logits, total_count)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        is_scalar = isinstance(param, numbers.Number) and isinstance(total_count, numbers.Number)
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=Size()):
        with no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = (-lgamma(self.total_count + value) + lgamma(1.0 + value)
                             + lgamma(self.total_count))
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
