"""Loss functions and loss modules against torch: every reduction, values
and gradients (float64, same random inputs)."""
import numpy as np
import pytest

import monoflow as flow
from monoflow import nn
from monoflow.nn import functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

REDUCTIONS = ["none", "mean", "sum"]


def _rng(seed):
    return np.random.default_rng(seed)


def check(fn, tfn, arrays, diff, rtol=1e-6, atol=1e-10):
    """fn(*flow tensors) vs tfn(*torch tensors); gradients of arrays in `diff`."""
    fx = [flow.tensor(a, requires_grad=i in diff) for i, a in enumerate(arrays)]
    tx = [torch.tensor(a, requires_grad=i in diff) for i, a in enumerate(arrays)]
    f, t = fn(*fx), tfn(*tx)
    assert tuple(f.shape) == tuple(t.shape)
    np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    up = _rng(9).standard_normal(tuple(t.shape))
    (f * flow.tensor(up)).sum().backward()
    (t * torch.tensor(up)).sum().backward()
    for i in diff:
        assert fx[i].grad is not None, f"no gradient for argument {i}"
        np.testing.assert_allclose(fx[i].grad.numpy(), tx[i].grad.numpy(), rtol=rtol * 10, atol=atol * 10)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(reduction):
    x, y = _rng(0).standard_normal((4, 5)) * 2, _rng(1).standard_normal((4, 5)) * 2
    check(lambda a, b: F.mse_loss(a, b, reduction=reduction), lambda a, b: TF.mse_loss(a, b, reduction=reduction),
          [x, y], [0, 1])
    check(lambda a, b: F.l1_loss(a, b, reduction=reduction), lambda a, b: TF.l1_loss(a, b, reduction=reduction),
          [x, y], [0, 1])
    for beta in (1.0, 0.5, 0.0):
        check(lambda a, b: nn.SmoothL1Loss(reduction=reduction, beta=beta)(a, b),
              lambda a, b: torch.nn.SmoothL1Loss(reduction=reduction, beta=beta)(a, b), [x, y], [0, 1])
    for delta in (1.0, 0.3):
        check(lambda a, b: nn.HuberLoss(reduction=reduction, delta=delta)(a, b),
              lambda a, b: torch.nn.HuberLoss(reduction=reduction, delta=delta)(a, b), [x, y], [0, 1])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    rng = _rng(2)
    p = rng.uniform(0.05, 0.95, (3, 4))
    t = rng.uniform(0, 1, (3, 4))
    w = rng.uniform(0.5, 2, (3, 4))
    check(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction),
          lambda a, b: TF.binary_cross_entropy(a, b, reduction=reduction), [p, t], [0, 1])
    check(lambda a, b, c: nn.BCELoss(weight=c, reduction=reduction)(a, b),
          lambda a, b, c: torch.nn.BCELoss(weight=c, reduction=reduction)(a, b), [p, t, w], [0])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits(reduction):
    rng = _rng(3)
    x = rng.standard_normal((3, 4)) * 4
    x[0, 0], x[0, 1] = 60.0, -60.0  # stays finite at extreme logits
    t = rng.uniform(0, 1, (3, 4))
    pw = rng.uniform(0.5, 3, (4,))
    w = rng.uniform(0.5, 2, (3, 4))
    check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction),
          lambda a, b: TF.binary_cross_entropy_with_logits(a, b, reduction=reduction), [x, t], [0, 1])
    check(lambda a, b, c, d: nn.BCEWithLogitsLoss(weight=d, pos_weight=c, reduction=reduction)(a, b),
          lambda a, b, c, d: torch.nn.BCEWithLogitsLoss(weight=d, pos_weight=c, reduction=reduction)(a, b),
          [x, t, pw, w], [0, 1])


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")  # torch warns the same
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    rng = _rng(4)
    inp = np.log(rng.dirichlet(np.ones(5), size=3))
    tgt = rng.dirichlet(np.ones(5), size=3)
    tgt[0, 0] = 0.0  # 0 * log 0 = 0
    if log_target:
        tgt = np.log(tgt + 0.1)
    with np.errstate(all="ignore"):
        check(lambda a, b: nn.KLDivLoss(reduction=reduction, log_target=log_target)(a, b),
              lambda a, b: torch.nn.KLDivLoss(reduction=reduction, log_target=log_target)(a, b), [inp, tgt], [0])


