"""In-place shape changes (issue 13: the PyTorch char-RNN generation tutorial calls
``target_line_tensor.unsqueeze_(-1)``), checked against torch."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")

CASES = [
    ("unsqueeze_", (-1,)), ("unsqueeze_", (0,)), ("squeeze_", ()), ("squeeze_", (0,)), ("t_", ()),
    ("transpose_", (0, 2)), ("swapaxes_", (1, 2)), ("swapdims_", (0, 1)), ("as_strided_", ((2, 2), (1, 2), 1)),
]


def shape_of(name, lib):
    base = lib.arange(12.0).reshape(1, 3, 4) if name != "t_" else lib.arange(12.0).reshape(3, 4)
    return base


@pytest.mark.parametrize("name,args", CASES, ids=[f"{n}{a}" for n, a in CASES])
def test_in_place_shape_change_matches_torch(name, args):
    res = []
    for lib in (flow, torch):
        t = shape_of(name, lib)
        other = t.view(t.shape)  # another view of the memory keeps its own shape
        out = getattr(t, name)(*args)
        assert out is t
        other[(0,) * other.dim()] = -1.0  # still the same memory
        res.append((tuple(t.shape), tuple(t.stride()), t.numpy().copy(), tuple(other.shape)))
    (fs, fst, fv, fo), (ts, tst, tv, to) = res
    assert fs == ts and fst == tst and fo == to
    np.testing.assert_array_equal(fv, tv)


def test_refusals():
    w = flow.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Tensor that requires grad"):
        w.unsqueeze_(0)
    with pytest.raises(NotImplementedError, match="unsqueeze_"):
        (w * 2).unsqueeze_(0)


def test_char_rnn_generation_target_pattern():
    """The tutorial's train(): per-step nll_loss on target[i] after target.unsqueeze_(-1)."""
    losses = []
    for lib in (flow, torch):
        lib.manual_seed(0)
        logp = lib.log_softmax(lib.tensor(np.linspace(-1, 1, 4 * 5, dtype=np.float32).reshape(4, 1, 5)), dim=-1)
        target = lib.tensor([1, 4, 0, 2])
        target.unsqueeze_(-1)
        loss = lib.Tensor([0])
        for i in range(4):
            loss += lib.nn.functional.nll_loss(logp[i], target[i])
        losses.append(loss.item())
    assert losses[0] == pytest.approx(losses[1], rel=1e-6)
