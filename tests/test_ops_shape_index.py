"""Gathering and scattering through index tensors and masks (gather, scatter,
scatter_add, index_select, one_hot, masked_fill, masked_select, nonzero) on
every device, against torch: random shapes (0-size and 0-dim included), every
dtype, int64 and int32 indices, non-contiguous operands and bad input
(out-of-range indices raise IndexError naming the op)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from helpers import (
    DTYPES, EPS, FLOATING, NP, TensorSpec, assert_values, device_settings, elements, shapes, tdt, tensor_specs, torch_np,
    value_fits,
)

torch = pytest.importorskip("torch")

dtypes = st.sampled_from(DTYPES)
index_dtypes = st.sampled_from(["int64", "int32"])


def T(spec):
    return torch.from_numpy(np.array(spec.values, copy=True)).to(tdt(spec.name))


def check(out, expected_torch, atol=None):
    name = str(expected_torch.dtype).replace("torch.", "")
    assert_values(out, torch_np(expected_torch), name, atol=atol)


@st.composite
def index_for(draw, shape, high, dtype=None):
    """An index TensorSpec of `shape` with values in [0, high), any layout."""
    return draw(tensor_specs(shape, dtype or draw(index_dtypes), lo=0, hi=max(high, 1) - 1))


@st.composite
def laid_out(draw, vals, name):
    """A TensorSpec with the given values in a random layout (contiguous, permuted, strided)."""
    n = vals.ndim
    layout = draw(st.sampled_from(["contiguous", "permuted", "strided"]))
    if layout == "permuted" and n >= 2:
        return TensorSpec(vals, name, "permuted", tuple(draw(st.permutations(range(n)))))
    if layout == "strided" and n >= 1:
        def ints(a, b):
            return tuple(draw(st.lists(st.integers(a, b), min_size=n, max_size=n)))
        return TensorSpec(vals, name, "strided", (ints(0, 2), ints(1, 3), ints(0, 2)))
    return TensorSpec(vals, name, "contiguous")


# ================================================================ gather, index_select

@device_settings
@given(data=st.data(), shape=shapes(max_dims=3, max_side=4), name=dtypes)
def test_gather(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name), label="x")
    nd = max(len(shape), 1)
    dim = data.draw(st.integers(-nd, nd - 1), label="dim")
    d = dim % nd
    if not shape:  # 0-dim: the index has 0 or 1 dims of size <= 1 apart from dim
        ishape = data.draw(st.sampled_from([(), (1,), (2,)]), label="ishape")
    else:
        ishape = tuple(data.draw(st.integers(0, 4 if i == d else shape[i]), label="isize") for i in range(len(shape)))
    size = shape[d] if shape else 1
    if size == 0:
        ishape = tuple(0 if i == d else s for i, s in enumerate(ishape))
    I = data.draw(index_for(ishape, size), label="index")
    out = flow.gather(X.make(device), dim, I.make(device))
    check(out, torch.gather(T(X), dim, T(I).long()))


@device_settings
@given(data=st.data(), shape=shapes(max_dims=3, max_side=4), name=dtypes)
def test_index_select(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name), label="x")
    nd = max(len(shape), 1)
    dim = data.draw(st.integers(-nd, nd - 1), label="dim")
    size = shape[dim % nd] if shape else 1
    if not shape:
        ishape = data.draw(st.sampled_from([(), (1,)]), label="ishape")
    else:
        ishape = data.draw(st.sampled_from([(), (data.draw(st.integers(0, 5)) if size else 0,)]), label="ishape")
        if size == 0:
            ishape = (0,)
    I = data.draw(index_for(ishape, size), label="index")
    out = X.make(device).index_select(dim, I.make(device))
    check(out, torch.index_select(T(X), dim, T(I).long()))


# ================================================================ scatter, scatter_add

@st.composite
def scatter_case(draw, unique):
    """(self shape, dim, index TensorSpec, src shape) with index values in range
    and, when `unique`, no two equal along dim (scatter's result is then defined)."""
    shape = draw(shapes(min_dims=1, max_dims=3, max_side=4))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    d = dim % len(shape)
    size = shape[d]
    ishape = [draw(st.integers(0, shape[i])) for i in range(len(shape))]
    ishape[d] = draw(st.integers(0, size if unique else 5)) if size else 0
    ishape = tuple(ishape)
    dt = draw(index_dtypes)
    if unique:  # each line along dim: distinct positions
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
        moved = tuple(s for i, s in enumerate(ishape) if i != d) + (ishape[d],)
        lines = np.zeros((int(np.prod(moved[:-1])), ishape[d]), dtype=NP[dt])
        for r in range(lines.shape[0]):
            lines[r] = rng.permutation(size)[:ishape[d]]
        index = draw(laid_out(np.ascontiguousarray(np.moveaxis(lines.reshape(moved), -1, d)), dt))
    else:
        index = draw(index_for(ishape, size, dtype=dt))
    src_shape = tuple(i + draw(st.integers(0, 1)) for i in ishape)
    return shape, dim, index, src_shape


@device_settings
@given(data=st.data(), case=scatter_case(unique=True), name=dtypes)
def test_scatter(device, data, case, name):
    shape, dim, I, src_shape = case
    X = data.draw(tensor_specs(shape, name, layouts=("contiguous", "permuted", "strided")), label="x")
    S = data.draw(tensor_specs(src_shape, name), label="src")
    x, idx = X.make(device), I.make(device)
    expected = torch.scatter(T(X), dim, T(I).long(), T(S))
    check(flow.scatter(x, dim, idx, S.make(device)), expected)
    assert_values(x, X.values, name)  # out of place
    version = x._version
    assert x.scatter_(dim, idx, S.make(device)) is x
    check(x, expected)
    assert x._version > version
    value = data.draw(elements(name), label="value")
    expected = torch.scatter(T(X), dim, T(I).long(), value)
    check(X.make(device).scatter(dim, idx, value=value), expected)
    check(flow.scatter(X.make(device), dim, idx, value=value), expected)


@device_settings
@given(data=st.data(), case=scatter_case(unique=False), name=dtypes)
def test_scatter_add(device, data, case, name):
    shape, dim, I, src_shape = case
    kw = {"lo": 0, "hi": 3} if name != "bool" else {}
    X = data.draw(tensor_specs(shape, name, layouts=("contiguous", "permuted", "strided"), **kw), label="x")
    S = data.draw(tensor_specs(src_shape, name, **kw), label="src")
    expected = torch.scatter_add(T(X), dim, T(I).long(), T(S))
    # floating sums may round differently with the order of the adds: at most
    # a few units of roundoff per add of values <= 3 (<= 6 adds per element)
    atol = 6 * 2 * 3 * 7 * EPS[name] if name in FLOATING else None
    check(flow.scatter_add(X.make(device), dim, I.make(device), S.make(device)), expected, atol)
    x = X.make(device)
    x.scatter_add_(dim, I.make(device), S.make(device))
    check(x, expected, atol)


def test_gather_scatter_errors(device):
    x = flow.arange(6.0, device=device).reshape(2, 3)
    i = flow.tensor([[0, 1], [2, 0]], device=device)
    with pytest.raises(IndexError, match="gather: index 3 is out of bounds for dimension 1 with size 3"):
        x.gather(1, flow.tensor([[3]], device=device))
    with pytest.raises(IndexError, match="gather: index -1 is out of bounds"):
        x.gather(1, flow.tensor([[-1]], device=device))
    with pytest.raises(RuntimeError, match="gather: Size does not match at dimension 1"):
        x.gather(0, flow.zeros(1, 4, dtype=flow.int64, device=device))
    with pytest.raises(RuntimeError, match="gather: Index tensor must have the same number of dimensions"):
        x.gather(1, flow.tensor([0], device=device))
    with pytest.raises(RuntimeError, match=r"gather\(\): Expected dtype int32 or int64 for index"):
        x.gather(1, i.float())
    with pytest.raises(IndexError, match="gather: Dimension out of range"):
        x.gather(2, i)
    with pytest.raises(TypeError, match="gather"):
        x.gather(1, [[0]])
    with pytest.raises(IndexError, match="scatter: index 3 is out of bounds for dimension 1 with size 3"):
        flow.zeros(2, 3, device=device).scatter(1, flow.tensor([[3]], device=device), 1.0)
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        flow.zeros(2, 3, device=device).scatter(1, i, flow.ones(2, 2, dtype=flow.int32, device=device))
    with pytest.raises(RuntimeError, match=r"scatter: Expected index \[2, 2\] to be no larger than self \[2, 3\] "
                                           r"apart from dimension 1 and to be no larger size than src \[1, 2\]"):
        flow.zeros(2, 3, device=device).scatter(1, i, flow.ones(1, 2, device=device))
    with pytest.raises(RuntimeError, match="scatter: Index tensor must have the same number of dimensions as src"):
        flow.zeros(2, 3, device=device).scatter(1, i, flow.tensor(5.0, device=device))
    with pytest.raises(RuntimeError, match="scatter: value 300 cannot be converted to type int8"):
        flow.zeros(2, 3, dtype=flow.int8, device=device).scatter(1, i, 300)
    with pytest.raises(RuntimeError, match="scatter_: unsupported operation: more than one element"):
        flow.zeros(3, device=device).expand(2, 3).scatter_(1, i, 1.0)
    with pytest.raises(IndexError, match="scatter_add: index 2 is out of bounds"):
        flow.zeros(2, device=device).scatter_add(0, flow.tensor([2], device=device), flow.ones(1, device=device))
    with pytest.raises(TypeError, match="scatter_add"):
        flow.zeros(2, device=device).scatter_add(0, flow.tensor([0], device=device), 1.0)
    with pytest.raises(TypeError, match="scatter"):
        flow.zeros(2, device=device).scatter(0, flow.tensor([0], device=device))
    with pytest.raises(RuntimeError, match="scatter.*reduce argument must be either add or multiply"):
        flow.zeros(2, device=device).scatter(0, flow.tensor([0], device=device), value=1.0, reduce="max")
    with pytest.raises(IndexError, match="index_select: index 3 is out of bounds for dimension 1 with size 3"):
        x.index_select(1, flow.tensor([3], device=device))
    with pytest.raises(IndexError, match=r"index_select\(\): Index is supposed to be a vector"):
        x.index_select(1, i)
    with pytest.raises(RuntimeError, match=r"index_select\(\): Expected dtype int32 or int64 for index"):
        x.index_select(1, flow.tensor([0], dtype=flow.int16, device=device))
    with pytest.raises(RuntimeError, match=r"index_select\(\): Index to scalar can have only 1 value, got 2"):
        flow.tensor(3.0, device=device).index_select(0, flow.tensor([0, 0], device=device))
    # scatter reads src and index from copies when they live in self's memory
    y = flow.arange(4, device=device)
    y.scatter_(0, flow.tensor([1, 2, 3], device=device), y[:3])
    assert y.tolist() == [0, 0, 1, 2]


# ================================================================ one_hot

@device_settings
@given(data=st.data(), shape=shapes(max_dims=3, max_side=4), extra=st.integers(-1, 3))
def test_one_hot(device, data, shape, extra):
    I = data.draw(tensor_specs(shape, "int64", lo=0, hi=6), label="x")
    if not I.values.size and extra < 1:
        extra = 1
    num_classes = -1 if extra < 0 else int(I.values.max(initial=-1)) + 1 + extra
    out = flow.one_hot(I.make(device), num_classes)
    check(out, torch.nn.functional.one_hot(T(I), num_classes))


def test_one_hot_errors(device):
    x = flow.tensor([0, 2, 1], device=device)
    with pytest.raises(RuntimeError, match="one_hot: Class values must be smaller than num_classes"):
        flow.one_hot(x, 2)
    with pytest.raises(RuntimeError, match="one_hot: Class values must be non-negative"):
        flow.one_hot(flow.tensor([0, -2], device=device), 4)
    with pytest.raises(RuntimeError, match="one_hot: one_hot is only applicable to index tensor of type LongTensor"):
        flow.one_hot(x.int())
    with pytest.raises(RuntimeError, match="one_hot: Can not infer total number of classes from empty tensor"):
        flow.one_hot(flow.tensor([], dtype=flow.int64, device=device))
    assert flow.one_hot(flow.tensor([], dtype=flow.int64, device=device), 3).shape == (0, 3)


# ================================================================ masks

@device_settings
@given(data=st.data(), shape=shapes(max_dims=3, max_side=4), name=dtypes, use_tensor=st.booleans())
def test_masked_fill(device, data, shape, name, use_tensor):
    X = data.draw(tensor_specs(shape, name), label="x")
    mshape = data.draw(st.sampled_from([shape, shape[1:], (1,) + shape, tuple(1 for _ in shape)]), label="mshape")
    M = data.draw(tensor_specs(mshape, "bool"), label="mask")
    value = data.draw(st.one_of(elements(name), st.integers(-3, 3)), label="value")
    vname = {bool: "bool", int: "int64", float: "float64"}[type(value)]
    if not value_fits(name, value):
        with pytest.raises(RuntimeError, match="masked_fill: value .* cannot be converted"):
            X.make(device).masked_fill(M.make(device), value)
        return
    fill = flow.tensor(value, dtype=getattr(flow, vname), device=device) if use_tensor else value
    tfill = torch.tensor(value, dtype=getattr(torch, vname)) if use_tensor else value
    expected = torch.masked_fill(T(X), T(M), tfill)
    check(flow.masked_fill(X.make(device), M.make(device), fill), expected)
    if np.broadcast_shapes(mshape, shape) == shape:  # in place: the mask broadcasts to x
        Y = data.draw(tensor_specs(shape, name, layouts=("contiguous", "permuted", "strided")), label="y")
        y = Y.make(device)
        assert y.masked_fill_(M.make(device), fill) is y
        check(y, T(Y).masked_fill_(T(M), tfill))


@device_settings
@given(data=st.data(), shape=shapes(max_dims=3, max_side=4), name=dtypes)
def test_masked_select(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name), label="x")
    mshape = data.draw(st.sampled_from([shape, shape[1:], (2,) + shape, tuple(1 for _ in shape)]), label="mshape")
    M = data.draw(tensor_specs(mshape, "bool"), label="mask")
    check(X.make(device).masked_select(M.make(device)), torch.masked_select(T(X), T(M)))


