"""kl_divergence for every pair torch.distributions.kl registers (the closed forms added with the new
families), against torch: values (with infinities where the supports do not nest) and gradients."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")


_CREATED = []


def _t(L, x):
    t = L.tensor(x, dtype=L.float64, requires_grad=True)
    _CREATED.append(t)
    return t


FACTORIES = {
    "Bernoulli": lambda L: L.distributions.Bernoulli(probs=_t(L, [0.3, 0.6, 0.9])),
    "Beta": lambda L: L.distributions.Beta(_t(L, [0.5, 2.0, 3.0]), _t(L, [1.5, 0.7, 2.0])),
    "Binomial": lambda L: L.distributions.Binomial(5, _t(L, [0.3, 0.6, 0.9])),
    "Cauchy": lambda L: L.distributions.Cauchy(_t(L, [0.0, 1.0, -2.0]), _t(L, [1.0, 0.5, 2.0])),
    "ContinuousBernoulli": lambda L: L.distributions.ContinuousBernoulli(_t(L, [0.2, 0.7, 0.4])),
    "Dirichlet": lambda L: L.distributions.Dirichlet(_t(L, [[0.5, 2.0], [1.0, 1.0], [3.0, 0.2]])),
    "Exponential": lambda L: L.distributions.Exponential(_t(L, [0.5, 2.0, 1.0])),
    "ExponentialFamily": None,
    "Gamma": lambda L: L.distributions.Gamma(_t(L, [0.5, 2.0, 3.0]), _t(L, [1.5, 0.7, 2.0])),
    "Geometric": lambda L: L.distributions.Geometric(_t(L, [0.3, 0.6, 0.9])),
    "Gumbel": lambda L: L.distributions.Gumbel(_t(L, [0.0, 1.0, -2.0]), _t(L, [1.0, 0.5, 2.0])),
    "HalfNormal": lambda L: L.distributions.HalfNormal(_t(L, [1.0, 0.5, 2.0])),
    "Laplace": lambda L: L.distributions.Laplace(_t(L, [0.0, 1.0, -2.0]), _t(L, [1.0, 0.5, 2.0])),
    "LowRankMultivariateNormal": lambda L: L.distributions.LowRankMultivariateNormal(
        _t(L, [[0.1, -0.5, 0.3]] * 3), _t(L, [[[1.0, 0.2], [0.5, -0.3], [0.0, 0.7]]] * 3), _t(L, [[1.0, 0.5, 2.0]] * 3)),
    "MultivariateNormal": lambda L: L.distributions.MultivariateNormal(
        _t(L, [[0.3, 0.1, -0.2]] * 3), scale_tril=_t(L, [[[1.0, 0, 0], [0.3, 0.8, 0], [-0.2, 0.1, 1.5]]] * 3)),
    "Normal": lambda L: L.distributions.Normal(_t(L, [0.0, 1.0, -2.0]), _t(L, [1.0, 0.5, 2.0])),
    "Pareto": lambda L: L.distributions.Pareto(_t(L, [1.0, 0.5, 2.0]), _t(L, [3.0, 2.5, 1.5])),
    "Poisson": lambda L: L.distributions.Poisson(_t(L, [0.5, 2.0, 1.0])),
    "TransformedDistribution": lambda L: L.distributions.LogNormal(_t(L, [0.0, 1.0, -2.0]), _t(L, [1.0, 0.5, 2.0])),
    "Uniform": lambda L: L.distributions.Uniform(_t(L, [0.1, 0.5, 1.5]), _t(L, [0.9, 3.0, 2.0])),
}
SECOND = {  # a second parameter set, for pairs of the same family
    "Uniform": lambda L: L.distributions.Uniform(_t(L, [0.0, 0.6, 1.0]), _t(L, [1.0, 2.0, 2.5])),
    "Pareto": lambda L: L.distributions.Pareto(_t(L, [0.5, 0.7, 1.0]), _t(L, [2.0, 1.5, 4.0])),
}

PAIRS = sorted((p.__name__, q.__name__) for (p, q) in torch.distributions.kl._KL_REGISTRY
               if FACTORIES.get(p.__name__) and FACTORIES.get(q.__name__))


@pytest.mark.parametrize("pq", PAIRS, ids=lambda pq: f"{pq[0]}-{pq[1]}")
def test_kl_matches_torch(pq):
    pn, qn = pq
    out = []
    for L in (torch, flow):
        _CREATED.clear()
        p = FACTORIES[pn](L)
        q = (SECOND.get(qn) or FACTORIES[qn])(L) if pn == qn else FACTORIES[qn](L)
        kl = L.distributions.kl_divergence(p, q)
        res = [kl.detach().numpy()]
        params = list(_CREATED)
        finite = kl[L.isfinite(kl)]
        if finite.numel() and finite.requires_grad:
            grads = L.autograd.grad(finite.sum(), params, allow_unused=True)
            res += [np.zeros(1) if g is None else g.numpy() for g in grads]
        out.append(res)
    assert len(out[0]) == len(out[1])
    for i, (a, b) in enumerate(zip(out[1], out[0])):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9, err_msg=f"{pn}-{qn} item {i}")


def test_every_torch_pair_is_registered():
    flow_pairs = {(p.__name__, q.__name__) for (p, q) in flow.distributions.kl._KL_REGISTRY}
    torch_pairs = {(p.__name__, q.__name__) for (p, q) in torch.distributions.kl._KL_REGISTRY}
    assert torch_pairs <= flow_pairs
