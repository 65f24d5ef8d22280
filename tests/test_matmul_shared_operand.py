"""A batched product whose right operand is one matrix for the whole batch
(linear over leading dims: x (B, T, k) @ w.t()) runs as one (B*T, k) GEMM
when the batch dims of x fold into its rows, and its weight gradient as one
product over all the rows (Note [One GEMM for a shared right operand]).
Values and gradients vs torch for layouts that fold and layouts that do not."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow

torch = pytest.importorskip("torch")

TOL = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-12, atol=1e-12)}


def _layout(lib, base, how):
    """`base` (a contiguous (B..., m, k) array) as a tensor of the same values in layout `how`."""
    if how == "contiguous":
        return lib.tensor(base)
    if how == "batch_transposed":  # stored (m, B..., k): batch dims do not continue the rows
        moved = np.ascontiguousarray(np.moveaxis(base, -2, 0))
        return lib.tensor(moved).movedim(0, -2)
    if how == "row_sliced":  # every other row of a taller tensor: row stride 2k
        tall = np.repeat(base, 2, axis=-2)
        return lib.tensor(tall)[..., ::2, :]
    if how == "column_major":  # each matrix transposed in memory
        return lib.tensor(np.ascontiguousarray(np.swapaxes(base, -1, -2))).transpose(-1, -2)
    raise AssertionError(how)


@settings(max_examples=40, deadline=None)
@given(batch=st.lists(st.integers(1, 4), min_size=1, max_size=3), m=st.integers(1, 6), k=st.integers(1, 7),
       n=st.integers(1, 9), dtype=st.sampled_from(["float32", "float64"]),
       how=st.sampled_from(["contiguous", "batch_transposed", "row_sliced", "column_major"]),
       weight_t=st.booleans(), bias=st.booleans(), seed=st.integers(0, 2**16))
def test_linear_over_leading_dims_matches_torch(batch, m, k, n, dtype, how, weight_t, bias, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((*batch, m, k)).astype(dtype)
    w = rng.standard_normal((n, k) if weight_t else (k, n)).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    g = rng.standard_normal((*batch, m, n)).astype(dtype)
    results = []
    for lib in (flow, torch):
        xt = _layout(lib, x, how).requires_grad_()
        wt = lib.tensor(w).requires_grad_()
        bt = lib.tensor(b).requires_grad_()
        out = xt @ (wt.t() if weight_t else wt)
        if bias:
            out = out + bt
        out.backward(lib.tensor(g))
        results.append([out.detach().numpy(), xt.grad.numpy(), wt.grad.numpy()] + ([bt.grad.numpy()] if bias else []))
    for mine, ref in zip(*results):
        np.testing.assert_allclose(mine, ref, **TOL[dtype])


@pytest.mark.parametrize("dtype", ["int64", "float16", "bfloat16"])
def test_other_dtypes_fold_too(dtype):
    # int64 runs the loop GEMM, float16/bfloat16 widen to float: both go through the folded call
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, (3, 4, 5))
    w = rng.integers(-3, 4, (5, 6))
    out = (flow.tensor(x).to(getattr(flow, dtype)) @ flow.tensor(w).to(getattr(flow, dtype))).to(flow.float64)
    np.testing.assert_array_equal(out.numpy(), (x @ w).astype(np.float64))


def test_a_batched_right_operand_is_not_shared():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 5, 2))
    np.testing.assert_allclose((flow.tensor(x) @ flow.tensor(w)).numpy(), x @ w, rtol=1e-12)
    # broadcast right operand with a batch dim of size 1 is shared
    w1 = rng.standard_normal((1, 5, 2))
    np.testing.assert_allclose((flow.tensor(x) @ flow.tensor(w1)).numpy(), x @ w1, rtol=1e-12)


def test_decoder_sized_linear_gradients_match_torch():
    # the word model's decoder: (35, 20, 200) @ (10000, 200).t() at a reduced width
    rng = np.random.default_rng(2)
    x = rng.standard_normal((35, 20, 16)).astype("float32")
    w = rng.standard_normal((500, 16)).astype("float32")
    grads = []
    for lib in (flow, torch):
        xt, wt = lib.tensor(x).requires_grad_(), lib.tensor(w).requires_grad_()
        lib.nn.functional.linear(xt, wt).square().sum().backward()
        grads.append((xt.grad.numpy(), wt.grad.numpy()))
    for mine, ref in zip(*grads):
        np.testing.assert_allclose(mine, ref, rtol=1e-4, atol=1e-3)
