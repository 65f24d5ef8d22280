"""Cauchy, HalfNormal, StudentT, Chi2, Poisson, Geometric and MixtureSameFamily against torch.distributions:
log_prob (with gradients), cdf, mean, variance, entropy, and sample shapes/statistics."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")

CASES = [
    ("Cauchy", lambda L: (L.tensor([0.3, -1.0]), L.tensor([1.5, 0.4])), {}, [-0.7, 2.0], ("cdf", "entropy")),
    ("HalfNormal", lambda L: (L.tensor([1.5, 0.4]),), {}, [0.7, 0.1], ("mean", "variance", "cdf", "entropy")),
    ("StudentT", lambda L: (L.tensor([3.0, 5.5]), L.tensor([0.2, -1.0]), L.tensor([1.2, 0.7])), {}, [0.1, -2.0],
     ("mean", "variance", "entropy")),
    ("Chi2", lambda L: (L.tensor([3.0, 1.5]),), {}, [0.7, 2.5], ("mean", "variance", "entropy")),
    ("Poisson", lambda L: (L.tensor([2.0, 0.5]),), {}, [1.0, 0.0], ("mean", "variance")),
    ("Geometric", lambda L: (), {"probs": lambda L: L.tensor([0.3, 0.8])}, [2.0, 0.0], ("mean", "variance", "entropy")),
]


@pytest.mark.parametrize("name,args,kw,value,props", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, args, kw, value, props):
    out = []
    for L in (torch, flow):
        a = [x.double().requires_grad_() for x in args(L)]
        k = {n: f(L).double() for n, f in kw.items()}
        d = getattr(L.distributions, name)(*a, **k)
        lp = d.log_prob(L.tensor(value, dtype=L.float64))
        res = [lp.detach().numpy()]
        if a:
            lp.sum().backward()
            res += [x.grad.numpy() for x in a]
        for p in props:
            v = getattr(d, p)
            v = v(L.tensor(value, dtype=L.float64)) if p == "cdf" else (v() if callable(v) else v)
            res.append(v.detach().numpy())
        s = d.sample((4000,))
        assert tuple(s.shape) == (4000, 2)
        res.append(s.double().mean(0).numpy() if name not in ("Cauchy", "StudentT") else np.zeros(2))
        out.append(res)
    for i, (m, t) in enumerate(zip(out[1][:-1], out[0][:-1])):
        np.testing.assert_allclose(m, t, rtol=1e-9, atol=1e-12, err_msg=f"{name} item {i}")
    if name not in ("Cauchy", "StudentT"):  # sample means (heavy tails excluded)
        np.testing.assert_allclose(out[1][-1], out[0][-1], rtol=0.1, atol=0.1)


def test_student_t_and_halfnormal_rsample_have_gradients():
    df = flow.tensor([4.0], requires_grad=True)
    scale = flow.tensor([2.0], requires_grad=True)
    flow.distributions.StudentT(df, 0.0, scale).rsample((50,)).pow(2).mean().backward()
    assert df.grad is not None and scale.grad is not None
    s = flow.tensor([1.5], requires_grad=True)
    flow.distributions.HalfNormal(s).rsample((10,)).sum().backward()
    assert float(s.grad) > 0


def gmm(L):
    D = L.distributions
    mix = D.Categorical(logits=L.tensor([[0.2, -0.3, 0.1], [0.0, 0.5, -1.0]], dtype=L.float64))
    comp = D.Normal(L.tensor([[-1.0, 0.5, 2.0], [0.0, 1.0, -2.0]], dtype=L.float64),
                    L.tensor([[0.5, 1.0, 0.7], [1.2, 0.3, 0.9]], dtype=L.float64))
    return D.MixtureSameFamily(mix, comp)


def test_mixture_same_family_matches_torch():
    t, m = gmm(torch), gmm(flow)
    assert tuple(m.batch_shape) == tuple(t.batch_shape) == (2,)
    x = np.array([0.3, -1.2])
    for attr in ("mean", "variance"):
        np.testing.assert_allclose(getattr(m, attr).numpy(), getattr(t, attr).numpy(), rtol=1e-12)
    np.testing.assert_allclose(m.log_prob(flow.tensor(x)).numpy(), t.log_prob(torch.tensor(x)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(m.cdf(flow.tensor(x)).numpy(), t.cdf(torch.tensor(x)).numpy(), rtol=1e-12)
    s = m.sample((20000,))
    assert tuple(s.shape) == (20000, 2)
    np.testing.assert_allclose(s.mean(0).numpy(), t.mean.numpy(), atol=0.05)
    # a mixture of multivariate components (event_shape (2,))
    D = flow.distributions
    mv = D.MixtureSameFamily(D.Categorical(flow.ones(3)), D.Independent(D.Normal(flow.zeros(3, 2), flow.ones(3, 2)), 1))
    assert tuple(mv.sample((5,)).shape) == (5, 2) and tuple(mv.log_prob(flow.zeros(4, 2)).shape) == (4,)


@pytest.mark.parametrize("build", [
    lambda L: L.distributions.Normal(L.tensor([0.0, 1.0]), L.tensor([1.0, 2.0])),
    lambda L: L.distributions.Categorical(logits=L.tensor([[0.1, 0.2, 0.3], [0.0, -1.0, 1.0]])),
    lambda L: L.distributions.Bernoulli(probs=L.tensor([0.2, 0.7])),
    lambda L: L.distributions.Beta(L.tensor([1.5, 2.0]), L.tensor([0.5, 3.0])),
    lambda L: L.distributions.StudentT(L.tensor([3.0, 4.0])),
    lambda L: L.distributions.Independent(L.distributions.Normal(L.zeros(2, 3), L.ones(2, 3)), 1),
], ids=["normal", "categorical", "bernoulli", "beta", "studentt", "independent"])
def test_expand_matches_torch(build):
    t, m = build(torch).expand((4, 2)), build(flow).expand((4, 2))
    assert tuple(m.batch_shape) == tuple(t.batch_shape) and tuple(m.event_shape) == tuple(t.event_shape)
    torch.manual_seed(0)  # the same draw every run (float32 log-densities near 0 need the atol)
    v = t.sample()
    np.testing.assert_allclose(m.log_prob(flow.tensor(v.numpy())).numpy(), t.log_prob(v).numpy(), rtol=1e-6,
                               atol=1e-6)
    assert tuple(m.sample((5,)).shape) == tuple(t.sample((5,)).shape)


def test_tensor_H_and_mH_match_torch():
    a = np.arange(6.0).reshape(2, 3)
    c = np.array([[1 + 2j, 3 - 1j], [0.5j, 2.0]])
    for x in (a, c):
        np.testing.assert_array_equal(flow.tensor(x).H.numpy(), torch.tensor(x).H.resolve_conj().numpy())
    b = np.arange(12.0).reshape(2, 2, 3)
    np.testing.assert_array_equal(flow.tensor(b).mH.numpy(), torch.tensor(b).mH.numpy())
    with pytest.raises(RuntimeError, match="matrices"):
        flow.ones(3).H
