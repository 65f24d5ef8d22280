"""Statistics, scans and comparisons (ops_stats) against PyTorch."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from api_oracle import assert_same, compare, same_error, torch

shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)


def distinct(draw, shape, dtype=np.float64):
    """Values without ties (so that the selected index is unique, as the gradient needs)."""
    n = int(np.prod(shape))
    perm = draw(st.permutations(list(range(n))))
    return (np.array(perm, dtype=dtype).reshape(shape) - n / 2) / 3


def with_nans(draw, shape):
    a = draw(hnp.arrays(np.float64, shape, elements=st.floats(-5, 5)))
    mask = draw(hnp.arrays(np.bool_, shape))
    a[mask] = np.nan
    return a


@given(data=st.data())
def test_nansum_nanmean(data):
    shape = data.draw(shapes)
    a = with_nans(data.draw, shape)
    dim = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    keep = data.draw(st.booleans())
    compare(lambda x: flow.nansum(x, dim, keep), lambda x: torch.nansum(x, dim, keep), a)
    # the gradient of a slice that is all NaN is NaN in torch (inf * 0): a convention, not compared
    all_nan = np.isnan(a).all(axis=dim) if dim is not None else np.isnan(a).all()
    compare(lambda x: x.nanmean(dim, keep), lambda x: x.nanmean(dim, keep), a, grad=not np.any(all_nan))


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@given(data=st.data())
def test_median(name, data):
    shape = data.draw(shapes)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    a = distinct(data.draw, shape)
    compare(getattr(flow, name), getattr(torch, name), a)
    compare(lambda x: getattr(x, name)(dim, True), lambda x: getattr(x, name)(dim, True), a)
    b = with_nans(data.draw, shape)
    fv, tv = getattr(flow, name)(flow.tensor(b), dim), getattr(torch, name)(torch.tensor(b), dim)
    assert_same(fv.values, tv.values)
    # the index points at the reported value (which index, among equal values, is unspecified)
    picked = np.take_along_axis(b, np.expand_dims(fv.indices.numpy(), dim), dim).squeeze(dim)
    np.testing.assert_array_equal(np.isnan(picked), np.isnan(tv.values.numpy()))
    np.testing.assert_allclose(picked[~np.isnan(picked)], tv.values.numpy()[~np.isnan(picked)])


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@given(data=st.data())
def test_quantile(interpolation, data):
    shape = data.draw(shapes)
    a = distinct(data.draw, shape)
    dim = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    q = data.draw(st.one_of(st.floats(0, 1), st.just(np.array([0.1, 0.5, 0.9]))))
    fq = flow.tensor(q) if isinstance(q, np.ndarray) else q
    tq = torch.tensor(q) if isinstance(q, np.ndarray) else q
    keep = data.draw(st.booleans())
    compare(lambda x: flow.quantile(x, fq, dim, keep, interpolation=interpolation),
            lambda x: torch.quantile(x, tq, dim, keep, interpolation=interpolation), a)
    b = with_nans(data.draw, shape)
    compare(lambda x: flow.nanquantile(x, fq, dim, keep, interpolation=interpolation),
            lambda x: torch.nanquantile(x, tq, dim, keep, interpolation=interpolation), b, grad=False)


@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6), elements=st.integers(0, 3)),
       st.booleans())
def test_mode(a, keep):
    for dim in range(-a.ndim, a.ndim):
        fm, tm = flow.mode(flow.tensor(a), dim, keep), torch.mode(torch.tensor(a), dim, keep)
        assert_same(fm.values, tm.values)
        assert_same(fm.indices, tm.indices)


@given(data=st.data())
def test_kthvalue_aminmax_msort(data):
    shape = data.draw(shapes)
    a = distinct(data.draw, shape)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(1, shape[dim]))
    compare(lambda x: flow.kthvalue(x, k, dim), lambda x: torch.kthvalue(x, k, dim), a)
    compare(lambda x: flow.aminmax(x, dim=dim, keepdim=True), lambda x: torch.aminmax(x, dim=dim, keepdim=True), a,
            grad=False)
    compare(lambda x: x.aminmax(), lambda x: x.aminmax(), a, grad=False)
    compare(flow.msort, torch.msort, a)
    same_error(lambda: flow.kthvalue(flow.tensor(a), shape[dim] + 1, dim),
               lambda: torch.kthvalue(torch.tensor(a), shape[dim] + 1, dim))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@given(data=st.data())
def test_cummax_cummin(name, data):
    shape = data.draw(shapes)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    a = distinct(data.draw, shape)
    compare(lambda x: getattr(flow, name)(x, dim), lambda x: getattr(torch, name)(x, dim), a)
    ties = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(0, 2)))
    compare(lambda x: getattr(x, name)(dim), lambda x: getattr(x, name)(dim), ties)
    b = with_nans(data.draw, shape)
    compare(lambda x: getattr(x, name)(dim), lambda x: getattr(x, name)(dim), b, grad=False)


@given(data=st.data())
def test_logcumsumexp(data):
    shape = data.draw(shapes)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    a = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-1000, 1000)))
    compare(lambda x: flow.logcumsumexp(x, dim), lambda x: torch.logcumsumexp(x, dim), a, rtol=1e-7, atol=1e-9)
    # float32 against float64 truth on the same (rounded) inputs: monoflow's
    # float32 result and gradient are the truth rounded once (torch's float32
    # gradient is off by up to 1e-3 at |x| ~ 1000, so it is no oracle here).
    a32 = a.astype(np.float32).astype(np.float64)
    compare(lambda x: x.float().logcumsumexp(dim), lambda x: x.logcumsumexp(dim), a32, rtol=1e-5, check_dtype=False)
    inf = np.array([-np.inf, -np.inf, 0.0, np.inf, 1.0])
    compare(lambda x: flow.logcumsumexp(x, 0), lambda x: torch.logcumsumexp(x, 0), inf, grad=False)


@given(data=st.data())
def test_diff(data):
    shape = data.draw(shapes)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.integers(0, 3))
    a = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-5, 5)))
    compare(lambda x: flow.diff(x, n, dim), lambda x: torch.diff(x, n, dim), a)
    side = list(shape)
    side[dim] = 2
    p = np.ones(side)
    compare(lambda x, y: x.diff(1, dim, prepend=y, append=y), lambda x, y: x.diff(1, dim, prepend=y, append=y), a, p)
    compare(lambda x: flow.diff(x, 1, dim), lambda x: torch.diff(x, 1, dim), a > 0)


def test_trapezoid():
    y, x = np.random.default_rng(0).standard_normal((3, 5)), np.sort(np.random.default_rng(1).random(5))
    for name in ("trapezoid", "trapz", "cumulative_trapezoid"):
        compare(getattr(flow, name), getattr(torch, name), y)
        compare(lambda a: getattr(flow, name)(a, dx=0.5, dim=0), lambda a: getattr(torch, name)(a, dx=0.5, dim=0), y)
        compare(lambda a, b: getattr(flow, name)(a, b), lambda a, b: getattr(torch, name)(a, b), y, x)


def test_equal_isclose_allclose_count_nonzero():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 2.0])
    b = np.array([1.0 + 1e-7, np.nan, np.inf, np.inf, 0.0, 2.1])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.1, "atol": 0.0}):
        compare(lambda x, y: flow.isclose(x, y, **kw), lambda x, y: torch.isclose(x, y, **kw), a, b, grad=False)
        assert flow.allclose(flow.tensor(a), flow.tensor(b), **kw) == torch.allclose(torch.tensor(a),
                                                                                    torch.tensor(b), **kw)
    assert flow.tensor([1, 2]).equal(flow.tensor([1, 2])) is True
    assert flow.equal(flow.tensor([1, 2]), flow.tensor([1, 3])) is False
    assert flow.equal(flow.tensor([1, 2]), flow.tensor([[1, 2]])) is False
    same_error(lambda: flow.isclose(flow.tensor([1.0]), flow.tensor([1])), lambda: torch.isclose(torch.tensor([1.0]),
                                                                                                 torch.tensor([1])))
    m = np.array([[0, 1, 2], [0, 0, 3]])
    for dim in (None, 0, 1, (0, 1)):
        compare(lambda x: flow.count_nonzero(x, dim), lambda x: torch.count_nonzero(x, dim), m)


def test_cov_corrcoef():
    x = np.random.default_rng(0).standard_normal((3, 6))
    compare(flow.cov, torch.cov, x)
    compare(lambda a: flow.cov(a, correction=0), lambda a: torch.cov(a, correction=0), x)
    fw, aw = np.array([1, 2, 1, 3, 1, 1]), np.random.default_rng(1).random(6)
    compare(lambda a, w: flow.cov(a, fweights=w), lambda a, w: torch.cov(a, fweights=w), x, fw)
    compare(lambda a, w: flow.cov(a, aweights=w), lambda a, w: torch.cov(a, aweights=w), x, aw, grad=False)
    compare(flow.cov, torch.cov, x[0])
    compare(flow.corrcoef, torch.corrcoef, x)
