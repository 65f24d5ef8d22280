"""x @ W.T with few rows (2 to 32) reads W once (Note [Few-row products read the matrix once] in
devices/cpu/gemm_few_rows.h): every row count around the tile sizes, k with and without a tail
below 16 lanes, row strides wider than k, the thread split, float32 against numpy in float64,
and the gradients of Linear at a small batch against torch."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import monoflow as flow


def wide_rows(arr, extra):
    """`arr` as a view of a wider row-major matrix: row stride k + extra."""
    if not extra:
        return flow.tensor(arr)
    wide = np.full((arr.shape[0], arr.shape[1] + extra), np.nan, dtype=arr.dtype)
    wide[:, :arr.shape[1]] = arr
    return flow.tensor(wide)[:, :arr.shape[1]]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 16), st.integers(2, 33), st.integers(1, 40), st.integers(32, 200), st.integers(0, 5),
       st.integers(0, 5))
def test_few_rows_match_numpy(seed, m, n, k, extra_a, extra_w):
    rs = np.random.RandomState(seed)
    a, w = rs.randn(m, k).astype(np.float32), rs.randn(n, k).astype(np.float32)
    got = wide_rows(a, extra_a).matmul(wide_rows(w, extra_w).t()).numpy()
    want = a.astype(np.float64) @ w.astype(np.float64).T
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))


@pytest.mark.parametrize("threads", [1, 2])
def test_values_do_not_depend_on_the_thread_split(threads):
    rs = np.random.RandomState(1)
    a, w = rs.randn(20, 1024).astype(np.float32), rs.randn(4096, 1024).astype(np.float32)
    before = flow.get_num_threads()
    try:
        flow.set_num_threads(1)
        one = (flow.tensor(a) @ flow.tensor(w).t()).numpy()
        flow.set_num_threads(threads)
        many = (flow.tensor(a) @ flow.tensor(w).t()).numpy()
    finally:
        flow.set_num_threads(before)
    np.testing.assert_array_equal(one, many)
    np.testing.assert_allclose(one, a.astype(np.float64) @ w.astype(np.float64).T, rtol=1e-4, atol=1e-3)


def test_small_batch_linear_forward_and_backward_match_torch():
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(2)
    x, w, b = rs.randn(6, 70).astype(np.float32), rs.randn(45, 70).astype(np.float32), rs.randn(45).astype(np.float32)
    fx, fw, fb = (flow.tensor(v, requires_grad=True) for v in (x, w, b))
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    fo, to = flow.nn.functional.linear(fx, fw, fb), torch.nn.functional.linear(tx, tw, tb)
    np.testing.assert_allclose(fo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-5)
    g = rs.randn(6, 45).astype(np.float32)
    fo.backward(flow.tensor(g))
    to.backward(torch.tensor(g))
    for f, t in ((fx, tx), (fw, tw), (fb, tb)):
        np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-5)
