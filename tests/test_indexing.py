"""tensor[...] and tensor[...] = value with everything PyTorch accepts (ints,
slices with steps, None, Ellipsis, bools, bool masks, lists and integer
tensors, mixed, with the transposition rule for non-adjacent advanced
indices), and index_put_ with accumulate, on every device against torch.

The random cases are not filtered to valid ones: where torch raises, monoflow
must raise the same exception type (out-of-range indices, masks of the wrong
shape, index tensors that do not broadcast, too many indices)."""
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from helpers import (
    DTYPES, assert_values, broadcast_to_shape, device_settings, elements, shapes, tdt, tensor_specs, torch_np,
    value_fits,
)

torch = pytest.importorskip("torch")


def T(spec):
    return torch.from_numpy(np.array(spec.values, copy=True)).to(tdt(spec.name))


def check(out, expected_torch):
    name = str(expected_torch.dtype).replace("torch.", "")
    assert_values(out, torch_np(expected_torch), name)


class Item:
    """One index item, in its monoflow and torch forms."""

    def __init__(self, flow_item, torch_item, label):
        self.flow, self.torch, self.label = flow_item, torch_item, label

    def __repr__(self):
        return self.label


@st.composite
def index_items(draw, shape, device, allow_bool_scalars=True):
    """A random index for a tensor of `shape`: (monoflow index, torch index, labels)."""
    nd = len(shape)
    groups = []  # (kind, dims consumed)
    left = nd
    for _ in range(draw(st.integers(0, nd + 1))):
        kind = draw(st.sampled_from(["int", "slice", "tensor", "tensor", "list", "mask", "none", "bool"]))
        if kind in ("none", "bool"):
            if kind == "bool" and not allow_bool_scalars:
                kind = "none"
            groups.append((kind, 0))
            continue
        k = draw(st.integers(1, min(2, left))) if kind == "mask" and left else 1
        if left < k or left == 0:
            break
        groups.append((kind, k))
        left -= k
    ellipsis_at = draw(st.one_of(st.none(), st.integers(0, len(groups))))
    # the dims each group indexes: from the front, or (after an Ellipsis) from the back
    dims, d = [], 0
    for g, (kind, k) in enumerate(groups):
        if ellipsis_at is not None and g == ellipsis_at:
            d = nd - sum(k2 for _, k2 in groups[g:])
        dims.append(d)
        d += k
    bshape = draw(shapes(max_dims=2, max_side=3))
    items = []
    for (kind, k), d in zip(groups, dims):
        size = shape[d] if k else 0
        if kind == "none":
            items.append(Item(None, None, "None"))
        elif kind == "bool":
            b = draw(st.booleans())
            items.append(Item(b, b, repr(b)))
        elif kind == "int":
            i = draw(st.integers(-size - 1, size))
            items.append(Item(i, i, repr(i)))
        elif kind == "slice":
            s = slice(draw(st.one_of(st.none(), st.integers(-size - 1, size + 1))),
                      draw(st.one_of(st.none(), st.integers(-size - 1, size + 1))),
                      draw(st.one_of(st.none(), st.integers(1, 3))))
            items.append(Item(s, s, repr(s)))
        elif kind == "tensor":
            ishape = draw(broadcast_to_shape(bshape))
            name = draw(st.sampled_from(["int64", "int64", "int32"]))
            hi = size - 1 if size else 0
            spec = draw(tensor_specs(ishape, name, lo=-size if size else 0, hi=hi if draw(st.integers(0, 9)) else hi + 2))
            items.append(Item(spec.make(device), T(spec), f"tensor({spec!r})"))
        elif kind == "list":
            n = draw(st.integers(0, 3))
            vals = draw(st.lists(st.integers(-size, max(size - 1, 0)), min_size=n, max_size=n))
            items.append(Item(list(vals), list(vals), repr(vals)))
        else:  # a bool mask over k dims (rarely of a wrong shape)
            mshape = tuple(shape[d:d + k])
            if draw(st.integers(0, 9)) == 0:
                mshape = mshape[:-1] + (mshape[-1] + 1,)
            spec = draw(tensor_specs(mshape, "bool", layouts=("contiguous", "permuted", "strided")))
            items.append(Item(spec.make(device), T(spec), f"mask({spec!r})"))
    if ellipsis_at is not None:
        items.insert(ellipsis_at, Item(Ellipsis, Ellipsis, "..."))
    flow_idx = tuple(it.flow for it in items)
    torch_idx = tuple(it.torch for it in items)
    if len(items) == 1 and draw(st.booleans()):  # a single index, not a tuple
        flow_idx, torch_idx = flow_idx[0], torch_idx[0]
    return flow_idx, torch_idx, items


