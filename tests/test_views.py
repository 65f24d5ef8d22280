"""View ops on every device: values against numpy, layouts (strides and
storage offsets) against torch where installed, storage sharing and the
version counter, contiguous(), setitem.

Views are taken of a 1-D "root" tensor holding 0, 1, 2, ...: an element of a
view must then hold its own storage position, offset + sum(index * stride),
which checks every view's layout without any other oracle.
"""
import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from helpers import DTYPES, FLOW, TORCH, assert_values, broadcast_to_shape, device_settings, np_cast, \
    python_scalars, shapes, tensor_specs, to_np, value_fits

# ---------------------------------------------------------------- view op chains


def _reshapes(shape):
    """Shapes with the same number of elements: dims merged, split, 1s added
    or removed, maybe one -1."""

    @st.composite
    def draw_shape(draw):
        dims = list(shape)
        for _ in range(draw(st.integers(0, 3))):
            choice = draw(st.integers(0, 3))
            if choice == 0 and len(dims) >= 2:  # merge two neighbours
                i = draw(st.integers(0, len(dims) - 2))
                dims[i:i + 2] = [dims[i] * dims[i + 1]]
            elif choice == 1 and dims:  # split a dim into two factors
                i = draw(st.integers(0, len(dims) - 1))
                n = dims[i]
                factors = [f for f in range(1, n + 1) if n % f == 0] if n else [0]
                f = draw(st.sampled_from(factors))
                dims[i:i + 1] = [f, n // f if f else draw(st.integers(0, 3))]
            elif choice == 2 and len(dims) < 6:
                dims.insert(draw(st.integers(0, len(dims))), 1)
            elif choice == 3 and 1 in dims:
                dims.remove(1)
        if math.prod(dims) != math.prod(shape):
            dims = list(shape)
        if dims and math.prod(dims) != 0 and draw(st.booleans()):
            dims[draw(st.integers(0, len(dims) - 1))] = -1
        return tuple(dims)

    return draw_shape()


def _dims_range(nd):
    n = max(nd, 1)
    return st.integers(-n, n - 1)


@st.composite
def view_op(draw, shape):
    """One view op valid for a tensor of `shape`, as (name, *args)."""
    nd = len(shape)
    names = ["view", "reshape", "unsqueeze", "squeeze", "expand", "getitem", "unfold", "flatten", "T", "transpose"]
    if nd >= 1:
        names += ["permute", "narrow", "select", "getitem"]
    name = draw(st.sampled_from(names))
    if name in ("view", "reshape"):
        return (name, draw(_reshapes(shape)))
    if name == "transpose":
        return (name, draw(_dims_range(nd)), draw(_dims_range(nd)))
    if name == "permute":
        perm = list(draw(st.permutations(range(nd))))
        return (name, tuple(p - nd if draw(st.booleans()) else p for p in perm))
    if name == "unsqueeze":
        return (name, draw(st.integers(-nd - 1, nd)))
    if name == "squeeze":
        return (name, draw(st.one_of(st.none(), _dims_range(nd))))
    if name == "expand":
        lead = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
        sizes = tuple(draw(st.integers(0, 3)) if n == 1 else draw(st.sampled_from([n, -1])) for n in shape)
        return (name, lead + sizes)
    if name == "narrow":
        d = draw(_dims_range(nd))
        size = shape[d]
        start = draw(st.integers(-size, size)) if size else 0
        s = start + size if start < 0 else start
        return (name, d, start, draw(st.integers(0, size - s)))
    if name == "select":
        d = draw(_dims_range(nd))
        assume(shape[d] > 0)
        return (name, d, draw(st.integers(-shape[d], shape[d] - 1)))
    if name == "getitem":
        idx = draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
        parts = idx if isinstance(idx, tuple) else (idx,)
        assume(all(not isinstance(p, slice) or p.step is None or p.step > 0 for p in parts))
        return (name, idx)
    if name == "unfold":
        d = draw(_dims_range(nd))
        size = shape[d] if nd else 1
        return (name, d, draw(st.integers(0, size)), draw(st.integers(1, 3)))
    if name == "flatten":
        a, b = sorted((draw(st.integers(0, max(nd, 1) - 1)), draw(st.integers(0, max(nd, 1) - 1))))
        return (name, a - max(nd, 1) if draw(st.booleans()) else a, b)
    return ("T",)


def apply_flow(t, op):
    name, *args = op
    if name == "view":
        return t.view(*args[0]) if args[0] else t.view(())
    if name == "reshape":
        return t.reshape(args[0])
    if name == "permute":
        return t.permute(*args[0]) if args[0] else t.permute(())
    if name == "expand":
        return t.expand(*args[0]) if args[0] else t.expand(())
    if name == "getitem":
        return t[args[0]]
    if name == "T":
        return t.T
    return getattr(t, name)(*args)


def apply_torch(t, op):
    name, *args = op
    if name == "T":
        return t.permute(tuple(reversed(range(t.dim()))))
    if name == "squeeze" and args[0] is None:
        return t.squeeze()
    return apply_flow(t, op)


def apply_np(a, op):
    name, *args = op
    nd = a.ndim
    if name in ("view", "reshape"):
        shape = list(args[0])
        return a.reshape(shape)
    if name == "transpose":
        return np.swapaxes(a, args[0] % max(nd, 1), args[1] % max(nd, 1)) if nd else a
    if name == "permute":
        return np.transpose(a, [p % nd for p in args[0]])
    if name == "T":
        return a.T
    if name == "unsqueeze":
        return np.expand_dims(a, args[0])
    if name == "squeeze":
        if args[0] is None:
            return np.squeeze(a)
        d = args[0] % max(nd, 1)
        return np.squeeze(a, d) if nd and a.shape[d] == 1 else a
    if name == "expand":
        sizes = list(args[0])
        lead = len(sizes) - nd
        sizes = [a.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes)]
        return np.broadcast_to(a, sizes)
    if name == "narrow":
        d, start, length = args
        d %= nd
        start = start + a.shape[d] if start < 0 else start
        return a[(slice(None),) * d + (slice(start, start + length),)]
    if name == "select":
        d, i = args
        return a[(slice(None),) * (d % nd) + (i,)]
    if name == "getitem":
        return a[args[0]]
    if name == "unfold":
        d, size, step = args
        if nd == 0:
            return a.reshape(1)[:size]
        d %= nd
        w = np.lib.stride_tricks.sliding_window_view(a, size, axis=d)
        return w[(slice(None),) * d + (slice(None, None, step),)]
    if name == "flatten":
        if nd == 0:
            return a.reshape(1)
        s, e = args[0] % nd, args[1] % nd
        return a.reshape(a.shape[:s] + (-1 if math.prod(a.shape[s:e + 1]) else 0,) + a.shape[e + 1:]) \
            if math.prod(a.shape) else a.reshape(a.shape[:s] + (math.prod(a.shape[s:e + 1]),) + a.shape[e + 1:])
    raise AssertionError(name)


