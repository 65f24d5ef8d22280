"""nn.LazyLinear / LazyConvNd against torch: inferred sizes, materialised parameters, forward
with the same weights, optimizer after the first forward, state_dict round trip."""
import copy

import numpy as np
import pytest
import torch

import monoflow as flow
from monoflow import nn
from monoflow.nn.parameter import UninitializedParameter, is_lazy


def test_lazy_linear_matches_torch():
    rng = np.random.default_rng(0)
    for shape in [(2, 5), (3, 4, 7), (6,)]:
        x = rng.standard_normal(shape).astype(np.float32)
        m, t = nn.LazyLinear(3), torch.nn.LazyLinear(3)
        assert isinstance(m.weight, UninitializedParameter) and is_lazy(m.weight) and is_lazy(m.bias)
        assert isinstance(m.weight, nn.Parameter)
        assert repr(m) == repr(t)
        y = m(flow.tensor(x))
        t(torch.tensor(x))
        assert type(m) is nn.Linear and type(t) is torch.nn.Linear
        assert not is_lazy(m.weight) and type(m.weight) is nn.Parameter
        assert tuple(m.weight.shape) == tuple(t.weight.shape) and m.in_features == t.in_features
        assert repr(m) == repr(t)
        w = m.weight.detach().numpy()
        bound = 1 / np.sqrt(shape[-1])
        assert np.all(np.abs(w) <= bound) and w.std() > 0  # kaiming_uniform_(a=sqrt(5)) range
        with torch.no_grad():
            t.weight.copy_(torch.tensor(w))
            t.bias.copy_(torch.tensor(m.bias.detach().numpy()))
        np.testing.assert_allclose(y.detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_lazy_linear_no_bias_and_optimizer_after_first_forward():
    m = nn.LazyLinear(2, bias=False)
    assert m.bias is None
    x = flow.randn(4, 3)
    m(x)
    opt = flow.optim.SGD(m.parameters(), lr=0.1)
    w0 = m.weight.detach().clone()
    m(x).sum().backward()
    opt.step()
    expected = w0.numpy() - 0.1 * np.broadcast_to(x.numpy().sum(0), (2, 3))
    np.testing.assert_allclose(m.weight.detach().numpy(), expected, rtol=1e-5, atol=1e-6)


def test_lazy_state_dict_round_trip():
    src = nn.Linear(6, 4)
    m = nn.LazyLinear(4)
    m.load_state_dict(src.state_dict())
    assert type(m) is nn.Linear and tuple(m.weight.shape) == (4, 6)
    np.testing.assert_array_equal(m.weight.detach().numpy(), src.weight.detach().numpy())
    x = flow.randn(2, 6)
    np.testing.assert_allclose(m(x).detach().numpy(), src(x).detach().numpy(), rtol=1e-6)
    lazy = nn.LazyLinear(4)
    lazy(flow.randn(1, 6))
    again = nn.Linear(6, 4)
    again.load_state_dict(lazy.state_dict())
    np.testing.assert_array_equal(again.bias.detach().numpy(), lazy.bias.detach().numpy())


def test_uninitialized_refuses_shape_and_deepcopies():
    m = nn.LazyLinear(3)
    with pytest.raises(RuntimeError):
        m.weight.shape
    c = copy.deepcopy(m)
    assert is_lazy(c.weight)
    c(flow.randn(2, 2))
    assert tuple(c.weight.shape) == (3, 2) and is_lazy(m.weight)


@pytest.mark.parametrize("n", [1, 2])
def test_lazy_conv_matches_torch(n):
    rng = np.random.default_rng(n)
    shape = (2, 4) + (9,) * n
    x = rng.standard_normal(shape).astype(np.float32)
    lazy, tlazy = getattr(nn, f"LazyConv{n}d"), getattr(torch.nn, f"LazyConv{n}d")
    m, t = lazy(6, 3, padding=1, groups=2), tlazy(6, 3, padding=1, groups=2)
    y = m(flow.tensor(x))
    t(torch.tensor(x))
    assert type(m) is getattr(nn, f"Conv{n}d")
    assert tuple(m.weight.shape) == tuple(t.weight.shape) and m.in_channels == t.in_channels == 4
    with torch.no_grad():
        t.weight.copy_(torch.tensor(m.weight.detach().numpy()))
        t.bias.copy_(torch.tensor(m.bias.detach().numpy()))
    np.testing.assert_allclose(y.detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
