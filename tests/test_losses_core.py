"""cross_entropy and nll_loss (core ops, monoflow._losses): values and
gradients against torch for every argument combination (weights,
ignore_index, label smoothing, reductions, K-dim inputs, unbatched inputs,
probability targets), finite differences on a few, and bad input."""
import itertools

import numpy as np
import pytest

import monoflow as flow
from monoflow import _losses as L
from autograd_helpers import check_gradients, leaf

torch = pytest.importorskip("torch")
F = torch.nn.functional

SHAPES = [((4, 3), (4,)), ((2, 3, 2), (2, 2)), ((2, 4, 2, 1), (2, 2, 1)), ((3,), ()), ((0, 3), (0,))]


def make(shape, tshape, seed, ignore_index=-100, n_ignored=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    C = shape[1] if len(shape) > 1 else shape[0]
    t = rng.integers(0, C, tshape).astype(np.int64)
    flat = t.reshape(-1)
    if flat.size > 1:
        flat[:n_ignored] = ignore_index
    return x, t, C


def run_both(fn_name, x, t, kw, wflag, C, device, seed, dtype=flow.float64):
    rng = np.random.default_rng(seed + 1)
    w = rng.uniform(0.5, 2.0, C) if wflag else None
    fx = leaf(x, device, dtype=dtype)
    ft = flow.tensor(t, device=device) if t.dtype.kind == "i" else leaf(t, device, dtype=dtype)
    fw = None if w is None else flow.tensor(w, dtype=dtype, device=device)
    out = getattr(L, fn_name)(fx, ft, weight=fw, **kw)
    tx = torch.tensor(x, requires_grad=True)
    tt = torch.tensor(t) if t.dtype.kind == "i" else torch.tensor(t, requires_grad=True)
    tw = None if w is None else torch.tensor(w)
    tout = getattr(F, fn_name)(tx, tt, weight=tw, **kw)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    up = rng.standard_normal(tuple(tout.shape))
    out.backward(flow.tensor(up, dtype=out.dtype, device=device))
    tout.backward(torch.tensor(up))
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    if t.dtype.kind == "f":
        np.testing.assert_allclose(ft.grad.numpy(), tt.grad.numpy(), rtol=1e-9, atol=1e-12)


REDUCTIONS = ("mean", "sum", "none")
COMBOS = list(itertools.product(range(len(SHAPES)), [False, True], [-100, 1]))
SMALL = [0, 1, 3, 4]  # the 4-D input runs with cross_entropy only (time budget)


@pytest.mark.parametrize("si,wflag,ignore_index", [c for c in COMBOS if c[0] in SMALL])
def test_nll_loss_like_torch(device, si, wflag, ignore_index):
    shape, tshape = SHAPES[si]
    x, t, C = make(shape, tshape, si, ignore_index)
    x = np.log(np.exp(x) / np.exp(x).sum(axis=1 if len(shape) > 1 else 0, keepdims=True))
    for reduction in REDUCTIONS:
        run_both("nll_loss", x, t, dict(ignore_index=ignore_index, reduction=reduction), wflag, C, device, si)


@pytest.mark.parametrize("si,wflag,ignore_index", COMBOS)
def test_cross_entropy_like_torch(device, si, wflag, ignore_index):
    shape, tshape = SHAPES[si]
    x, t, C = make(shape, tshape, si, ignore_index)
    for reduction, label_smoothing in itertools.product(REDUCTIONS, (0.0, 0.25)):
        run_both("cross_entropy", x, t, dict(ignore_index=ignore_index, reduction=reduction,
                                             label_smoothing=label_smoothing), wflag, C, device, si)


@pytest.mark.parametrize("si", SMALL)
@pytest.mark.parametrize("wflag", [False, True])
def test_cross_entropy_probability_targets(device, si, wflag):
    shape, _ = SHAPES[si]
    rng = np.random.default_rng(si)
    x = rng.standard_normal(shape)
    p = rng.uniform(0, 1, shape)
    p = p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True) if p.size else p
    C = shape[1] if len(shape) > 1 else shape[0]
    for reduction, label_smoothing in itertools.product(REDUCTIONS, (0.0, 0.3)):
        run_both("cross_entropy", x, p, dict(reduction=reduction, label_smoothing=label_smoothing), wflag, C,
                 device, si)


def test_all_ignored_mean_is_nan_like_torch(device):
    x = np.zeros((2, 3))
    t = np.array([-100, -100])
    got = L.cross_entropy(flow.tensor(x, device=device), flow.tensor(t, device=device))
    want = F.cross_entropy(torch.tensor(x), torch.tensor(t))
    assert np.isnan(got.item()) and np.isnan(want.item())


def test_finite_differences(device):
    x, t, C = make((3, 4, 2), (3, 2), 7)
    w = np.random.default_rng(3).uniform(0.5, 2, C)
    check_gradients(lambda a: L.cross_entropy(a, flow.tensor(t, device=device), weight=flow.tensor(w, device=device),
                                              label_smoothing=0.1), [x], device)
    check_gradients(lambda a: L.nll_loss(a.log_softmax(1), flow.tensor(t, device=device), reduction="sum"), [x],
                    device)


