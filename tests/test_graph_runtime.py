"""Static-graph foundation (monoflow._graph, docs/graph_runtime.md): tracing at
the kernel-launch level, the plan's storage classes and dependencies, and the
actor runtime (slots, threads, errors, stalls, timeouts).

Replays run the very kernels eager mode runs, in an order the dependencies
allow, so results are compared for equality with eager execution."""
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _graph, nn


def _np(t):
    return t.detach().numpy().copy()


def _randn(device, *shape, seed=0):
    rng = np.random.default_rng(seed)
    return flow.tensor(rng.standard_normal(shape).astype(np.float32), device=device)


# ---------------------------------------------------------------- replay = eager

def _many_ops(x, w, b):
    h = x @ w + b                      # matmul, broadcast add
    h = (h.tanh() * 0.5 - h.sigmoid()).exp()   # elementwise chain
    s = h.sum(dim=1, keepdim=True)      # reduction
    m = h.T.contiguous()[1:, ::2]       # views
    z = flow.softmax(h, dim=1) + h.mean()
    h2 = h.clone()
    h2[:, 0] = 3.0                      # in-place write into a view
    return s, m, z, h2.amax(dim=0)


def test_replay_of_many_ops_matches_eager(device):
    w, b = _randn(device, 5, 7, seed=1), _randn(device, 7, seed=2)
    ct = _graph.trace(_many_ops, _randn(device, 4, 5), w, b)
    for seed in (3, 4):
        x = _randn(device, 4, 5, seed=seed)
        got = ct.run(x, w, b)
        want = _many_ops(x, w, b)
        for g, e in zip(got, want):
            np.testing.assert_array_equal(_np(g), _np(e))
    stats = ct.stats()
    assert stats["input"] == 3 and stats["output"] >= 3 and stats["transient"] > 0


def _mlp(device, momentum=0.0):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.1, momentum=momentum)


def _step(model, opt):
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def _batches(device, n, batch=5, seed=0):
    rng = np.random.default_rng(seed)
    return [(flow.tensor(rng.standard_normal((batch, 6)).astype(np.float32), device=device),
             flow.tensor(rng.integers(0, 3, batch), device=device)) for _ in range(n)]


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_training_step_replays_like_eager(device, momentum):
    data = _batches(device, 4)
    m_eager, o_eager = _mlp(device, momentum)
    m_graph, o_graph = _mlp(device, momentum)
    if momentum:  # momentum state is created by the first eager step, not traced
        _step(m_eager, o_eager)(*data[0])
        _step(m_graph, o_graph)(*data[0])
    eager = [_step(m_eager, o_eager)(x, y).item() for x, y in data]
    ct = _graph.trace(_step(m_graph, o_graph), *data[0])  # the trace is the first step
    graph = [ct.example_outputs.item()] + [ct.run(x, y).item() for x, y in data[1:]]
    assert graph == eager
    # The module's parameters are the graph's: updated in place, seen by eager code.
    for pe, pg in zip(m_eager.parameters(), m_graph.parameters()):
        np.testing.assert_array_equal(_np(pg), _np(pe))
        np.testing.assert_array_equal(_np(pg.grad), _np(pe.grad))
    if momentum:
        for pe, pg in zip(m_eager.parameters(), m_graph.parameters()):
            np.testing.assert_array_equal(_np(o_graph.state[pg]["momentum_buffer"]),
                                          _np(o_eager.state[pe]["momentum_buffer"]))
    stats = ct.stats()
    assert stats["persistent"] >= 8  # 4 parameters and their gradients
    assert stats["carried_edges"] > 0  # the update orders the next iteration's forward


@given(slots=st.integers(1, 3), threads=st.integers(1, 3), iterations=st.integers(1, 4))
def test_slots_and_threads_do_not_change_results(slots, threads, iterations):
    data = _batches("cpu", iterations + 1, seed=7)
    m_eager, o_eager = _mlp("cpu")
    m_graph, o_graph = _mlp("cpu")
    eager = [_step(m_eager, o_eager)(x, y).item() for x, y in data]
    ct = _graph.trace(_step(m_graph, o_graph), *data[0])
    outs = ct.run_each(data[1:], slots=slots, threads=threads)
    assert [ct.example_outputs.item()] + [o.item() for o in outs] == eager
    for pe, pg in zip(m_eager.parameters(), m_graph.parameters()):
        np.testing.assert_array_equal(_np(pg), _np(pe))


