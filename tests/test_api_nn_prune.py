"""nn.utils.prune against torch: the same masks (for the deterministic
methods), the same reparametrisation (weight_orig, weight_mask, the forward
pre-hook), iterative pruning, global pruning, remove and is_pruned."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
import torch.nn.utils.prune  # noqa: E402  (torch does not import it with torch.nn.utils)

TP, MP = torch.nn.utils.prune, flow.nn.utils.prune


def twins(seed=0):
    torch.manual_seed(seed)
    t = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3)).double()
    m = flow.nn.Sequential(flow.nn.Linear(6, 5), flow.nn.ReLU(), flow.nn.Linear(5, 3)).double()
    m.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, m


def same_masks(t, m):
    tsd, msd = t.state_dict(), m.state_dict()
    assert sorted(tsd) == sorted(msd)
    for k in tsd:
        np.testing.assert_array_equal(msd[k].numpy(), tsd[k].numpy(), err_msg=k)


def test_l1_unstructured_twice_then_remove():
    t, m = twins()
    TP.l1_unstructured(t[0], "weight", amount=0.3)
    MP.l1_unstructured(m[0], "weight", amount=0.3)
    same_masks(t, m)
    assert sorted(n for n, _ in m[0].named_parameters()) == ["bias", "weight_orig"]
    TP.l1_unstructured(t[0], "weight", amount=4)  # among the entries still kept
    MP.l1_unstructured(m[0], "weight", amount=4)
    same_masks(t, m)
    assert isinstance(m[0]._forward_pre_hooks[list(m[0]._forward_pre_hooks)[-1]], MP.PruningContainer)
    x = np.random.default_rng(1).standard_normal((4, 6))
    tx, mx = torch.tensor(x), flow.tensor(x)
    t(tx).sum().backward()
    m(mx).sum().backward()
    np.testing.assert_allclose(m[0].weight_orig.grad.numpy(), t[0].weight_orig.grad.numpy(), rtol=1e-12)
    assert MP.is_pruned(m) and not MP.is_pruned(m[2])
    TP.remove(t[0], "weight")
    MP.remove(m[0], "weight")
    same_masks(t, m)
    assert not MP.is_pruned(m) and isinstance(m[0].weight, flow.nn.Parameter)
    with pytest.raises(ValueError, match="has to be pruned"):
        MP.remove(m[0], "weight")


def test_ln_structured_and_custom_mask():
    t, m = twins(1)
    TP.ln_structured(t[0], "weight", amount=2, n=2, dim=0)
    MP.ln_structured(m[0], "weight", amount=2, n=2, dim=0)
    same_masks(t, m)
    TP.ln_structured(t[0], "weight", amount=1, n=1, dim=0)
    MP.ln_structured(m[0], "weight", amount=1, n=1, dim=0)
    same_masks(t, m)
    mask = (np.arange(15).reshape(3, 5) % 2).astype(np.float64)
    TP.custom_from_mask(t[2], "weight", torch.tensor(mask))
    MP.custom_from_mask(m[2], "weight", flow.tensor(mask))
    same_masks(t, m)


def test_global_unstructured():
    t, m = twins(2)
    TP.global_unstructured([(t[0], "weight"), (t[2], "weight"), (t[2], "bias")], TP.L1Unstructured, amount=0.4)
    MP.global_unstructured([(m[0], "weight"), (m[2], "weight"), (m[2], "bias")], MP.L1Unstructured, amount=0.4)
    same_masks(t, m)
    total = sum(float((getattr(mod, "weight") == 0).sum()) for mod in (m[0], m[2])) + float((m[2].bias == 0).sum())
    assert total == round(0.4 * (30 + 15 + 3))


def test_random_methods_prune_the_right_counts():
    _, m = twins(3)
    MP.random_unstructured(m[0], "weight", amount=0.5)
    assert float((m[0].weight_mask == 0).sum()) == 15
    MP.random_structured(m[2], "weight", amount=2, dim=1)
    zero_cols = (m[2].weight_mask.sum(0) == 0).sum()
    assert int(zero_cols) == 2
    MP.identity(m[2], "bias")
    assert float(m[2].bias_mask.sum()) == 3


def test_amount_validation():
    _, m = twins()
    with pytest.raises(ValueError):
        MP.l1_unstructured(m[0], "weight", amount=1.5)
    with pytest.raises(TypeError):
        MP.l1_unstructured(m[0], "weight", amount="half")
    with pytest.raises(ValueError, match="smaller than the number"):
        MP.l1_unstructured(m[0], "weight", amount=100)