def torch_outcome(fn):
    try:
        return fn(), None
    except (IndexError, RuntimeError, ValueError, TypeError) as e:
        return None, type(e)


@device_settings
@given(data=st.data(), shape=shapes(max_dims=4, max_side=4), name=st.sampled_from(DTYPES))
def test_getitem(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name), label="x")
    fidx, tidx, items = data.draw(index_items(shape, device), label="index")
    expected, error = torch_outcome(lambda: T(X)[tidx])
    x = X.make(device)
    if error is not None:
        with pytest.raises(error):
            x[fidx]
        return
    out = x[fidx]
    check(out, expected)
    # basic-only indices give views, as in torch
    basic = all(not isinstance(it.flow, (flow.Tensor, list, bool)) for it in items)
    if basic:
        assert out._is_view_of(x)


@device_settings
@given(data=st.data(), shape=shapes(min_dims=1, max_dims=3, max_side=4), name=st.sampled_from(DTYPES))
def test_setitem(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name, layouts=("contiguous", "permuted", "strided")), label="x")
    fidx, tidx, items = data.draw(index_items(shape, device), label="index")
    target, error = torch_outcome(lambda: T(X)[tidx])
    x = X.make(device)
    if error is not None:
        with pytest.raises(error):
            x[fidx] = 1
        return
    # which elements the index reaches; with duplicates only a single value is well defined
    positions = torch.arange(int(np.prod(shape))).reshape(shape)[tidx].reshape(-1)
    unique = len(set(positions.tolist())) == positions.numel()
    if data.draw(st.booleans(), label="scalar value") or not unique:
        value = data.draw(elements(name), label="value")
        if not value_fits(name, value):
            return
        fvalue, tvalue = value, value
    else:
        vshape = data.draw(broadcast_to_shape(tuple(target.shape)), label="vshape")
        if data.draw(st.booleans(), label="leading 1"):
            vshape = (1,) + vshape  # leading size-1 dims are dropped
        V = data.draw(tensor_specs(vshape, name), label="value")
        fvalue, tvalue = V.make(device), T(V)
    expected = T(X)
    expected[tidx] = tvalue
    version = x._version
    x[fidx] = fvalue
    check(x, expected)
    assert x._version > version


@device_settings
@given(data=st.data(), shape=shapes(min_dims=1, max_dims=3, max_side=4), name=st.sampled_from(DTYPES),
       accumulate=st.booleans())
def test_index_put(device, data, shape, name, accumulate):
    kw = {"lo": 0, "hi": 3} if name != "bool" else {}  # small integers: sums exact in every dtype
    X = data.draw(tensor_specs(shape, name, layouts=("contiguous", "permuted", "strided"), **kw), label="x")
    k = data.draw(st.integers(1, len(shape)), label="indexed dims")
    bshape = data.draw(shapes(max_dims=2, max_side=3), label="B")
    specs = [data.draw(tensor_specs(data.draw(broadcast_to_shape(bshape)), "int64", lo=-shape[d],
                                    hi=max(shape[d] - 1, 0)), label=f"index {d}") for d in range(k)]
    tindices = tuple(T(s) for s in specs)
    target, error = torch_outcome(lambda: T(X)[tindices])
    if error is not None or (0 in shape[:k] and target.numel()):
        return  # (covered by test_setitem)
    if not accumulate:  # duplicates would make the result order-dependent
        positions = torch.arange(int(np.prod(shape))).reshape(shape)[tindices].reshape(-1)
        if len(set(positions.tolist())) != positions.numel():
            accumulate = True
    V = data.draw(tensor_specs(data.draw(broadcast_to_shape(tuple(target.shape))), name, **kw), label="values")
    expected = T(X).index_put_(tindices, T(V), accumulate=accumulate)
    x = X.make(device)
    assert x.index_put_(tuple(s.make(device) for s in specs), V.make(device), accumulate=accumulate) is x
    check(x, expected)
    y = X.make(device)
    check(y.index_put([s.make(device) for s in specs], V.make(device), accumulate), expected)
    check(y, T(X))  # index_put (no underscore) leaves y alone


def test_transposition_rule(device):
    x = flow.arange(24, device=device).reshape(2, 3, 4)
    t = torch.arange(24).reshape(2, 3, 4)
    for idx in [([0, 1], slice(None), [1, 2]), (slice(None), [0, 1], [1, 2]), ([[0], [1]], slice(None), [1, 2]),
                (Ellipsis, [1, 2]), (None, [1], None), (0, slice(None), [1, 2]), ([0, 1], 0, [1, 2]),
                ([0, 1], Ellipsis, [0, 1]), (slice(1, None), [0, 2])]:
        fidx = tuple(flow.tensor(i, device=device) if isinstance(i, list) else i for i in idx)
        assert x[fidx].tolist() == t[idx].tolist(), idx
        assert x[fidx].shape == t[idx].shape, idx