@given(slots=st.integers(1, 4), threads=st.integers(1, 4))
def test_independent_iterations_overlap_through_registers(slots, threads):
    # No state between iterations: each one's results depend only on its input.
    w = _randn("cpu", 8, 8, seed=1)

    def f(x):
        h = x
        for _ in range(4):
            h = (h @ w).tanh()
        return h.sum(dim=0)

    xs = [_randn("cpu", 3, 8, seed=s) for s in range(6)]
    ct = _graph.trace(f, xs[0])
    outs = ct.run_each([(x,) for x in xs], slots=slots, threads=threads)
    for x, o in zip(xs, outs):
        np.testing.assert_array_equal(_np(o), _np(f(x)))
    assert ct.stats()["register_edges"] > 0


def test_outputs_are_fresh_each_run_and_inputs_are_rebound(device):
    def f(x, acc):
        acc.add_(x)          # written in place: the caller's tensor changes, as in eager
        return x * 2

    x0, acc0 = _randn(device, 3), flow.zeros(3, device=device)
    ct = _graph.trace(f, x0, acc0)
    x1, x2 = _randn(device, 3, seed=1), _randn(device, 3, seed=2)
    acc = flow.zeros(3, device=device)
    r1 = ct.run(x1, acc)
    r2 = ct.run(x2, acc)
    np.testing.assert_array_equal(_np(r1), _np(x1) * 2)  # not overwritten by the second run
    np.testing.assert_array_equal(_np(r2), _np(x2) * 2)
    np.testing.assert_allclose(_np(acc), _np(x1) + _np(x2))
    # A non-contiguous input is copied to the traced layout.
    xt = _randn(device, 3, 2, seed=3)[:, 0]
    np.testing.assert_array_equal(_np(ct.run(xt, acc)), _np(xt) * 2)


def test_same_input_over_iterations_accumulates_in_order():
    def f(acc, x):
        acc.mul_(2).add_(x)
        return acc.sum()

    acc, x = flow.zeros(4), flow.ones(4)
    ct = _graph.trace(f, acc, x)  # acc: 0 -> 1
    assert ct.run(acc, x, iterations=3).item() == 4 * 15.0
    assert ct.run(acc, x, iterations=3, slots=2, threads=3).item() == 4 * 127.0
    np.testing.assert_array_equal(_np(acc), np.full(4, 127.0))


def test_bad_inputs_are_refused():
    ct = _graph.trace(lambda x, k: x * k, flow.ones(2, 3), 2)
    with pytest.raises(ValueError, match="shape"):
        ct.run(flow.ones(3, 2), 2)
    with pytest.raises(TypeError, match="dtype"):
        ct.run(flow.ones(2, 3, dtype=flow.float64), 2)
    with pytest.raises(ValueError, match="non-tensor"):
        ct.run(flow.ones(2, 3), 3)
    with pytest.raises(ValueError, match="inputs"):
        _graph.trace(lambda a, b: a + b, *([flow.ones(2)] * 2)).run(flow.ones(2))
    np.testing.assert_array_equal(_np(ct.run(flow.full((2, 3), 4.0), 2)), np.full((2, 3), 8.0))


def test_lazy_trace_records_without_running():
    x = flow.ones(3)
    ct = _graph.trace(lambda t: (t + 1) * 3, x, execute=False)
    assert ct.example_outputs is None
    np.testing.assert_array_equal(_np(ct.run(flow.full((3,), 2.0))), np.full(3, 9.0))


def test_constants_made_inside_the_trace():
    def f(x):
        return x + flow.tensor([1.0, 2.0, 3.0])

    ct = _graph.trace(f, flow.zeros(3))
    np.testing.assert_array_equal(_np(ct.run(flow.ones(3))), [2.0, 3.0, 4.0])
    assert ct.stats()["persistent"] == 1


def test_tensors_kept_outside_the_trace_are_updated_by_runs():
    kept = []

    def f(t):
        h = t * 2
        kept.append(h)       # reachable from Python after the trace: Persistent
        return (h + 1).sum()

    ct = _graph.trace(f, flow.ones(3))
    ct.run(flow.full((3,), 5.0), iterations=2, slots=2)
    np.testing.assert_array_equal(_np(kept[0]), np.full(3, 10.0))
    assert ct.stats()["persistent"] == 1 and ct.stats()["transient"] == 1  # h + 1 is not kept


# ---------------------------------------------------------------- randomness

