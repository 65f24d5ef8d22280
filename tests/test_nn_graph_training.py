"""nn.Graph training features (python/monoflow/nn/graph/, docs/graph_runtime.md
"nn.Graph"): gradient accumulation, gradient clipping by param-group keys and
by clip_grad_norm_ inside build, lr_scale, RMSprop/Adagrad, and parameters
that get no gradient. Each is checked against the same training written
eagerly: losses, parameters and optimizer state after several steps, bit for
bit where the same kernels run."""
from hypothesis import given, strategies as st
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import nn


def _np(t):
    return t.detach().numpy().copy()


def _mlp():
    flow.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))


def _data(n, batch=8, seed=0):
    rng = np.random.default_rng(seed)
    return [(flow.tensor(rng.standard_normal((batch, 6)).astype(np.float32)),
             flow.tensor(rng.integers(0, 3, batch))) for _ in range(n)]


class TrainGraph(nn.Graph):
    def __init__(self, model, opt, sch=None, accumulate=1):
        super().__init__()
        self.model = model
        self.add_optimizer(opt, lr_sch=sch)
        if accumulate > 1:
            self.config.set_gradient_accumulation_steps(accumulate)

    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def _eager_step(model, opt, x, y, accumulate=1):
    """The graph's step written by hand (Note [Gradient accumulation semantics])."""
    losses = []
    for xb, yb in zip(x.chunk(accumulate), y.chunk(accumulate)):
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        losses.append(loss)
    if accumulate > 1:
        with flow.no_grad():
            for p in model.parameters():
                p.grad.mul_(1.0 / accumulate)
    opt.clip_grad()
    opt.step()
    opt.zero_grad()
    return flow.stack(losses) if accumulate > 1 else losses[0]


def _assert_same_training(m_e, o_e, m_g, o_g, exact):
    check = np.testing.assert_array_equal if exact else (
        lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6))
    for pe, pg in zip(m_e.parameters(), m_g.parameters()):
        check(_np(pg), _np(pe))
        assert set(o_g.state[pg]) == set(o_e.state[pe])
        for k, v in o_e.state[pe].items():
            if isinstance(v, flow.Tensor):
                check(_np(o_g.state[pg][k]), _np(v))
            else:
                assert o_g.state[pg][k] == v, k


def _run(make_opt, steps=5, accumulate=1, sched=False, batch=8, exact=True, slots=1):
    data = _data(steps, batch)
    runs = []
    for mode in ("eager", "graph"):
        model = _mlp()
        opt = make_opt(model)
        sch = flow.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5) if sched else None
        graph = TrainGraph(model, opt, sch, accumulate) if mode == "graph" else None
        if graph is not None:
            graph.config.slots = slots
        losses = []
        for x, y in data:
            if graph is None:
                out = _eager_step(model, opt, x, y, accumulate)
                if sch is not None:
                    sch.step()
            else:
                out = graph(x, y)
            losses.append(_np(out))
        runs.append((model, opt, losses, graph))
    (m_e, o_e, l_e, _), (m_g, o_g, l_g, graph) = runs
    check = np.testing.assert_array_equal if exact else (
        lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6))
    for a, b in zip(l_g, l_e):
        assert a.shape == b.shape
        check(a, b)
    _assert_same_training(m_e, o_e, m_g, o_g, exact)
    return graph


# ------------------------------------------------------------------ gradient accumulation

@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_gradient_accumulation_matches_the_hand_written_loop(kind):
    if kind == "sgd":
        graph = _run(lambda m: flow.optim.SGD(m.parameters(), lr=0.1, momentum=0.9), accumulate=4)
    else:
        graph = _run(lambda m: flow.optim.Adam(m.parameters(), lr=0.01), accumulate=2, sched=True)
    assert len(graph._plans) == 1  # the first call is eager (creates the state), then one trace, then replays


@given(steps=st.sampled_from([1, 2, 4]), per_micro=st.integers(1, 3), momentum=st.sampled_from([0.0, 0.9]),
       clip=st.sampled_from([None, 0.1]), slots=st.integers(1, 2))
def test_gradient_accumulation_property(steps, per_micro, momentum, clip, slots):
    # any micro-batch count and size, with and without momentum state and
    # clipping, any slot count: the graph is the hand-written loop, bit for bit
    def make(m):
        extra = {} if clip is None else {"clip_grad_max_norm": clip}
        return flow.optim.SGD(_groups(m, **extra), lr=0.1, momentum=momentum)
    _run(make, steps=3, accumulate=steps, batch=steps * per_micro, slots=slots)


