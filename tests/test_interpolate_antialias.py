"""interpolate's antialias=True (bilinear/bicubic) and its uint8 bilinear/bicubic resampling against torch:
values (uint8 exactly: torch's fixed-point CPU kernel), input gradients, and the refusals."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
TF, MF = torch.nn.functional, flow.nn.functional

CASES = [((11, 17), (5, 7)), ((9, 30), (4, 3)), ((6, 5), (13, 11)), ((20, 8), (7, 19)), ((3, 40), (3, 9)),
         ((16, 16), (16, 5))]


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape,size", CASES)
def test_antialias_float_values_and_grad(mode, align_corners, shape, size):
    a = np.random.default_rng(sum(shape) + sum(size)).standard_normal((2, 3) + shape)
    t = torch.tensor(a, requires_grad=True)
    m = flow.tensor(a, requires_grad=True)
    kw = dict(size=size, mode=mode, antialias=True, align_corners=align_corners)
    to, mo = TF.interpolate(t, **kw), MF.interpolate(m, **kw)
    np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(to.shape)
    (to * torch.tensor(w)).sum().backward()
    (mo * flow.tensor(w)).sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_antialias_float32_scale_factor():
    a = np.random.default_rng(3).random((1, 3, 23, 31)).astype(np.float32)
    kw = dict(scale_factor=0.37, mode="bilinear", antialias=True)
    got = MF.interpolate(flow.tensor(a), **kw)
    assert got.dtype == flow.float32
    np.testing.assert_allclose(got.numpy(), TF.interpolate(torch.tensor(a), **kw).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape,size", CASES)
def test_uint8_matches_torch_exactly(mode, antialias, align_corners, shape, size):
    a = np.random.default_rng(7 + sum(shape)).integers(0, 256, (1, 3) + shape).astype(np.uint8)
    kw = dict(size=size, mode=mode, antialias=antialias, align_corners=align_corners)
    got = MF.interpolate(flow.tensor(a), **kw)
    assert got.dtype == flow.uint8
    np.testing.assert_array_equal(got.numpy(), TF.interpolate(torch.tensor(a), **kw).numpy())


def test_refusals_match_torch():
    with pytest.raises(ValueError, match="Anti-alias"):
        MF.interpolate(flow.ones(1, 1, 4, 4), size=2, mode="nearest", antialias=True)
    with pytest.raises(ValueError, match="Anti-alias"):
        MF.interpolate(flow.ones(1, 1, 4), size=2, mode="linear", antialias=True)
    with pytest.raises(NotImplementedError, match="uint8"):
        MF.interpolate(flow.ones(1, 1, 4, dtype=flow.uint8), size=2, mode="linear")
    with pytest.raises(NotImplementedError, match="uint8"):
        MF.interpolate(flow.ones(1, 1, 4, 4, dtype=flow.uint8), size=2, mode="area")
    for fn, lib in ((TF, torch), (MF, flow)):  # torch refuses the same inputs
        with pytest.raises(ValueError):
            fn.interpolate(lib.ones(1, 1, 4, 4), size=2, mode="nearest", antialias=True)
        with pytest.raises(NotImplementedError):
            fn.interpolate(lib.ones(1, 1, 4, dtype=lib.uint8), size=2, mode="linear")


def test_uint8_nearest_still_by_index():
    a = np.arange(48, dtype=np.uint8).reshape(1, 1, 6, 8)
    got = MF.interpolate(flow.tensor(a), size=(4, 3), mode="nearest")
    np.testing.assert_array_equal(got.numpy(), TF.interpolate(torch.tensor(a), size=(4, 3), mode="nearest").numpy())
