"""Conv1d/2d/3d padding_mode 'reflect' / 'replicate' / 'circular' (CycleGAN-, pix2pix-style models) against
torch: outputs, input and weight gradients, repr; transposed convolutions refuse other modes as torch."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")

SHAPES = {"Conv1d": (2, 2, 9), "Conv2d": (1, 2, 6, 7), "Conv3d": (1, 2, 4, 5, 4)}


@pytest.mark.parametrize("mod", sorted(SHAPES))
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "zeros"])
@pytest.mark.parametrize("kw", [dict(padding=1), dict(padding=2, stride=2), dict(padding="same", dilation=2),
                                dict(padding="valid"), dict(padding=1, groups=2)],
                         ids=["p1", "p2s2", "same_d2", "valid", "groups"])
def test_padding_modes_match_torch(mod, mode, kw):
    shape = SHAPES[mod]
    tm = getattr(torch.nn, mod)(2, 4, 3, padding_mode=mode, **kw).double()
    mm = getattr(flow.nn, mod)(2, 4, 3, padding_mode=mode, **kw).double()
    mm.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    assert repr(mm) == repr(tm)
    assert mm._reversed_padding_repeated_twice == list(tm._reversed_padding_repeated_twice)
    x = np.random.default_rng(0).standard_normal(shape)
    tx, mx = torch.tensor(x, requires_grad=True), flow.tensor(x, requires_grad=True)
    a, b = tm(tx), mm(mx)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(tuple(a.shape))
    (a * torch.tensor(w)).sum().backward()
    (b * flow.tensor(w)).sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_bad_and_transposed_padding_modes_raise_as_torch():
    for lib in (torch, flow):
        with pytest.raises(ValueError, match="padding_mode must be one of"):
            lib.nn.Conv2d(2, 2, 3, padding_mode="mirror")
        with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
            lib.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")


@pytest.mark.parametrize("shape,pad", [((2, 3, 4), (1, 2)), ((1, 2, 3, 4), (1, 1, 2, 0)), ((1, 2, 3, 4), (0, 3, 1, 2)),
                                       ((1, 1, 2, 3, 4), (1, 0, 2, 1, 1, 1))])
def test_functional_circular_pad_matches_torch(shape, pad):
    x = np.arange(float(np.prod(shape))).reshape(shape)
    tx, mx = torch.tensor(x, requires_grad=True), flow.tensor(x, requires_grad=True)
    a = torch.nn.functional.pad(tx, pad, mode="circular")
    b = flow.nn.functional.pad(mx, pad, mode="circular")
    np.testing.assert_array_equal(b.detach().numpy(), a.detach().numpy())
    w = np.random.default_rng(2).standard_normal(tuple(a.shape))
    (a * torch.tensor(w)).sum().backward()
    (b * flow.tensor(w)).sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
