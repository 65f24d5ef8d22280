"""MultivariateNormal: a Gaussian over vectors, given by exactly one of covariance_matrix,
precision_matrix or scale_tril (the lower Cholesky factor of the covariance)."""
import math

from monoflow import linalg
from monoflow._tensor import Size
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.utils import lazy_property
from monoflow.ops_join import broadcast_shapes
from monoflow.ops_random import randn


def _batch_mahalanobis(scale_tril, diff):
    # |L^-1 diff|^2 by a triangular solve, without forming the inverse
    n = diff.size(-1)
    shape = broadcast_shapes(scale_tril.shape[:-2], diff.shape[:-1])
    L = scale_tril.expand(tuple(shape) + (n, n))
    d = diff.expand(tuple(shape) + (n,)).unsqueeze(-1)
    sol = linalg.solve_triangular(L, d, upper=False)
    return sol.squeeze(-1).pow(2).sum(-1)


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError("scale_tril, covariance_matrix or precision_matrix matrix must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        batch_shape = broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        n = loc.shape[-1]
        if scale_tril is not None:
            self.scale_tril = scale_tril.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = covariance_matrix.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self.precision_matrix = precision_matrix.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(precision_matrix))
        self.loc = loc.expand(tuple(batch_shape) + (n,))
        super().__init__(batch_shape, (n,), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self)) if _instance is None else _instance
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(cov_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(tuple(self._batch_shape) + tuple(self._event_shape * 2))

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-1, -2)).expand(tuple(self._batch_shape) + tuple(self._event_shape * 2))

    @lazy_property
    def precision_matrix(self):
        return linalg.inv(self.covariance_matrix)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        L = self._unbroadcasted_scale_tril
        return L.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return h.expand(self._batch_shape) if len(self._batch_shape) else h
