"""binary_cross_entropy at saturated probabilities (issue 13: pytorch/examples siamese_network's
BCELoss after a sigmoid that reached exactly 0 or 1 gave nan gradients, then nan losses)."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")

P = [0.0, 1.0, 0.5, 0.3, 1e-30, 1.0 - 1e-7]
T = [1.0, 0.0, 1.0, 0.2, 1.0, 0.0]
W = [1.0, 2.0, 3.0, 4.0, 0.5, 1.5]


def run(lib, reduction, weight):
    x = lib.tensor(P, requires_grad=True)
    t = lib.tensor(T, requires_grad=True)
    w = lib.tensor(W) if weight else None
    loss = lib.nn.functional.binary_cross_entropy(x, t, weight=w, reduction=reduction)
    loss.sum().backward()
    return loss.detach().numpy(), x.grad.numpy(), t.grad.numpy()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight", [False, True])
def test_bce_saturated_matches_torch(reduction, weight):
    got, ref = run(flow, reduction, weight), run(torch, reduction, weight)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-5)  # (inf == inf for the target's gradient at 0 and 1)
    assert np.isfinite(got[1]).all()


def test_bce_module_and_double_backward_match_torch():
    outs = []
    for lib in (flow, torch):
        x = lib.tensor([0.2, 0.7, 0.9], requires_grad=True)
        t = lib.tensor([0.0, 1.0, 0.5])
        g, = lib.autograd.grad(lib.nn.BCELoss()(x, t), x, create_graph=True)
        g2, = lib.autograd.grad((g * g).sum(), x)
        outs.append((g.detach().numpy(), g2.numpy()))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_bce_after_saturated_sigmoid_trains_as_torch():
    """A logit so large that sigmoid rounds to 1 exactly: the step stays finite in both."""
    res = []
    for lib in (flow, torch):
        w = lib.tensor([[20.0], [25.0]], requires_grad=True)
        out = lib.sigmoid(lib.tensor([[1.0, 1.0]]) @ w).squeeze()
        loss = lib.nn.BCELoss()(out, lib.tensor(0.0))
        loss.backward()
        res.append((loss.item(), w.grad.numpy()))
    assert res[0][0] == pytest.approx(res[1][0])
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-5)