def test_gradient_accumulation_outputs_and_plan():
    model = _mlp()
    graph = TrainGraph(model, flow.optim.SGD(model.parameters(), lr=0.1), accumulate=4)
    (x, y), = _data(1)
    loss = graph(x, y)  # SGD without momentum has no state: this call traces
    assert list(loss.shape) == [4]  # one loss per micro-batch (OneFlow packs the outputs)
    ref = _mlp()
    want = [F.cross_entropy(ref(xb), yb).item() for xb, yb in zip(x.chunk(4), y.chunk(4))]
    np.testing.assert_array_equal(_np(loss), np.array(want, dtype=np.float32))
    plan = next(iter(graph._plans.values()))
    other = _mlp()
    single = TrainGraph(other, flow.optim.SGD(other.parameters(), lr=0.1))
    single(x, y)
    n_acc = plan.stats()["nodes"]
    n_one = next(iter(single._plans.values())).stats()["nodes"]
    assert n_acc > 3 * n_one  # the trace unrolled four forward/backward passes
    assert "gradient_accumulation_steps=4" in repr(graph)


class TupleOutGraph(TrainGraph):
    def build(self, x, y, scale):
        out = self.model(x)
        loss = F.cross_entropy(out, y) * scale
        loss.backward()
        return {"loss": loss, "logits": out, "scale": scale}


def test_gradient_accumulation_nested_outputs_and_constants():
    model = _mlp()
    graph = TupleOutGraph(model, flow.optim.SGD(model.parameters(), lr=0.1), accumulate=2)
    (x, y), = _data(1, batch=6)
    for _ in range(2):
        out = graph(x, y, 0.5)
    assert out["scale"] == 0.5
    assert list(out["loss"].shape) == [2] and list(out["logits"].shape) == [6, 3]


def test_gradient_accumulation_bad_batch_is_refused_before_running():
    model = _mlp()
    opt = flow.optim.Adam(model.parameters(), lr=0.01)
    graph = TrainGraph(model, opt, accumulate=3)
    (x, y), = _data(1, batch=8)
    before = [_np(p) for p in model.parameters()]
    with pytest.raises(ValueError, match=r"TrainGraph.*3 micro-batches.*shape \[8, 6\].*not divisible by 3"):
        graph(x, y)
    for p, b in zip(model.parameters(), before):
        np.testing.assert_array_equal(_np(p), b)
    assert not opt.state
    with pytest.raises(ValueError, match="at least 1"):
        graph.config.set_gradient_accumulation_steps(0)
    with pytest.raises(TypeError, match="expects an int"):
        graph.config.set_gradient_accumulation_steps(2.0)


# ------------------------------------------------------------------ clipping and lr_scale

def _groups(model, **extra):
    ps = list(model.parameters())
    return [dict(params=ps[:2], **extra), dict(params=ps[2:])]


@pytest.mark.parametrize("norm_type", [2.0, float("inf")])
def test_clip_grad_param_group_keys_match_eager_clip_grad(norm_type):
    # max norm small enough that clipping is active every step
    _run(lambda m: flow.optim.SGD(_groups(m, clip_grad_max_norm=0.05, clip_grad_norm_type=norm_type), lr=0.1,
                                  momentum=0.9))


def test_clip_grad_changes_the_update():
    def train(clip):
        model = _mlp()
        extra = {"clip_grad_max_norm": 1e-3} if clip else {}
        graph = TrainGraph(model, flow.optim.SGD(_groups(model, **extra), lr=0.1))
        for x, y in _data(2):
            graph(x, y)
        return _np(next(model.parameters()))
    assert not np.allclose(train(True), train(False))


class ClipInBuildGraph(TrainGraph):
    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(self.model.parameters(), 0.05)
        return loss, norm


def test_clip_grad_norm_inside_build_traces_and_matches_eager():
    data = _data(4)
    m_e = _mlp()
    o_e = flow.optim.SGD(m_e.parameters(), lr=0.1, momentum=0.9)
    eager = []
    for x, y in data:
        loss = F.cross_entropy(m_e(x), y)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(m_e.parameters(), 0.05)
        o_e.step()
        o_e.zero_grad()
        eager.append((loss.item(), norm.item()))
    m_g = _mlp()
    o_g = flow.optim.SGD(m_g.parameters(), lr=0.1, momentum=0.9)
    graph = ClipInBuildGraph(m_g, o_g)
    got = [tuple(t.item() for t in graph(x, y)) for x, y in data]
    assert len(graph._plans) == 1 and got == eager
    _assert_same_training(m_e, o_e, m_g, o_g, exact=True)


