"""OneHotCategorical: Categorical whose samples are one-hot vectors of length K."""
import monoflow.nn.functional as F
from monoflow._tensor import Size
from monoflow.distributions import constraints
from monoflow.distributions.categorical import Categorical
from monoflow.distributions.distribution import Distribution
from monoflow.ops_random import eye


class OneHotCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=False)
        param = self._categorical._param
        super().__init__(param.size()[:-1], param.size()[-1:], validate_args=validate_args)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        return F.one_hot(self._categorical.mode, self._event_shape[0]).to(self.probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self._event_shape[0]).to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self._event_shape[0]
        values = eye(n, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + tuple(self._batch_shape) + (n,)) if expand else values
