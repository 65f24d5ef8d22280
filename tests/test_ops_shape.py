"""Joining, splitting, reordering, repeating and padding (cat, stack, split,
chunk, unbind, flip, roll, repeat, tile, tril/triu, pad) on every device,
against torch: random shapes (0-size and 0-dim included), every dtype,
non-contiguous inputs (permuted, step-sliced, expanded) and bad input."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from helpers import DTYPES, assert_values, device_settings, shapes, tdt, tensor_specs, torch_np

torch = pytest.importorskip("torch")


def T(spec):
    """The torch tensor of a TensorSpec's values and dtype."""
    return torch.from_numpy(np.array(spec.values, copy=True)).to(tdt(spec.name))


def check(out, expected_torch):
    """out (monoflow) equals a torch result exactly: dtype, shape and values."""
    name = str(expected_torch.dtype).replace("torch.", "")
    assert_values(out, torch_np(expected_torch), name)


dtypes = st.sampled_from(DTYPES)


# ================================================================ cat, stack

@device_settings
@given(data=st.data(), base=shapes(min_dims=1, max_dims=3, max_side=3), n=st.integers(1, 4))
def test_cat(device, data, base, n):
    dim = data.draw(st.integers(-len(base), len(base) - 1), label="dim")
    specs, inputs = [], []
    for i in range(n):
        if data.draw(st.integers(0, 5), label=f"skip {i}") == 0:
            shape = (0,)  # a 1-D empty tensor, skipped by cat whatever its shape
        else:
            shape = list(base)
            shape[dim] = data.draw(st.integers(0, 3), label=f"size {i}")
        specs.append(data.draw(tensor_specs(tuple(shape), data.draw(dtypes), lo=-50, hi=50), label=f"t{i}"))
    inputs = [s.make(device) for s in specs]
    out = flow.cat(inputs, dim)
    check(out, torch.cat([T(s) for s in specs], dim))
    assert out.device == flow.device(device)
    for t, s in zip(inputs, specs):  # inputs untouched
        assert_values(t, s.values, s.name)


@device_settings
@given(data=st.data(), shape=shapes(max_dims=3, max_side=3), n=st.integers(1, 3))
def test_stack(device, data, shape, n):
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)), label="dim")
    specs = [data.draw(tensor_specs(shape, data.draw(dtypes), lo=-50, hi=50), label=f"t{i}") for i in range(n)]
    out = flow.stack([s.make(device) for s in specs], dim)
    check(out, torch.stack([T(s) for s in specs], dim))


def test_cat_stack_examples_and_errors(device):
    x = flow.arange(6.0, device=device).reshape(2, 3)
    i32 = flow.ones(2, 3, dtype=flow.int32, device=device)
    assert flow.cat([x, i32]).dtype == flow.float32
    assert flow.cat((i32, flow.tensor([], dtype=flow.float64, device=device))).dtype == flow.float64
    assert flow.cat([flow.tensor([], device=device)] * 2).shape == (0,)
    assert flow.concat([x, x], 1).shape == (2, 6) and flow.concatenate([x], -1).shape == (2, 3)
    assert flow.stack([x, x], 2).shape == (2, 3, 2)
    with pytest.raises(RuntimeError, match=r"cat: Sizes of tensors must match except in dimension 0\. "
                                           r"Expected size 3 but got size 4 for tensor number 1"):
        flow.cat([x, flow.ones(2, 4, device=device)])
    with pytest.raises(RuntimeError, match="cat: Tensors must have same number of dimensions: got 2 and 1"):
        flow.cat([x, flow.ones(2, device=device)])
    with pytest.raises(RuntimeError, match=r"cat: zero-dimensional tensor \(at position 0\)"):
        flow.cat([flow.tensor(1.0, device=device)])
    with pytest.raises(ValueError, match="cat: expected a non-empty list"):
        flow.cat([])
    with pytest.raises(IndexError, match="cat: Dimension out of range"):
        flow.cat([x], 2)
    with pytest.raises(TypeError, match="cat"):
        flow.cat([x, 3])
    with pytest.raises(TypeError, match="cat"):
        flow.cat(x)
    with pytest.raises(RuntimeError, match=r"stack: stack expects each tensor to be equal size, but got \[2, 3\] "
                                           r"at entry 0 and \[3, 2\] at entry 1"):
        flow.stack([x, x.T])
    with pytest.raises(RuntimeError, match="stack: expects a non-empty TensorList"):
        flow.stack([])
    with pytest.raises(IndexError, match="stack"):
        flow.stack([x], 3)
    other = [d for d in flow.devices.available() if not device.startswith(d)]
    if other:
        with pytest.raises(RuntimeError, match="cat: expected all tensors to be on the same device"):
            flow.cat([x, flow.ones(2, 3, device=other[0])])


