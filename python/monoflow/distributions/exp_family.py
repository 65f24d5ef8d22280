"""ExponentialFamily (the base whose entropy comes from the log normalizer), ContinuousBernoulli,
GeneralizedPareto and VonMises, as torch.distributions."""
import math
import numbers

import monoflow.nn.functional as F
from monoflow import autograd, ops_math, special
from monoflow._creation import full_like, ones_like, zeros, zeros_like
from monoflow._dtypes import bool_, float64
from monoflow._tensor import Size
from monoflow.autograd.grad_mode import enable_grad, no_grad
from monoflow.distributions import constraints
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.utils import (broadcast_all, clamp_probs, lazy_property, logits_to_probs,
                                          probs_to_logits)
from monoflow.ops_join import broadcast_tensors
from monoflow.ops_math import cos, exp, expm1, log, log1p, sqrt, where
from monoflow.ops_random import rand
from monoflow.ops_stats import isclose

__all__ = ["ExponentialFamily", "ContinuousBernoulli", "GeneralizedPareto", "VonMises"]


class ExponentialFamily(Distribution):
    """The base of distributions of the exponential family ``p(x) = h(x) exp(<t(x), theta> - F(theta))``: a
    subclass gives ``_natural_params`` (theta), ``_log_normalizer(*theta)`` (F) and ``_mean_carrier_measure``
    (E[log h(x)]), and gets ``entropy`` through the Bregman divergence of F (autograd computes its gradient).

    Args:
        batch_shape (tuple): the batch shape.
        event_shape (tuple): the event shape.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> d = flow.distributions.ContinuousBernoulli(flow.tensor([0.3]))
        >>> isinstance(d, flow.distributions.ExponentialFamily)
        True
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for p, g in zip(nparams, gradients):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019), with density
    proportional to ``probs ** x * (1 - probs) ** (1 - x)``; reparameterizable.

    Args:
        probs (Tensor or Number): the parameter in (0, 1).
        logits (Tensor or Number): its log-odds.
        lims (tuple): the interval around 0.5 where Taylor expansions replace the unstable closed forms.
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.ContinuousBernoulli(flow.tensor([0.3]))
        >>> m.log_prob(flow.tensor([0.5]))
        tensor([-0.0297])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None:
                if not bool(self.arg_constraints["probs"].check(self.probs).all()):
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return where(self._outside_unstable_region(), self.probs, self._lims[0] * ones_like(self.probs))

    def _cont_bern_log_norm(self):
        cut_probs = self._cut_probs()
        below = where(cut_probs <= 0.5, cut_probs, zeros_like(cut_probs))
        above = where(cut_probs >= 0.5, cut_probs, ones_like(cut_probs))
        log_norm = log(ops_math.abs(log1p(-cut_probs) - log(cut_probs))) - where(
            cut_probs <= 0.5, log1p(-2.0 * below), log(2.0 * above - 1.0))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (log1p(-cut_probs) - log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        var = cut_probs * (cut_probs - 1.0) / (1.0 - 2.0 * cut_probs).pow(2) + 1.0 / (
            log1p(-cut_probs) - log(cut_probs)).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), var, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_tensors(self.logits, value.to(self.logits.dtype))
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (ops_math.pow(cut_probs, value) * ops_math.pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0) / (
            2.0 * cut_probs - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        return where(value <= 0.0, zeros_like(value),
                     where(value >= 1.0, ones_like(value), unbounded))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return where(self._outside_unstable_region(),
                     (log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - log1p(-cut_probs))
                     / (log(cut_probs) - log1p(-cut_probs)), value)

    def entropy(self):
        log_probs0 = log1p(-self.probs)
        log_probs1 = log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        out_unst_reg = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut_nat_params = where(out_unst_reg, x, (self._lims[0] - 0.5) * ones_like(x))
        log_norm = log(ops_math.abs(expm1(cut_nat_params))) - log(ops_math.abs(cut_nat_params))
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(out_unst_reg, log_norm, taylor)


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of ``loc``, ``scale`` and ``concentration`` (Exponential at
    concentration 0, Pareto for positive, bounded for negative); reparameterizable through its icdf.

    Args:
        loc (Tensor or Number): location.
        scale (Tensor or Number): scale (positive).
        concentration (Tensor or Number): shape (any real).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.GeneralizedPareto(flow.tensor([0.0]), flow.tensor([1.0]), flow.tensor([0.0]))
        >>> m.log_prob(flow.tensor([1.0]))
        tensor([-1.])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalar = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(Size() if scalar else self.loc.size(), validate_args=validate_args)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _safe(self):
        eq_zero = isclose(self.concentration, zeros_like(self.concentration))
        return eq_zero, where(eq_zero, ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe_conc = self._safe()
        y = 1 / safe_conc + ones_like(z)
        where_nonzero = where(y == 0, y, y * log1p(safe_conc * z))
        return -self.scale.log() - where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        """log(1 - cdf(value)).

        Example::

            >>> m = flow.distributions.GeneralizedPareto(0.0, 1.0, 0.0)
            >>> m.log_survival_function(flow.tensor([2.0]))
            tensor([-2.])
        """
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe_conc = self._safe()
        return where(eq_zero, -z, -log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value):
        """log(cdf(value)).

        Example::

            >>> m = flow.distributions.GeneralizedPareto(0.0, 1.0, 0.0)
            >>> m.log_cdf(flow.tensor([1.0]))
            tensor([-0.4587])
        """
        return log1p(-exp(self.log_survival_function(value)))

    def cdf(self, value):
        return exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe_conc = self._safe()
        logu = log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * expm1(-safe_conc * logu)
        return where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = where(valid, self.concentration, full_like(self.concentration, 0.5))
        result = self.loc + self.scale / (1 - safe_conc)
        return where(valid, result, full_like(result, math.nan))

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = where(valid, self.concentration, full_like(self.concentration, 0.25))
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return where(valid, result, full_like(result, math.nan))

    def entropy(self):
        return (log(self.scale) + self.concentration + 1).expand(self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @property
    def support(self):
        lower = self.loc
        upper = where(self.concentration < 0, lower - self.scale / self.concentration,
                      full_like(lower, math.inf))
        return constraints.interval(lower, upper)


def _log_modified_bessel_fn(x, order=0):
    """log I_order(x) for x > 0, through the exponentially scaled i0e / i1e."""
    scaled = special.i0e(x) if order == 0 else special.i1e(x)
    return scaled.log() + x.abs()


def _rejection_sample(loc, concentration, proposal_r, x):
    done = zeros(tuple(x.shape), dtype=bool_, device=loc.device)
    while not bool(done.all()):
        u = rand((3,) + tuple(x.shape), dtype=loc.dtype, device=loc.device)
        u1, u2, u3 = u.unbind()
        z = cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The circular von Mises distribution of mean angle ``loc`` and ``concentration`` (values are angles,
    read modulo 2 pi); sampled by Best and Fisher's rejection method in double precision.

    Args:
        loc (Tensor): the mean angle in radians.
        concentration (Tensor): the concentration (positive).
        validate_args (bool): check the parameters and the values given to ``log_prob``.

    Example::

        >>> m = flow.distributions.VonMises(flow.tensor([0.0]), flow.tensor([1.0]))
        >>> m.log_prob(flow.tensor([0.0]))
        tensor([-1.0738])
    """
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _loc(self):
        return self.loc.to(float64)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(float64)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho ** 2) / (2 * rho)
        return where(kappa < 1e-5, 1 / kappa + kappa, proposal_r)

    def sample(self, sample_shape=Size()):
        with no_grad():
            shape = self._extended_shape(sample_shape)
            x = zeros(tuple(shape), dtype=float64, device=self.loc.device)
            return _rejection_sample(self._loc.detach(), self._concentration.detach(), self._proposal_r.detach(),
                                     x).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
