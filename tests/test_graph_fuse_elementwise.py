"""Elementwise fusion (core/src/graph/pass_fuse_elementwise.cc, kernels in
devices/cpu/kernels_graph_fused.cpp; docs/graph_runtime.md "Passes"): chains
and trees of elementwise kernels become one fused_elementwise node, and no
result changes: traced functions and training steps match eager and the plan
without fusion bit for bit, in every floating dtype, with broadcast and
non-contiguous operands, whatever the slots and threads."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _C, _graph, nn

from graph_fusion_checks import (NO_FUSION, assert_fused_only_what_the_device_can_run, can_fuse, native_ops,
                                 np_widened, plan_ops)
from graph_training import assert_all_equal, classification_data, randn, train


def _same(a, b):
    np.testing.assert_array_equal(np_widened(a), np_widened(b))


def _check(f, args_list, device=None, only=None, slots_threads=((1, 1), (2, 2), (2, 1))):
    """Traces f on args_list[0]: with fusion, without, and fusion alone; each
    replays every args of the list bit for bit as eager, one iteration per
    run and several per run. Returns the fused trace."""
    passes = only or list(_C._graph_default_passes())
    ct = _graph.trace(f, *args_list[0], passes=passes)
    raw = _graph.trace(f, *args_list[0], passes=NO_FUSION)
    want = [f(*args) for args in args_list]

    def flat(r):
        return list(r) if isinstance(r, (tuple, list)) else [r]

    for args, w in zip(args_list, want):
        for got in (ct.run(*args), raw.run(*args)):
            for g, e in zip(flat(got), flat(w)):
                _same(g, e)
    for slots, threads in slots_threads:
        got = ct.run_each(args_list, slots=slots, threads=threads)
        for g, w in zip(got, want):
            for a, b in zip(flat(g), flat(w)):
                _same(a, b)
    return ct


# ---------------------------------------------------------------- the pass fires

def test_a_chain_becomes_one_node(device):
    def f(x):
        return ((x * 2.0 + 1.0).exp() - x).relu()

    args = [(randn(device, 7, 33, seed=s),) for s in range(3)]
    ct = _check(f, args)
    if _assert_plan(device, ct, f, args) != ["fused_elementwise"]:
        return  # a device with kernels of its own for the chain (opencl)
    assert dict(ct.passes)["fuse_elementwise"] == "fused 5 nodes into 1"
    # a device without the fused kernel (testdev) replays the node through the CPU fallback
    assert ("[cpu fallback]" in ct.describe()) == ("fused_elementwise" not in native_ops(device))
    raw = _graph.trace(f, *args[0], passes=None)
    assert raw.stats()["nodes"] == 5


def test_the_pass_alone_and_its_debug_listing():
    def f(x, y):
        return (x * y).sigmoid() + y

    x, y = randn("cpu", 10), randn("cpu", 10, seed=1)
    ct = _graph.trace(f, x, y, passes=["fuse_elementwise"], debug=True)
    assert ct.passes == [("fuse_elementwise", "fused 3 nodes into 1")]
    text = ct.describe(passes=True)
    before = text.index("--- before pass fuse_elementwise ---")
    after = text.index("--- after pass fuse_elementwise: fused 3 nodes into 1 ---")
    assert "sigmoid" in text[before:after] and "sigmoid" not in text[after:]
    _same(ct.run(x, y), f(x, y))


def test_relu_backward_fills_and_masks_fuse():
    # relu's gradient is where(y > 0, g, 0): fill, gt, fill, where in eager
    def f(x, g):
        y = x.relu()
        gy = flow.where(y > 0, g, flow.zeros_like(g))
        return y, gy

    args = [(randn("cpu", 4, 9, seed=s), randn("cpu", 4, 9, seed=s + 5)) for s in range(2)]
    ct = _check(f, args)
    raw = _graph.trace(f, *args[0], passes=None)
    assert ct.stats()["nodes"] == 1 < raw.stats()["nodes"]


def _native_add_mul(device):
    # testdev runs add and mul with kernels of its own and has no fused kernel:
    # a group holding them is not formed, the rest fuses and runs on the CPU as
    # its members did (Note [Fusing on a device without fused kernels] in
    # graph/fusion.h)
    return device.startswith("testdev")


def _assert_plan(device, ct, f, args, on_testdev=None):
    """The fused plan's ops, checked against what `device` can fuse: all of
    f's kernels in one node where it can; where it has no fused kernel and a
    kernel of its own for every op (opencl), the plan without fusion, still
    on the device; testdev's partial groups are `on_testdev`."""
    ops, raw_ops = plan_ops(ct), plan_ops(_graph.trace(f, *args[0], passes=NO_FUSION))
    assert_fused_only_what_the_device_can_run(device, ops, raw_ops)
    if can_fuse(device, "fused_elementwise", raw_ops):
        assert ops == ["fused_elementwise"]
    elif on_testdev is not None and _native_add_mul(device):
        assert ops == on_testdev
    else:
        assert set(raw_ops) <= native_ops(device) and ops == raw_ops
        assert "[cpu fallback]" not in ct.describe()
    return ops


