"""Memory planning (core/src/graph/pass_memory.cc, docs/graph_runtime.md
"Passes"): the Transient buffers share one arena per device by lifetime, the
traced blocks are released, the runtime's slot copies are made per arena;
the plan reports its memory; and nothing changes by a bit - traced functions
and training steps (nn.Graph, SGD with momentum; MLP and CNN) match eager and
the plan without passes, at slots/threads 1 and 2, iterations pipelined."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _graph, nn

from graph_training import TrainGraph, classification_data, np_of, randn, train


def _chain(x):
    h = x
    for k in range(6):  # elementwise: each kernel can write over the intermediate it reads last
        h = (h * 0.5 + k).tanh()
    return h.sum(0)


def _softmax_chain(w):
    def f(x):
        h = x
        for k in range(6):  # each intermediate dies at the next kernel, none of them elementwise
            h = (h @ w).softmax(-1)
        return h.sum(0)
    return f


def _check_iterations(plans, fn, shape, device):
    feeds = [randn(device, *shape, seed=s) for s in range(4)]
    want = [np_of(fn(f)) for f in feeds]
    for slots, threads in [(1, 1), (2, 2), (2, 1), (3, 2)]:
        for ct in plans:
            for got, w in zip(ct.run_each(feeds, slots=slots, threads=threads), want):
                np.testing.assert_array_equal(np_of(got), w)


def test_a_chain_of_intermediates_shares_one_arena(device):
    x = randn(device, 64, 32)
    f = _softmax_chain(randn(device, 32, 32, seed=9))
    ct = _graph.trace(f, x, passes=["memory"])
    raw = _graph.trace(f, x, passes=None)
    m, r = ct.memory(), raw.memory()
    block = 64 * 32 * 4
    # 12 intermediates (product, softmax; 6 times), each read by the next kernel only: two blocks do
    assert ct.passes == [("memory", "transient 96.0 KB -> 16.0 KB in one arena (12 buffers; 16.0 KB live at most)")]
    assert ct.stats()["arenas"] == 1 and raw.stats()["arenas"] == 0 and ct.stats()["transient"] == 12
    assert r["transient"] == r["transient_traced"] == 12 * block
    assert m["transient_traced"] == 12 * block and m["transient"] == 2 * block
    assert m["output"] == r["output"] == 32 * 4 and m["persistent"] == r["persistent"] == 32 * 32 * 4
    assert ct.memory(slots=2)["transient"] == 4 * block and ct.memory(slots=3)["transient_traced"] == 36 * block
    assert "memory: persistent 4.0 KB, transient 96.0 KB -> 16.0 KB per slot, output 128 B per iteration" in ct.describe()
    assert "memory: persistent 4.0 KB, transient 96.0 KB per slot" in raw.describe()
    with pytest.raises(ValueError, match="slots"):
        ct.memory(slots=0)
    _check_iterations([ct, raw, _graph.trace(f, x)], f, (64, 32), device)


def test_elementwise_kernels_write_over_their_last_input(device):
    x = randn(device, 64, 32)
    ct = _graph.trace(_chain, x, passes=["memory"])
    # 18 intermediates ((h * 0.5), + k, tanh; 6 times): each kernel writes over the one it reads
    assert ct.passes == [("memory", "transient 144.0 KB -> 8.0 KB in one arena (18 buffers, 17 written in place; "
                                    "8.0 KB live at most)")]
    assert ct.memory()["transient"] == 64 * 32 * 4
    _check_iterations([ct, _graph.trace(_chain, x)], _chain, (64, 32), device)

    def mixed(t):
        h = t.exp()
        u = h[:, ::2] * 2   # reads h through another layout: not in place
        w = h + 1           # h's last use, same layout: in place
        return u.sum() + w.sum()

    ct = _graph.trace(mixed, x, passes=["memory"])
    assert "1 written in place" in dict(ct.passes)["memory"]
    _check_iterations([ct], mixed, (64, 32), device)


def test_results_of_earlier_runs_stay_intact(device):
    ct = _graph.trace(_chain, randn(device, 8, 8))
    a, b = randn(device, 8, 8, seed=1), randn(device, 8, 8, seed=2)
    ra = ct.run(a)
    want = np_of(ra)
    rb = ct.run(b)
    np.testing.assert_array_equal(np_of(ra), want)
    np.testing.assert_array_equal(np_of(rb), np_of(_chain(b)))


def test_unused_intermediates_are_released(device):
    def f(x):
        (x * 3).exp()  # dead: DCE drops the nodes, memory planning their blocks
        return (x + 1).sin()

    x = randn(device, 256)
    ct = _graph.trace(f, x, passes=["dce", "memory"])
    assert dict(ct.passes)["memory"] == ("transient 3.0 KB -> 1.0 KB in one arena (1 buffers, 2 unused released; "
                                         "1.0 KB live at most)")
    m = ct.memory()
    assert m["transient_traced"] == 3 * 1024 and m["transient"] == 1024
    np.testing.assert_array_equal(np_of(ct.run(x)), np_of(f(x)))


def test_the_allocator_holds_the_arena_instead_of_the_traced_blocks(device):
    x = randn(device, 256, 256)
    f = _softmax_chain(randn(device, 256, 256, seed=9))
    block = 256 * 256 * 4

    def held(passes, slots):
        flow.synchronize()
        before = flow.memory.memory_allocated(device)
        ct = _graph.trace(f, x, passes=passes)
        ct.run(x, slots=slots, iterations=slots)  # makes the slot copies
        flow.synchronize()
        flow.memory.reset_peak_memory_stats(device)
        base = flow.memory.memory_allocated(device)
        out = ct.run(x)
        flow.synchronize()
        # a replay allocates its output only
        assert flow.memory.max_memory_allocated(device) - base == 256 * 4
        return base - before, ct, out

    for slots in (1, 2):
        held_plan, plan, out_plan = held(["memory"], slots)
        held_raw, raw, out_raw = held(None, slots)
        # 12 traced blocks per copy, or an arena of 2
        assert held_raw - held_plan == slots * (12 - 2) * block
        assert raw.memory(slots)["transient"] - plan.memory(slots)["transient"] == slots * 10 * block
        np.testing.assert_array_equal(np_of(out_plan), np_of(out_raw))
        del plan, raw


# ---------------------------------------------------------------- training

def _mlp(device, widths=(6, 32, 32, 3)):
    flow.manual_seed(0)
    layers = []
    for a, b in zip(widths[:-1], widths[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    model = nn.Sequential(*layers[:-1]).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _cnn(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 6, 3),
                          nn.ReLU(), nn.Flatten(), nn.Linear(6 * 2 * 2, 3)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _assert_same(a, b):
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("make,shape", [(_mlp, (8, 6)), (_cnn, (4, 1, 8, 8))], ids=["mlp", "cnn"])
@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
def test_training_with_memory_planning_matches_eager_bit_for_bit(device, make, shape, slots, threads):
    data = classification_data(device, 5, shape)
    _, eager_losses, eager_params = train(make, device, data, "eager")
    graph, losses, params = train(make, device, data, "default", slots, threads)
    _, raw_losses, raw_params = train(make, device, data, None, slots, threads)
    text = repr(graph)
    assert "memory (transient" in text and "in one arena" in text and "updates moved early" in text
    _assert_same(losses, raw_losses)
    _assert_same(losses, eager_losses)
    _assert_same(params, raw_params)
    _assert_same(params, eager_params)


def test_a_traced_training_step_pipelines_iterations_through_the_arena():
    # several iterations in one run: the arena's copies come back only when an iteration is done
    data = classification_data("cpu", 6, (8, 6))
    model, opt = _mlp("cpu")

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    flow.manual_seed(7)
    eager_model, eager_opt = _mlp("cpu")
    eager = []
    for x, y in data:
        eager_opt.zero_grad()
        loss = F.cross_entropy(eager_model(x), y)
        loss.backward()
        eager_opt.step()
        eager.append(np_of(loss))
    losses = [np_of(step(*data[0]))]
    ct = _graph.trace(step, *data[1])
    losses.append(np_of(ct.example_outputs))
    losses += [np_of(l) for l in ct.run_each(data[2:4], slots=2, threads=2)]
    losses += [np_of(l) for l in ct.run_each(data[4:], slots=3, threads=2)]
    _assert_same(losses, eager)
    _assert_same([np_of(p) for p in model.parameters()], [np_of(p) for p in eager_model.parameters()])
    m = ct.memory()
    assert m["transient"] < m["transient_traced"] and m["persistent"] > 0


@settings(max_examples=8, deadline=None)
@given(widths=st.lists(st.integers(1, 24), min_size=2, max_size=4), batch=st.integers(1, 9),
       slots=st.integers(1, 3), threads=st.integers(1, 2))
def test_random_mlps_train_alike_with_and_without_passes(widths, batch, slots, threads):
    widths = [5] + widths
    make = lambda device: _mlp(device, tuple(widths))  # noqa: E731
    data = classification_data("cpu", 4, (batch, 5), classes=widths[-1], seed=batch)
    _, eager_losses, eager_params = train(make, "cpu", data, "eager")
    graph, losses, params = train(make, "cpu", data, "default", slots, threads)
    _assert_same(losses, eager_losses)
    _assert_same(params, eager_params)


@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
def test_training_with_dropout_keeps_eagers_random_numbers(slots, threads):
    # updates move early, random kernels do not: the draws stay in eager's order
    def make(device):
        flow.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 32), nn.ReLU(),
                              nn.Dropout(0.2), nn.Linear(32, 3)).to(device)
        return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    data = classification_data("cpu", 6, (8, 6))
    results = []
    for traced in (False, True):
        model, opt = make("cpu")

        def step(x, y):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)  # the gradients are intermediates of the step: Transient
            return loss

        flow.manual_seed(7)
        losses = [np_of(step(*data[0]))]
        if traced:
            ct = _graph.trace(step, *data[1])
            assert "updates moved early" in dict(ct.passes)["memory"] and ct.stats()["random_nodes"] == 2
            losses.append(np_of(ct.example_outputs))
            losses += [np_of(l) for l in ct.run_each(data[2:], slots=slots, threads=threads)]
        else:
            losses += [np_of(step(*d)) for d in data[1:]]
        results.append((losses, [np_of(p) for p in model.parameters()]))
    _assert_same(results[0][0], results[1][0])
    _assert_same(results[0][1], results[1][1])


# ---------------------------------------------------------------- weight gradients

def test_linear_weight_gradient_is_made_in_the_weights_layout():
    # Note [Gradients in the operand's layout] (ops_matmul.cc): dW = dy^T @ x,
    # row-major like W, no transposing copy; the same sums as the other order
    # ((x^T @ dy)^T), which BLAS may block differently: equal within the
    # rounding bound of a 9-term float32 dot product, and close to torch's.
    torch = pytest.importorskip("torch")

    rng = np.random.default_rng(3)
    x, w, g = (rng.standard_normal(s).astype(np.float32) for s in [(9, 13), (5, 13), (9, 5)])
    wt = flow.tensor(w, requires_grad=True)
    F.linear(flow.tensor(x), wt).backward(flow.tensor(g))
    assert wt.grad.stride() == (13, 1)
    other_order = np_of((flow.tensor(x).T @ flow.tensor(g)).T)
    bound = 2 * x.shape[0] * 2.0 ** -24 * (np.abs(g).T @ np.abs(x))  # |fl(sum) - sum| <= n u sum|terms|, both orders
    assert np.all(np.abs(np_of(wt.grad) - other_order) <= bound)
    tw = torch.tensor(w, requires_grad=True)
    torch.nn.functional.linear(torch.tensor(x), tw).backward(torch.tensor(g))
    np.testing.assert_allclose(np_of(wt.grad), tw.grad.numpy(), rtol=1e-5, atol=1e-5)
    # the first operand transposed (a.t() @ b): its gradient too
    a = flow.tensor(rng.standard_normal((6, 4)).astype(np.float32), requires_grad=True)
    b = flow.tensor(rng.standard_normal((6, 3)).astype(np.float32), requires_grad=True)
    (a.t() @ b).sum().backward()
    ta, tb = (torch.tensor(np_of(t), requires_grad=True) for t in (a, b))
    (ta.t() @ tb).sum().backward()
    assert a.grad.stride() == (4, 1)
    np.testing.assert_allclose(np_of(a.grad), ta.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np_of(b.grad), tb.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_same_layout_gradient_copies_are_forwarded():
    # The transposed weight gradient reaches .grad through a view's backward:
    # a copy between two transposed views of one layout. The memory pass lets
    # the matmul write the destination (Note [Memory planning], "Same-layout
    # copies"): one gradient-sized buffer fewer at the peak, the same results.
    flow.manual_seed(0)
    lin = nn.Linear(64, 48, bias=False)

    def f(x, g):
        lin.weight.grad = None
        lin(x).backward(g)
        return lin.weight.grad * 1.0

    args = [(randn("cpu", 16, 64, seed=k), randn("cpu", 16, 48, seed=k + 1)) for k in range(3)]
    ct = _graph.trace(f, *args[0])
    unplanned = _graph.trace(f, *args[0], passes=[p for p, _ in ct.passes if p != "memory"])
    assert "1 copies forwarded" in dict(ct.passes)["memory"], ct.passes
    ops = lambda plan: [line.split("=")[1].split(".")[0].strip() for line in plan.describe().splitlines()
                        if line.strip().startswith("%") and " = " in line]
    assert ops(unplanned).count("copy") == ops(ct).count("copy") + 1
    assert ct.memory()["transient"] <= 48 * 64 * 4 + 16 * 64 * 4  # the gradient once (and x^T's neighbours)
    for a in args:
        want = np_of(f(*a))
        for plan in (ct, unplanned):
            np.testing.assert_array_equal(np_of(plan.run(*a)), want)


def test_mlp_training_step_holds_each_weight_gradient_once():
    # SGD momentum with set_to_none: every gradient dies at its update, so the
    # arena holds the largest weight gradient once, plus a few activations.
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = flow.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    graph = TrainGraph(model, opt)
    x, y = randn("cpu", 32, 64), flow.randint(0, 10, (32,))
    graph(x, y)
    graph(x, y)
    plan = next(iter(graph._plans.values()))
    largest_grad, activation = 256 * 256 * 4, 32 * 256 * 4
    assert plan.memory()["transient"] <= largest_grad + 4 * activation, plan.memory()


def test_a_large_arena_counts_its_bytes_not_its_segment():
    # The allocator splits the unused tail of a large segment off (kept free
    # for merging), so memory_allocated counts what the arena asked for.
    flow.synchronize()
    before = flow.memory.memory_allocated("cpu")
    n = (9 << 20) // 4 + 1000  # 9 MiB and a bit: a 10 MiB segment
    t = flow.empty(n)
    assert flow.memory.memory_allocated("cpu") - before == (n * 4 + 511) // 512 * 512
    del t
    assert flow.memory.memory_allocated("cpu") == before
