"""F.ctc_loss / nn.CTCLoss against torch: random lengths, padded and concatenated targets, blank,
reductions, zero_infinity; gradients compared through log_softmax (torch's ctc backward returns
the gradient as seen through log_softmax, exp(lp) - posterior, which is what the logits get)."""
import numpy as np
import pytest
import torch

import monoflow as flow


def _case(rng, blank):
    T, N, C = int(rng.integers(1, 14)), int(rng.integers(1, 4)), int(rng.integers(2, 7))
    blank = blank % C
    labels = [c for c in range(C) if c != blank]
    S = int(rng.integers(0, 5))
    il = [int(v) for v in rng.integers(0, T + 1, N)]
    tl = [int(v) for v in rng.integers(0, S + 1, N)]
    tg = rng.choice(labels, (N, max(S, 1))) if labels else np.zeros((N, 1), np.int64)
    x = rng.standard_normal((T, N, C))
    return x, tg, il, tl, blank


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("concat", [False, True])
def test_matches_torch(reduction, zero_infinity, concat):
    rng = np.random.default_rng(hash((reduction, zero_infinity, concat)) % 2 ** 32)
    for k in range(10):
        x, tg, il, tl, blank = _case(rng, k)
        if concat:
            flat = np.concatenate([tg[i, :tl[i]] for i in range(len(tl))]).astype(np.int64)
            ftg, ttg = flow.tensor(flat), torch.tensor(flat)
        else:
            ftg, ttg = flow.tensor(tg), torch.tensor(tg)
        a = flow.tensor(x, requires_grad=True)
        b = torch.tensor(x, requires_grad=True)
        got = flow.nn.CTCLoss(blank, reduction, zero_infinity)(a.log_softmax(2), ftg, flow.tensor(il),
                                                              flow.tensor(tl))
        want = torch.nn.CTCLoss(blank, reduction, zero_infinity)(b.log_softmax(2), ttg, torch.tensor(il),
                                                                torch.tensor(tl))
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-8)
        w = rng.standard_normal(tuple(want.shape))
        if not np.isfinite(want.detach().numpy()).all():
            continue  # torch's gradient of an infinite loss is not meaningful
        (got * flow.tensor(w)).sum().backward()
        (want * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-8)


def test_unbatched_and_float32():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 5)).astype(np.float32)
    tg = np.array([1, 2, 2, 4])
    got = flow.nn.functional.ctc_loss(flow.tensor(x).log_softmax(1), flow.tensor(tg), 9, 4)
    want = torch.nn.functional.ctc_loss(torch.tensor(x).log_softmax(1), torch.tensor(tg), (9,), (4,))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


def test_bad_input():
    lp = flow.randn(5, 2, 4).log_softmax(2)
    tg = flow.tensor([[1, 2], [3, 3]])
    with pytest.raises(ValueError):
        flow.nn.functional.ctc_loss(lp, tg, (5, 5), (2, 2), reduction="avg")
    with pytest.raises(RuntimeError):
        flow.nn.functional.ctc_loss(lp, tg, (6, 5), (2, 2))
    with pytest.raises(RuntimeError):
        flow.nn.functional.ctc_loss(lp, tg, (5, 5), (3, 2))
    with pytest.raises(RuntimeError):
        flow.nn.functional.ctc_loss(lp, tg, (5,), (2,))
    with pytest.raises(TypeError):
        flow.nn.functional.ctc_loss(lp, tg, "5", (2, 2))