# ================================================================ split, chunk, unbind

@device_settings
@given(data=st.data(), shape=shapes(min_dims=1, max_dims=3, max_side=6), name=dtypes)
def test_split_chunk_unbind(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name, layouts=("contiguous", "permuted", "strided")), label="x")
    x, tx = X.make(device), T(X)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    size = shape[dim]
    if data.draw(st.booleans(), label="sections"):
        cuts = sorted(data.draw(st.lists(st.integers(0, size), max_size=3), label="cuts"))
        sections = [b - a for a, b in zip([0] + cuts, cuts + [size])]
        parts, expected = flow.split(x, sections, dim), torch.split(tx, sections, dim)
    else:
        split_size = data.draw(st.integers(1 if size else 0, 4), label="split_size")
        parts, expected = x.split(split_size, dim), tx.split(split_size, dim)
    assert isinstance(parts, tuple) and len(parts) == len(expected)
    for p, e in zip(parts, expected):
        check(p, e)
        assert p._is_view_of(x)
    chunks = data.draw(st.integers(1, 7), label="chunks")
    parts, expected = flow.chunk(x, chunks, dim), tx.chunk(chunks, dim)
    assert len(parts) == len(expected)
    for p, e in zip(parts, expected):
        check(p, e)
    parts, expected = x.unbind(dim), tx.unbind(dim)
    assert len(parts) == len(expected)
    for p, e in zip(parts, expected):
        check(p, e)


def test_split_errors(device):
    x = flow.zeros(2, 3, device=device)
    with pytest.raises(RuntimeError, match="split: split_size can only be 0 if dimension size is 0"):
        x.split(0)
    assert [p.shape for p in flow.zeros(0, device=device).split(0)] == [(0,)]
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 3"):
        x.split([1, 1], 1)
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes have only non-negative"):
        x.split([4, -1], 1)
    with pytest.raises(RuntimeError, match="split: split expects split_size be non-negative"):
        x.split(-1)
    with pytest.raises(RuntimeError, match="chunk: chunk expects `chunks` to be greater than 0"):
        x.chunk(0)
    assert len(flow.zeros(0, device=device).chunk(4)) == 4
    with pytest.raises(IndexError, match="split: Dimension out of range"):
        x.split(1, 2)
    with pytest.raises(RuntimeError, match="chunk expects at least a 1-dimensional tensor"):
        flow.tensor(1.0, device=device).chunk(1)
    with pytest.raises(TypeError, match="split"):
        x.split(1.5)


# ================================================================ flip, roll

@device_settings
@given(data=st.data(), shape=shapes(max_dims=4), name=dtypes)
def test_flip(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name), label="x")
    nd = max(len(shape), 1)
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), max_size=nd, unique_by=lambda d: d % nd), label="dims")
    out = X.make(device).flip(dims)
    check(out, torch.flip(T(X), dims))
    assert not out._is_view_of(X.make(device))


@device_settings
@given(data=st.data(), shape=shapes(max_dims=4), name=dtypes)
def test_roll(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name), label="x")
    x, tx = X.make(device), T(X)
    if data.draw(st.booleans(), label="flattened") or not shape:
        shift = data.draw(st.integers(-9, 9), label="shift")
        check(flow.roll(x, shift), torch.roll(tx, shift))
        return
    n = data.draw(st.integers(1, 3), label="n")
    dims = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=n, max_size=n), label="dims")
    shifts = data.draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n), label="shifts")
    check(x.roll(shifts, dims), torch.roll(tx, shifts, dims))


