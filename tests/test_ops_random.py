"""Random sampling, generators, linspace and eye on every device."""
import numpy as np
import pytest

import monoflow as flow

FLOATS = [flow.float16, flow.bfloat16, flow.float32, flow.float64]


def values(t):
    return (t.float() if t.dtype in (flow.float16, flow.bfloat16) else t).cpu().numpy()


@pytest.mark.parametrize("fn", [flow.rand, flow.randn])
def test_manual_seed_reproduces(device, fn):
    flow.manual_seed(123)
    a = fn(4, 5, device=device)
    flow.manual_seed(123)
    b = fn(4, 5, device=device)
    flow.manual_seed(124)
    c = fn(4, 5, device=device)
    assert np.array_equal(values(a), values(b))
    assert not np.array_equal(values(a), values(c))


def test_consecutive_draws_differ(device):
    flow.manual_seed(0)
    assert not np.array_equal(values(flow.rand(100, device=device)), values(flow.rand(100, device=device)))


def test_same_numbers_on_every_device(device):
    # Counter-based generation: element i depends only on (seed, offset + i).
    g_cpu = flow.Generator().manual_seed(5)
    g_dev = flow.Generator().manual_seed(5)
    assert np.array_equal(values(flow.randn(64, generator=g_cpu)), values(flow.randn(64, generator=g_dev, device=device)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_range_and_moments(device, dtype):
    g = flow.Generator().manual_seed(7)
    x = values(flow.rand(20000, generator=g, dtype=dtype, device=device))
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.02 and abs(x.var() - 1 / 12) < 0.01
    t = flow.empty(5000, dtype=dtype, device=device).uniform_(-3, 2, generator=g)
    y = values(t)
    assert y.min() >= -3 and y.max() < 2 and abs(y.mean() + 0.5) < 0.1


@pytest.mark.parametrize("dtype", [flow.float32, flow.float64])
def test_normal_moments(device, dtype):
    g = flow.Generator().manual_seed(11)
    x = values(flow.randn(50000, generator=g, dtype=dtype, device=device))
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
    # fourth moment of a standard normal is 3: catches a wrong transform
    assert abs((x ** 4).mean() - 3) < 0.15
    y = values(flow.normal(2.0, 0.5, (20000,), generator=g, device=device))
    assert abs(y.mean() - 2) < 0.02 and abs(y.std() - 0.5) < 0.02


def test_normal_with_tensor_arguments(device):
    mean = flow.tensor([0.0, 100.0, -100.0], device=device)
    std = flow.tensor([1e-6, 1e-6, 1e-6], device=device)
    out = flow.normal(mean, std)
    assert out.device == flow.device(device)
    np.testing.assert_allclose(values(out), [0, 100, -100], atol=1e-3)


def test_normal_out_and_requires_grad(device):
    # OneFlow (and torch) accept out=: the samples land in out, in out's dtype; std 0 gives the mean exactly
    r = flow.full((10, 10), 42.0, dtype=flow.float64, device=device)
    mean = flow.randn(10, 10, dtype=flow.float64, device=device)
    res = flow.normal(mean, 0, out=r)
    assert res is r and r.dtype == flow.float64
    np.testing.assert_array_equal(values(r), values(mean))
    flow.normal(2, 0, (10, 10), out=r)
    np.testing.assert_array_equal(values(r), np.full((10, 10), 2.0))
    with pytest.raises(RuntimeError, match="normal"):
        flow.normal(0, 1, (3,), out=r)
    x = flow.normal(0, 1, (2, 3), device=device, requires_grad=True)
    assert x.requires_grad and x.is_leaf


def test_placement_accepts_oneflow_node_device_dict():
    # OneFlow's older placement("cpu", {node: devices}) form, single node and two nodes
    assert flow.placement("cpu", {0: [0, 1]}) == flow.placement("cpu", ranks=[0, 1])
    assert flow.placement("cpu", {0: range(2), 1: [0, 1]}) == flow.placement("cpu", ranks=[0, 1, 2, 3])
    with pytest.raises(TypeError, match="placement"):
        flow.placement("cpu", {0: ["a"]})


@pytest.mark.parametrize("dtype", [flow.uint8, flow.int8, flow.int32, flow.int64, flow.float32])
def test_randint_range(device, dtype):
    g = flow.Generator().manual_seed(3)
    x = values(flow.randint(-3 if dtype != flow.uint8 else 0, 9, (4000,), generator=g, dtype=dtype, device=device))
    lo = -3 if dtype != flow.uint8 else 0
    assert x.min() == lo and x.max() == 8  # every value reached in 4000 draws
    assert np.all(x == np.round(x))
    assert flow.randint(10, (3, 2), device=device).dtype == flow.int64


def test_randint_large_int64_range(device):
    x = values(flow.randint(-2 ** 62, 2 ** 62, (1000,), device=device))
    assert x.min() < -2 ** 60 and x.max() > 2 ** 60


def test_bernoulli(device):
    g = flow.Generator().manual_seed(1)
    p = flow.tensor([0.0, 1.0] * 50, device=device)
    assert np.array_equal(values(flow.bernoulli(p, generator=g)), values(p))
    x = values(flow.bernoulli(flow.full((20000,), 0.3, device=device), generator=g))
    assert set(np.unique(x)) <= {0.0, 1.0} and abs(x.mean() - 0.3) < 0.02
    y = values(flow.zeros(10000, dtype=flow.int64, device=device).bernoulli_(0.75, generator=g))
    assert abs(y.mean() - 0.75) < 0.02


def test_generator_state_roundtrip(device):
    g = flow.Generator().manual_seed(99)
    flow.rand(10, generator=g)
    state = g.get_state()
    assert state.dtype == flow.uint8 and state.numel() == 16
    a = values(flow.randn(10, generator=g, device=device))
    g.set_state(state)
    assert np.array_equal(a, values(flow.randn(10, generator=g, device=device)))
    assert g.initial_seed() == 99


def test_in_place_sampling_non_contiguous(device):
    t = flow.zeros(6, 8, device=device)
    view = t[:, ::2]
    view.normal_(generator=flow.Generator().manual_seed(0))
    full = values(t)
    assert np.all(full[:, 1::2] == 0) and np.all(full[:, ::2] != 0)


def test_like_and_random_(device):
    base = flow.zeros(3, 4, dtype=flow.float64, device=device)
    assert flow.rand_like(base).dtype == flow.float64 and flow.randn_like(base).shape == (3, 4)
    r = values(flow.randint_like(base, 5))
    assert r.min() >= 0 and r.max() < 5
    v = values(flow.zeros(1000, dtype=flow.int32, device=device).random_(2, 4))
    assert set(np.unique(v)) == {2, 3}


@pytest.mark.parametrize("steps", [0, 1, 2, 7, 100])
@pytest.mark.parametrize("dtype", [flow.float32, flow.float64, flow.int64])
def test_linspace_matches_numpy(device, steps, dtype):
    out = flow.linspace(-2.5, 7.0, steps, dtype=dtype, device=device)
    ref = np.linspace(-2.5, 7.0, steps)
    if dtype == flow.int64:
        ref = ref.astype(np.int64)
    assert out.shape == (steps,) and out.dtype == dtype
    np.testing.assert_allclose(values(out), ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n,m", [(0, 0), (1, 1), (3, 3), (2, 5), (5, 2)])
def test_eye_matches_numpy(device, n, m):
    out = flow.eye(n, m, dtype=flow.int32, device=device)
    assert np.array_equal(values(out), np.eye(n, m, dtype=np.int32))
    assert np.array_equal(values(flow.eye(n, device=device)), np.eye(n, dtype=np.float32))


def test_bad_input(device):
    with pytest.raises(TypeError, match="floating point"):
        flow.rand(3, dtype=flow.int32, device=device)
    with pytest.raises(RuntimeError, match="randint"):
        flow.randint(5, 5, (2,), device=device)
    with pytest.raises(RuntimeError, match="normal_"):
        flow.normal(0.0, -1.0, (2,), device=device)
    with pytest.raises(RuntimeError, match="bernoulli_"):
        flow.zeros(2, device=device).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="linspace"):
        flow.linspace(0, 1, -1, device=device)
    with pytest.raises(TypeError, match="Generator"):
        flow.rand(2, generator=object())
    with pytest.raises(RuntimeError, match="single memory location"):
        flow.zeros(1, device=device).expand(4).normal_()
