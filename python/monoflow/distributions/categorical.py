"""Categorical: a choice among K categories, given by probs or logits over the last dimension."""
from monoflow._creation import arange, full
from monoflow._dtypes import int64
from monoflow._tensor import Size, Tensor
from monoflow._type_info import finfo
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.utils import lazy_property, logits_to_probs, probs_to_logits
from monoflow.ops_join import broadcast_tensors
from monoflow.ops_sampling import multinomial


def _one_of(probs, logits, name):
    if (probs is None) == (logits is None):
        raise ValueError(f"{name}(): either `probs` or `logits` must be specified, but not both.")
    param = probs if probs is not None else logits
    if not isinstance(param, Tensor):
        raise TypeError(f"{name}(): argument '{'probs' if probs is not None else 'logits'}' must be Tensor, not {type(param).__name__}")
    if param.dim() < 1:
        raise ValueError("`probs` parameter must be at least one-dimensional." if probs is not None
                         else "`logits` parameter must be at least one-dimensional.")
    return param


class Categorical(Distribution):
    """Samples are integers in ``[0, K)``; ``probs`` need not sum to 1 (they are
    normalized), ``logits`` are unnormalized log-probabilities.

    Example::

        >>> m = flow.distributions.Categorical(flow.tensor([0.25, 0.25, 0.5]))
        >>> m.log_prob(flow.tensor(2)).exp()
        tensor(0.5000)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = _one_of(probs, logits, type(self).__name__)
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = param.size()[-1]
        super().__init__(param.size()[:-1], validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=Size()):
        shape = Size(sample_shape if isinstance(sample_shape, (tuple, list)) else (sample_shape,))
        count = 1
        for n in shape:
            count *= n
        with no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            drawn = multinomial(probs_2d, count, True).T
        return drawn.reshape(self._extended_shape(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        # a zero probability's logit is -inf: clamp it so that 0 * log 0 counts as 0
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = arange(self._num_events, dtype=int64, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
