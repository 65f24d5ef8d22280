"""nn.init (distributions, fans, gains, reproducibility under manual_seed),
nn.utils (gradient clipping, parameters <-> vector) and the small functional
helpers (normalize, cosine_similarity, pairwise_distance, one_hot, pad)."""
import math

import numpy as np
import pytest

import monoflow as flow
from monoflow import nn
from monoflow.nn import functional as F
from monoflow.nn import init

torch = pytest.importorskip("torch")


def test_calculate_gain_and_fans_match_torch():
    for name, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                        ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]:
        assert init.calculate_gain(name, param) == pytest.approx(torch.nn.init.calculate_gain(name, param))
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    for shape in [(3, 4), (5, 2, 3, 3), (4, 6, 2)]:
        assert init._calculate_fan_in_and_fan_out(flow.empty(*shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(flow.empty(3))


def _std_check(t, std, mean=0.0, tol=0.1):
    a = t.numpy()
    assert abs(a.std() - std) < tol * std and abs(a.mean() - mean) < 5 * std / math.sqrt(a.size)


def test_distributions():
    flow.manual_seed(0)
    w = flow.empty(200, 100)
    init.kaiming_uniform_(w, a=0.0, nonlinearity="relu")
    bound = math.sqrt(2.0) * math.sqrt(3.0 / 100)
    assert np.abs(w.numpy()).max() <= bound
    _std_check(w, bound / math.sqrt(3))
    init.kaiming_normal_(w, mode="fan_out")
    _std_check(w, math.sqrt(2.0 / (1 + 0.01 ** 2)) / math.sqrt(200))
    init.xavier_uniform_(w, gain=2.0)
    assert np.abs(w.numpy()).max() <= 2.0 * math.sqrt(6.0 / 300)
    init.xavier_normal_(w)
    _std_check(w, math.sqrt(2.0 / 300))
    init.trunc_normal_(w, mean=0.5, std=1.0, a=-0.5, b=1.0)
    assert w.numpy().min() >= -0.5 and w.numpy().max() <= 1.0
    init.uniform_(w, -2, 3)
    assert w.numpy().min() >= -2 and w.numpy().max() < 3
    init.normal_(w, 1.0, 0.5)
    _std_check(w, 0.5, mean=1.0)
    init.constant_(w, 0.25)
    assert np.all(w.numpy() == 0.25)
    init.zeros_(w)
    init.ones_(w)
    assert np.all(w.numpy() == 1)
    e = flow.empty(3, 5)
    init.eye_(e)
    np.testing.assert_array_equal(e.numpy(), np.eye(3, 5))
    d = flow.empty(4, 2, 3, 3)
    init.dirac_(d)
    np.testing.assert_array_equal(d.numpy(), torch.nn.init.dirac_(torch.empty(4, 2, 3, 3)).numpy())
    with pytest.raises(ValueError, match="Mode"):
        init.kaiming_uniform_(w, mode="fan_middle")


@pytest.mark.parametrize("shape", [(6, 4), (3, 8), (4, 2, 3)])
def test_orthogonal(shape):
    w = flow.empty(*shape)
    init.orthogonal_(w, gain=2.0)
    m = w.numpy().reshape(shape[0], -1) / 2.0
    small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(small, np.eye(small.shape[0]), atol=1e-5)


def test_init_is_reproducible_and_not_recorded():
    w = nn.Parameter(flow.empty(5, 5))
    flow.manual_seed(3)
    init.orthogonal_(w)
    init.kaiming_uniform_(w)
    a = w.detach().numpy().copy()
    flow.manual_seed(3)
    init.orthogonal_(w)
    init.kaiming_uniform_(w)
    np.testing.assert_array_equal(w.detach().numpy(), a)
    assert w.is_leaf and w.grad_fn is None
    g = flow.Generator().manual_seed(7) if hasattr(flow.Generator(), "manual_seed") else None
    if g is not None:
        b = init.normal_(flow.empty(4), generator=g).numpy()
        g.manual_seed(7)
        np.testing.assert_array_equal(init.normal_(flow.empty(4), generator=g).numpy(), b)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_clip_grad_norm_matches_torch(norm_type):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s) * 3 for s in [(3, 4), (5,), (2, 2)]]
    fps = [nn.Parameter(flow.zeros(*g.shape, dtype=flow.float64)) for g in grads]
    tps = [torch.nn.Parameter(torch.zeros(*g.shape, dtype=torch.float64)) for g in grads]
    for fp, tp, g in zip(fps, tps, grads):
        fp.grad = flow.tensor(g)
        tp.grad = torch.tensor(g)
    total = nn.utils.clip_grad_norm_(fps, 1.5, norm_type)
    want = torch.nn.utils.clip_grad_norm_(tps, 1.5, norm_type)
    assert total.item() == pytest.approx(want.item(), rel=1e-9)
    for fp, tp in zip(fps, tps):
        np.testing.assert_allclose(fp.grad.numpy(), tp.grad.numpy(), rtol=1e-9)
    # below the threshold nothing changes
    before = fps[0].grad.numpy().copy()
    nn.utils.clip_grad_norm_(fps, 1e6, norm_type)
    np.testing.assert_allclose(fps[0].grad.numpy(), before, rtol=1e-6)


def test_clip_grad_nonfinite_and_value():
    p = nn.Parameter(flow.zeros(3))
    p.grad = flow.tensor([1.0, float("inf"), -2.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    p.grad = flow.tensor([1.0, 5.0, -7.0])
    nn.utils.clip_grad_value_(p, 2.0)
    np.testing.assert_array_equal(p.grad.numpy(), [1.0, 2.0, -2.0])
    assert nn.utils.clip_grad_norm_([nn.Parameter(flow.zeros(1))], 1.0).item() == 0.0


def test_parameters_vector_round_trip():
    m = nn.Linear(3, 2)
    v = nn.utils.parameters_to_vector(m.parameters())
    assert tuple(v.shape) == (8,)
    np.testing.assert_array_equal(v.detach().numpy()[:6], m.weight.detach().numpy().reshape(-1))
    w = m.weight
    nn.utils.vector_to_parameters(flow.arange(8.0), m.parameters())
    assert m.weight is w
    np.testing.assert_array_equal(m.bias.detach().numpy(), [6.0, 7.0])


def test_functional_helpers_match_torch():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    fa, fb, ta, tb = flow.tensor(a), flow.tensor(b), torch.tensor(a), torch.tensor(b)
    tf = torch.nn.functional
    for got, want in [
        (F.normalize(fa), tf.normalize(ta)), (F.normalize(fa, p=1, dim=0), tf.normalize(ta, p=1, dim=0)),
        (F.cosine_similarity(fa, fb), tf.cosine_similarity(ta, tb)),
        (F.cosine_similarity(fa, fb, dim=0), tf.cosine_similarity(ta, tb, dim=0)),
        (F.pairwise_distance(fa, fb), tf.pairwise_distance(ta, tb)),
        (F.pairwise_distance(fa, fb, p=1, keepdim=True), tf.pairwise_distance(ta, tb, p=1, keepdim=True)),
        (F.one_hot(flow.tensor([0, 2, 1]), 4), tf.one_hot(torch.tensor([0, 2, 1]), 4)),
        (F.pad(fa, (1, 2)), tf.pad(ta, (1, 2))),
        (F.linear(fa, fb), tf.linear(ta, tb)),
    ]:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-12)