@device_settings
@given(data=st.data(), shape=shapes(max_dims=4, max_side=4), name=dtypes)
def test_nonzero(device, data, shape, name):
    sparse = st.sampled_from([0, 0, 0, 1, 7]) if name != "bool" else st.booleans()
    if name in FLOATING:
        sparse = st.sampled_from([0.0, -0.0, 0.0, 1.5, float("nan"), -2.0])
    n = int(np.prod(shape))
    vals = np.array(data.draw(st.lists(sparse, min_size=n, max_size=n), label="values"), dtype=NP[name])
    X = data.draw(laid_out(vals.reshape(shape), name), label="x")
    x = X.make(device)
    check(x.nonzero(), torch.nonzero(T(X)))
    got, expected = flow.nonzero(x, as_tuple=True), torch.nonzero(T(X), as_tuple=True)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        check(g, e)


def test_mask_errors_and_examples(device):
    x = flow.arange(6.0, device=device).reshape(2, 3)
    m = flow.tensor([True, False, True], device=device)
    assert x.masked_fill(m, 9).tolist() == [[9, 1, 9], [9, 4, 9]]
    assert x.int().masked_fill(m, 9.7).tolist() == [[9, 1, 9], [9, 4, 9]]
    # integer masks are OneFlow's (nonzero selects; torch refuses them); a float mask is refused by both
    assert x.masked_fill(m.int(), 9).tolist() == [[9, 1, 9], [9, 4, 9]]
    with pytest.raises(RuntimeError, match=r"masked_fill\(\): mask type must be integral or bool"):
        x.masked_fill(m.float() * 0.5, 9)
    with pytest.raises(RuntimeError, match="masked_fill: only supports a 0-dimensional value tensor"):
        x.masked_fill(m, flow.tensor([9.0], device=device))
    with pytest.raises(RuntimeError, match=r"masked_fill_: output with shape \[3\] doesn't match the broadcast "
                                           r"shape \[2, 3\]"):
        x[0].clone().masked_fill_(flow.ones(2, 3, dtype=flow.bool, device=device), 9)
    with pytest.raises(RuntimeError, match="masked_fill"):
        x.masked_fill(flow.ones(4, dtype=flow.bool, device=device), 9)
    with pytest.raises(TypeError, match="masked_fill"):
        x.masked_fill(m, "a")
    assert x.masked_select(m.int()).tolist() == [0, 2, 3, 5]
    assert x.masked_select(m.float()).tolist() == [0, 2, 3, 5]
    assert x.masked_select(m).tolist() == [0, 2, 3, 5]
    assert flow.tensor(3.0, device=device).masked_select(flow.tensor(True, device=device)).tolist() == [3.0]
    assert flow.tensor(3.0, device=device).nonzero().shape == (1, 0)
    assert [t.tolist() for t in flow.tensor(0.0, device=device).nonzero(as_tuple=True)] == [[]]
    # masked_fill_ with the mask in self's own memory
    b = flow.tensor([True, False, True], device=device)
    b.masked_fill_(b, False)
    assert b.tolist() == [False, False, False]