def test_flip_roll_errors(device):
    x = flow.arange(6, device=device).reshape(2, 3)
    assert x.flip(0, 1).tolist() == [[5, 4, 3], [2, 1, 0]] and flow.fliplr(x).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert flow.flipud(x).tolist() == [[3, 4, 5], [0, 1, 2]]
    with pytest.raises(RuntimeError, match="flip: dim 0 appears multiple times"):
        x.flip(0, -2)
    with pytest.raises(IndexError, match="flip: Dimension out of range"):
        x.flip(2)
    with pytest.raises(RuntimeError, match="roll: shifts and dimensions must align"):
        x.roll((1, 2), (0,))
    with pytest.raises(RuntimeError, match="roll: shifts and dimensions must align"):
        x.roll((1, 2))
    with pytest.raises(IndexError, match="roll: Dimension out of range"):
        x.roll(1, 5)
    assert x.roll(1).tolist() == [[5, 0, 1], [2, 3, 4]]


# ================================================================ repeat, tile

@device_settings
@given(data=st.data(), shape=shapes(max_dims=3, max_side=3), name=dtypes)
def test_repeat_tile(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name), label="x")
    x, tx = X.make(device), T(X)
    reps = data.draw(st.lists(st.integers(0, 3), min_size=len(shape), max_size=len(shape) + 2), label="repeats")
    check(x.repeat(*reps) if reps and data.draw(st.booleans()) else x.repeat(reps), tx.repeat(reps))
    tiles = data.draw(st.lists(st.integers(0, 3), max_size=len(shape) + 1), label="tiles")
    check(flow.tile(x, tiles), torch.tile(tx, tiles))
    check(x.tile(tiles), tx.tile(tiles))


def test_repeat_errors(device):
    x = flow.zeros(2, 3, device=device)
    with pytest.raises(RuntimeError, match="repeat: Number of dimensions of repeat dims can not be smaller"):
        x.repeat(2)
    with pytest.raises(RuntimeError, match="repeat: Trying to create tensor with negative dimension -1"):
        x.repeat(-1, 2)
    with pytest.raises(TypeError, match="repeat"):
        x.repeat(1.5, 2)


# ================================================================ tril, triu

@device_settings
@given(data=st.data(), shape=shapes(min_dims=2, max_dims=4), name=dtypes, diagonal=st.integers(-6, 6),
       upper=st.booleans())
def test_tril_triu(device, data, shape, name, diagonal, upper):
    X = data.draw(tensor_specs(shape, name), label="x")
    fn = "triu" if upper else "tril"
    check(getattr(flow, fn)(X.make(device), diagonal), getattr(torch, fn)(T(X), diagonal))
    # in place, on a (possibly non-contiguous) writable tensor
    Y = data.draw(tensor_specs(shape, name, layouts=("contiguous", "permuted", "strided")), label="y")
    y = Y.make(device)
    version = y._version
    assert getattr(y, fn + "_")(diagonal) is y
    check(y, getattr(torch, fn)(T(Y), diagonal))
    assert y._version > version


def test_tril_errors(device):
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        flow.ones(3, device=device).tril()
    with pytest.raises(RuntimeError, match="triu_: unsupported operation: more than one element"):
        flow.ones(3, device=device).expand(2, 3).triu_()


# ================================================================ pad

@device_settings
@given(data=st.data(), shape=shapes(max_dims=4, max_side=4), name=dtypes)
def test_pad_constant(device, data, shape, name):
    X = data.draw(tensor_specs(shape, name, lo=-50, hi=50), label="x")
    k = data.draw(st.integers(0, len(shape)), label="padded dims")
    pads = []
    for i in range(k):
        n = shape[len(shape) - 1 - i]
        lo = data.draw(st.integers(-n, 3), label="lo")
        pads += [lo, data.draw(st.integers(-(n - max(-lo, 0)), 3), label="hi")]  # crops at most all of x
    value = data.draw(st.one_of(st.none(), st.integers(0, 1) if name == "bool" else st.integers(0, 100)),
                      label="value")
    out = flow.pad(X.make(device), pads, value=value)
    expected = torch.nn.functional.pad(T(X), pads, value=value if value is not None else 0)
    check(out, expected)


