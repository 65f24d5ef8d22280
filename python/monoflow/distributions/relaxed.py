"""Continuous relaxations of discrete distributions (Concrete / Gumbel-softmax), as torch.distributions:
RelaxedBernoulli, RelaxedOneHotCategorical (and their logit-space bases LogitRelaxedBernoulli,
ExpRelaxedCategorical) with reparameterized samplers, and OneHotCategoricalStraightThrough."""
import numbers

from monoflow._creation import full_like, tensor
from monoflow._tensor import Size, Tensor
from monoflow.distributions import constraints
from monoflow.distributions.categorical import Categorical
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.one_hot_categorical import OneHotCategorical
from monoflow.distributions.transformed_distribution import TransformedDistribution
from monoflow.distributions.transforms import ExpTransform, SigmoidTransform
from monoflow.distributions.utils import (broadcast_all, clamp_probs, lazy_property, logits_to_probs,
                                          probs_to_logits)
from monoflow.ops_join import broadcast_tensors
from monoflow.ops_random import rand

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli", "ExpRelaxedCategorical", "RelaxedOneHotCategorical",
           "OneHotCategoricalStraightThrough"]


def _temperature(temperature, like):
    if isinstance(temperature, Tensor):
        return temperature
    return tensor(float(temperature), dtype=like.dtype, device=like.device)


class LogitRelaxedBernoulli(Distribution):
    """The logit of a :class:`RelaxedBernoulli` sample (Maddison et al., 2017).

    Args:
        temperature (Tensor): relaxation temperature (positive).
        probs (Tensor): probabilities of 1.
        logits (Tensor): log-odds of 1.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.relaxed.LogitRelaxedBernoulli(flow.tensor(0.5), probs=flow.tensor([0.3]))
        >>> m.rsample().shape
        monoflow.Size([1])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self.temperature = _temperature(temperature, self._param)
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_tensors(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed Bernoulli on (0, 1) (Concrete / binary Gumbel-softmax), reparameterizable: samples
    approach 0/1 as ``temperature`` goes to 0.

    Args:
        temperature (Tensor): relaxation temperature (positive).
        probs (Tensor): probabilities of 1.
        logits (Tensor): log-odds of 1.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.RelaxedBernoulli(flow.tensor(2.2), probs=flow.tensor([0.1, 0.9]))
        >>> m.rsample().shape
        monoflow.Size([2])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class ExpRelaxedCategorical(Distribution):
    """The log of a :class:`RelaxedOneHotCategorical` sample (ExpConcrete).

    Args:
        temperature (Tensor): relaxation temperature (positive).
        probs (Tensor): event probabilities over the last dim.
        logits (Tensor): unnormalized event log-probabilities.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.relaxed.ExpRelaxedCategorical(flow.tensor(1.0), probs=flow.tensor([0.2, 0.8]))
        >>> round(m.rsample().exp().sum().item(), 4)
        1.0
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = _temperature(temperature, self._categorical._param)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_tensors(self.logits, value)
        log_scale = full_like(self.temperature, float(K)).lgamma() - self.temperature.log().mul(-(K - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed one-hot categorical on the simplex (Concrete / Gumbel-softmax), reparameterizable.

    Args:
        temperature (Tensor): relaxation temperature (positive).
        probs (Tensor): event probabilities over the last dim.
        logits (Tensor): unnormalized event log-probabilities.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.RelaxedOneHotCategorical(flow.tensor(2.2), probs=flow.tensor([0.1, 0.2, 0.7]))
        >>> m.rsample().shape
        monoflow.Size([3])
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A :class:`OneHotCategorical` whose ``rsample`` passes gradients straight through to ``probs``
    (Bengio et al., 2013): the sample's value is one-hot, its gradient is that of ``probs``.

    Args:
        probs (Tensor): event probabilities over the last dim.
        logits (Tensor): unnormalized event log-probabilities.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> p = flow.tensor([0.2, 0.8], requires_grad=True)
        >>> s = flow.distributions.OneHotCategoricalStraightThrough(probs=p).rsample()
        >>> s.sum().item(), s.requires_grad
        (1.0, True)
    """
    has_rsample = True

    def rsample(self, sample_shape=Size()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