def test_broadcast_inputs(device):
    def f(x, b, s):
        return (x + b).tanh() * s - b

    args = [(randn(device, 5, 6, seed=k), randn(device, 6, seed=k + 1), randn(device, 5, 1, seed=k + 2))
            for k in range(2)]
    ct = _check(f, args)
    _assert_plan(device, ct, f, args, on_testdev=["add", "tanh", "mul", "sub"])


def test_non_contiguous_inputs(device):
    def f(x, y):
        xt = x.t()  # a transposed view: strided reads
        return (xt * y[:, ::2]).neg().abs() + xt

    args = [(randn(device, 40, 36, seed=k), randn(device, 36, 80, seed=k + 1)) for k in range(2)]
    ct = _check(f, args)
    _assert_plan(device, ct, f, args, on_testdev=["mul", "fused_elementwise", "add"])


def test_an_intermediate_that_is_also_an_output_is_stored():
    def f(x):
        a = x.exp()
        b = (a * 2).sqrt()
        return a, b

    args = [(randn("cpu", 3, 5, seed=k),) for k in range(2)]
    ct = _check(f, args)
    assert plan_ops(ct) == ["fused_elementwise"]
    assert "-> s" in ct.describe() and ct.describe().count("(output)") >= 2


def test_an_intermediate_read_in_between_is_not_fused_across():
    def f(x):
        a = x.exp()
        s = a.sum()  # reads a between its producer and a's other consumer
        return s, (a * 3).relu()

    args = [(randn("cpu", 6, seed=k),) for k in range(2)]
    ct = _check(f, args)
    assert sorted(plan_ops(ct)) == ["exp", "fused_elementwise", "sum"]  # exp stays its own kernel


def test_in_place_updates_of_a_parameter_are_fused_as_the_same_view():
    w = randn("cpu", 8, seed=3)

    def f(g):
        w.mul_(0.5)
        w.add_(g)
        return w * 1

    g = randn("cpu", 8, seed=4)
    w0 = w.clone()
    ct = _graph.trace(f, g)
    assert "fused_elementwise" in plan_ops(ct)
    w.copy_(w0)
    got = ct.run(g)
    want = (w0 * 0.5 + g)
    _same(w, want)
    _same(got, want)


def test_unsupported_ops_split_chains():
    def f(x):
        return (x.cos() + 1).exp() * 2  # cos is not in the fused instruction set

    args = [(randn("cpu", 9, seed=k),) for k in range(2)]
    ct = _check(f, args)
    assert plan_ops(ct) == ["cos", "fused_elementwise"]


def test_integer_chains_stay_unfused():
    def f(x):
        return (x + 1) * 3

    x = flow.arange(10)
    ct = _graph.trace(f, x)
    assert plan_ops(ct) == ["add_scalar", "mul_scalar"]
    _same(ct.run(x), f(x))


# ---------------------------------------------------------------- properties

_UNARY = ["neg", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "gelu_tanh", "silu", "abs",
          "square", "reciprocal", "erf", "expm1", "log1p"]
_BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "add_s", "rsub_s", "mul_s", "div_s", "rdiv_s",
           "where_gt", "where_le", "add_alpha"]


def _apply(name, a, b):
    if name == "gelu":
        return F.gelu(a)
    if name == "gelu_tanh":
        return F.gelu(a, approximate="tanh")
    if name in _UNARY:
        return getattr(flow, name)(a) if hasattr(flow, name) else getattr(a, name)()
    return {
        "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "div": lambda: a / b,
        "maximum": lambda: flow.maximum(a, b), "minimum": lambda: flow.minimum(a, b),
        "add_s": lambda: a + 0.75, "rsub_s": lambda: 1.5 - a, "mul_s": lambda: a * 1.25,
        "div_s": lambda: a / 3.0, "rdiv_s": lambda: 2.0 / a,
        "where_gt": lambda: flow.where(a > b, a, b * 0.5), "where_le": lambda: flow.where(a <= 0.25, b, 0.0),
        "add_alpha": lambda: flow.add(a, b, alpha=0.3),
    }[name]()


@settings(max_examples=25, deadline=None)
@given(dtype=st.sampled_from([flow.float32, flow.float64, flow.float16, flow.bfloat16]),
       shape=st.lists(st.integers(1, 9), min_size=0, max_size=3),
       program=st.lists(st.tuples(st.sampled_from(_UNARY + _BINARY), st.integers(0, 3)), min_size=2, max_size=6),
       broadcast=st.booleans(), seed=st.integers(0, 3))
def test_random_chains_match_eager_bit_for_bit(dtype, shape, program, broadcast, seed):
    shape = tuple(shape)
    other_shape = shape[1:] if broadcast and shape else shape

    def f(x, y):
        values = [y, x]  # the chain runs on x (full shape); y may be broadcast
        for name, k in program:
            a = values[-1]
            b = values[k % len(values)]
            values.append(_apply(name, a, b))
        return values[-1]

    args = [(randn("cpu", *shape, seed=seed + k, dtype=dtype), randn("cpu", *other_shape, seed=seed + 9, dtype=dtype))
            for k in range(2)]
    ct = _check(f, args, slots_threads=((2, 2),))
    raw = _graph.trace(f, *args[0], passes=None)
    assert ct.stats()["nodes"] < raw.stats()["nodes"]


