"""Products with one row or one column go to BLAS gemv (Note [Vector products go to gemv] in
devices/cpu/gemm.h): every layout of each operand (row-major, transposed, strided), float32 and
float64, batched, and with gradients, against numpy in float64."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import monoflow as flow


def layout(arr, how):
    """`arr` as a monoflow tensor of the same values in the layout `how`."""
    if how == "rowmajor":
        return flow.tensor(arr)
    if how == "transposed":  # stored the other way round, read through .t()
        return flow.tensor(np.ascontiguousarray(arr.T)).t()
    wide = np.zeros((arr.shape[0], arr.shape[1] * 2), dtype=arr.dtype)  # every other column
    wide[:, ::2] = arr
    return flow.tensor(wide)[:, ::2]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 16), st.sampled_from(["row", "col"]), st.integers(1, 70), st.integers(1, 70),
       st.sampled_from(["rowmajor", "transposed", "strided"]), st.sampled_from(["rowmajor", "transposed", "strided"]),
       st.sampled_from(["float32", "float64"]))
def test_one_row_or_one_column_matches_numpy(seed, which, k, other, la, lb, dtype):
    rs = np.random.RandomState(seed)
    m, n = (1, other) if which == "row" else (other, 1)
    a = rs.randn(m, k).astype(dtype)
    b = rs.randn(k, n).astype(dtype)
    got = layout(a, la).matmul(layout(b, lb)).numpy()
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * k)


def test_batched_rows_and_gradients():
    rs = np.random.RandomState(0)
    x = rs.randn(5, 1, 7).astype(np.float32)
    w = rs.randn(9, 7).astype(np.float32)
    xt, wt = flow.tensor(x, requires_grad=True), flow.tensor(w, requires_grad=True)
    out = xt.matmul(wt.t())  # five 1 x 7 @ 7 x 9 products
    np.testing.assert_allclose(out.detach().numpy(), x @ w.T, rtol=1e-5, atol=1e-5)
    out.sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), np.broadcast_to(w.sum(0), x.shape), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(wt.grad.numpy(), np.broadcast_to(x.sum((0, 1)), w.shape), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(1, 1, 1), (1, 300, 1), (1, 1, 300)])
def test_degenerate_vector_shapes(shape):
    m, k, n = shape
    a, b = np.arange(m * k, dtype=np.float32).reshape(m, k), np.ones((k, n), np.float32)
    np.testing.assert_allclose(flow.tensor(a).matmul(flow.tensor(b)).numpy(), a @ b)
