"""Independent: reinterprets the rightmost batch dimensions of a distribution as event dimensions
(a diagonal Normal over vectors is ``Independent(Normal(loc, scale), 1)``)."""
from monoflow._tensor import Size
from monoflow.distributions.distribution import Distribution


def _sum_rightmost(value, dim):
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1) if dim > 0 else value


class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if not isinstance(base_distribution, Distribution):
            raise TypeError(f"Independent(): argument 'base_distribution' must be Distribution, not {type(base_distribution).__name__}")
        n = reinterpreted_batch_ndims
        if n > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {n} vs {len(base_distribution.batch_shape)}")
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = n + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:], validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        return self.base_dist.support

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=Size()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=Size()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def _validate_sample(self, value):
        self.base_dist._validate_sample(value)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
