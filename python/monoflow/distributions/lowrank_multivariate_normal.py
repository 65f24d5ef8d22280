"""LowRankMultivariateNormal: a Gaussian over vectors whose covariance is ``W W^T + diag(D)`` with a low-rank
``cov_factor`` W (n x m) and a positive ``cov_diag`` D; log_prob and entropy use the m x m capacitance matrix
``I + W^T D^-1 W`` (Woodbury), so they cost O(n m^2) instead of O(n^3)."""
import math

from monoflow import linalg
from monoflow._functional import matmul
from monoflow._tensor import Size
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.multivariate_normal import _batch_mahalanobis
from monoflow.distributions.utils import lazy_property
from monoflow.ops_join import broadcast_shapes, broadcast_tensors
from monoflow.ops_layout import diag_embed
from monoflow.ops_random import eye, randn

__all__ = ["LowRankMultivariateNormal"]


def _batch_mv(bmat, bvec):
    return matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _plus_eye(K):
    n = K.shape[-1]
    return K + eye(n, dtype=K.dtype, device=K.device)


def _batch_capacitance_tril(W, D):
    Wt_Dinv = W.transpose(-1, -2) / D.unsqueeze(-2)
    return linalg.cholesky(_plus_eye(matmul(Wt_Dinv, W)))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    Wt_Dinv = W.transpose(-1, -2) / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    mahalanobis_term1 = (x.pow(2) / D).sum(-1)
    mahalanobis_term2 = _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)
    return mahalanobis_term1 - mahalanobis_term2


class LowRankMultivariateNormal(Distribution):
    """A multivariate normal with covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)``.

    Args:
        loc (Tensor): mean, shape ``(*, n)``.
        cov_factor (Tensor): the low-rank factor, shape ``(*, n, m)``.
        cov_diag (Tensor): the positive diagonal, shape ``(*, n)``.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.LowRankMultivariateNormal(flow.zeros(2), flow.tensor([[1.0], [0.0]]), flow.ones(2))
        >>> m.covariance_matrix
        tensor([[2., 0.],
                [0., 1.]])
    """
    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        loc_ = loc.unsqueeze(-1)
        cov_diag_ = cov_diag.unsqueeze(-1)
        try:
            loc_, self.cov_factor, cov_diag_ = broadcast_tensors(loc_, cov_factor, cov_diag_)
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {tuple(loc.shape)}, cov_factor {tuple(cov_factor.shape)}, "
                             f"cov_diag {tuple(cov_diag.shape)}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self)) if _instance is None else _instance
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full_shape(self, *tail):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tail

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag).expand(self._full_shape())

    @lazy_property
    def scale_tril(self):
        n = self._event_shape[0]
        cov_diag_sqrt_unsqueeze = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / cov_diag_sqrt_unsqueeze
        K = _plus_eye(matmul(Dinvsqrt_W, Dinvsqrt_W.transpose(-1, -2)))
        return (cov_diag_sqrt_unsqueeze * linalg.cholesky(K)).expand(self._full_shape(n))

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        cov = matmul(W, W.transpose(-1, -2)) + diag_embed(self._unbroadcasted_cov_diag)
        return cov.expand(self._full_shape(self._event_shape[0]))

    @lazy_property
    def precision_matrix(self):
        Wt_Dinv = self._unbroadcasted_cov_factor.transpose(-1, -2) / self._unbroadcasted_cov_diag.unsqueeze(-2)
        L = self._capacitance_tril
        shape = broadcast_shapes(tuple(L.shape[:-2]), tuple(Wt_Dinv.shape[:-2]))
        A = linalg.solve_triangular(L.expand(tuple(shape) + tuple(L.shape[-2:])),
                                    Wt_Dinv.expand(tuple(shape) + tuple(Wt_Dinv.shape[-2:])), upper=False)
        precision = diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.transpose(-1, -2) @ A
        return precision.expand(self._full_shape(self._event_shape[0]))

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        W_shape = shape[:-1] + tuple(self.cov_factor.shape[-1:])
        eps_W = randn(W_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_D = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, diff,
                                       self._capacitance_tril)
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                        self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                        self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