def test_random_kernels_draw_fresh_numbers_each_run_reproducibly(device):
    x = flow.ones(64, device=device)
    flow.manual_seed(5)
    eager = [_np(F.dropout(x, 0.5, training=True)) for _ in range(3)]

    flow.manual_seed(5)
    ct = _graph.trace(lambda t: F.dropout(t, 0.5, training=True), x)
    runs = [_np(ct.example_outputs), _np(ct.run(x)), _np(ct.run(x))]
    assert ct.stats()["random_nodes"] == 1
    assert not np.array_equal(runs[1], runs[2])  # not frozen at the traced mask
    for g, e in zip(runs, eager):  # the same stream of numbers as eager steps
        np.testing.assert_array_equal(g, e)
    flow.manual_seed(9)
    a = _np(ct.run(x, iterations=2))
    flow.manual_seed(9)
    np.testing.assert_array_equal(_np(ct.run(x, iterations=2, threads=2, slots=2)), a)


# ---------------------------------------------------------------- refused inside a trace

@pytest.mark.parametrize("read", [
    lambda t: t.numpy(),
    lambda t: t.sum().item(),
    lambda t: bool(t.sum() > 0),
    lambda t: t.tolist(),
    lambda t: repr(t),
    lambda t: flow.synchronize(),
])
def test_host_reads_inside_a_trace_raise(read):
    def f(t):
        y = t * 2
        read(y)
        return y

    with pytest.raises(RuntimeError, match="inside a graph trace: tensor values are not available while tracing"):
        _graph.trace(f, flow.ones(3))
    flow.ones(2).numpy()  # the trace was abandoned: reads work again


@pytest.mark.parametrize("read", [lambda t: t.numpy(), lambda t: t.item(), lambda t: t.tolist(), repr])
@pytest.mark.parametrize("what", ["input", "variable", "parameter", "written"])
def test_values_a_replay_changes_cannot_be_read_while_tracing(read, what):
    # Note [Constants read while tracing]: inputs, named variables, tensors requiring grad, and
    # whatever a traced kernel wrote
    state, weight, scratch = flow.ones(1), flow.ones(1, requires_grad=True), flow.zeros(1)

    def f(t):
        if what == "written":
            scratch.add_(t)  # a traced kernel writes it: a replay changes it
        read({"input": t, "variable": state, "parameter": weight, "written": scratch}[what])
        return t * 2

    with pytest.raises(RuntimeError, match="inside a graph trace: tensor values are not available while tracing"):
        _graph.trace(f, flow.ones(1), variables=[state])


def test_constants_can_be_read_while_tracing_and_stay_constant():
    # a tensor made outside the trace (or from host data inside it), not an input: OneFlow's free
    # eager tensor, whose values code may read (arange of tensor bounds in OneFlow's tests)
    start, stop, table = flow.tensor(1.0), flow.tensor(4.0), flow.tensor([10.0, 20.0, 30.0])

    def f(t):
        scale = float(table[1]) + flow.tensor([0.5]).item() + len(repr(start)) * 0  # reads of constants
        return t[: flow.arange(start, stop).numel()] * scale + flow.arange(start, stop)

    ct = _graph.trace(f, flow.ones(5))
    np.testing.assert_allclose(ct.example_outputs.numpy(), [21.5, 22.5, 23.5])
    np.testing.assert_allclose(ct.run(flow.full((5,), 2.0)).numpy(), [42.0, 43.0, 44.0])


def test_nn_graph_reads_a_free_tensor_but_not_its_buffers():
    class Ranged(flow.nn.Graph):
        def __init__(self, read_buffer):
            super().__init__()
            self.bn, self.read_buffer = flow.nn.BatchNorm1d(3), read_buffer
            self.lo, self.hi = flow.tensor(0), flow.tensor(3)

        def build(self, x):
            if self.read_buffer:
                self.bn.running_var.tolist()  # a buffer: training updates it between calls
            return self.bn(x) + flow.arange(self.lo, self.hi)

    x = flow.tensor(np.random.default_rng(0).standard_normal((4, 3)), dtype=flow.float32)
    g = Ranged(False)
    eager = flow.nn.BatchNorm1d(3)(x) + flow.arange(0, 3)
    np.testing.assert_allclose(g(x).numpy(), eager.detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="Tensor.numpy\\(\\) .* inside a graph trace"):
        Ranged(True)(x)


@pytest.mark.parametrize("op", [
    lambda t: flow.nonzero(t),
    lambda t: flow.masked_select(t, t > 0),
    lambda t: t[t > 0],
])
def test_value_dependent_shapes_inside_a_trace_raise(op):
    with pytest.raises(flow._C.DynamicShapeError, match="depends on tensor values"):  # a RuntimeError
        _graph.trace(op, flow.ones(3))


