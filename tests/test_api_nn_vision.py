"""Vision and shape layers against torch (values and input gradients):
padding modules, InstanceNorm1d/2d/3d, PixelShuffle/Unshuffle, 3-D pooling,
interpolate/Upsample (every mode), unfold/fold, affine_grid/grid_sample."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
TF, MF = torch.nn.functional, flow.nn.functional
TOL = dict(rtol=1e-9, atol=1e-11)


def pair(shape, seed=0, dtype="float64"):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.tensor(a, requires_grad=True), flow.tensor(a, requires_grad=True)


def check(tfn, mfn, shape, seed=0, tol=TOL, weight_seed=1):
    """Same output and same input gradient (of a random weighting of the output)."""
    t, m = pair(shape, seed)
    tout, mout = tfn(t), mfn(m)
    assert tuple(mout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy(), **tol)
    w = np.random.default_rng(weight_seed).standard_normal(tuple(tout.shape))
    (tout * torch.tensor(w)).sum().backward()
    (mout * flow.tensor(w)).sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), **tol)


PADS = [("ReflectionPad1d", 2, (2, 3, 5)), ("ReflectionPad1d", (1, 3), (3, 6)),
        ("ReflectionPad2d", (1, 2, 2, 0), (2, 2, 4, 5)), ("ReflectionPad3d", 1, (1, 2, 3, 3, 4)),
        ("ReplicationPad1d", (3, 1), (2, 3, 4)), ("ReplicationPad2d", 2, (1, 3, 3, 3)),
        ("ReplicationPad3d", (1, 0, 2, 1, 0, 2), (2, 1, 2, 3, 3)), ("ZeroPad2d", (1, 1, 2, 0), (2, 3, 3, 3)),
        ("ZeroPad1d", 2, (2, 4)), ("ZeroPad3d", 1, (1, 2, 2, 2)), ("CircularPad1d", (2, 1), (2, 3, 5)),
        ("CircularPad2d", (1, 2, 2, 0), (2, 2, 4, 5)), ("CircularPad3d", 1, (1, 2, 3, 3, 4))]


@pytest.mark.parametrize("name,padding,shape", PADS, ids=[f"{p[0]}-{i}" for i, p in enumerate(PADS)])
def test_padding_modules(name, padding, shape):
    check(getattr(torch.nn, name)(padding), getattr(flow.nn, name)(padding), shape)
    assert repr(getattr(flow.nn, name)(padding)) == repr(getattr(torch.nn, name)(padding))


@pytest.mark.parametrize("name,shape", [("ConstantPad1d", (2, 3, 4)), ("ConstantPad2d", (2, 3, 4)),
                                        ("ConstantPad3d", (1, 2, 2, 3))])
def test_constant_padding(name, shape):
    n = int(name[-2])
    check(getattr(torch.nn, name)((1, 2) * n, 3.5), getattr(flow.nn, name)((1, 2) * n, 3.5), shape)
    with pytest.raises(ValueError):
        getattr(flow.nn, name)((1,) * (2 * n + 1), 0.0)


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("affine,track", [(False, False), (True, False), (True, True), (False, True)])
def test_instance_norm(dims, affine, track):
    name = f"InstanceNorm{dims}d"
    t = getattr(torch.nn, name)(3, affine=affine, track_running_stats=track, momentum=0.2).double()
    m = getattr(flow.nn, name)(3, affine=affine, track_running_stats=track, momentum=0.2).double()
    if affine:
        rng = np.random.default_rng(2)
        for p, q in ((m.weight, t.weight), (m.bias, t.bias)):
            v = rng.standard_normal(3)
            q.data.copy_(torch.tensor(v))
            p.data.copy_(flow.tensor(v))
    shape = (2, 3) + (4, 5, 3)[:dims]
    check(t, m, shape)
    if track:
        np.testing.assert_allclose(m.running_mean.numpy(), t.running_mean.numpy(), **TOL)
        np.testing.assert_allclose(m.running_var.numpy(), t.running_var.numpy(), **TOL)
        t.eval()
        m.eval()
        check(t, m, shape, seed=3)
    assert sorted(m.state_dict()) == sorted(t.state_dict())
    check(t, m, shape[1:], seed=4)  # unbatched


def test_pixel_shuffle_round_trip():
    check(torch.nn.PixelShuffle(2), flow.nn.PixelShuffle(2), (2, 12, 3, 4))
    check(torch.nn.PixelUnshuffle(3), flow.nn.PixelUnshuffle(3), (2, 2, 6, 9))
    check(lambda x: TF.pixel_shuffle(x, 2), lambda x: MF.pixel_shuffle(x, 2), (3, 2, 8, 2, 2))
    x = flow.randn(1, 8, 3, 3)
    np.testing.assert_array_equal(MF.pixel_unshuffle(MF.pixel_shuffle(x, 2), 2).numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="divisible"):
        MF.pixel_shuffle(flow.randn(1, 6, 2, 2), 2)
    with pytest.raises(RuntimeError, match="divisible"):
        MF.pixel_unshuffle(flow.randn(1, 1, 5, 4), 2)


POOLS3D = [
    ("max_pool3d", dict(kernel_size=2)),
    ("max_pool3d", dict(kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0))),
    ("max_pool3d", dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)),
    ("max_pool3d", dict(kernel_size=2, dilation=2)),
    ("avg_pool3d", dict(kernel_size=2)),
    ("avg_pool3d", dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ("avg_pool3d", dict(kernel_size=(2, 3, 3), stride=2, padding=1, ceil_mode=True)),
    ("avg_pool3d", dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool3d", dict(kernel_size=2, divisor_override=3)),
    ("adaptive_avg_pool3d", dict(output_size=(2, 3, 2))),
    ("adaptive_avg_pool3d", dict(output_size=(3, None, 1))),
    ("adaptive_max_pool3d", dict(output_size=(2, 2, 3))),
]


@pytest.mark.parametrize("name,kwargs", POOLS3D, ids=[f"{p[0]}-{i}" for i, p in enumerate(POOLS3D)])
def test_pool3d_functional(name, kwargs):
    check(lambda x: getattr(TF, name)(x, **kwargs), lambda x: getattr(MF, name)(x, **kwargs), (2, 3, 5, 6, 7))


def test_pool3d_indices_modules_and_unbatched():
    t, m = pair((2, 2, 4, 5, 6), seed=5)
    tout, tidx = TF.max_pool3d(t, 2, stride=(1, 2, 2), padding=1, return_indices=True)
    mout, midx = MF.max_pool3d(m, 2, stride=(1, 2, 2), padding=1, return_indices=True)
    np.testing.assert_array_equal(midx.numpy(), tidx.numpy())
    tout, tidx = TF.adaptive_max_pool3d(t, (3, 2, 4), return_indices=True)
    mout, midx = MF.adaptive_max_pool3d(m, (3, 2, 4), return_indices=True)
    np.testing.assert_array_equal(midx.numpy(), tidx.numpy())
    check(torch.nn.MaxPool3d(2, stride=1), flow.nn.MaxPool3d(2, stride=1), (3, 4, 4, 4))
    check(torch.nn.AvgPool3d(2), flow.nn.AvgPool3d(2), (2, 2, 4, 4, 6))
    check(torch.nn.AdaptiveAvgPool3d(2), flow.nn.AdaptiveAvgPool3d(2), (2, 5, 4, 3))
    check(torch.nn.AdaptiveMaxPool3d((1, 2, 2)), flow.nn.AdaptiveMaxPool3d((1, 2, 2)), (1, 2, 5, 4, 3))
    with pytest.raises(RuntimeError, match="4D or 5D"):
        MF.max_pool3d(flow.randn(2, 3, 4), 2)


INTERP = [
    ((2, 3, 7), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 7), dict(size=4, mode="nearest")),
    ((2, 3, 7), dict(size=11, mode="nearest-exact")),
    ((2, 3, 7), dict(scale_factor=1.7, mode="linear")),
    ((2, 3, 7), dict(size=3, mode="linear", align_corners=True)),
    ((2, 2, 4, 5), dict(scale_factor=2, mode="nearest")),
    ((2, 2, 4, 5), dict(size=(7, 3), mode="nearest")),
    ((2, 2, 4, 5), dict(scale_factor=(2, 1.5), mode="bilinear")),
    ((2, 2, 4, 5), dict(size=(9, 8), mode="bilinear", align_corners=True)),
    ((2, 2, 6, 7), dict(size=(3, 4), mode="bilinear")),
    ((2, 2, 4, 5), dict(scale_factor=2, mode="bicubic")),
    ((2, 2, 4, 5), dict(size=(6, 3), mode="bicubic", align_corners=True)),
    ((2, 2, 6, 9), dict(size=(4, 4), mode="area")),
    ((1, 2, 3, 4, 5), dict(scale_factor=2, mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(size=(4, 3, 7), mode="trilinear", align_corners=True)),
    ((1, 2, 3, 4, 5), dict(scale_factor=(2, 1, 3), mode="nearest")),
    ((1, 2, 4, 4, 6), dict(size=(2, 3, 3), mode="area")),
    ((2, 2, 4, 5), dict(scale_factor=1.5, mode="bilinear", recompute_scale_factor=True)),
]


@pytest.mark.parametrize("shape,kwargs", INTERP, ids=[f"{k['mode']}-{i}" for i, (_, k) in enumerate(INTERP)])
def test_interpolate(shape, kwargs):
    check(lambda x: TF.interpolate(x, **kwargs), lambda x: MF.interpolate(x, **kwargs), shape)


def test_interpolate_float32_and_upsample_modules():
    a = np.random.default_rng(0).standard_normal((2, 3, 5, 4)).astype("float32")
    for kwargs in (dict(scale_factor=2, mode="bilinear"), dict(scale_factor=3, mode="nearest"),
                   dict(size=(7, 9), mode="bicubic")):
        np.testing.assert_allclose(MF.interpolate(flow.tensor(a), **kwargs).numpy(),
                                   TF.interpolate(torch.tensor(a), **kwargs).numpy(), rtol=1e-5, atol=1e-5)
    check(torch.nn.Upsample(scale_factor=2, mode="bilinear"), flow.nn.Upsample(scale_factor=2, mode="bilinear"),
          (1, 2, 3, 3))
    check(torch.nn.UpsamplingNearest2d(size=(5, 4)), flow.nn.UpsamplingNearest2d(size=(5, 4)), (1, 2, 3, 3))
    check(torch.nn.UpsamplingBilinear2d(scale_factor=2), flow.nn.UpsamplingBilinear2d(scale_factor=2), (1, 2, 3, 3))
    assert repr(flow.nn.Upsample(scale_factor=2.0)) == repr(torch.nn.Upsample(scale_factor=2.0))
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        MF.interpolate(flow.randn(1, 1, 4), size=2, scale_factor=2)
    with pytest.raises(ValueError, match="align_corners"):
        MF.interpolate(flow.randn(1, 1, 4), size=2, align_corners=True)
    with pytest.raises(NotImplementedError):
        MF.interpolate(flow.randn(1, 1, 4), size=2, mode="bilinear")


@pytest.mark.parametrize("kwargs", [dict(kernel_size=2), dict(kernel_size=(2, 3), stride=(2, 1), padding=1),
                                    dict(kernel_size=3, dilation=2, padding=2, stride=2)])
def test_unfold_fold(kwargs):
    shape = (2, 3, 7, 8)
    check(lambda x: TF.unfold(x, **kwargs), lambda x: MF.unfold(x, **kwargs), shape)
    cols = TF.unfold(torch.zeros(shape, dtype=torch.float64), **kwargs).shape
    check(lambda x: TF.fold(x, (7, 8), **kwargs), lambda x: MF.fold(x, (7, 8), **kwargs), tuple(cols))
    check(torch.nn.Unfold(**kwargs), flow.nn.Unfold(**kwargs), shape[1:])
    check(torch.nn.Fold((7, 8), **kwargs), flow.nn.Fold((7, 8), **kwargs), tuple(cols)[1:])
    with pytest.raises(RuntimeError, match="sliding blocks"):
        MF.fold(flow.randn(1, cols[1], cols[2] + 1), (7, 8), **kwargs)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(align_corners):
    theta = np.random.default_rng(1).standard_normal((2, 2, 3))
    check(lambda t: TF.affine_grid(t, (2, 3, 4, 5), align_corners=align_corners),
          lambda t: MF.affine_grid(t, (2, 3, 4, 5), align_corners=align_corners), (2, 2, 3))
    check(lambda t: TF.affine_grid(t, (2, 1, 3, 4, 2), align_corners=align_corners),
          lambda t: MF.affine_grid(t, (2, 1, 3, 4, 2), align_corners=align_corners), (2, 3, 4))
    with pytest.raises(ValueError, match="Nx2x3"):
        MF.affine_grid(flow.tensor(theta[:, :, :2]), (2, 3, 4, 5))


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample(mode, padding_mode, align_corners):
    rng = np.random.default_rng(3)
    # out to 2.9: positions folded more than once by reflection padding
    grid = rng.uniform(-1.3 if padding_mode != "reflection" else -2.9, 1.3 if padding_mode != "reflection" else 2.9,
                       (2, 4, 6, 2))
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    check(lambda x: TF.grid_sample(x, torch.tensor(grid), **kw),
          lambda x: MF.grid_sample(x, flow.tensor(grid), **kw), (2, 3, 5, 7))
    if mode != "nearest":  # the gradient with respect to the grid
        img = rng.standard_normal((2, 3, 5, 7))
        check(lambda g: TF.grid_sample(torch.tensor(img), g, **kw),
              lambda g: MF.grid_sample(flow.tensor(img), g, **kw), (2, 4, 6, 2), seed=4,
              tol=dict(rtol=1e-8, atol=1e-10))


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_5d(mode, padding_mode, align_corners):
    # volumes (N, C, D, H, W) at (N, Do, Ho, Wo, 3) grids: trilinear / nearest, OneFlow's test_grid_sample 5-D case
    rng = np.random.default_rng(5)
    lim = 2.9 if padding_mode == "reflection" else 1.3
    grid = rng.uniform(-lim, lim, (2, 3, 2, 4, 3))
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    check(lambda x: TF.grid_sample(x, torch.tensor(grid), **kw),
          lambda x: MF.grid_sample(x, flow.tensor(grid), **kw), (2, 3, 4, 5, 6))
    if mode != "nearest":
        img = rng.standard_normal((2, 3, 4, 5, 6))
        check(lambda g: TF.grid_sample(torch.tensor(img), g, **kw),
              lambda g: MF.grid_sample(flow.tensor(img), g, **kw), (2, 3, 2, 4, 3), seed=4,
              tol=dict(rtol=1e-8, atol=1e-10))
    with pytest.raises(RuntimeError, match="bicubic"):
        MF.grid_sample(flow.zeros(1, 1, 2, 2, 2), flow.zeros(1, 1, 1, 1, 3), mode="bicubic")


def test_grid_sample_nearest_gives_the_grid_a_zero_gradient():
    # torch's theta.grad after a nearest-mode spatial transformer is zeros, not None
    grads = []
    for lib, F in ((torch, TF), (flow, MF)):
        theta = lib.tensor([[[0.9, 0.1, 0.0], [0.0, 1.1, 0.2]]], requires_grad=True)
        img = lib.ones(1, 2, 5, 6, requires_grad=True)
        F.grid_sample(img, F.affine_grid(theta, (1, 2, 4, 4), align_corners=False), mode="nearest",
                      align_corners=False).sum().backward()
        grads.append((theta.grad.numpy(), img.grad.numpy()))
    np.testing.assert_array_equal(grads[1][0], grads[0][0])
    np.testing.assert_array_equal(grads[1][1], grads[0][1])


def test_spatial_transformer_identity():
    """affine_grid of the identity + grid_sample reproduces the image (align_corners=False)."""
    x = flow.randn(1, 2, 4, 6, dtype=flow.float64)
    theta = flow.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], dtype=flow.float64)
    out = MF.grid_sample(x, MF.affine_grid(theta, (1, 2, 4, 6), align_corners=False), align_corners=False)
    np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-12)
