"""Gradients of the shape and indexing ops on every device: views (and
basic indexing), cat/stack/split/chunk/unbind, flip/roll/repeat/tile,
tril/triu (and in place), gather/index_select/scatter/scatter_add, masks,
pad, advanced indexing and index_put_/setitem (on non-leaf tensors and
views of them), against finite differences in float64 and torch."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import monoflow as flow
from autograd_helpers import check_gradients, leaf

torch = pytest.importorskip("torch")

few = settings(max_examples=6, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@st.composite
def small_shapes(draw, min_dims=0, max_dims=3, min_side=0, max_side=3):
    return tuple(draw(st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims)))


def rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def indices(shape, high, seed=0):
    # (draws with replacement: duplicate indices are the point of several tests)
    return np.random.default_rng(seed + 1).integers(0, max(high, 1), size=shape).astype(np.int64)


def nc(x):
    """x with the same values in a non-contiguous layout (either framework)."""
    if x.dim() < 2:
        return x
    rev = list(range(x.dim()))[::-1]
    return x.permute(*rev).contiguous().permute(*rev)


def ti(a):
    return torch.from_numpy(np.asarray(a))


def check(fn, arrays, device, torch_fn):
    """check_gradients, or (an input without elements: nothing to differentiate numerically) torch only."""
    if all(np.asarray(a).size for a in arrays):
        check_gradients(fn, arrays, device, torch_fn=torch_fn)
    else:
        _compare_torch(fn, torch_fn, arrays, device)


# ================================================================ views

VIEWS = [
    ("reshape", lambda m, x: x.reshape(-1)),
    ("transpose", lambda m, x: x.transpose(0, -1)),
    ("permute", lambda m, x: x.permute(2, 0, 1)),
    ("squeeze", lambda m, x: x[:, :1].squeeze(1)),
    ("unsqueeze", lambda m, x: x.unsqueeze(-2)),
    ("narrow", lambda m, x: x.narrow(1, 1, 2)),
    ("slice", lambda m, x: x[1::2, ::2]),
    ("select", lambda m, x: x.select(-1, 1)),
    ("unfold", lambda m, x: x.unfold(1, 2, 1)),  # overlapping windows
    ("flatten", lambda m, x: x.flatten(1)),
    ("as_strided", lambda m, x: x.as_strided((3, 3), (1, 1), 1)),  # overlapping
    ("basic_index", lambda m, x: x[1:, None, ..., 2]),
    ("expand", lambda m, x: x[:, :1].expand(2, 3, 3)),
    ("expand_as", lambda m, x: x[:1, :, 1:2].expand_as(x)),
    ("movedim", lambda m, x: m.movedim(x, (0, 1), (2, 0))),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, 2)),
    ("diagonal", lambda m, x: m.diagonal(x, 1, 1, 2)),
    ("view_of_view", lambda m, x: x.transpose(0, 1)[1:].reshape(-1, 2)[::2]),
]


@pytest.mark.parametrize("name,f", VIEWS, ids=[v[0] for v in VIEWS])
def test_views(device, name, f):
    a = rand((2, 3, 3))
    check_gradients(lambda x: f(flow, nc(x) if "strided" not in name else x), [a], device,
                    torch_fn=lambda x: f(torch, nc(x) if "strided" not in name else x))


def test_view_of_expanded(device):
    # the base of the views is an expanded (self-overlapping) tensor
    check_gradients(lambda x: x.expand(3, 4)[0] * 2, [rand((4,))], device,
                    torch_fn=lambda x: x.expand(3, 4)[0] * 2)
    check_gradients(lambda x: x.expand(2, 3, 4)[:, 1:, ::2].transpose(0, 2) * 3, [rand((3, 1))], device,
                    torch_fn=lambda x: x.expand(2, 3, 4)[:, 1:, ::2].transpose(0, 2) * 3)


@few
@given(shape=small_shapes(min_dims=1), dim=st.integers(-3, 2), data=st.data())
def test_split_chunk_unbind(device, shape, dim, data):
    nd = len(shape)
    dim = dim % nd
    size = shape[dim]
    a = rand(shape)
    k = data.draw(st.integers(1, 4), label="k")
    sizes = []
    rest = size
    while rest:
        s = data.draw(st.integers(1, rest), label="s")
        sizes.append(s)
        rest -= s
    sizes.append(0)

    def fn(m, x, how):
        x = nc(x)
        if how == "split":
            return m.split(x, k, dim) if size else (x * 1,)
        if how == "sizes":
            return m.split(x, sizes, dim)
        if how == "chunk":
            return m.chunk(x, k, dim)
        return m.unbind(x, dim) if size else (x * 1,)

    for how in ["split", "sizes", "chunk", "unbind"]:
        check_gradients(lambda x: fn(flow, x, how), [a], device, torch_fn=lambda x: fn(torch, x, how))


def test_split_many_pieces_one_node(device):
    x = leaf(rand((40, 2)), device)
    pieces = x.split(1)
    assert {p.grad_fn.name() for p in pieces} == {"SplitWithSizesBackward0"}  # not a view node each
    (pieces[3].sum() + 2 * pieces[7].sum()).backward()  # unused pieces get zero gradients
    want = np.zeros((40, 2))
    want[3], want[7] = 1, 2
    np.testing.assert_array_equal(x.grad.numpy(), want)


# ================================================================ cat, stack

@few
@given(shape=small_shapes(min_dims=1), n=st.integers(1, 3), dim=st.integers(-3, 2), data=st.data())
def test_cat_stack(device, shape, n, dim, data):
    nd = len(shape)
    d = dim % nd
    dim = d if dim >= 0 else d - nd
    arrays = []
    for i in range(n):
        s = list(shape)
        s[d] = data.draw(st.integers(0, 3), label="size")
        arrays.append(rand(tuple(s), i))
    check(lambda *xs: flow.cat([nc(x) for x in xs], dim), arrays, device,
          torch_fn=lambda *xs: torch.cat([nc(x) for x in xs], dim))
    same = [rand(shape, i) for i in range(n)]
    sd = data.draw(st.integers(-nd - 1, nd), label="stack_dim")
    check(lambda *xs: flow.stack([nc(x) for x in xs], sd), same, device,
          torch_fn=lambda *xs: torch.stack([nc(x) for x in xs], sd))


def test_cat_skips_empty_and_promotes(device):
    a = leaf(rand((2, 2)), device, flow.float32)
    b = leaf(np.zeros(0), device)
    c = leaf(rand((1, 2)), device)
    out = flow.cat([a, b, c, a])
    assert out.dtype == flow.float64
    out.backward(flow.tensor(rand((5, 2), 3), device=device))
    g = rand((5, 2), 3)
    np.testing.assert_allclose(a.grad.numpy(), (g[:2] + g[3:]).astype(np.float32), rtol=1e-5)
    assert a.grad.dtype == flow.float32
    assert tuple(b.grad.shape) == (0,)
    np.testing.assert_array_equal(c.grad.numpy(), g[2:3])


@pytest.mark.parametrize("op", ["cat", "stack"])
def test_join_more_than_64_inputs(device, op):
    xs = [leaf(np.full((1, 2), float(i)), device) for i in range(150)]
    out = getattr(flow, op)(xs, 1)
    w = flow.tensor(rand(tuple(out.shape)), device=device)
    (out * w).sum().backward()
    wn = w.numpy()
    for i in (0, 63, 64, 100, 149):
        want = wn[:, 2 * i:2 * i + 2] if op == "cat" else wn[:, i]
        np.testing.assert_array_equal(xs[i].grad.numpy(), want)


# ================================================================ reordering

@few
@given(shape=small_shapes(min_dims=1), data=st.data())
def test_flip_roll_repeat_tile(device, shape, data):
    nd = len(shape)
    a = rand(shape)
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), max_size=nd, unique_by=lambda d: d % nd), label="dims")
    shifts = data.draw(st.lists(st.integers(-5, 5), min_size=len(dims), max_size=len(dims)), label="shifts")
    reps = data.draw(st.lists(st.integers(0, 2), min_size=nd, max_size=nd + 1), label="reps")
    for f in [lambda m, x: m.flip(nc(x), dims),
              lambda m, x: m.roll(nc(x), shifts, dims) if dims else m.roll(nc(x), 2),
              lambda m, x: nc(x).repeat(*reps),
              lambda m, x: m.tile(nc(x), reps[:max(nd - 1, 1)])]:
        check_gradients(lambda x: f(flow, x), [a], device, torch_fn=lambda x: f(torch, x))


@pytest.mark.parametrize("diag", [-1, 0, 2])
def test_tril_triu(device, diag):
    a = rand((2, 3, 4))
    for name in ["tril", "triu"]:
        check_gradients(lambda x: getattr(flow, name)(nc(x), diag), [a], device,
                        torch_fn=lambda x: getattr(torch, name)(nc(x), diag))

        def inplace(m, x):
            y = x * 1
            getattr(y[1:], name + "_")(diag)  # in place on a view of a non-leaf
            return y
        check_gradients(lambda x: inplace(flow, x), [a], device, torch_fn=lambda x: inplace(torch, x))


def test_repeat_0dim(device):
    check_gradients(lambda x: x.repeat(2, 3), [np.array(1.5)], device, torch_fn=lambda x: x.repeat(2, 3))


# ================================================================ gather, index_select, scatter

@few
@given(shape=small_shapes(min_dims=0, min_side=1), dim=st.integers(-3, 2), data=st.data())
def test_gather_index_select(device, shape, dim, data):
    nd = max(len(shape), 1)
    d = dim % nd
    size = shape[d] if shape else 1
    a = rand(shape)
    ishape = tuple(data.draw(st.integers(0, 4 if i == d else shape[i])) for i in range(len(shape)))
    idx = indices(ishape, size)  # duplicates likely
    vec = indices((data.draw(st.integers(0, 5)),) if shape else (1,), size)
    it = data.draw(st.sampled_from([np.int64, np.int32]))
    check_gradients(lambda x: flow.gather(nc(x), d, flow.tensor(idx.astype(it), device=device)), [a], device,
                    torch_fn=lambda x: torch.gather(nc(x), d, ti(idx)))
    sd = (d if dim >= 0 else d - nd) if shape else 0
    check_gradients(lambda x: flow.index_select(nc(x), sd, flow.tensor(vec.astype(it), device=device)),
                    [a], device, torch_fn=lambda x: torch.index_select(nc(x), sd, ti(vec)))


def test_embedding_backward_is_one_index_put(device):
    w = leaf(rand((5, 3)), device)
    idx = flow.tensor([1, 4, 1, 1, 0], device=device)
    out = flow.index_select(w, 0, idx)
    g = rand((5, 3), 2)
    out.backward(flow.tensor(g, device=device))
    want = np.zeros((5, 3))
    np.add.at(want, [1, 4, 1, 1, 0], g)
    np.testing.assert_allclose(w.grad.numpy(), want)


@few
@given(shape=small_shapes(min_dims=1, min_side=1), dim=st.integers(-3, 2), data=st.data())
def test_scatter_family(device, shape, dim, data):
    nd = len(shape)
    d = dim % nd
    a = rand(shape)
    # scatter without duplicates along d (the winner of a duplicate is unspecified): a prefix of a
    # random permutation along d at every position of the other dims
    ishape = tuple(data.draw(st.integers(0, shape[i])) for i in range(nd))
    rng = np.random.default_rng(data.draw(st.integers(0, 100)))
    full = tuple(shape[d] if i == d else s for i, s in enumerate(ishape))
    idx = np.take(np.argsort(rng.random(full), axis=d), range(ishape[d]), axis=d).astype(np.int64)
    src = rand(ishape, 5)
    big = rand(tuple(s + 1 for s in ishape), 6)  # src reaching past the index (torch refuses its backward)
    dup = indices(ishape, shape[d], 7)

    def sc(m, x, s):
        return nc(x).scatter(d, ti(idx) if m is torch else flow.tensor(idx, device=device), s)

    def sc_(m, x, s):
        y = x * 1
        y.scatter_(d, ti(idx) if m is torch else flow.tensor(idx, device=device), s)
        return y

    def sa(m, x, s, inplace):
        i = ti(dup) if m is torch else flow.tensor(dup, device=device)
        if inplace:
            y = x * 1
            y.scatter_add_(d, i, s)
            return y
        return nc(x).scatter_add(d, i, nc(s))

    for f in [sc, sc_]:
        check(lambda x, s: f(flow, x, s), [a, src], device, torch_fn=lambda x, s: f(torch, x, s))
        check(lambda x: f(flow, x, 2.5), [a], device, torch_fn=lambda x: f(torch, x, 2.5))
        check_gradients(lambda x, s: f(flow, x, s), [a, big], device)
    for inplace in [False, True]:
        check(lambda x, s: sa(flow, x, s, inplace), [a, src], device, torch_fn=lambda x, s: sa(torch, x, s, inplace))


def test_gather_double_backward(device):
    a = rand((3, 4))
    idx = np.array([[0, 0, 2, 1], [2, 2, 2, 0]])

    def f(m, x):
        i = ti(idx) if m is torch else flow.tensor(idx, device=device)
        y = m.gather(x, 0, i) ** 2
        (g,) = (torch.autograd if m is torch else flow.autograd).grad(y.sum(), [x], create_graph=True)
        return (g * x).sum() + m.index_select(x, 1, i[0]).pow(2).sum()

    xf, xt = leaf(a, device), torch.tensor(a, requires_grad=True)
    (gf,) = flow.autograd.grad(f(flow, xf), [xf])
    (gt,) = torch.autograd.grad(f(torch, xt), [xt])
    np.testing.assert_allclose(gf.numpy(), gt.numpy(), rtol=1e-10)


# ================================================================ masks

@few
@given(shape=small_shapes(min_dims=0), data=st.data())
def test_masked_fill_select(device, shape, data):
    a = rand(shape)
    mshape = shape[data.draw(st.integers(0, len(shape))):]  # broadcasts against x
    mask = np.random.default_rng(data.draw(st.integers(0, 50))).random(mshape) < 0.5

    def fm(m, x):
        return m.tensor(mask) if m is torch else flow.tensor(mask, device=device)

    check_gradients(lambda x: nc(x).masked_fill(fm(flow, x), -1.5), [a], device,
                    torch_fn=lambda x: nc(x).masked_fill(fm(torch, x), -1.5))
    check_gradients(lambda x, v: nc(x).masked_fill(fm(flow, x), v), [a, np.array(0.7)], device,
                    torch_fn=lambda x, v: nc(x).masked_fill(fm(torch, x), v))

    def inplace(m, x, v):
        y = x * 1
        y.masked_fill_(fm(m, x), v)
        return y
    check_gradients(lambda x, v: inplace(flow, x, v), [a, np.array(0.7)], device,
                    torch_fn=lambda x, v: inplace(torch, x, v))
    check_gradients(lambda x: nc(x).masked_select(fm(flow, x)), [a], device,
                    torch_fn=lambda x: nc(x).masked_select(fm(torch, x)))


def test_not_differentiable(device):
    x = leaf(rand((2, 3)), device)
    assert not flow.nonzero(x).requires_grad
    assert not flow.one_hot(flow.tensor([0, 2], device=device), 3).requires_grad
    assert all(not t.requires_grad for t in flow.nonzero(x, as_tuple=True))


# ================================================================ pad

PADS = [
    ("constant", (1, 2), (2, 3)),
    ("constant", (-1, 1, 0, 2), (2, 3, 4)),
    ("constant", (2, -2), (3, 3)),
    ("reflect", (2, 1), (2, 4)),
    ("reflect", (1, 2, 2, 0), (1, 3, 4)),
    ("replicate", (2, 3), (2, 2)),
    ("replicate", (1, 0, 0, 2, 1, 1), (1, 2, 2, 2)),
]


@pytest.mark.parametrize("mode,pads,shape", PADS)
def test_pad(device, mode, pads, shape):
    kw = {"value": 0.5} if mode == "constant" else {}
    check_gradients(lambda x: flow.pad(nc(x), pads, mode, **kw), [rand(shape)], device,
                    torch_fn=lambda x: torch.nn.functional.pad(nc(x), pads, mode, **kw))


# ================================================================ advanced indexing

def _idx(m, device, spec):
    """An index tuple from a spec of numpy arrays / slices / None / Ellipsis, for either framework."""
    out = []
    for s in spec:
        if isinstance(s, np.ndarray):
            out.append(torch.from_numpy(s) if m is torch else flow.tensor(s, device=device))
        else:
            out.append(s)
    return tuple(out)


INDEXES = [
    ("int", (np.array([2, 0, 2, 2]),)),
    ("int_2d_neg", (np.array([[1, -1], [0, 1]]),)),
    ("mask", (np.array([[True, False, True, True], [False, False, True, False], [True, True, True, True]]),)),
    ("mask_1d_dim1", (slice(None), np.array([True, False, True, True]))),
    ("mixed", (np.array([0, 2, 0]), slice(1, None), np.array([1, 1, 2]))),
    ("transposed", (np.array([0, 2, 2]), slice(None), np.array([1, 0, 1]))),
    ("adjacent_3d", (slice(None), np.array([[1], [0]]), np.array([1, 2, 2]))),
    ("basic_then_adv", (slice(1, None), None, np.array([3, 3, 0]))),
    ("ellipsis", (Ellipsis, np.array([0, 0, 1]))),
    ("scalar_bool", (True,)),
    ("empty", (np.array([], dtype=np.int64),)),
]


THREE_D = ("mixed", "transposed", "adjacent_3d")


@pytest.mark.parametrize("name,spec", INDEXES, ids=[i[0] for i in INDEXES])
def test_index(device, name, spec):
    a = rand((3, 4, 3)) if name in THREE_D else rand((3, 4))
    check_gradients(lambda x: nc(x)[_idx(flow, device, spec)], [a], device,
                    torch_fn=lambda x: nc(x)[_idx(torch, device, spec)])


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("name,spec", INDEXES, ids=[i[0] for i in INDEXES])
def test_index_put(device, name, spec, accumulate):
    tensors_only = all(isinstance(s, np.ndarray) for s in spec)
    if accumulate and not tensors_only:
        pytest.skip("index_put_ takes index tensors only")
    a = rand((3, 4, 3)) if name in THREE_D else rand((3, 4))
    rshape = tuple(torch.zeros(a.shape)[_idx(torch, device, spec)].shape)
    v = rand(rshape[1:], 4)  # broadcasts over the leading dim

    def f(m, x, v):
        y = x * 2  # a non-leaf
        idx = _idx(m, device, spec)
        if tensors_only:
            y.index_put_(idx, v, accumulate=accumulate)
        else:
            y[idx] = v
        return y

    fn = lambda x, v: f(flow, x, v)  # noqa: E731
    tfn = lambda x, v: f(torch, x, v)  # noqa: E731
    dup = any(isinstance(s, np.ndarray) and s.dtype != bool and len(np.unique(s)) < s.size for s in spec)
    if accumulate or not dup:
        check_gradients(fn, [a, v], device, torch_fn=tfn)
    else:
        # Which of duplicate writes wins is unspecified, so finite differences do not apply; the
        # values' gradient sums over duplicates, as torch's does.
        _compare_torch(fn, tfn, [a, v], device)


def _compare_torch(fn, tfn, arrays, device):
    xs = [leaf(a, device) for a in arrays]
    out = fn(*xs)
    up = rand(tuple(out.shape), 9)
    got = flow.autograd.grad([out], xs, [flow.tensor(up, device=device)])
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    want = torch.autograd.grad([tfn(*ts)], ts, [torch.tensor(up)])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


SETITEMS = [
    ("column", lambda m, d: (slice(None), 0), (3,)),
    ("row_broadcast", lambda m, d: (1,), (1, 4)),
    ("strided_none", lambda m, d: (slice(None, None, 2), None, slice(1, 3)), (2,)),
    ("int_tensor", lambda m, d: (m.tensor([2, 0]) if m is torch else flow.tensor([2, 0], device=d),), (4,)),
    ("mask", lambda m, d: ((m.tensor if m is torch else lambda v: flow.tensor(v, device=d))(
        np.array([[True, False, False, True]] * 3)),), ()),
    ("mixed", lambda m, d: (slice(1, None), m.tensor([3, 1]) if m is torch else flow.tensor([3, 1], device=d)), (2,)),
]


@pytest.mark.parametrize("name,idx,vshape", SETITEMS, ids=[s[0] for s in SETITEMS])
def test_setitem_non_leaf(device, name, idx, vshape):
    def f(m, x, v):
        y = x * 3
        y[idx(m, device)] = v
        z = y.sin()
        z[idx(m, device)] = 0.0  # a number
        return y * 1 + z

    check_gradients(lambda x, v: f(flow, x, v), [rand((3, 4)), rand(vshape, 2)], device,
                    torch_fn=lambda x, v: f(torch, x, v))


def test_setitem_on_view_of_non_leaf(device):
    def f(m, x, v):
        y = x * 1
        w = y[1:]  # a view; writing through it changes y
        w[:, m.tensor([0, 2]) if m is torch else flow.tensor([0, 2], device=device)] = v
        w[0, 1] = v[0, 0] * 2
        return y

    check_gradients(lambda x, v: f(flow, x, v), [rand((3, 4)), rand((2, 2), 1)], device,
                    torch_fn=lambda x, v: f(torch, x, v))


def test_setitem_leaf_refused(device):
    x = leaf(rand((2, 2)), device)
    with pytest.raises(RuntimeError, match="leaf"):
        x[flow.tensor([0], device=device)] = 1.0
    with pytest.raises(RuntimeError, match="leaf"):
        x[0] = 1.0


def test_index_double_backward(device):
    a = rand((4, 3))
    spec = (np.array([0, 3, 0]), slice(None))

    def f(m, x):
        y = (x[_idx(m, device, spec)] ** 3).sum()
        (g,) = (torch.autograd if m is torch else flow.autograd).grad(y, [x], create_graph=True)
        return (g ** 2).sum()

    xf, xt = leaf(a, device), torch.tensor(a, requires_grad=True)
    (gf,) = flow.autograd.grad(f(flow, xf), [xf])
    (gt,) = torch.autograd.grad(f(torch, xt), [xt])
    np.testing.assert_allclose(gf.numpy(), gt.numpy(), rtol=1e-10)


def test_take_along_dim_and_unbind(device):
    a = rand((3, 4))
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    check_gradients(lambda x: flow.take_along_dim(nc(x), flow.tensor(idx, device=device), 1), [a], device,
                    torch_fn=lambda x: torch.take_along_dim(nc(x), ti(idx), 1))
    idx0 = np.array([[2, 0, 0, 1]])
    check_gradients(lambda x: flow.take_along_dim(x, flow.tensor(idx0, device=device), 0), [a], device,
                    torch_fn=lambda x: torch.take_along_dim(x, ti(idx0), 0))
    x = leaf(a, device)
    assert {p.grad_fn.name() for p in x.unbind(1)} == {"UnbindBackward0"}


def test_view_nodes_are_named_as_torchs():
    import torch

    views = {"view": lambda x: x.view(12), "transpose": lambda x: x.transpose(0, 1),
             "permute": lambda x: x.permute(1, 0), "T": lambda x: x.T, "expand": lambda x: x[:, :1].expand(3, 2),
             "squeeze": lambda x: x[None].squeeze(), "squeeze_dim": lambda x: x[None].squeeze(0),
             "unsqueeze": lambda x: x.unsqueeze(1), "slice": lambda x: x[:, 1:], "narrow": lambda x: x.narrow(1, 0, 2),
             "select": lambda x: x[1], "unfold": lambda x: x.unfold(1, 2, 1),
             "as_strided": lambda x: x.as_strided((2, 2), (1, 2))}
    for name, f in views.items():
        fx, tx = flow.randn(3, 4, requires_grad=True), torch.randn(3, 4, requires_grad=True)
        assert f(fx).grad_fn.name() == f(tx).grad_fn.name(), name
    # a view whose base was written in place through another view
    fy, ty = flow.randn(3, requires_grad=True).clone(), torch.randn(3, requires_grad=True).clone()
    fv, tv = fy[:2], ty[:2]
    fy[1:].mul_(2)
    ty[1:].mul_(2)
    fv + 1, tv + 1  # (a use refreshes the stale view's history)
    assert fv.grad_fn.name() == tv.grad_fn.name() == "AsStridedBackward0"