def positions(t):
    """Storage position of every element of a view: offset + sum(index * stride)."""
    pos = np.full(tuple(t.shape), t.storage_offset(), dtype=np.int64)
    for d, (n, s) in enumerate(zip(t.shape, t.stride())):
        shape = [1] * t.dim()
        shape[d] = n
        pos = pos + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return pos


@st.composite
def chains(draw, max_ops=4):
    shape = draw(shapes(max_dims=4, max_side=4))
    ops = []
    cur = np.empty(shape)
    for _ in range(draw(st.integers(1, max_ops))):
        op = draw(view_op(cur.shape))
        try:
            cur = apply_np(cur, op)
        except ValueError:  # reshape with -1 on ambiguous empty shapes etc.
            assume(False)
        ops.append(op)
    return shape, ops


def _root(shape, device, dtype="int64"):
    n = math.prod(shape)
    root = flow.arange(n, dtype=FLOW[dtype], device=device)
    return root, root.view(*shape) if shape else root.view(())


@device_settings
@given(chain=chains(), dtype=st.sampled_from(["int64", "float64", "int32"]))
def test_view_chains(device, chain, dtype):
    shape, ops = chain
    root, t = _root(shape, device, dtype)
    a = np.arange(math.prod(shape)).reshape(shape)
    tt = TORCH.arange(math.prod(shape), dtype=getattr(TORCH, dtype)).reshape(shape) if TORCH is not None else None
    views_so_far = True
    for op in ops:
        expect_error = None
        if tt is not None:
            try:
                tt_next = apply_torch(tt, op)
            except (RuntimeError, IndexError, ValueError) as e:
                expect_error = type(e)
        if expect_error is not None:
            with pytest.raises(expect_error):
                apply_flow(t, op)
            return
        prev = t
        try:
            t = apply_flow(t, op)
        except RuntimeError as e:
            # without torch to tell, a view of a layout that can't be viewed
            # that way may fail; reshape must then manage with a copy
            if tt is not None or op[0] != "view" or "Use .reshape(...) instead" not in str(e):
                raise
            assert not prev.reshape(op[1])._is_view_of(prev)
            return
        a = apply_np(a, op)
        assert tuple(t.shape) == a.shape, (op, t.shape, a.shape)
        assert_values(t, np_cast(a, dtype), dtype)
        is_view = t._is_view_of(prev)
        assert is_view or op[0] in ("reshape", "flatten"), op  # only reshape (and flatten) may copy
        views_so_far = views_so_far and is_view
        if views_so_far:
            # a view of the root: each element holds its own storage position
            assert t._is_view_of(root)
            np.testing.assert_array_equal(to_np(t), np_cast(positions(t), dtype))
        if tt is not None:
            torch_is_view = tt_next.untyped_storage().data_ptr() == tt.untyped_storage().data_ptr()
            assert is_view == torch_is_view, op  # reshape copies exactly when torch's does
            tt = tt_next
            assert tuple(tt.shape) == tuple(t.shape)
            np.testing.assert_array_equal(tt.numpy(), to_np(t))
            assert t.stride() == tt.stride(), (op, t.stride(), tt.stride())
            assert t.storage_offset() == tt.storage_offset(), op
            assert t.is_contiguous() == tt.is_contiguous(), op
    _check_write_through(root, t, views_so_far, dtype)
    _check_contiguous(t)