@pytest.mark.parametrize("sched", [False, True])
@pytest.mark.parametrize("kind", ["sgd", "adam", "rmsprop", "adagrad"])
def test_lr_scale_scales_the_graphs_update(kind, sched):
    """OneFlow's lr_scale key: inside a graph the group trains at lr * lr_scale, exactly as an eager
    group whose lr is lr * lr_scale (schedules included)."""
    make = {"sgd": lambda g, lr: flow.optim.SGD(g, lr=lr, momentum=0.9),
            "adam": lambda g, lr: flow.optim.AdamW(g, lr=lr, weight_decay=0.1),
            "rmsprop": lambda g, lr: flow.optim.RMSprop(g, lr=lr),
            "adagrad": lambda g, lr: flow.optim.Adagrad(g, lr=lr)}[kind]
    lr = {"sgd": 0.1, "adam": 0.01, "rmsprop": 0.01, "adagrad": 0.1}[kind]
    m_e, m_g = _mlp(), _mlp()
    o_e, o_g = make(_groups(m_e, lr=lr * 0.25), lr), make(_groups(m_g, lr_scale=0.25), lr)
    s_e, s_g = ((flow.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5) if sched else None) for o in (o_e, o_g))
    graph = TrainGraph(m_g, o_g, s_g)
    for x, y in _data(5):
        _eager_step(m_e, o_e, x, y)
        if s_e is not None:
            s_e.step()
        graph(x, y)
    _assert_same_training(m_e, o_e, m_g, o_g, exact=kind != "sgd" or sched)
    assert len(graph._plans) == 1


def test_lr_scale_is_not_read_by_eager_steps():
    # OneFlow's eager optimizers read lr alone (its lr_scale page uses the key for the user's own
    # decay rule): a group with lr_scale steps as one without
    a, b = _mlp(), _mlp()
    oa = flow.optim.SGD(_groups(a, lr_scale=0.5), lr=0.2)
    ob = flow.optim.SGD(_groups(b), lr=0.2)
    for (x, y) in _data(2):
        for m, o in ((a, oa), (b, ob)):
            F.cross_entropy(m(x), y).backward()
            o.step()
            o.zero_grad()
    for pa, pb in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(_np(pa), _np(pb))


# ------------------------------------------------------------------ the graph's own lr schedule

@pytest.mark.parametrize("make_sched", [
    lambda o: flow.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5),
    lambda o: flow.optim.lr_scheduler.WarmupLR(flow.optim.lr_scheduler.CosineDecayLR(o, decay_steps=4),
                                               warmup_factor=0.1, warmup_iters=2),
    lambda o: flow.optim.lr_scheduler.LambdaLR(o, lambda step: 1.0 / (1 + step)),
])
def test_graph_steps_its_own_schedule_and_leaves_the_users(make_sched):
    # OneFlow compiles the schedule into the graph: the scheduler and the optimizer's lr the user
    # holds stay at step 0 (test_graph_lr_scheduler replays them eagerly after training the graph),
    # and stepping them by hand between graph calls does not move the graph's schedule.
    data = _data(6)
    m_e = _mlp()
    o_e = flow.optim.SGD(m_e.parameters(), lr=0.2, momentum=0.9)
    s_e = make_sched(o_e)
    for x, y in data:
        _eager_step(m_e, o_e, x, y)
        s_e.step()

    m_g = _mlp()
    o_g = flow.optim.SGD(m_g.parameters(), lr=0.2, momentum=0.9)
    s_g = make_sched(o_g)
    graph = TrainGraph(m_g, o_g, s_g)
    users = lambda: (s_g.last_epoch, s_g.get_last_lr(), o_g.param_groups[0]["lr"])
    for i, (x, y) in enumerate(data):
        before = users()
        graph(x, y)
        assert users() == before and before[0] == i
        s_g.step()  # the user's object moves; the graph's schedule does not
    _assert_same_training(m_e, o_e, m_g, o_g, exact=True)


# ------------------------------------------------------------------ more optimizers

