"""Tensor.index_reduce_ / flow.index_reduce against torch: random shapes, dims, dtypes, repeated
indices, include_self both ways; gradients (float64) against torch's."""
import numpy as np
import pytest
import torch

import monoflow as flow

REDUCES = ["prod", "mean", "amax", "amin"]


def _case(rng, dtype, ties=False):
    nd = int(rng.integers(1, 4))
    shape = [int(s) for s in rng.integers(1, 5, nd)]
    dim = int(rng.integers(-nd, nd))
    n = int(rng.integers(1, 7))
    index = rng.integers(0, shape[dim], n)
    sshape = list(shape)
    sshape[dim] = n
    if ties or np.dtype(dtype).kind in "iu":
        x, s = rng.integers(-3, 4, shape), rng.integers(-3, 4, sshape)
    else:
        x, s = rng.standard_normal(shape), rng.standard_normal(sshape)
    return x.astype(dtype), s.astype(dtype), dim, index


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_forward_matches_torch(reduce, dtype):
    rng = np.random.default_rng(hash((reduce, str(dtype))) % 2 ** 32)
    for _ in range(12):
        x, s, dim, index = _case(rng, dtype)
        for include_self in (True, False):
            want = torch.tensor(x).index_reduce_(dim, torch.tensor(index), torch.tensor(s), reduce,
                                                 include_self=include_self)
            a = flow.tensor(x)
            got = a.index_reduce_(dim, flow.tensor(index), flow.tensor(s), reduce, include_self=include_self)
            assert got is a
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
            f = flow.index_reduce(flow.tensor(x), dim, flow.tensor(index), flow.tensor(s), reduce,
                                  include_self=include_self)
            np.testing.assert_allclose(f.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
            assert f.dtype == getattr(flow, str(want.dtype).split(".")[-1])


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("ties", [False, True])
def test_grad_matches_torch(reduce, ties):
    rng = np.random.default_rng(7 + REDUCES.index(reduce) + 10 * ties)
    for _ in range(8):
        x, s, dim, index = _case(rng, np.float64, ties=ties)
        for include_self in (True, False):
            g = rng.standard_normal(x.shape)
            tx, ts = torch.tensor(x, requires_grad=True), torch.tensor(s, requires_grad=True)
            (torch.index_reduce(tx, dim, torch.tensor(index), ts, reduce, include_self=include_self)
             * torch.tensor(g)).sum().backward()
            fx, fs = flow.tensor(x, requires_grad=True), flow.tensor(s, requires_grad=True)
            (fx.index_reduce(dim, flow.tensor(index), fs, reduce, include_self=include_self)
             * flow.tensor(g)).sum().backward()
            np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-7, atol=1e-10)
            np.testing.assert_allclose(fs.grad.numpy(), ts.grad.numpy(), rtol=1e-7, atol=1e-10)


def test_bad_arguments():
    x, s = flow.ones(3, 2), flow.ones(2, 2)
    with pytest.raises(RuntimeError):
        x.index_reduce_(0, flow.tensor([0, 1]), s, "sum")
    with pytest.raises(TypeError):
        x.index_reduce_(0, flow.tensor([0, 1]), s, 3)
    with pytest.raises(IndexError):
        x.index_reduce_(0, flow.tensor([0.0, 1.0]), s, "prod")
    with pytest.raises(IndexError):
        x.index_reduce_(0, flow.tensor([0, 5]), s, "prod")
    with pytest.raises(RuntimeError):
        x.index_reduce_(0, flow.tensor([0, 1, 2]), s, "prod")
    with pytest.raises(RuntimeError):
        x.index_reduce_(0, flow.tensor([0, 1]), s.double(), "prod")
