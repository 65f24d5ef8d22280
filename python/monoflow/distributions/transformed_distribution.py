"""TransformedDistribution: a base distribution pushed through elementwise transforms (LogNormal = exp of a Normal,
a tanh-squashed Gaussian policy)."""
import monoflow as flow
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.transforms import ComposeTransform, ExpTransform, Transform


class TransformedDistribution(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        transforms = list(transforms)
        for t in transforms:
            if not isinstance(t, Transform):
                raise ValueError(f"transforms must be a Transform or a list of Transforms, but was {transforms}")
        self.base_dist = base_distribution
        self.transforms = transforms
        super().__init__(base_distribution.batch_shape, base_distribution.event_shape, validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        return self.transforms[-1].codomain if self.transforms else self.base_dist.support

    def sample(self, sample_shape=flow.Size()):
        with flow.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=flow.Size()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            term = t.log_abs_det_jacobian(x, y)
            if event_dim:
                term = term.reshape(tuple(term.shape[:term.dim() - event_dim]) + (-1,)).sum(-1)
            log_prob = log_prob - term
            y = x
        return log_prob + self.base_dist.log_prob(y)

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        value = self.base_dist.cdf(value)
        return value if all(t.sign == 1 for t in self.transforms) else 1 - value


class LogNormal(TransformedDistribution):
    """exp(X) for X ~ Normal(loc, scale)."""

    def __init__(self, loc, scale, validate_args=None):
        from monoflow.distributions.normal import Normal
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


__all__ = ["TransformedDistribution", "LogNormal", "ComposeTransform"]
