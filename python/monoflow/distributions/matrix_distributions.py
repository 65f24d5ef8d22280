"""Distributions over matrices, as torch.distributions: LKJCholesky (Cholesky factors of correlation
matrices, sampled by the onion method) and Wishart (positive definite matrices, Bartlett's
reparameterized sampler)."""
import math
import numbers
import warnings

from monoflow import _functional, linalg, ops_random
from monoflow._creation import arange, ones_like, tensor, zeros, zeros_like
from monoflow._tensor import Size
from monoflow._type_info import finfo
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.exp_family import ExponentialFamily
from monoflow.distributions.gamma import Beta
from monoflow.distributions.more import Chi2
from monoflow.distributions.utils import broadcast_all, lazy_property
from monoflow.ops_join import broadcast_shapes
from monoflow.ops_layout import diag_embed, tril_indices
from monoflow.ops_math import clamp, sqrt, where
from monoflow.ops_matrix import cholesky_solve
from monoflow.ops_random import randn
from monoflow.ops_shape import cat
from monoflow.ops_special import digamma, lgamma, mvlgamma

__all__ = ["LKJCholesky", "Wishart"]

_LOG_2 = math.log(2)


class LKJCholesky(Distribution):
    """The LKJ distribution over lower Cholesky factors of ``dim x dim`` correlation matrices, with density
    proportional to ``det(L L^T) ** (concentration - 1)``.

    Args:
        dim (int): the matrix size (>= 2).
        concentration (float or Tensor): the shape parameter (positive). Default: 1.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.LKJCholesky(3, 0.5)
        >>> L = m.sample()
        >>> L.shape, bool(flow.allclose((L @ L.T).diagonal(), flow.ones(3)))
        (monoflow.Size([3, 3]), True)
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def sample(self, sample_shape=Size()):
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
            norm = u_normal.norm(dim=-1, keepdim=True)
            rows = arange(self.dim, device=y.device).reshape(self.dim, 1)
            u_hypersphere = where(rows == 0, zeros_like(u_normal),
                                  u_normal / where(norm == 0, ones_like(norm), norm))
            w = sqrt(y) * u_hypersphere
            eps = finfo(w.dtype).tiny
            diag_elems = clamp(1 - _functional.sum(w ** 2, dim=-1), min=eps).sqrt()
            return w + diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, device=self.concentration.device).to(self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = _functional.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = lgamma(alpha) * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)


def _mvdigamma(x, p):
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    steps = arange(p, dtype=x.dtype, device=x.device) / 2
    return digamma(x.unsqueeze(-1) - steps.expand(tuple(x.shape) + (p,))).sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution over ``p x p`` positive definite matrices with ``df`` degrees of freedom and
    scale given by exactly one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``;
    reparameterizable (Bartlett decomposition).

    Args:
        df (float or Tensor): degrees of freedom (> p - 1).
        covariance_matrix (Tensor): the positive definite scale matrix.
        precision_matrix (Tensor): its inverse.
        scale_tril (Tensor): its lower Cholesky factor.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.Wishart(flow.tensor(4.0), covariance_matrix=flow.eye(2))
        >>> m.mean
        tensor([[4., 0.],
                [0., 4.]])
    """
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                                 "specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = tensor(float(df), dtype=param.dtype, device=param.device)
        else:
            batch_shape = broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if bool(self.df.le(event_shape[-1] - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}.")
        full = tuple(batch_shape) + tuple(event_shape)
        if scale_tril is not None:
            self.scale_tril = param.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(full)
        else:
            self.precision_matrix = param.expand(full)
        if bool(self.df.lt(event_shape[-1]).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for "
                          "ndim - 1 < df < ndim.", stacklevel=2)
        self._event_shape = Size(event_shape)  # arg_constraints reads it during validation
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(precision_matrix))
        p = self._event_shape[-1]
        steps = arange(p, dtype=self._unbroadcasted_scale_tril.dtype, device=param.device)
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1) - steps.expand(tuple(batch_shape) + (p,)))

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = ops_random.eye(self._event_shape[-1], dtype=L.dtype, device=L.device).expand(tuple(L.shape))
        return cholesky_solve(eye, L).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def _df_matrix(self):
        return self.df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, math.nan)
        return factor.reshape(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def rsample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        p = self._event_shape[-1]
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        chi = chi.clamp(min=finfo(chi.dtype).eps)
        i, j = tril_indices(p, p, offset=-1)
        normal = randn(tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,),
                       dtype=chi.dtype, device=chi.device)
        lower = zeros(tuple(sample_shape) + tuple(self._batch_shape) + (p * p,), dtype=chi.dtype,
                      device=chi.device)
        lower = lower.scatter(-1, (i * p + j).expand(tuple(normal.shape)), normal).reshape(
            tuple(sample_shape) + tuple(self._batch_shape) + (p, p))
        noise = diag_embed(chi) + lower
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        shape = broadcast_shapes(tuple(value.shape[:-2]), tuple(L.shape[:-2]))
        solved = cholesky_solve(value.expand(tuple(shape) + (p, p)), L.expand(tuple(shape) + (p, p)))
        return (-nu * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                - mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
                - solved.diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return ((p + 1) * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                + mvlgamma(nu / 2, p=p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + mvlgamma(
            y + (p + 1) / 2, p=p)