@device_settings
@given(data=st.data(), k=st.integers(1, 3), batch=st.booleans(), reflect=st.booleans(),
       name=st.sampled_from([d for d in DTYPES if d != "bool"]))
def test_pad_reflect_replicate(device, data, k, batch, reflect, name):
    lead = [data.draw(st.integers(0, 2), label="batch")] if batch else []
    shape = tuple(lead + [data.draw(st.integers(1, 4), label="size") for _ in range(k + 1)])
    X = data.draw(tensor_specs(shape, name, lo=-50, hi=50), label="x")
    pads = []
    for i in range(k):
        n = shape[len(shape) - 1 - i]
        top = n - 1 if reflect else 4
        lo = data.draw(st.integers(-(n - 1), top), label="lo")
        pads += [lo, data.draw(st.integers(max(-(n + lo - 1), -(n - 1)), top), label="hi")]
    mode = "reflect" if reflect else "replicate"
    check(flow.pad(X.make(device), pads, mode=mode), torch.nn.functional.pad(T(X), pads, mode=mode))


def test_pad_examples_and_errors(device):
    x = flow.arange(6.0, device=device).reshape(2, 3)
    assert flow.pad(x, (1, 2), value=7).tolist() == [[7, 0, 1, 2, 7, 7], [7, 3, 4, 5, 7, 7]]
    assert flow.pad(x, (-1, 2, 1, -1)).tolist() == [[0, 0, 0, 0], [1, 2, 0, 0]]
    assert flow.pad(x.int(), (1, 1), value=2.5).tolist() == [[2, 0, 1, 2, 2], [2, 3, 4, 5, 2]]
    with pytest.raises(RuntimeError, match="pad: Padding length must be divisible by 2"):
        flow.pad(x, (1,))
    with pytest.raises(RuntimeError, match="pad: Padding length should be less than or equal to two times"):
        flow.pad(x, (1,) * 6)
    with pytest.raises(RuntimeError, match=r"pad: negative padding \(-2, -2\) crops more than the input size 3"):
        flow.pad(x, (-2, -2))
    with pytest.raises(RuntimeError, match="pad: Padding size should be less than the corresponding input"):
        flow.pad(x, (3, 1), mode="reflect")
    with pytest.raises(NotImplementedError, match="pad: Padding size 4 is not supported for 2D input"):
        flow.pad(x, (1, 1, 1, 1), mode="replicate")
    with pytest.raises(RuntimeError, match="pad: Expected 2D or 3D"):
        flow.pad(flow.zeros(2, 0, 5, device=device), (1, 1), mode="replicate")
    with pytest.raises(RuntimeError, match="pad: input .* is too small"):
        flow.pad(x, (-3, 0), mode="replicate")
    with pytest.raises(RuntimeError, match="doesn't take in value argument"):
        flow.pad(x, (1, 1), mode="reflect", value=3)
    assert flow.pad(flow.arange(6.0, device=device).view(1, 2, 3), (1, 1), mode="circular").tolist() == \
        [[[2.0, 0.0, 1.0, 2.0, 0.0], [5.0, 3.0, 4.0, 5.0, 3.0]]]  # torch's values
    with pytest.raises(RuntimeError, match="pad: value 300 cannot be converted to type int8"):
        flow.pad(x.to(flow.int8), (1, 1), value=300)
    assert flow.pad(flow.tensor([[True, False]], device=device), (1, 0), mode="replicate").tolist() == \
        [[True, True, False]]


@pytest.mark.parametrize("diagonal", [2**63 - 1, 2**62, -2**62, 4, -4])
def test_tril_triu_extreme_diagonals(diagonal):
    """A diagonal far outside the matrix keeps all or nothing (i + diagonal + 1 overflowed: tril zeroed all)."""
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(flow.tril(flow.tensor(x), diagonal).numpy(), np.tril(x, diagonal))
    np.testing.assert_array_equal(flow.triu(flow.tensor(x), diagonal).numpy(), np.triu(x, diagonal))