def test_indexing_examples(device):
    x = flow.arange(24.0, device=device).reshape(2, 3, 4)
    assert x[True].shape == (1, 2, 3, 4) and x[False].shape == (0, 2, 3, 4)
    assert x[None, True].shape == (1, 1, 2, 3, 4) and x[:, True, 1].shape == (2, 1, 4)
    assert x[flow.tensor(True, device=device)].shape == (1, 2, 3, 4)
    assert x[x > 20].tolist() == [21, 22, 23]
    assert x[[]].shape == (0, 3, 4) and x[[], []].shape == (0, 4)
    assert x[np.array([1, 0])].tolist() == x[[1, 0]].tolist()
    with pytest.raises(IndexError, match="Too many indices for tensor of dimension 0"):
        flow.tensor(5.0, device=device)[[0]]
    assert flow.tensor(5.0, device=device)[None, True].tolist() == [[5.0]]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert x[[0, slice(None)]].shape == (3, 4)  # a list with a slice stands for a tuple
        assert x[flow.tensor([1, 0], dtype=flow.uint8, device=device)].shape == (1, 3, 4)
    messages = " ".join(str(r.message) for r in w)
    assert "non-tuple sequence" in messages and "uint8" in messages
    # setitem broadcasting, accumulate and masks
    y = flow.zeros(2, 3, device=device)
    y[[0, 1], [0, 2]] = flow.tensor([7.0, 8.0], device=device)
    y[y == 0] = flow.tensor(1.0, device=device)
    assert y.tolist() == [[7, 1, 1], [1, 1, 8]]
    z = flow.zeros(3, dtype=flow.int32, device=device)
    z.index_put_((flow.tensor([0, 0, 2], device=device),), flow.tensor(2, dtype=flow.int32, device=device),
                 accumulate=True)
    assert z.tolist() == [4, 0, 2]
    # a value tensor in the target's own memory is read before it is written
    w2 = flow.arange(4.0, device=device)
    w2[[1, 2, 3]] = w2[:3]
    assert w2.tolist() == [0, 0, 1, 2]
    # index tensors in the target's memory too
    v = flow.tensor([2, 0, 1], device=device)
    v[v] = flow.tensor([5, 6, 7], device=device)
    assert v.tolist() == [6, 7, 5]


def test_indexing_errors(device):
    x = flow.zeros(2, 3, device=device)
    with pytest.raises(IndexError, match="index: index 5 is out of bounds for dimension 1 with size 3"):
        x[:, [5]]
    with pytest.raises(IndexError, match="index: index -3 is out of bounds for dimension 0 with size 2"):
        x[[0, -3]]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[flow.tensor([0.0, 1.0], device=device)]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[flow.tensor([0, 1], dtype=flow.int16, device=device)]
    with pytest.raises(IndexError, match=r"The shape of the mask \[3\] at index 0 does not match the shape of the "
                                         r"indexed tensor \[2, 3\] at index 0"):
        x[flow.ones(3, dtype=flow.bool, device=device)]
    with pytest.raises(IndexError, match=r"index: shape mismatch: indexing tensors could not be broadcast together "
                                         r"with shapes \[2\], \[3\]"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="Too many indices for tensor of dimension 2"):
        x[[0], [0], [0]]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., [0], ...]
    with pytest.raises(IndexError, match="valid indices"):
        x["a"]
    with pytest.raises(IndexError, match="index_put_: index 2 is out of bounds for dimension 0 with size 2"):
        x[[2]] = 1.0
    with pytest.raises(RuntimeError, match="index_put_: Index put requires the source and destination dtypes match, "
                                           "got Float for the destination and Long for the source"):
        x[:, [0, 2]] = flow.tensor([7, 8], device=device)
    with pytest.raises(RuntimeError, match=r"index_put_: shape mismatch: value tensor of shape \[3\] cannot be "
                                           r"broadcast to indexing result of shape \[2, 2\]"):
        x[:, [0, 0]] = flow.ones(3, device=device)
    with pytest.raises(RuntimeError, match="index_put_: value 300 cannot be converted to type int8"):
        flow.zeros(2, dtype=flow.int8, device=device)[[0]] = 300
    with pytest.raises(RuntimeError, match="index_put_: unsupported operation: more than one element"):
        flow.zeros(3, device=device).expand(2, 3)[[0]] = 1.0
    with pytest.raises(TypeError, match="__setitem__"):
        x[[0]] = [1.0, 2.0, 3.0]
    with pytest.raises(TypeError, match="index_put_"):
        x.index_put_((None,), flow.ones(1, device=device))