def _check_write_through(root, t, views_so_far, dtype):
    before = to_np(root)
    v0 = root._version
    # Refused: a broadcast dim, or two elements at one storage position
    # (issue 14: the result would depend on the kernel's order); an empty
    # view writes nothing, whatever its strides (as torch).
    stride0 = t.numel() > 0 and any(s == 0 and n > 1 for n, s in zip(t.shape, t.stride()))
    pos = positions(t).ravel()
    if stride0 or len(np.unique(pos)) < pos.size:
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            t.fill_(-1)
        assert root._version == v0
        return
    t.fill_(-1)
    after = to_np(root)
    if views_so_far and t._is_view_of(root):
        expected = before.copy()
        expected[positions(t).ravel()] = -1
        np.testing.assert_array_equal(after, expected)
        assert root._version > v0 and t._version == root._version
    else:
        np.testing.assert_array_equal(after, before)
    np.testing.assert_array_equal(to_np(t), np.full(tuple(t.shape), -1))


def _check_contiguous(t):
    c = t.contiguous()
    np.testing.assert_array_equal(to_np(c), to_np(t))
    assert c.is_contiguous()
    if t.is_contiguous():
        assert c.data_ptr() == t.data_ptr() and c._is_view_of(t)
    else:
        assert not c._is_view_of(t)
        expected = [1] * t.dim()
        for d in range(t.dim() - 2, -1, -1):
            expected[d] = expected[d + 1] * max(t.shape[d + 1], 1)
        assert c.stride() == tuple(expected)


@device_settings
@given(shape=shapes(max_dims=3, max_side=4), data=st.data())
def test_as_strided(device, shape, data):
    n = math.prod(shape)
    root = flow.arange(n + 8, device=device)
    size = tuple(data.draw(st.lists(st.integers(0, 3), max_size=3)))
    stride = tuple(data.draw(st.lists(st.integers(0, 4), min_size=len(size), max_size=len(size))))
    offset = data.draw(st.integers(0, 8))
    extent = offset + sum((s - 1) * st_ for s, st_ in zip(size, stride)) if all(size) else offset - 1
    if extent >= n + 8:
        with pytest.raises(RuntimeError, match="as_strided"):
            root.as_strided(size, stride, offset)
        return
    v = root.as_strided(size, stride, offset)
    assert v.shape == size and v.stride() == stride and v.storage_offset() == offset
    np.testing.assert_array_equal(to_np(v), positions(v))
    if TORCH is not None:
        tv = TORCH.arange(n + 8).as_strided(size, stride, offset)
        np.testing.assert_array_equal(tv.numpy(), to_np(v))
    # a view of a view: the offset is absolute in the storage
    w = root[2:].as_strided((2,), (1,))
    assert w.storage_offset() == 2 and w.tolist() == [2, 3]