@pytest.mark.parametrize("make", [
    lambda m: flow.optim.RMSprop(m.parameters(), lr=0.01),
    lambda m: flow.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.9, centered=True, weight_decay=0.01),
    lambda m: flow.optim.Adagrad(m.parameters(), lr=0.1, lr_decay=0.01, weight_decay=0.01),
    lambda m: flow.optim.Adagrad(m.parameters(), lr=0.1, initial_accumulator_value=0.1, maximize=True),
], ids=["rmsprop", "rmsprop_centered_momentum", "adagrad_decay", "adagrad_init_maximize"])
def test_rmsprop_and_adagrad_match_eager(make):
    graph = _run(make, steps=6, sched=True)
    assert len(graph._plans) == 1


@pytest.mark.parametrize("make,exact", [
    (lambda m: flow.optim.Adadelta(m.parameters(), lr=0.5, weight_decay=0.01), True),
    (lambda m: flow.optim.Adadelta(m.parameters(), lr=0.5, rho=0.8, maximize=True), True),
    (lambda m: flow.optim.Adamax(m.parameters(), lr=0.01, weight_decay=0.01), True),
    (lambda m: flow.optim.Adamax(m.parameters(), lr=0.01, do_bias_correction=False), True),
    # RAdam's graph update runs both of eager's branches as one (rounded otherwise); beta2 = 0.9
    # switches the rectified step on at step 6 of the 10, inside one plan
    (lambda m: flow.optim.RAdam(m.parameters(), lr=0.01, betas=(0.9, 0.9)), False),
    (lambda m: flow.optim.RAdam(m.parameters(), lr=0.01, betas=(0.8, 0.7), weight_decay=0.1,
                                decoupled_weight_decay=True), False),
    (lambda m: flow.optim.RAdam(m.parameters(), lr=0.01, betas=(0.9, 0.6), do_bias_correction=False), False),
], ids=["adadelta", "adadelta_maximize", "adamax", "adamax_no_bias_correction", "radam", "radam_decoupled",
        "radam_no_bias_correction"])
def test_adadelta_adamax_radam_match_eager(make, exact):
    graph = _run(make, steps=10, sched=True, exact=exact)
    assert len(graph._plans) == 1


@pytest.mark.parametrize("make", [
    lambda m: flow.optim.Adam(m.parameters(), lr=0.05, do_bias_correction=False),
    lambda m: flow.optim.Adam(m.parameters(), lr=0.05, weight_decay=0.01, do_bias_correction=False),
    lambda m: flow.optim.AdamW(m.parameters(), lr=0.05, weight_decay=0.1, amsgrad=True, do_bias_correction=False),
], ids=["adam", "adam_l2", "adamw_amsgrad"])
def test_adam_without_bias_correction_matches_eager(make):
    # OneFlow's do_bias_correction=False (its test_graph_adam_optim): the graph used to correct anyway
    graph = _run(make, steps=6, sched=True)
    assert len(graph._plans) == 1


def test_graph_adam_without_bias_correction_follows_oneflows_rule():
    # x -= lr * m / (sqrt(v) + eps), the moments not divided by 1 - beta^t
    g = np.array([0.5, -1.0], np.float32)
    w = nn.Parameter(flow.tensor([1.0, 2.0]))
    holder = nn.Module()
    holder.w = w
    opt = flow.optim.Adam([w], lr=0.1, betas=(0.9, 0.99), do_bias_correction=False)

    class G(nn.Graph):
        def __init__(self):
            super().__init__()
            self.h = holder
            self.add_optimizer(opt)

        def build(self, grad):
            loss = (self.h.w * grad).sum()
            loss.backward()
            return loss

    graph, x, m, v = G(), np.array([1.0, 2.0]), 0.0, 0.0
    for _ in range(3):
        graph(flow.tensor(g))
        m, v = 0.9 * m + 0.1 * g, 0.99 * v + 0.01 * g * g
        x = x - 0.1 * m / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(w.detach().numpy(), x, rtol=1e-5)