def test_float32_and_grad_fn(device):
    x, t, C = make((8, 5), (8,), 2)
    fx = leaf(x, device, dtype=flow.float32)
    out = L.cross_entropy(fx, flow.tensor(t, device=device))
    assert out.dtype == flow.float32 and out.grad_fn is not None and out.grad_fn.name() == "CrossEntropyBackward0"
    out.backward()
    tx = torch.tensor(x, dtype=torch.float32, requires_grad=True)
    F.cross_entropy(tx, torch.tensor(t)).backward()
    np.testing.assert_allclose(out.item(), F.cross_entropy(tx, torch.tensor(t)).item(), rtol=1e-6)
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_legacy_reduction_flags(device):
    x, t, C = make((4, 3), (4,), 1)
    fx, ft = flow.tensor(x, device=device), flow.tensor(t, device=device)
    np.testing.assert_allclose(L.cross_entropy(fx, ft, reduce=False).numpy(),
                               F.cross_entropy(torch.tensor(x), torch.tensor(t), reduction="none").numpy())
    np.testing.assert_allclose(L.nll_loss(fx, ft, size_average=False).item(),
                               F.nll_loss(torch.tensor(x), torch.tensor(t), reduction="sum").item())


# ---------------------------------------------------------------- bad input

def test_target_out_of_range_names_the_op(device):
    x = flow.zeros(2, 3, device=device)
    with pytest.raises(IndexError, match=r"cross_entropy.*Target 3 is out of bounds"):
        L.cross_entropy(x, flow.tensor([0, 3], device=device))
    with pytest.raises(IndexError, match=r"nll_loss.*Target -1 is out of bounds"):
        L.nll_loss(x, flow.tensor([-1, 0], device=device))
    # ignore_index is never out of range
    assert np.isfinite(L.nll_loss(x, flow.tensor([-7, 0], device=device), ignore_index=-7).item())


def test_bad_shapes_and_arguments(device):
    x = flow.zeros(2, 3, device=device)
    with pytest.raises(ValueError, match="cross_entropy.*batch_size"):
        L.cross_entropy(x, flow.tensor([0, 1, 2], device=device))
    with pytest.raises(RuntimeError, match="nll_loss.*target of shape"):
        L.nll_loss(flow.zeros(2, 3, 4, device=device), flow.zeros(2, 5, dtype=flow.int64, device=device))
    with pytest.raises(RuntimeError, match="cross_entropy.*weight"):
        L.cross_entropy(x, flow.tensor([0, 1], device=device), weight=flow.ones(4, device=device))
    with pytest.raises(RuntimeError, match="cross_entropy.*probability targets"):
        L.cross_entropy(x, flow.zeros(2, 4, device=device))
    with pytest.raises(RuntimeError, match="nll_loss.*integer"):
        L.nll_loss(x, flow.zeros(2, device=device))
    with pytest.raises(RuntimeError, match="cross_entropy.*dimensions"):
        L.cross_entropy(flow.tensor(1.0, device=device), flow.tensor(0, device=device))
    with pytest.raises(ValueError, match="cross_entropy.*reduction"):
        L.cross_entropy(x, flow.tensor([0, 1], device=device), reduction="avg")
    with pytest.raises(RuntimeError, match="label_smoothing"):
        L.cross_entropy(x, flow.tensor([0, 1], device=device), label_smoothing=1.5)
    with pytest.raises(TypeError, match="cross_entropy.*target"):
        L.cross_entropy(x, [0, 1])


@pytest.mark.parametrize("shape", [(5, 4), (3, 4, 2, 2)])
def test_cross_entropy_takes_class_indices_with_a_class_dim_of_one(shape):
    # OneFlow's rule (torch refuses): (N, 1[, d...]) indices are the (N[, d...]) ones
    rng = np.random.default_rng(0)
    logits = flow.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    idx = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    with_dim = flow.nn.CrossEntropyLoss(reduction="none")(logits, flow.tensor(idx).unsqueeze(1))
    plain = flow.nn.functional.cross_entropy(logits, flow.tensor(idx), reduction="none")
    np.testing.assert_array_equal(with_dim.detach().numpy(), plain.detach().numpy())
    assert tuple(with_dim.shape) == (shape[0],) + shape[2:]
    with pytest.raises(RuntimeError):  # a class dim of another size is still an error
        flow.nn.functional.cross_entropy(logits, flow.tensor(rng.integers(0, shape[1], (shape[0], 2) + shape[2:])))
    # global operands too (OneFlow's ZeRO page trains with (N, 1) labels)
    P = flow.placement("cpu", ranks=[0])
    g = flow.nn.functional.cross_entropy(logits.detach().to_global(P, flow.sbp.split(0)),
                                         flow.tensor(idx).unsqueeze(1).to_global(P, flow.sbp.split(0)))
    np.testing.assert_allclose(g.to_global(P, flow.sbp.broadcast).to_local().numpy(),
                               plain.detach().mean().numpy(), rtol=1e-6)
