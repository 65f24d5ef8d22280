"""Bernoulli: a 0/1 outcome with probability ``probs`` of 1 (or given by ``logits``)."""
import numbers

import monoflow.nn.functional as F
from monoflow._creation import arange
from monoflow._tensor import Size
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits
from monoflow.ops_join import broadcast_tensors
from monoflow.ops_random import bernoulli


class Bernoulli(Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Bernoulli(): either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        is_number = isinstance(given, numbers.Number)
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(Size() if is_number else param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_tensors(self.logits, value.to(self.logits.dtype))
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