# ---------------------------------------------------------------- examples and errors

def test_view_of_non_viewable_layout_raises(device):
    x = flow.arange(6, device=device).reshape(2, 3).t()
    with pytest.raises(RuntimeError, match=r"view.*not compatible.*Use \.reshape\(\.\.\.\) instead"):
        x.view(6)
    r = x.reshape(6)
    assert r.tolist() == [0, 3, 1, 4, 2, 5] and not r._is_view_of(x)
    # viewable after all when the merged dims stay contiguous
    y = flow.arange(24, device=device).reshape(2, 3, 4)[:, 1:, :]
    assert y.view(2, 8).stride() == (12, 1)
    with pytest.raises(RuntimeError, match="view"):
        y.view(16)
    assert y.flatten(1).shape == (2, 8)
    assert y.view(2, 2, 4).stride() == (12, 4, 1)


def test_view_shape_errors(device):
    x = flow.arange(6, device=device)
    with pytest.raises(RuntimeError, match=r"view: shape '\[4\]' is invalid for input of size 6"):
        x.view(4)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)
    with pytest.raises(RuntimeError, match=r"reshape: shape '\[-1, 4\]' is invalid for input of size 6"):
        x.reshape(-1, 4)
    with pytest.raises(RuntimeError, match="reshape: Invalid shape dimension -2"):
        x.reshape(-2, 3)
    with pytest.raises(TypeError, match="view"):
        x.view(2.5)
    assert x.view(-1, 3).shape == (2, 3) and x.view(3, -1).shape == (3, 2)
    assert flow.zeros(0, device=device).view(5, 0).shape == (5, 0)


