"""unique, bincount, histc, searchsorted, bucketize (ops_set) against
PyTorch, and randperm/multinomial (ops_sampling): their distributions,
reproducibility and errors."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from api_oracle import assert_same, compare, same_error, torch

ints = hnp.arrays(np.int64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5), elements=st.integers(-3, 3))


@given(ints, st.booleans(), st.booleans())
def test_unique(a, inverse, counts):
    compare(lambda x: flow.unique(x, return_inverse=inverse, return_counts=counts),
            lambda x: torch.unique(x, return_inverse=inverse, return_counts=counts), a)
    compare(lambda x: x.unique(sorted=True, return_inverse=inverse),
            lambda x: x.unique(sorted=True, return_inverse=inverse), a.astype(np.float32), grad=False)
    compare(lambda x: flow.unique_consecutive(x, return_inverse=inverse, return_counts=counts),
            lambda x: torch.unique_consecutive(x, return_inverse=inverse, return_counts=counts), a)
    for dim in range(a.ndim):
        compare(lambda x: flow.unique(x, return_inverse=inverse, return_counts=counts, dim=dim),
                lambda x: torch.unique(x, return_inverse=inverse, return_counts=counts, dim=dim), a)
        compare(lambda x: x.unique_consecutive(return_inverse=inverse, return_counts=counts, dim=dim),
                lambda x: x.unique_consecutive(return_inverse=inverse, return_counts=counts, dim=dim), a)


def test_unique_bool():
    compare(flow.unique, torch.unique, np.array([True, False, True]))


@given(hnp.arrays(np.int64, st.integers(0, 8), elements=st.integers(0, 6)), st.integers(0, 10), st.booleans())
def test_bincount(a, minlength, weighted):
    if weighted:
        w = np.linspace(-1, 1, a.shape[0]).astype(np.float32)
        # (torch has no derivative for bincount)
        compare(lambda x, y: flow.bincount(x, y, minlength), lambda x, y: torch.bincount(x, y, minlength), a, w,
                grad=False)
        compare(lambda x, y: x.bincount(y), lambda x, y: x.bincount(y), a, w.astype(np.float16).astype(np.float64),
                grad=False)
    else:
        compare(lambda x: flow.bincount(x, minlength=minlength), lambda x: torch.bincount(x, minlength=minlength), a)
    same_error(lambda: flow.bincount(flow.tensor([-1, 2])), lambda: torch.bincount(torch.tensor([-1, 2])))
    same_error(lambda: flow.bincount(flow.tensor([[1]])), lambda: torch.bincount(torch.tensor([[1]])))


@given(hnp.arrays(np.float32, st.integers(0, 20), elements=st.floats(-3, 3, width=32)), st.integers(1, 7),
       st.sampled_from([(0, 0), (-1, 1), (0.5, 2.5)]))
def test_histc(a, bins, bounds):
    compare(lambda x: flow.histc(x, bins, *bounds), lambda x: torch.histc(x, bins, *bounds), a, grad=False)
    compare(lambda x: x.histc(bins), lambda x: x.histc(bins), a, grad=False)


@given(st.data())
def test_searchsorted_bucketize(data):
    seq = np.sort(data.draw(hnp.arrays(np.float64, st.integers(1, 8), elements=st.integers(-4, 4))))
    vals = data.draw(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=4),
                                elements=st.integers(-5, 5)))
    for right in (False, True):
        compare(lambda s, v: flow.searchsorted(s, v, right=right), lambda s, v: torch.searchsorted(s, v, right=right),
                seq, vals, grad=False)
        compare(lambda v, s: flow.bucketize(v, s, right=right, out_int32=True),
                lambda v, s: torch.bucketize(v, s, right=right, out_int32=True), vals, seq, grad=False)
    compare(lambda s: flow.searchsorted(s, 0.5, side="right"), lambda s: torch.searchsorted(s, 0.5, side="right"), seq,
            grad=False)
    rows = np.sort(data.draw(hnp.arrays(np.float64, (3, 5), elements=st.integers(-4, 4))), axis=1)
    v2 = data.draw(hnp.arrays(np.float64, (3, 2), elements=st.integers(-5, 5)))
    compare(flow.searchsorted, torch.searchsorted, rows, v2, grad=False)
    unsorted = data.draw(hnp.arrays(np.float64, 6, elements=st.integers(-4, 4)))
    sorter = np.argsort(unsorted, kind="stable")
    compare(lambda s, v, o: flow.searchsorted(s, v, sorter=o), lambda s, v, o: torch.searchsorted(s, v, sorter=o),
            unsorted, vals, sorter, grad=False)


def test_randperm():
    for n in (0, 1, 7, 100):
        p = flow.randperm(n)
        assert p.dtype == flow.int64 and sorted(p.tolist()) == list(range(n))
    g1, g2 = flow.Generator(), flow.Generator()
    g1.manual_seed(3)
    g2.manual_seed(3)
    assert flow.randperm(50, generator=g1).tolist() == flow.randperm(50, generator=g2).tolist()
    flow.manual_seed(1)
    a = flow.randperm(20, dtype=flow.int32)
    flow.manual_seed(1)
    assert a.dtype == flow.int32 and a.tolist() == flow.randperm(20, dtype=flow.int32).tolist()
    # every position is uniform over the values: first element of 3-permutations
    firsts = np.bincount([int(flow.randperm(3)[0]) for _ in range(600)], minlength=3)
    assert firsts.min() > 140, firsts
    same_error(lambda: flow.randperm(-1), lambda: torch.randperm(-1))
    same_error(lambda: flow.randperm(2.5), lambda: torch.randperm(2.5))


def test_multinomial_with_replacement_matches_the_distribution():
    p = flow.tensor([0.1, 0.0, 0.6, 0.3])
    draws = flow.multinomial(p, 20000, replacement=True)
    assert draws.dtype == flow.int64 and tuple(draws.shape) == (20000,)
    freq = np.bincount(draws.numpy(), minlength=4) / 20000
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.02)
    rows = flow.tensor([[1.0, 0.0], [0.0, 5.0]]).multinomial(3, True)
    assert rows.tolist() == [[0, 0, 0], [1, 1, 1]]


def test_multinomial_without_replacement():
    w = flow.tensor([[1.0, 2.0, 0.0, 4.0]] * 4)
    out = flow.multinomial(w, 3)
    for row in out.tolist():
        assert sorted(row) == [0, 1, 3]
    # the first draw follows the weights
    firsts = np.bincount(flow.multinomial(flow.tensor([1.0, 3.0]).expand(4000, 2).contiguous(), 1).numpy().ravel(),
                         minlength=2) / 4000
    np.testing.assert_allclose(firsts, [0.25, 0.75], atol=0.03)
    g1, g2 = flow.Generator(), flow.Generator()
    g1.manual_seed(5)
    g2.manual_seed(5)
    a = flow.multinomial(flow.ones(10), 10, generator=g1)
    assert a.tolist() == flow.multinomial(flow.ones(10), 10, generator=g2).tolist()
    assert sorted(a.tolist()) == list(range(10))


@pytest.mark.parametrize("call", [
    lambda m: m.multinomial(m.tensor([0.5, 0.5]), 3),
    lambda m: m.multinomial(m.tensor([-0.5, 0.5]), 1),
    lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
    lambda m: m.multinomial(m.tensor([1, 2]), 1),
    lambda m: m.multinomial(m.ones(2, 2, 2), 1),
])
def test_multinomial_errors(call):
    same_error(lambda: call(flow), lambda: call(torch))