# ---------------------------------------------------------------- failures

def test_kernel_error_at_run_time_reaches_python_and_runtime_stays_usable():
    x = _randn("cpu", 4, 5)

    def f(t, idx):
        return flow.gather(t * 2, 1, idx)

    ct = _graph.trace(f, x, flow.tensor([[0], [1], [2], [3]]))
    bad = flow.tensor([[0], [1], [7], [3]])  # checked by the kernel, while running
    with pytest.raises((RuntimeError, ValueError, IndexError), match="index out of range"):
        ct.run(x, bad)
    good = flow.tensor([[4], [3], [2], [1]])
    np.testing.assert_array_equal(_np(ct.run(x, good)), _np(f(x, good)))
    assert not ct.dead


@pytest.mark.parametrize("threads", [1, 3])
def test_actor_error_stops_the_run_and_runtime_stays_usable(threads):
    ct = _graph.trace(lambda t: ((t + 1) * 2).exp().sum(), flow.ones(8), passes=None)  # nodes by index
    ct.run(flow.ones(8), threads=4)  # actors of another configuration, which must not be reused
    ct._runtime._debug_fail(2, "injected failure")
    with pytest.raises(RuntimeError, match=r"node %2 \(exp, iteration 0\): injected failure"):
        ct.run(flow.ones(8), iterations=5, slots=2, threads=threads)
    ct._runtime._debug_clear()
    out = ct.run(flow.zeros(8), iterations=5, slots=2, threads=threads)  # the failed run's configuration
    assert out.item() == pytest.approx(8 * np.exp(2.0), rel=1e-6)


@pytest.mark.parametrize("threads", [1, 2])
def test_dependency_cycle_is_reported_as_a_stall_not_a_hang(threads):
    ct = _graph.trace(lambda t: (t + 1) * 2 - 3, flow.ones(4), passes=None)  # nodes by index
    ct._runtime._debug_add_edge(2, 0)  # %0 now waits for %2, which waits for %0
    with pytest.raises(RuntimeError, match=r"stalled.*%0 \(add_scalar\) at iteration 0 waits for %2"):
        ct.run(flow.ones(4), iterations=2, threads=threads, timeout=30)
    ct._runtime._debug_clear()
    np.testing.assert_array_equal(_np(ct.run(flow.ones(4))), np.ones(4))


def test_stuck_actor_times_out_and_marks_the_runtime_dead():
    ct = _graph.trace(lambda t: (t + 1) * 2, flow.ones(4), passes=None)  # nodes by index
    ct._runtime._debug_hold(1)  # the actor of node 1 blocks inside its firing
    try:
        with pytest.raises(RuntimeError, match="no progress for 0.2 s.*runtime is dead"):
            ct.run(flow.ones(4), threads=2, timeout=0.2)
        assert ct.dead
        with pytest.raises(RuntimeError, match="runtime is dead"):
            ct.run(flow.ones(4), threads=2)
    finally:
        ct._runtime._debug_release()


def test_stuck_worker_that_comes_back_after_the_run_was_abandoned_is_harmless():
    # The held actor returns right after the run gave up, while the other
    # workers may not have woken to their stop yet: what it posts to them
    # must be dropped, not handled against the unbound run (it segfaulted).
    for k in range(12):
        ct = _graph.trace(lambda t: ((t + 1) * 2).sin() + t.exp() * 3, flow.ones(4), passes=None)
        ct._runtime._debug_hold(1 + k % 3)
        try:
            with pytest.raises(RuntimeError, match="runtime is dead"):
                ct.run(flow.ones(4), threads=2 + k % 3, iterations=2 + k % 3, timeout=0.05)
        finally:
            ct._runtime._debug_release()
        del ct
        fresh = _graph.trace(lambda t: t * 3, flow.ones(4))
        np.testing.assert_array_equal(_np(fresh.run(flow.ones(4), iterations=3)), np.full(4, 3.0))


def test_concurrent_runs_of_one_graph_are_refused_or_serialised():
    ct = _graph.trace(lambda t: t * 3, flow.ones(4))
    errors, results = [], []

    def worker():
        try:
            results.append(_np(ct.run(flow.ones(4), iterations=20)))
        except RuntimeError as e:
            errors.append(str(e))

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all("already running" in e for e in errors)
    assert len(results) + len(errors) == 3 and results
    for r in results:
        np.testing.assert_array_equal(r, np.full(4, 3.0))