def test_dim_errors(device):
    x = flow.zeros(2, 3, device=device)
    with pytest.raises(IndexError, match=r"transpose: Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        x.transpose(2, 0)
    with pytest.raises(RuntimeError, match="permute: number of dims don't match"):
        x.permute(0)
    with pytest.raises(RuntimeError, match="permute: repeated dim"):
        x.permute(0, 0)
    with pytest.raises(IndexError, match="permute"):
        x.permute(0, 2)
    with pytest.raises(IndexError, match="squeeze"):
        x.squeeze(2)
    with pytest.raises(IndexError, match="unsqueeze"):
        x.unsqueeze(3)
    with pytest.raises(IndexError, match="select"):
        x.select(2, 0)
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        x.select(0, 2)
    with pytest.raises(IndexError, match="narrow"):
        x.narrow(0, 3, 0)
    with pytest.raises(RuntimeError, match=r"narrow: start \(1\) \+ length \(2\) exceeds dimension size \(2\)"):
        x.narrow(0, 1, 2)
    with pytest.raises(RuntimeError, match="unfold: maximum size for tensor at dimension 1 is 3 but size is 4"):
        x.unfold(1, 4, 1)
    with pytest.raises(RuntimeError, match="unfold: step is 0"):
        x.unfold(1, 2, 0)
    with pytest.raises(RuntimeError, match="flatten: start_dim cannot come after end_dim"):
        x.flatten(1, 0)
    with pytest.raises(RuntimeError, match=r"expand: The expanded size of the tensor \(4\) must match the "
                                           r"existing size \(3\)"):
        x.expand(2, 4)
    with pytest.raises(RuntimeError, match="expand: the number of sizes provided"):
        x.expand(3)
    with pytest.raises(RuntimeError, match="expand"):
        flow.zeros(1, device=device).expand(-2)
    with pytest.raises(RuntimeError, match="as_strided"):
        x.as_strided((3, 3), (3, 1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.stride(-3)


def test_indexing_errors(device):
    x = flow.zeros(2, 3, device=device)
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        x[2]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 1 with size 3"):
        x[:, -4]
    with pytest.raises(IndexError, match="Too many indices for tensor of dimension 2"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(ValueError, match="Step must be greater than zero"):
        x[::-1]
    with pytest.raises(ValueError, match="Step must be greater than zero"):
        x[::0]
    with pytest.raises(IndexError, match="float"):
        x[1.5]
    with pytest.raises(IndexError):
        flow.tensor(3, device=device)[0]
    # 0-dim integer tensors index like ints
    assert x[flow.tensor(1)].shape == (3,)


def test_view_examples(device):
    x = flow.arange(24, device=device).reshape(2, 3, 4)
    assert x.stride() == (12, 4, 1)
    assert x.transpose(0, 2).stride() == (1, 4, 12)
    assert x.permute(2, 0, 1).shape == (4, 2, 3) and x.permute(2, 0, 1).stride() == (1, 12, 4)
    assert x.T.shape == (4, 3, 2) and x.mT.shape == (2, 4, 3)
    assert x[1, ::2, 1::2].tolist() == [[13, 15], [21, 23]]
    assert x[1, ::2, 1::2].storage_offset() == 13 and x[1, ::2, 1::2].stride() == (8, 2)
    assert x[..., 0].tolist() == [[0, 4, 8], [12, 16, 20]]
    assert x[None, :, None].shape == (1, 2, 1, 3, 4)
    assert x[:, 5:].shape == (2, 0, 4)
    assert x[-1, -1, -1].item() == 23 and x[-1, -1, -1].dim() == 0
    assert x.narrow(2, -2, 2).tolist()[0][0] == [2, 3]
    assert x.unfold(2, 2, 2).shape == (2, 3, 2, 2) and x.unfold(2, 2, 2).stride() == (12, 4, 2, 1)
    assert x.flatten().shape == (24,) and x.flatten(0, 1).shape == (6, 4)
    assert flow.tensor(5, device=device).flatten().shape == (1,)
    assert x[0, 0].unsqueeze(0).expand(3, 4).stride() == (0, 1)
    assert x.squeeze().shape == (2, 3, 4) and x[:, :1].squeeze().shape == (2, 4)
    assert x[:, :1].squeeze(1).shape == (2, 4) and x.squeeze(1).shape == (2, 3, 4)
    assert x.select(1, -1).tolist() == [[8, 9, 10, 11], [20, 21, 22, 23]]
    assert x.view_as(flow.zeros(6, 4)).shape == (6, 4)
    assert x.expand_as(flow.zeros(5, 2, 3, 4)).shape == (5, 2, 3, 4)
    v = flow.tensor([1, 2, 3], device=device)
    assert v.t()._is_view_of(v) and v.t().shape == (3,)
    assert x[...]._is_view_of(x) and x[...] is not x


# ---------------------------------------------------------------- sharing and versions

def test_views_share_storage_and_version(device):
    base = flow.zeros(3, 4, device=device)
    views = [base.view(12), base.t(), base[1], base[:, ::2], base.unsqueeze(0), base.narrow(1, 1, 2),
             base.reshape(4, 3), base.flatten(), base.as_strided((2,), (5,)), base.unfold(1, 2, 2), base[None]]
    for v in views:
        assert v._is_view_of(base)
    v0 = base._version
    base[1] = 7.0
    assert base._version > v0
    for v in views:
        assert v._version == base._version
    assert views[2].tolist() == [7.0] * 4
    views[3].fill_(1.0)
    assert base.tolist() == [[1, 0, 1, 0], [1, 7, 1, 7], [1, 0, 1, 0]]
    views[1][0, 1] = 5.0  # base[1, 0]
    assert base[1, 0].item() == 5.0
    views[0].add_(1)
    assert base.sum().item() == sum(v + 1 for v in [1, 0, 1, 0, 5, 7, 1, 7, 1, 0, 1, 0])


def test_expanded_tensor_is_not_writable(device):
    e = flow.zeros(3, device=device)[:1].expand(4, 3)
    for write in (lambda: e.fill_(1), lambda: e.add_(1), lambda: e.copy_(flow.ones(4, 3, device=device)),
                  lambda: e.__setitem__(0, 1.0)):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a "
                                               "single memory location"):
            write()


# ---------------------------------------------------------------- setitem

@device_settings
@given(shape=shapes(min_dims=1, max_dims=3, max_side=4), data=st.data(), name=st.sampled_from(DTYPES))
def test_setitem(device, shape, data, name):
    X = data.draw(tensor_specs(shape, name, layouts=("contiguous", "permuted", "strided"), lo=-50, hi=50),
                  label="x")
    x = X.make(device)
    idx = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True), label="index")
    parts = idx if isinstance(idx, tuple) else (idx,)
    assume(all(not isinstance(p, slice) or p.step is None or p.step > 0 for p in parts))
    expected = X.values.copy()
    target_shape = expected[idx].shape
    if data.draw(st.booleans(), label="scalar value"):
        value = data.draw(python_scalars(), label="value")
        if not value_fits(name, value):
            with pytest.raises(RuntimeError, match="cannot be converted to type .* without overflow"):
                x[idx] = value
            return
        nv = np_cast(np.array(value), name)
    else:
        vshape = data.draw(broadcast_to_shape(target_shape), label="vshape")
        vname = data.draw(st.sampled_from(DTYPES), label="value dtype")
        V = data.draw(tensor_specs(vshape, vname, lo=0, hi=50), label="value")
        value = V.make(device)
        nv = np_cast(V.values, name)
    version = x._version
    x[idx] = value
    expected[idx] = nv
    assert_values(x, expected, name)
    assert x._version > version


def test_setitem_examples(device):
    x = flow.zeros(3, 4, dtype=flow.int32, device=device)
    x[1] = 5
    x[:, 0] = flow.tensor([1, 2, 3], device=device)
    x[2, 1:] = 2.9  # truncates into the integer tensor
    x[..., -1] = flow.tensor(9, device=device)
    assert x.tolist() == [[1, 0, 0, 9], [2, 5, 5, 9], [3, 2, 2, 9]]
    with pytest.raises(TypeError, match="__setitem__"):
        x[0] = "a"
    with pytest.raises(RuntimeError, match="expand"):
        x[0] = flow.ones(3, device=device)
    # overlapping source and destination
    y = flow.arange(6, device=device)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to "
                                           "a single memory location"):
        y[1:] = y[:-1]
    y[::2] = y[1::2]  # interleaved: no common element
    assert y.tolist() == [1, 1, 3, 3, 5, 5]
    z = flow.arange(10, device=device)
    z[2::2] = z[0:8:2].clone()
    assert z.tolist() == [0, 1, 0, 3, 2, 5, 4, 7, 6, 9]
    w = flow.arange(10, device=device)
    w[2::2] = w[0:8:2]  # the same with a non-dense overlapping source
    assert w.tolist() == [0, 1, 0, 3, 2, 5, 4, 7, 6, 9]


