"""Random kernels that share one draw (Note [Shared random draws] in
core/include/monoflow/generator.h): a trace that sets a generator back and
draws the same counters again (activation checkpointing's recompute) gives
both random nodes the same (seed, offset) at every run, and the generator
advances as it does eagerly."""
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _C, _graph, nn
from monoflow.utils.checkpoint import checkpoint


def _np(t):
    return t.detach().numpy().copy()


def _counters():
    """The CPU default generator's (seed, offset)."""
    return tuple(int(v) for v in np.frombuffer(_np(_C.default_generator_for("cpu").get_state()).tobytes(),
                                                 dtype=np.uint64))


def _redraw(t):
    """Two dropouts of t with the generator set back in between: the same mask twice."""
    gen = _C.default_generator_for("cpu")
    state = gen.get_state()
    a = F.dropout(t, 0.5, training=True)
    after = gen.get_state()
    gen.set_state(state)
    b = F.dropout(t * 2, 0.5, training=True)
    gen.set_state(after)
    c = F.dropout(t, 0.5, training=True)  # a fresh draw
    return a, b, c


# ---------------------------------------------------------------- trace level

def test_a_repeated_reservation_shares_the_earlier_draw_at_every_run():
    x = flow.ones(64)
    flow.manual_seed(3)
    eager = [[_np(r) for r in _redraw(x)] for _ in range(4)]
    eager_counters = _counters()
    for a, b, c in eager:
        np.testing.assert_array_equal(b, 2 * a)  # the same mask
        assert not np.array_equal(a, c)

    flow.manual_seed(3)
    ct = _graph.trace(_redraw, x)
    runs = [[_np(r) for r in ct.example_outputs]]
    runs += [[_np(r) for r in ct.run(x)] for _ in range(2)]
    runs += [[_np(r) for r in ct.run(x, threads=2, slots=2)]]
    assert ct.stats()["random_nodes"] == 3
    for got, want in zip(runs, eager):  # eager's stream of numbers, run after run
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    assert _counters() == eager_counters  # the shared draw reserved once per run, as eagerly
    listing = ct.describe()
    shared = [line for line in listing.splitlines() if "same draw as %" in line]
    assert len(shared) == 1, listing


def test_shared_draws_with_several_iterations_slots_and_threads():
    x = flow.ones(32)
    flow.manual_seed(11)
    ct = _graph.trace(_redraw, x)
    flow.manual_seed(12)
    serial = [[_np(r) for r in out] for out in ct.run_each([x] * 3)]
    flow.manual_seed(12)
    parallel = [[_np(r) for r in out] for out in ct.run_each([x] * 3, slots=2, threads=3)]
    for s, p in zip(serial, parallel):
        for a, b in zip(s, p):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(s[1], 2 * s[0])
    assert not np.array_equal(serial[0][0], serial[1][0])  # each iteration draws anew


def test_a_partly_repeated_reservation_is_refused():
    def f(t):
        gen = _C.default_generator_for("cpu")
        state = gen.get_state()
        a = F.dropout(t, 0.5, training=True)
        gen.set_state(state)
        b = F.dropout(t[:16], 0.5, training=True)  # counters overlap a's, but not all of them
        return a, b

    with pytest.raises(RuntimeError, match="earlier random kernel of the trace drew"):
        _graph.trace(f, flow.ones(64))
    F.dropout(flow.ones(4), 0.5, training=True)  # the trace was abandoned: eager works


# ---------------------------------------------------------------- nn.Graph + checkpointing

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 16)
        self.drop = nn.Dropout(0.4)
        self.out = nn.Linear(16, 8)

    def forward(self, x):
        return self.out(self.drop(self.lin(x).relu()))


def _model():
    flow.manual_seed(0)
    return nn.Sequential(Block(), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 4))


class TrainGraph(nn.Graph):
    def __init__(self, model, opt, checkpointed):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)
        self.model[0].to(nn.graph.GraphModule).activation_checkpointing = checkpointed

    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def _data(steps):
    rng = np.random.default_rng(0)
    return [(flow.tensor(rng.standard_normal((6, 8)).astype(np.float32)),
             flow.tensor(rng.integers(0, 4, 6))) for _ in range(steps)]


def _train_eager(data, checkpointed):
    model = _model()
    opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    flow.manual_seed(7)
    losses = []
    for x, y in data:
        h = checkpoint(model[0], x, use_reentrant=False) if checkpointed else model[0](x)
        for m in list(model)[1:]:
            h = m(h)
        loss = F.cross_entropy(h, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(_np(loss))
    return losses, [_np(p) for p in model.parameters()], _counters()


def _train_graph(data, checkpointed):
    model = _model()
    opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    graph = TrainGraph(model, opt, checkpointed)
    flow.manual_seed(7)
    losses = [_np(graph(x, y)) for x, y in data]  # step 1 eager (momentum buffers), step 2 traces
    return losses, [_np(p) for p in model.parameters()], _counters(), graph


def test_checkpointed_dropout_trains_in_a_graph_as_eager_checkpointed_training():
    data = _data(5)
    e_losses, e_params, e_counters = _train_eager(data, checkpointed=True)
    g_losses, g_params, g_counters, graph = _train_graph(data, checkpointed=True)
    for g, e in zip(g_losses, e_losses):
        np.testing.assert_array_equal(g, e)
    for g, e in zip(g_params, e_params):
        np.testing.assert_array_equal(g, e)
    assert g_counters == e_counters  # the generator advanced exactly as eagerly

    # Without checkpointing, in a graph and eagerly: the very same training.
    p_losses, p_params, p_counters, _ = _train_graph(data, checkpointed=False)
    u_losses, _, _ = _train_eager(data, checkpointed=False)
    for g, p, u in zip(g_losses, p_losses, u_losses):
        np.testing.assert_array_equal(g, p)
        np.testing.assert_array_equal(p, u)
    for g, p in zip(g_params, p_params):
        np.testing.assert_array_equal(g, p)
    assert p_counters == g_counters

    plan = next(iter(graph._plans.values()))
    shared = [line for line in plan.describe().splitlines() if "same draw as %" in line]
    assert len(shared) == 1, plan.describe()  # the block's dropout, recomputed; the outer one is not
    assert plan.stats()["random_nodes"] == 3
