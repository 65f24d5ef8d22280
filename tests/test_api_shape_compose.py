"""Joining, splitting, rearranging and writing-into ops (ops_join,
ops_layout) against PyTorch: values, dtypes, gradients, errors."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from api_oracle import compare, same_error, torch


def r(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (2, 3)], [(2, 3, 2), (2, 3, 2)], [(), ()]])
def test_stacks(name, shapes):
    if name in ("hstack", "column_stack") and shapes == [(), ()] or name == "column_stack" and len(shapes[0]) == 3:
        pass
    arrays = [r(*s, seed=i) for i, s in enumerate(shapes)]
    compare(lambda *xs: getattr(flow, name)(list(xs)), lambda *xs: getattr(torch, name)(list(xs)), *arrays)


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_atleast(name, shape):
    compare(getattr(flow, name), getattr(torch, name), r(*shape))
    compare(lambda a, b: getattr(flow, name)(a, b), lambda a, b: getattr(torch, name)(a, b), r(*shape), r(*shape))


@given(st.integers(1, 9), st.integers(1, 4), st.lists(st.integers(-9, 9), max_size=3))
def test_tensor_split(n, sections, indices):
    a = r(n, 2)
    compare(lambda x: flow.tensor_split(x, sections), lambda x: torch.tensor_split(x, sections), a)
    compare(lambda x: x.tensor_split(indices, 0), lambda x: x.tensor_split(indices, 0), a)


def test_hvd_split():
    a = r(4, 6, 2)
    for name, arg in (("hsplit", 2), ("vsplit", [1, 3]), ("dsplit", 2), ("hsplit", [1, 4])):
        compare(lambda x: getattr(flow, name)(x, arg), lambda x: getattr(torch, name)(x, arg), a)
    same_error(lambda: flow.hsplit(flow.tensor(a), 4), lambda: torch.hsplit(torch.tensor(a), 4))
    compare(lambda x: x.split_with_sizes([1, 3]), lambda x: x.split_with_sizes([1, 3]), a)


def test_broadcast():
    a, b, c = r(3, 1), r(1, 4), r(4)
    compare(flow.broadcast_tensors, torch.broadcast_tensors, a, b, c)
    compare(lambda x: flow.broadcast_to(x, (2, 3, 4)), lambda x: torch.broadcast_to(x, (2, 3, 4)), a)
    compare(lambda x: x.broadcast_to((3, -1)), lambda x: x.broadcast_to((3, -1)), b)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_and_cartesian_prod(indexing):
    a, b, c = r(3), r(4), r(2)
    compare(lambda *xs: flow.meshgrid(*xs, indexing=indexing), lambda *xs: torch.meshgrid(*xs, indexing=indexing),
            a, b, c)
    compare(lambda *xs: flow.meshgrid(list(xs), indexing=indexing),
            lambda *xs: torch.meshgrid(list(xs), indexing=indexing), a, b)
    compare(flow.cartesian_prod, torch.cartesian_prod, a, b, c)
    compare(flow.cartesian_prod, torch.cartesian_prod, a)


def test_block_diag_and_kron():
    compare(flow.block_diag, torch.block_diag, r(2, 3), r(1), r(), r(3, 2))
    compare(flow.block_diag, torch.block_diag, np.array([[1, 2]]), np.array([[3], [4]]))
    for sa, sb in (((2, 3), (3, 2)), ((2,), (3,)), ((2, 2, 2), (3, 1)), ((3,), (2, 2))):
        compare(flow.kron, torch.kron, r(*sa), r(*sb, seed=1))


@given(st.integers(-5, 5), st.sampled_from([(0, 1), (1, 0), (1, 2), (-1, 0)]))
def test_rot90(k, dims):
    compare(lambda x: flow.rot90(x, k, dims), lambda x: torch.rot90(x, k, dims), r(2, 3, 4))
    compare(lambda x: x.rot90(k, dims), lambda x: x.rot90(k, dims), r(2, 3, 4))


def test_unflatten_ravel_narrow_copy_take():
    a = r(2, 12)
    compare(lambda x: x.unflatten(1, (3, -1)), lambda x: x.unflatten(1, (3, -1)), a)
    compare(lambda x: flow.unflatten(x, -1, (2, 2, 3)), lambda x: torch.unflatten(x, -1, (2, 2, 3)), a)
    compare(flow.ravel, torch.ravel, a.T.copy())
    compare(lambda x: flow.narrow_copy(x, 1, 2, 5), lambda x: torch.narrow_copy(x, 1, 2, 5), a)
    idx = np.array([[0, -1], [5, 23]])
    compare(lambda x, i: flow.take(x, i), lambda x, i: torch.take(x, i), a, idx)
    same_error(lambda: flow.take(flow.tensor(a), flow.tensor([24])), lambda: torch.take(torch.tensor(a),
                                                                                        torch.tensor([24])))


@given(st.integers(0, 3), st.one_of(st.none(), st.integers(-2, 1)))
def test_repeat_interleave(reps, dim):
    a = r(2, 3)
    compare(lambda x: flow.repeat_interleave(x, reps, dim), lambda x: torch.repeat_interleave(x, reps, dim), a)
    counts = np.array([1, 0, 2])
    compare(lambda x, c: x.repeat_interleave(c, 1), lambda x, c: x.repeat_interleave(c, 1), a, counts)
    compare(flow.repeat_interleave, torch.repeat_interleave, counts)


@pytest.mark.parametrize("offset", [-2, 0, 1])
def test_diag_family(offset):
    v, m = r(3), r(3, 4)
    compare(lambda x: flow.diag(x, offset), lambda x: torch.diag(x, offset), v)
    compare(lambda x: flow.diag(x, offset), lambda x: torch.diag(x, offset), m)
    compare(lambda x: flow.diag_embed(x, offset, 0, 2), lambda x: torch.diag_embed(x, offset, 0, 2), r(2, 3))
    compare(lambda x: flow.diagflat(x, offset), lambda x: torch.diagflat(x, offset), r(2, 2))
    compare(flow.trace, torch.trace, m)
    compare(flow.trace, torch.trace, np.arange(9).reshape(3, 3))


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((5, 2), False), ((7, 3), True), ((2, 5), True),
                                        ((3, 3, 3), False)])
def test_fill_diagonal(shape, wrap):
    fx, tx = flow.zeros(*shape), torch.zeros(*shape)
    fx.fill_diagonal_(2.5, wrap)
    tx.fill_diagonal_(2.5, wrap)
    compare(lambda a: a, lambda a: a, fx.numpy())
    np.testing.assert_array_equal(fx.numpy(), tx.numpy())


@given(st.integers(0, 5), st.integers(0, 5), st.integers(-4, 4))
def test_tri_indices(row, col, offset):
    for name in ("tril_indices", "triu_indices"):
        compare(lambda: getattr(flow, name)(row, col, offset), lambda: getattr(torch, name)(row, col, offset))


def test_index_writers():
    x, src = r(5, 3), r(2, 3, seed=1)
    idx = np.array([4, 1])
    compare(lambda a, i, s: flow.index_add(a, 0, i, s, alpha=2), lambda a, i, s: torch.index_add(a, 0, i, s, alpha=2),
            x, idx, src)
    compare(lambda a, i, s: a.index_copy(0, i, s), lambda a, i, s: a.index_copy(0, i, s), x, idx, src)
    compare(lambda a, i: a.index_fill(1, i, -1.0), lambda a, i: a.index_fill(1, i, -1.0), x, np.array([0, 2]))
    dup = np.array([1, 1])
    compare(lambda a, i, s: a.index_add(0, i, s), lambda a, i, s: a.index_add(0, i, s), x, dup, src)
    fx, tx = flow.tensor(x), torch.tensor(x)
    fx.index_add_(0, flow.tensor(idx), flow.tensor(src))
    tx.index_add_(0, torch.tensor(idx), torch.tensor(src))
    np.testing.assert_allclose(fx.numpy(), tx.numpy())


def test_masked_scatter():
    x, src = r(3, 4), r(12, seed=2)
    mask = np.random.default_rng(3).random((3, 4)) > 0.5
    compare(lambda a, m, s: a.masked_scatter(m, s), lambda a, m, s: a.masked_scatter(m, s), x, mask, src)
    compare(lambda a, m, s: a.masked_scatter(m, s), lambda a, m, s: a.masked_scatter(m, s), x, mask[0], src)


def test_select_slice_diagonal_scatter():
    x = r(4, 5)
    compare(lambda a, s: flow.select_scatter(a, s, 0, -1), lambda a, s: torch.select_scatter(a, s, 0, -1), x, r(5))
    compare(lambda a, s: flow.slice_scatter(a, s, 1, 1, 5, 2), lambda a, s: torch.slice_scatter(a, s, 1, 1, 5, 2),
            x, r(4, 2))
    compare(lambda a, s: flow.slice_scatter(a, s), lambda a, s: torch.slice_scatter(a, s), x, r(4, 5, seed=3))
    for off in (-1, 0, 2):
        n = torch.diagonal(torch.tensor(x), off).shape[0]
        compare(lambda a, s: flow.diagonal_scatter(a, s, off), lambda a, s: torch.diagonal_scatter(a, s, off),
                x, r(n, seed=4))
    same_error(lambda: flow.select_scatter(flow.tensor(x), flow.tensor(r(4)), 0, 0),
               lambda: torch.select_scatter(torch.tensor(x), torch.tensor(r(4)), 0, 0))


@pytest.mark.parametrize("reduce", ["sum", "mean", "prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    x, src = r(4, 3), r(6, 3, seed=5)
    idx = np.array([[0, 1, 2], [0, 1, 2], [3, 3, 0], [1, 1, 1], [0, 2, 2], [3, 0, 0]])
    grad = reduce in ("sum", "mean")
    compare(lambda a, i, s: a.scatter_reduce(0, i, s, reduce, include_self=include_self),
            lambda a, i, s: a.scatter_reduce(0, i, s, reduce, include_self=include_self), x, idx, src, grad=grad)
    ints = np.arange(12).reshape(4, 3)
    compare(lambda a, i, s: a.scatter_reduce(0, i, s, reduce, include_self=include_self),
            lambda a, i, s: a.scatter_reduce(0, i, s, reduce, include_self=include_self), ints, idx,
            np.arange(18).reshape(6, 3))


def test_diag_family_keeps_nan_and_inf_on_the_diagonal_only():
    # (the diagonal matrix was input * eye: NaN * 0 spread NaN over its row)
    v = np.array([np.nan, 1.0, np.inf], np.float32)
    for fn, ref in ((flow.diag, np.diag), (flow.diagflat, np.diagflat),
                    (flow.diag_embed, lambda a: np.diag(a))):
        np.testing.assert_array_equal(fn(flow.tensor(v)).numpy(), ref(v))
    assert flow.diag_embed(flow.tensor([[True, False]])).dtype == flow.bool
    np.testing.assert_array_equal(flow.diag(flow.tensor([1, 2]), 1).numpy(), np.diag([1, 2], 1))
