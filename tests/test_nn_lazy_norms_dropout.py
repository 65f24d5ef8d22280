"""The lazy norm and transposed-conv layers, FeatureAlphaDropout and the keyword forms torch still
accepts (Hardtanh(min_value=), InstanceNorm(bias=), SyncBatchNorm(bias=)), against torch."""
import numpy as np
import pytest
import torch

import monoflow as flow

NORMS = [("LazyBatchNorm1d", (4, 3)), ("LazyBatchNorm1d", (4, 3, 5)), ("LazyBatchNorm2d", (4, 3, 5, 5)),
         ("LazyBatchNorm3d", (2, 3, 2, 2, 2)), ("LazyInstanceNorm1d", (4, 3, 6)),
         ("LazyInstanceNorm2d", (2, 3, 5, 5)), ("LazyInstanceNorm3d", (2, 3, 2, 2, 2))]


@pytest.mark.parametrize("name,shape", NORMS)
@pytest.mark.parametrize("affine,track", [(True, True), (False, True), (True, False)])
def test_lazy_norm_infers_features_and_matches_torch(name, shape, affine, track):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    got = {}
    for lib in (flow, torch):
        m = getattr(lib.nn, name)(affine=affine, track_running_stats=track)
        assert m.has_uninitialized_params()
        xs = lib.tensor(x, requires_grad=True)
        y = m(xs)
        (y * y).sum().backward()
        got[lib.__name__] = (type(m).__name__, m.num_features,
                             {k: tuple(v.shape) for k, v in m.state_dict().items()},
                             y.detach().numpy(), xs.grad.numpy())
    f, t = got["monoflow"], got["torch"]
    assert f[:3] == t[:3]
    np.testing.assert_allclose(f[3], t[3], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(f[4], t[4], rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name,shape", [("LazyConvTranspose1d", (2, 3, 5)), ("LazyConvTranspose2d", (2, 3, 5, 4)),
                                        ("LazyConvTranspose3d", (1, 2, 3, 3, 3))])
@pytest.mark.parametrize("groups", [1, 2])
def test_lazy_conv_transpose_infers_in_channels_as_torch(name, shape, groups):
    shape = (shape[0], shape[1] * groups) + shape[2:]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    mods = {}
    for lib in (flow, torch):
        m = getattr(lib.nn, name)(4, 3, stride=2, padding=1, output_padding=1, groups=groups)
        m(lib.tensor(x))
        mods[lib.__name__] = m
    f, t = mods["monoflow"], mods["torch"]
    assert type(f).__name__ == type(t).__name__
    assert f.in_channels == t.in_channels and tuple(f.weight.shape) == tuple(t.weight.shape)
    with flow.no_grad():  # same weights: same output
        f.weight.copy_(flow.tensor(t.weight.detach().numpy()))
        f.bias.copy_(flow.tensor(t.bias.detach().numpy()))
    np.testing.assert_allclose(f(flow.tensor(x)).numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)


def test_lazy_norm_loads_a_state_dict_before_its_first_forward():
    src = flow.nn.BatchNorm2d(5)
    src.running_mean.fill_(2.0)
    m = flow.nn.LazyBatchNorm2d()
    m.load_state_dict(src.state_dict())
    assert type(m).__name__ == "BatchNorm2d" and m.running_mean.tolist() == [2.0] * 5


def test_feature_alpha_dropout_drops_whole_channels_and_keeps_moments():
    x = flow.randn(256, 16, 8)
    y = flow.nn.FeatureAlphaDropout(0.5)(x).numpy()
    a = ((1 - 0.5) * (1 + 0.5 * 1.7580993408473766 ** 2)) ** -0.5
    dropped_value = -a * 1.7580993408473766 + a * 1.7580993408473766 * 0.5
    dropped = np.isclose(y, dropped_value, atol=1e-5)
    assert (dropped.any(axis=2) == dropped.all(axis=2)).all()  # a channel is dropped whole or not at all
    assert 0.4 < dropped.all(axis=2).mean() < 0.6
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05  # the point of alpha dropout (x ~ N(0, 1))
    m = flow.nn.FeatureAlphaDropout(0.5).eval()
    assert m(x) is x
    with pytest.raises(ValueError):
        flow.nn.functional.feature_alpha_dropout(x, 1.5, training=True)
    with pytest.raises(RuntimeError, match="feature_alpha_dropout"):
        flow.nn.functional.feature_alpha_dropout(flow.randn(5), 0.5, training=True)


def test_keyword_forms_torch_accepts():
    assert (flow.nn.Hardtanh(min_value=-2.0, max_value=3.0)(flow.tensor([-5.0, 5.0]))).tolist() == [-2.0, 3.0]
    for lib in (flow, torch):
        m = lib.nn.InstanceNorm2d(3, affine=True, bias=False)
        assert m.bias is None and tuple(m.weight.shape) == (3,)
        s = lib.nn.SyncBatchNorm(3, bias=False)
        assert s.bias is None and "bias" not in s.state_dict()
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(flow.nn.InstanceNorm2d(3, affine=True, bias=False)(flow.tensor(x)).detach().numpy(),
                               torch.nn.InstanceNorm2d(3, affine=True, bias=False)(torch.tensor(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)
    assert isinstance(flow.nn.UninitializedParameter(), flow.nn.Parameter)