# ---------------------------------------------------------------- training

def _mlp(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.Sigmoid(), nn.Linear(16, 3)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _cnn(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 6, 3),
                          nn.Tanh(), nn.Flatten(), nn.Linear(6 * 2 * 2, 3)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@pytest.mark.parametrize("make,shape", [(_mlp, (8, 6)), (_cnn, (4, 1, 8, 8))], ids=["mlp", "cnn"])
@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
def test_training_with_fusion_matches_eager_bit_for_bit(device, make, shape, slots, threads):
    data = classification_data(device, 5, shape)
    _, eager_losses, eager_params = train(make, device, data, "eager")
    graph, losses, params = train(make, device, data, ["dce", "fuse_elementwise"], slots, threads)
    _, raw_losses, raw_params = train(make, device, data, NO_FUSION, slots, threads)
    assert "fuse_elementwise (fused" in repr(graph) and "fused 0 nodes" not in repr(graph)
    assert_all_equal(losses, raw_losses, eager_losses)
    assert_all_equal(params, raw_params, eager_params)


# ---------------------------------------------------------------- copy elision

def test_gradient_copies_are_elided_and_gradients_unchanged():
    # autograd accumulates a linear layer's weight gradient through a buffer
    # laid out like the weight, then copies it into .grad; the bias gradient
    # is a sum copied into .grad: both producers write .grad directly
    flow.manual_seed(0)
    lin = nn.Linear(6, 5)

    def f(x, g):
        lin.weight.grad = None
        lin.bias.grad = None
        lin(x).backward(g)
        return lin.weight.grad, lin.bias.grad

    args = [(randn("cpu", 4, 6, seed=k), randn("cpu", 4, 5, seed=k + 1)) for k in range(3)]
    ct = _graph.trace(f, *args[0])
    raw = _graph.trace(f, *args[0], passes=NO_FUSION)
    summary = dict(ct.passes)["fuse_elementwise"]
    assert "2 copies elided" in summary, summary
    assert plan_ops(raw).count("copy") == plan_ops(ct).count("copy") + 2
    for a in args:  # the results are views of the gradients: compare before the next run
        want = [np_widened(t) for t in f(*a)]
        for plan in (ct, raw):
            for got, w in zip(plan.run(*a), want):
                np.testing.assert_array_equal(np_widened(got), w)


def test_a_copy_whose_destination_is_read_in_between_is_kept():
    buf = flow.zeros(6)

    def f(x):
        s = x.sum(0)          # fresh result
        seen = buf * 2        # reads the destination before the copy
        buf.copy_(s)
        return seen

    x = randn("cpu", 3, 6)
    ct = _graph.trace(f, x)
    assert "copies elided" not in dict(ct.passes)["fuse_elementwise"]
    buf.zero_()
    np.testing.assert_array_equal(np_widened(ct.run(x)), np.zeros(6, np.float32))
    np.testing.assert_array_equal(np_widened(buf), np_widened(x.sum(0)))


@pytest.mark.parametrize("dtype", [flow.float32, flow.float64, flow.float16, flow.bfloat16])
@pytest.mark.parametrize("shape,bshape", [((2500,), (2500,)), ((5, 700), (700,)), ((300, 12), (300, 1)),
                                          ((3, 40, 50), (40, 1))], ids=["long", "long-rows", "short-rows", "3d"])
def test_blocks_rows_and_in_place_outputs_at_size(dtype, shape, bshape):
    # several blocks per run, several short rows per block, an output computed in place
    def f(x, b):
        h = F.gelu(x * b + b) - x
        return flow.where(h > 0, h.sigmoid(), h * 0.5), h.exp()

    args = [(randn("cpu", *shape, seed=k, dtype=dtype), randn("cpu", *bshape, seed=k + 3, dtype=dtype))
            for k in range(2)]
    ct = _check(f, args, slots_threads=((2, 2),))
    assert plan_ops(ct) == ["fused_elementwise"]


def test_random_kernels_are_not_fused_and_draw_as_in_eager():
    def f(x):
        h = F.dropout((x * 2).relu(), 0.5, training=True)  # dropout's kernels draw from the generator
        return (h + 1).tanh() * x

    xs = [randn("cpu", 6, 7, seed=k) for k in range(3)]
    flow.manual_seed(11)
    want = [np_widened(f(x)) for x in xs]
    flow.manual_seed(11)
    ct = _graph.trace(f, xs[0])  # the trace runs the first step
    got = [np_widened(ct.example_outputs)] + [np_widened(ct.run(x)) for x in xs[1:]]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert "fused_elementwise" in plan_ops(ct) and "random" in ct.describe()
