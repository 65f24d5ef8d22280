"""kl_divergence(p, q) for the pairs of distributions that have a closed form, and register_kl to add more."""
import math

from monoflow import linalg
from monoflow.distributions.bernoulli import Bernoulli
from monoflow.distributions.categorical import Categorical
from monoflow.distributions.independent import Independent, _sum_rightmost
from monoflow.distributions.multivariate_normal import MultivariateNormal
from monoflow.distributions.normal import Normal
from monoflow.distributions.one_hot_categorical import OneHotCategorical
from monoflow.distributions.uniform import Uniform
from monoflow.ops_join import broadcast_shapes

_KL_REGISTRY = {}


def register_kl(type_p, type_q):
    """Decorator that registers ``fn(p, q)`` as the KL divergence of ``type_p`` from ``type_q``."""
    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn
    return decorator


def _lookup(type_p, type_q):
    # the registered pair whose classes are nearest in both method resolution orders
    best, best_rank = None, None
    for (p, q), fn in _KL_REGISTRY.items():
        if issubclass(type_p, p) and issubclass(type_q, q):
            rank = (type_p.__mro__.index(p), type_q.__mro__.index(q))
            if best_rank is None or rank < best_rank:
                best, best_rank = fn, rank
    return best


def kl_divergence(p, q):
    """KL(p || q) per batch member; NotImplementedError for a pair with no registered formula."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type {type(q).__name__}")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), float("inf"))
    t = t.masked_fill((p.probs == 0).expand_as(t), 0.0)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    import monoflow.nn.functional as F
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, float("inf")).masked_fill(p.probs == 0, 0.0)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = t2.masked_fill(q.probs == 1, float("inf")).masked_fill(p.probs == 1, 0.0)
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), float("inf"))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    common = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common).log()
    t2 = common.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    n = p.event_shape[0]
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_log_det = lambda L: L.diagonal(dim1=-2, dim2=-1).log().sum(-1)  # noqa: E731
    shape = broadcast_shapes(Lp.shape[:-2], Lq.shape[:-2])
    Lq_full, Lp_full = Lq.expand(tuple(shape) + (n, n)), Lp.expand(tuple(shape) + (n, n))
    trace = linalg.solve_triangular(Lq_full, Lp_full, upper=False).pow(2).flatten(-2).sum(-1)
    diff = (q.loc - p.loc).expand(tuple(shape) + (n,)).unsqueeze(-1)
    mahalanobis = linalg.solve_triangular(Lq_full, diff, upper=False).squeeze(-1).pow(2).sum(-1)
    return half_log_det(Lq) - half_log_det(Lp) + 0.5 * (trace + mahalanobis - n)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("kl_divergence of Independent distributions needs the same reinterpreted_batch_ndims")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