def test_radam_and_adamax_without_bias_correction_follow_oneflows_rule():
    # OneFlow's do_bias_correction=False: m_hat = m, and RAdam's rho_t = rho_inf - 2 t beta2^t
    g = np.array([0.5, -1.0], np.float32)
    for beta2, steps in ((0.6, 3), (0.999, 2)):
        w = nn.Parameter(flow.tensor([1.0, 2.0]))
        opt = flow.optim.RAdam([w], lr=0.1, betas=(0.9, beta2), do_bias_correction=False)
        x, m, v = np.array([1.0, 2.0]), 0.0, 0.0
        rho_inf = 2 / (1 - beta2) - 1
        for t in range(1, steps + 1):
            w.grad = flow.tensor(g)
            opt.step()
            m, v = 0.9 * m + 0.1 * g, beta2 * v + (1 - beta2) * g * g
            rho = rho_inf - 2 * t * beta2 ** t
            if rho > 5:
                r = np.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
                x = x - 0.1 * m * r / (np.sqrt(v) + 1e-8)
            else:
                x = x - 0.1 * m
        np.testing.assert_allclose(w.detach().numpy(), x, rtol=1e-5)
    w = nn.Parameter(flow.tensor([1.0, 2.0]))
    opt = flow.optim.Adamax([w], lr=0.1, do_bias_correction=False)
    w.grad = flow.tensor(g)
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [1.0 - 0.1 * 0.05 / 0.5, 2.0 + 0.1 * 0.1 / 1.0], rtol=1e-5)


class PartialGraph(TrainGraph):
    """Uses the first layer only: the last layer's parameters get no gradient."""

    def build(self, x, y):
        loss = self.model[0](x).square().mean()
        loss.backward()
        return loss


@pytest.mark.parametrize("warm", [True, False])
def test_parameters_without_gradient_keep_their_step_count(warm):
    def setup():
        model = _mlp()
        return model, flow.optim.Adam(model.parameters(), lr=0.01)
    m_e, o_e = setup()
    m_g, o_g = setup()
    if not warm:  # optimizer state made for every parameter before the graph: the graph traces at once
        for m, o in ((m_e, o_e), (m_g, o_g)):
            x, y = _data(1)[0]
            F.cross_entropy(m(x), y).backward()
            o.step()
            o.zero_grad()
    graph = PartialGraph(m_g, o_g)
    for x, _ in _data(5):
        loss = m_e[0](x).square().mean()
        loss.backward()
        o_e.step()
        o_e.zero_grad()
        assert graph(x, None).item() == loss.item()
    _assert_same_training(m_e, o_e, m_g, o_g, exact=True)
    last = list(m_g.parameters())[-1]
    assert o_g.state[last].get("step", 0) == (1 if not warm else 0)
    # learned from the eager first step, or from the first trace (then one more compile)
    assert len(graph._plans) == (1 if warm else 2)


class NonfiniteCheckGraph(TrainGraph):
    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0, error_if_nonfinite=True)
        return loss


def test_clip_grad_norm_error_if_nonfinite_in_build_names_the_line():
    # its check reads the norm on the host, which a plan cannot repeat
    model = _mlp()
    graph = NonfiniteCheckGraph(model, flow.optim.SGD(model.parameters(), lr=0.1))
    x, y = _data(1)[0]
    with pytest.raises(RuntimeError, match=r"NonfiniteCheckGraph\.build\(\).*inside a graph trace.*error_if_nonfinite"):
        graph(x, y)


@pytest.mark.parametrize("stale", ["zeros", "values"])
def test_gradients_left_by_eager_code_are_not_part_of_the_graphs_step(stale):
    # OneFlow's graph never sees eager .grad: the step starts from none, traces one plan (no eager
    # fallback) and matches eager training whose gradients were cleared first
    import warnings

    def make():
        flow.manual_seed(0)
        m = nn.Linear(3, 2)
        return m, flow.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)

    x = flow.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    m_e, o_e = make()
    m_g, o_g = make()
    for m, o in ((m_e, o_e), (m_g, o_g)):
        m(x).sum().backward()
        o.step()
        o.zero_grad(set_to_none=False)
        if stale == "values":
            (m(x) * 3).sum().backward()  # left over, never stepped
    o_e.zero_grad(set_to_none=True)

    class G(nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = m_g
            self.add_optimizer(o_g)

        def build(self, x):
            loss = self.m(x).sum()
            loss.backward()
            return loss

    g = G()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(4):
            g(x)
            m_e(x).sum().backward()
            o_e.step()
            o_e.zero_grad()
    assert len(g._plans) == 1 and not g._eager_builds
    for a, b in zip(m_e.parameters(), m_g.parameters()):
        np.testing.assert_array_equal(b.detach().numpy(), a.detach().numpy())