DTYPE_VIEWS = [("float32", "int32", (2, 3)), ("float32", "int16", (2, 3)), ("int16", "float32", (2, 4)),
               ("float64", "uint8", (3,)), ("float16", "bfloat16", (4,)), ("int64", "float64", (2, 2)),
               ("uint8", "int64", (2, 16)), ("float32", "complex64", (3, 2))]


@pytest.mark.parametrize("src,dst,shape", DTYPE_VIEWS)
def test_view_as_dtype_matches_torch(src, dst, shape):
    torch = pytest.importorskip("torch")
    ref = (torch.arange(int(np.prod(shape))).reshape(shape) * 7 + 3).to(getattr(torch, src))
    x = flow.tensor(ref.numpy()).to(getattr(flow, src))
    got, want = x.view(getattr(flow, dst)), ref.view(getattr(torch, dst))
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    assert got.dtype == getattr(flow, dst)
    if dst == "complex64":
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    # a view: writes show through, as in torch
    got.view(getattr(flow, src)).zero_()
    assert (x == 0).all().item()


def test_view_as_dtype_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [lambda L: L.ones(3).view(L.int64), lambda L: L.ones(2, 3).t().view(L.int16),
             lambda L: L.tensor(1.0).view(L.int16), lambda L: L.ones(4)[1:].view(L.int64)]
    for case in cases:
        with pytest.raises(RuntimeError):
            case(torch)
        with pytest.raises(RuntimeError, match="view"):
            case(flow)


def test_is_view_and_base_match_torch():
    torch = pytest.importorskip("torch")
    for L in (torch, flow):  # torch first: the oracle
        x = L.randn(2, 3)
        made = {"reshape": x.reshape(6), "slice_of_view": x.reshape(6)[1:], "t": x.t(),
                "contiguous_copy": x.t().contiguous(), "detach": x.detach(), "clone": x.clone(), "leaf": x}
        got = {k: (v._is_view(), v._base is x if L is torch else (v._base is not None)) for k, v in made.items()}
        if L is torch:
            want = got
        else:
            assert got == want
            assert all(v.is_view() == want[k][0] for k, v in made.items())  # OneFlow's name
            base = made["slice_of_view"]._base
            assert base.shape == x.shape and base.data_ptr() == x.data_ptr()  # the root of the chain
