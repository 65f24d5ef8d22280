"""Dirichlet(concentration): normalised independent Gammas, reparameterised through their implicit
gradients (a pathwise gradient of the same distribution as torch's)."""
from monoflow._creation import zeros_like
from monoflow._tensor import Size, Tensor
from monoflow._type_info import finfo
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions._gamma_grad import attach_gradient
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.gamma import _standard_gamma
from monoflow.ops_math import where
from monoflow.ops_pointwise import xlogy
from monoflow.ops_special import digamma, lgamma

__all__ = ["Dirichlet", "_sample_dirichlet"]


def _sample_dirichlet(alpha, generator=None):
    """torch._sample_dirichlet: one Dirichlet draw over the last dimension of the positive concentrations
    ``alpha`` (normalized Gamma(alpha, 1) draws; no gradient). torchvision's AugMix samples its mixing weights
    with it.

    Args:
        alpha (Tensor): floating concentrations; a 0-d tensor gives the largest value below 1.
        generator (monoflow.Generator, optional): the generator to draw from.

    Example::

        >>> w = flow._sample_dirichlet(flow.tensor([1.0, 2.0, 3.0]))
        >>> w.shape, round(float(w.sum()), 5)
        (monoflow.Size([3]), 1.0)
    """
    if not isinstance(alpha, Tensor):
        raise TypeError(f"_sample_dirichlet(): argument 'alpha' must be Tensor, not {type(alpha).__name__}")
    if not alpha.dtype.is_floating_point:
        raise NotImplementedError(f'"_sample_dirichlet" not implemented for {alpha.dtype}')
    g = _standard_gamma(alpha, generator)
    info = finfo(g.dtype)  # kept inside the open simplex, as torch's kernel
    return (g / (g if alpha.dim() == 0 else g.sum(-1, keepdim=True))).clamp(min=info.tiny, max=1 - info.eps / 2)


class Dirichlet(Distribution):
    """The Dirichlet distribution over the probability simplex of the last dimension.

    Args:
        concentration (Tensor): positive concentrations, at least 1-D (the last dimension is the event).
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if not isinstance(concentration, Tensor) or concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        c = self.concentration.expand(shape)
        g = attach_gradient(c, _standard_gamma(c.detach()))
        eps = finfo(g.dtype).tiny
        return (g / g.sum(-1, keepdim=True)).clamp(min=eps, max=1 - finfo(g.dtype).eps)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return xlogy(c - 1.0, value).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        c = self.concentration
        cm1 = (c - 1).clamp(min=0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        # all below 1: torch takes the argmax of its 0/0 (nan) mode, i.e. the first vertex
        vertex = zeros_like(c)
        vertex[..., 0] = 1
        return where((c < 1).all(-1, keepdim=True), vertex, mode)

    @property
    def variance(self):
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.pow(2) * (c0 + 1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (lgamma(c).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0)
                - ((c - 1.0) * digamma(c)).sum(-1))