def test_large_operands_parallel_paths(device):
    # big enough for the kernels' multi-threaded paths (> 64K elements)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 400)).astype(np.float32)
    a[a < 0.3] = 0
    x, tx = flow.tensor(a, device=device), torch.from_numpy(a)
    idx = rng.integers(0, 400, size=(300, 350))
    check(x.gather(1, flow.tensor(idx, device=device)), tx.gather(1, torch.from_numpy(idx)))
    check(x.scatter_add(1, flow.tensor(idx, device=device), x[:, :350]),
          tx.scatter_add(1, torch.from_numpy(idx), tx[:, :350]), atol=1e-4)
    rows = rng.integers(-300, 300, size=500)
    check(x[flow.tensor(rows, device=device)], tx[torch.from_numpy(rows)])
    check(x.nonzero(), tx.nonzero())
    check(x[x > 1], tx[tx > 1])
    check(x.T.flip(0, 1), tx.T.flip(0, 1))
    check(x.tril(3), tx.tril(3))
    check(x.masked_fill(x > 1, 5.0), tx.masked_fill(tx > 1, 5.0))
    y, ty = x.clone(), tx.clone()
    cols = torch.from_numpy(rng.permutation(400)[:300])
    y[:, flow.tensor(cols.numpy(), device=device)] = -1.0
    ty[:, cols] = -1.0
    check(y, ty)
    z, tz = flow.zeros(50, 400, device=device), torch.zeros(50, 400)
    hits = rng.integers(0, 50, size=3000)
    z.index_put_((flow.tensor(hits, device=device),), flow.ones(3000, 400, device=device), accumulate=True)
    tz.index_put_((torch.from_numpy(hits),), torch.ones(3000, 400), accumulate=True)
    check(z, tz)
