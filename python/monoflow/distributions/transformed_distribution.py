"""TransformedDistribution: a base distribution pushed through elementwise transforms (LogNormal = exp of a Normal,
a tanh-squashed Gaussian policy)."""
from monoflow._tensor import Size
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.independent import Independent
from monoflow.distributions.transforms import ComposeTransform, ExpTransform, Transform, _sum_rightmost


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (a Transform or a list, applied in order); the
    transforms' event dims turn batch dims of the base into event dims, as in torch.

    Example::

        >>> from monoflow.distributions.transforms import ExpTransform
        >>> d = flow.distributions.TransformedDistribution(flow.distributions.Normal(0.0, 1.0), [ExpTransform()])
        >>> d.log_prob(flow.tensor(1.0))
        tensor(-0.9189)
    """
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = tuple(transform.forward_shape(base_shape))
        expanded_base_shape = tuple(transform.inverse_shape(forward_shape))
        if base_shape != expanded_base_shape:
            base_batch_shape = expanded_base_shape[:len(expanded_base_shape) - base_event_dim]
            base_distribution = base_distribution.expand(base_batch_shape)
        reinterpreted_batch_ndims = transform.domain.event_dim - base_event_dim
        if reinterpreted_batch_ndims > 0:
            base_distribution = Independent(base_distribution, reinterpreted_batch_ndims)
        self.base_dist = base_distribution
        transform_change_in_event_dim = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + transform_change_in_event_dim)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self)) if _instance is None else _instance
        batch_shape = Size(batch_shape)
        shape = tuple(batch_shape) + tuple(self.event_shape)
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch_shape = shape[:len(shape) - len(self.base_dist.event_shape)]
        new.__dict__.update(self.__dict__)
        new.base_dist = self.base_dist.expand(base_batch_shape)
        new.transforms = self.transforms
        new._batch_shape = batch_shape
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    def sample(self, sample_shape=Size()):
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=Size()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        value = self.base_dist.cdf(value)
        return self._monotonize_cdf(value)

    def icdf(self, value):
        value = self._monotonize_cdf(value)
        value = self.base_dist.icdf(value)
        for t in self.transforms:
            value = t(value)
        return value


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