def test_kl_div_negative_target_is_zero_as_oneflow():
    # OneFlow (test_kldivloss): where target <= 0 the pointwise loss is 0 and so is its gradient; torch gives
    # NaN for a negative target. Elsewhere the two agree.
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    inp = flow.tensor(x, requires_grad=True)
    out = F.kl_div(inp, flow.tensor(y), reduction="none")
    want = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1.0)) - x), 0.0)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(inp.grad.numpy(), np.where(y > 0, -y, 0.0), rtol=1e-12)
    pos = y > 0
    t = torch.nn.functional.kl_div(torch.tensor(x), torch.tensor(y), reduction="none").numpy()
    np.testing.assert_allclose(out.detach().numpy()[pos], t[pos], rtol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    rng = _rng(5)
    logp = np.log(rng.dirichlet(np.ones(4), size=6))
    target = rng.integers(0, 4, 6)
    target[2] = 1
    w = rng.uniform(0.5, 2, 4)
    check(lambda a, b: F.nll_loss(a, b, reduction=reduction), lambda a, b: TF.nll_loss(a, b, reduction=reduction),
          [logp, target], [0])
    target[1] = -100
    check(lambda a, b, c: nn.NLLLoss(weight=c, reduction=reduction)(a, b),
          lambda a, b, c: torch.nn.NLLLoss(weight=c, reduction=reduction)(a, b), [logp, target, w], [0])
    target[1], target[3] = 0, 2
    check(lambda a, b: nn.NLLLoss(ignore_index=2, reduction=reduction)(a, b),
          lambda a, b: torch.nn.NLLLoss(ignore_index=2, reduction=reduction)(a, b), [logp, target], [0])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy(reduction, smoothing):
    rng = _rng(6)
    logits = rng.standard_normal((5, 4)) * 2
    target = rng.integers(0, 4, 5)
    w = rng.uniform(0.5, 2, 4)

    def both(**kw):
        check(lambda a, b, c: nn.CrossEntropyLoss(weight=c if kw.get("w") else None, reduction=reduction,
                                                  label_smoothing=smoothing, ignore_index=kw.get("ii", -100))(a, b),
              lambda a, b, c: torch.nn.CrossEntropyLoss(weight=c if kw.get("w") else None, reduction=reduction,
                                                        label_smoothing=smoothing,
                                                        ignore_index=kw.get("ii", -100))(a, b),
              [logits, target, w], [0])

    both()
    both(w=True)
    target[0] = 3
    both(w=True, ii=3)


def test_cross_entropy_spatial_and_probabilities():
    rng = _rng(7)
    logits = rng.standard_normal((2, 3, 4, 2))
    target = rng.integers(0, 3, (2, 4, 2))
    check(lambda a, b: F.cross_entropy(a, b), lambda a, b: TF.cross_entropy(a, b), [logits, target], [0])
    probs = rng.dirichlet(np.ones(3), size=4)
    logits2 = rng.standard_normal((4, 3))
    for red in REDUCTIONS:
        check(lambda a, b: F.cross_entropy(a, b, reduction=red), lambda a, b: TF.cross_entropy(a, b, reduction=red),
              [logits2, probs], [0])


def test_loss_modules_hold_weights_as_buffers():
    w = flow.ones(3)
    m = nn.CrossEntropyLoss(weight=w)
    assert list(m.state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss(pos_weight=w).state_dict()) == ["pos_weight"]
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(flow.zeros(2), flow.zeros(2), reduction="avg")


def test_legacy_size_average_reduce():
    x, y = flow.tensor([1.0, 2.0]), flow.tensor([0.0, 0.0])
    with pytest.warns(UserWarning):
        assert F.mse_loss(x, y, size_average=False).item() == 5.0
    assert nn.L1Loss(reduce=False)(x, y).shape == (2,)


def test_other_losses_match_torch():
    rng = _rng(8)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    sign = np.where(rng.random(4) > 0.5, 1.0, -1.0)
    check(lambda x, y, t: F.cosine_embedding_loss(x, y, t, margin=0.1),
          lambda x, y, t: TF.cosine_embedding_loss(x, y, t, margin=0.1), [a, b, sign], [0, 1])
    check(lambda x, y, t: F.margin_ranking_loss(x[:, 0], y[:, 0], t, margin=0.2),
          lambda x, y, t: TF.margin_ranking_loss(x[:, 0], y[:, 0], t, margin=0.2), [a, b, sign], [0, 1])
    check(lambda x, t: F.soft_margin_loss(x[:, 0], t), lambda x, t: TF.soft_margin_loss(x[:, 0], t), [a, sign], [0])
    check(lambda x, y, z: F.triplet_margin_loss(x, y, z), lambda x, y, z: TF.triplet_margin_loss(x, y, z),
          [a, b, rng.standard_normal((4, 3))], [0, 1, 2])
    check(lambda x, t: F.poisson_nll_loss(x, t), lambda x, t: TF.poisson_nll_loss(x, t),
          [a, rng.poisson(2.0, (4, 3)).astype(float)], [0])
    check(lambda x, t, v: F.gaussian_nll_loss(x, t, v), lambda x, t, v: TF.gaussian_nll_loss(x, t, v),
          [a, b, rng.uniform(0.5, 2, (4, 3))], [0, 2])
