"""distributions.Gamma / Beta against torch: log_prob, entropy, mean, variance, mode (same values);
sample statistics (moments of many draws); rsample's implicit gradients, pointwise against
torch._standard_gamma_grad on monoflow's own draws and in expectation against d mean / d parameter."""
import numpy as np
import pytest
import torch

import monoflow as flow
from monoflow import distributions as D

TD = torch.distributions


def _params(rng, shape=(3, 2)):
    return rng.uniform(0.3, 6.0, shape), rng.uniform(0.3, 4.0, shape)


@pytest.mark.parametrize("name", ["Gamma", "Beta"])
def test_exact_quantities_match_torch(name):
    rng = np.random.default_rng(0)
    p, q = _params(rng)
    p[0, 0], q[0, 0] = 0.4, 0.6  # both below 1: the mode's corner case
    m, t = getattr(D, name)(flow.tensor(p), flow.tensor(q)), getattr(TD, name)(torch.tensor(p), torch.tensor(q))
    v = rng.uniform(0.05, 0.95, (4, 3, 2)) * (5 if name == "Gamma" else 1)
    np.testing.assert_allclose(m.log_prob(flow.tensor(v)).numpy(), t.log_prob(torch.tensor(v)).numpy(), rtol=1e-10)
    for attr in ("mean", "variance", "mode"):
        np.testing.assert_allclose(getattr(m, attr).numpy(), getattr(t, attr).numpy(), rtol=1e-10)
    np.testing.assert_allclose(m.entropy().numpy(), t.entropy().numpy(), rtol=1e-10)
    assert m.has_rsample and t.has_rsample
    assert tuple(m.rsample((5,)).shape) == tuple(t.rsample((5,)).shape) == (5, 3, 2)


@pytest.mark.parametrize("name", ["Gamma", "Beta"])
def test_sample_moments(name):
    flow.manual_seed(1)
    p, q = np.array([0.5, 2.0, 7.0]), np.array([1.5, 0.7, 3.0])
    t = getattr(TD, name)(torch.tensor(p), torch.tensor(q))
    x = getattr(D, name)(flow.tensor(p), flow.tensor(q)).rsample((40000,)).detach().numpy()
    sd = np.sqrt(t.variance.numpy())
    np.testing.assert_allclose(x.mean(0), t.mean.numpy(), atol=float(6 * sd.max() / np.sqrt(40000)))
    np.testing.assert_allclose(x.std(0), sd, rtol=0.05)


def test_gamma_rsample_pointwise_grad_matches_torch():
    flow.manual_seed(2)
    a = flow.tensor([0.4, 1.0, 2.5, 9.0, 30.0], dtype=flow.float64, requires_grad=True)
    rate = flow.tensor(1.0, dtype=flow.float64)
    x = D.Gamma(a, rate).rsample()
    x.sum().backward()
    want = torch._standard_gamma_grad(torch.tensor(a.detach().numpy()), torch.tensor(x.detach().numpy()))
    np.testing.assert_allclose(a.grad.numpy(), want.numpy(), rtol=2e-3)  # torch uses approximations


def test_rsample_gradient_in_expectation():
    flow.manual_seed(3)
    n = 20000
    a = flow.tensor([0.7, 3.0], dtype=flow.float64, requires_grad=True)
    b = flow.tensor([2.0, 0.5], dtype=flow.float64, requires_grad=True)
    D.Gamma(a, b).rsample((n,)).mean(0).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 1 / b.detach().numpy(), rtol=0.05)  # d(a/b)/da
    np.testing.assert_allclose(b.grad.numpy(), -(a / b ** 2).detach().numpy(), rtol=0.05)
    a1 = flow.tensor([1.5, 4.0], dtype=flow.float64, requires_grad=True)
    a0 = flow.tensor([2.0, 1.0], dtype=flow.float64, requires_grad=True)
    D.Beta(a1, a0).rsample((n,)).mean(0).sum().backward()
    ta1 = torch.tensor(a1.detach().numpy(), requires_grad=True)
    ta0 = torch.tensor(a0.detach().numpy(), requires_grad=True)
    TD.Beta(ta1, ta0).mean.sum().backward()
    np.testing.assert_allclose(a1.grad.numpy(), ta1.grad.numpy(), rtol=0.1, atol=3e-3)
    np.testing.assert_allclose(a0.grad.numpy(), ta0.grad.numpy(), rtol=0.1, atol=3e-3)


def test_dirichlet_matches_torch():
    rng = np.random.default_rng(5)
    c = rng.uniform(0.3, 4.0, (3, 4))
    c[1] = [0.5, 0.2, 0.9, 0.3]  # all below 1: the mode's corner case
    m, t = D.Dirichlet(flow.tensor(c)), TD.Dirichlet(torch.tensor(c))
    assert tuple(m.batch_shape) == tuple(t.batch_shape) and tuple(m.event_shape) == tuple(t.event_shape)
    v = t.sample((5,))
    np.testing.assert_allclose(m.log_prob(flow.tensor(v.numpy())).numpy(), t.log_prob(v).numpy(), rtol=1e-10)
    for attr in ("mean", "variance", "mode"):
        np.testing.assert_allclose(getattr(m, attr).numpy(), getattr(t, attr).numpy(), rtol=1e-10)
    np.testing.assert_allclose(m.entropy().numpy(), t.entropy().numpy(), rtol=1e-10)
    flow.manual_seed(6)
    x = m.sample((20000,)).numpy()
    assert x.shape == (20000, 3, 4)
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-9)
    np.testing.assert_allclose(x.mean(0), t.mean.numpy(), atol=0.01)
    np.testing.assert_allclose(x.var(0), t.variance.numpy(), rtol=0.1, atol=1e-3)
    cc = flow.tensor([1.0, 2.0, 3.0], dtype=flow.float64, requires_grad=True)
    D.Dirichlet(cc).rsample((20000,)).mean(0)[0].backward()
    tc = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    TD.Dirichlet(tc).mean[0].backward()
    np.testing.assert_allclose(cc.grad.numpy(), tc.grad.numpy(), atol=5e-3)
    with pytest.raises(ValueError):
        D.Dirichlet(flow.tensor(1.0))
