"""flow.nn.Graph (python/monoflow/nn/graph/, docs/graph_runtime.md "nn.Graph"):
eval graphs match eager over replays, the plan cache by input signature,
nested inputs/outputs, state_dict, printing, errors inside build, and
training graphs (SGD with momentum, Adam, AdamW, an lr scheduler) that match
eager training step for step. Accumulation, clipping, lr_scale, RMSprop and
Adagrad: test_nn_graph_training.py; GraphModule: test_nn_graph_module.py."""
import warnings

import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import nn


def _np(t):
    return t.detach().numpy().copy()


def _randn(device, *shape, seed=0):
    rng = np.random.default_rng(seed)
    return flow.tensor(rng.standard_normal(shape).astype(np.float32), device=device)


class EvalGraph(nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x):
        return self.model(x)


def _mlp(device):
    flow.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)


def _cnn(device):
    flow.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(4 * 4 * 4, 5)).to(device)


@pytest.mark.parametrize("make,shape", [(_mlp, (4, 6)), (_cnn, (2, 1, 8, 8))])
def test_eval_graph_matches_eager_over_replays(device, make, shape):
    model = make(device).eval()
    graph = EvalGraph(model)
    for seed in range(4):  # the first call traces, the others replay
        x = _randn(device, *shape, seed=seed)
        np.testing.assert_array_equal(_np(graph(x)), _np(model(x)))
    assert len(graph._plans) == 1


def test_new_input_signature_compiles_a_new_plan(capsys):
    model = _mlp("cpu").eval()
    graph = EvalGraph(model).debug()
    a, b = _randn("cpu", 4, 6), _randn("cpu", 7, 6, seed=1)
    graph(a)
    graph(a)
    out = graph(b)  # another batch size: recompiles instead of failing
    np.testing.assert_array_equal(_np(out), _np(model(b)))
    np.testing.assert_array_equal(_np(graph(a)), _np(model(a)))  # the first plan is still cached
    assert len(graph._plans) == 2
    printed = capsys.readouterr().out
    assert printed.count("compiled plan") == 2 and "a new input signature" in printed
    assert "matmul" in printed  # the plan itself is printed at compile
    graph(b.double().float())  # same signature (shape, dtype): no new plan
    assert len(graph._plans) == 2
    # OneFlow's keywords: ranks that print (this process is rank 0), its Python-stack options accepted
    quiet = EvalGraph(model).debug(1, ranks=[1], max_py_stack_depth=4, only_user_py_stack=False,
                                   op_repr_with_py_stack=True)
    quiet(a)
    loud = EvalGraph(model).debug(2, ranks=0)
    loud(a)
    assert capsys.readouterr().out.count("compiled plan") == 1
    EvalGraph(model).debug(1).debug(-1)(a)  # v_level -1 turns it off (OneFlow's levels: 0 to 3 are on)
    assert "compiled plan" not in capsys.readouterr().out


class NestedGraph(nn.Graph):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def build(self, inputs, scale):
        x, (y,) = inputs["x"], inputs["rest"]
        return {"sum": [self.lin(x) * scale, (self.lin(y),)], "n": scale}


def test_nested_inputs_and_outputs():
    graph = NestedGraph()
    graph.lin.eval()
    for seed in range(3):
        x, y = _randn("cpu", 2, 3, seed=seed), _randn("cpu", 4, 3, seed=seed + 10)
        out = graph({"x": x, "rest": [y]}, 2.0)
        assert set(out) == {"sum", "n"} and out["n"] == 2.0
        np.testing.assert_array_equal(_np(out["sum"][0]), _np(graph.lin(x) * 2.0))
        np.testing.assert_array_equal(_np(out["sum"][1][0]), _np(graph.lin(y)))
    graph({"x": x, "rest": [y]}, 3.0)  # a different constant is another signature
    assert len(graph._plans) == 2


def test_print_state_dict_and_load():
    model = _mlp("cpu").eval()
    graph = EvalGraph(model)
    before = repr(graph)
    assert "(model): Sequential(" in before and "not compiled yet" in before
    x = _randn("cpu", 4, 6)
    graph(x)
    after = repr(graph)
    assert "(model): Sequential(" in after and "plan 0" in after and "nodes" in after
    sd = graph.state_dict()  # OneFlow's layout: a module's state under its name
    assert list(sd) == ["model"] and list(sd["model"]) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    other = _mlp("cpu").eval()
    with flow.no_grad():
        for p in other.parameters():
            p.mul_(3.0)
    graph.load_state_dict(EvalGraph(other).state_dict())
    # loaded in place: the compiled plan now computes with the new parameters
    np.testing.assert_array_equal(_np(graph(x)), _np(other(x)))


class ReadsGraph(nn.Graph):
    def __init__(self, read):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.read = read

    def build(self, x):
        h = self.lin(x)
        if self.read == "numpy":
            h.numpy()
        elif self.read == "item":
            h.sum().item()
        elif self.read == "if":
            if h.sum() > 0:  # data-dependent Python control flow
                h = h * 2
        return h


@pytest.mark.parametrize("read", ["numpy", "item", "if"])
def test_host_reads_in_build_name_the_graph(read):
    graph = ReadsGraph(read)
    with pytest.raises(RuntimeError, match=r"ReadsGraph\.build\(\).*inside a graph trace.*happened inside build "
                                           r"\(at .*test_nn_graph\.py:\d+ in build"):
        graph(_randn("cpu", 2, 3))
    assert not graph._plans
    flow.ones(2).numpy()  # the trace was abandoned: reads work again


# ------------------------------------------------------------------ training

class TrainGraph(nn.Graph):
    def __init__(self, model, opt, sch=None):
        super().__init__()
        self.model = model
        self.add_optimizer(opt, lr_sch=sch)

    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def _train_setup(device, kind):
    model = _mlp(device)
    if kind in ("sgd", "sgd_constant_lr"):
        opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    elif kind == "sgd_nesterov_wd":
        opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
    elif kind == "adam":
        opt = flow.optim.Adam(model.parameters(), lr=0.01)
    else:
        opt = flow.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1, amsgrad=True)
    if kind == "sgd_constant_lr":  # lr is a constant of the plan (and of its cache key)
        return model, opt, None
    return model, opt, flow.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)


def _data(device, n, seed=0):
    rng = np.random.default_rng(seed)
    return [(flow.tensor(rng.standard_normal((5, 6)).astype(np.float32), device=device),
             flow.tensor(rng.integers(0, 3, 5), device=device)) for _ in range(n)]


@pytest.mark.parametrize("kind", ["sgd", "sgd_constant_lr", "sgd_nesterov_wd", "adam", "adamw"])
def test_training_graph_matches_eager(device, kind):
    data = _data(device, 6)
    m_e, o_e, s_e = _train_setup(device, kind)
    eager = []
    for x, y in data:
        o_e.zero_grad()
        loss = F.cross_entropy(m_e(x), y)
        loss.backward()
        o_e.step()
        if s_e is not None:
            s_e.step()
        eager.append(loss.item())
    m_g, o_g, s_g = _train_setup(device, kind)
    graph = TrainGraph(m_g, o_g, s_g)
    got = [graph(x, y).item() for x, y in data]
    assert len(graph._plans) == 1  # the scheduler's lr changes are fed to the plan, not recompiled
    # The schedule halved the lr twice (frozen constants would have diverged from eager below), in the
    # graph's own copy of it: the optimizer the user holds keeps its lr, as OneFlow's graph leaves it.
    assert s_g is None or o_g.param_groups[0]["lr"] == o_g.param_groups[0]["initial_lr"] == 8 * o_e.param_groups[0]["lr"]
    if kind.startswith("sgd"):
        assert got == eager
        check = np.testing.assert_array_equal
    else:
        np.testing.assert_allclose(got, eager, rtol=1e-6)

        def check(a, b):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    for pe, pg in zip(m_e.parameters(), m_g.parameters()):
        check(_np(pg), _np(pe))
        for k, v in o_e.state[pe].items():
            if isinstance(v, flow.Tensor):
                check(_np(o_g.state[pg][k]), _np(v))
            else:
                assert o_g.state[pg][k] == v


@pytest.mark.parametrize("name,value", [("momentum", 0.5), ("lr", 0.05)])
def test_training_graph_recompiles_when_a_constant_hyperparameter_changes(name, value):
    (m_e, o_e, _), (m_g, o_g, _) = _train_setup("cpu", "sgd"), _train_setup("cpu", "sgd")
    graph = TrainGraph(m_g, o_g)  # no scheduler: lr is a constant of the plan too
    data = _data("cpu", 5)

    def eager_step(x, y):
        o_e.zero_grad()
        loss = F.cross_entropy(m_e(x), y)
        loss.backward()
        o_e.step()
        return loss.item()
    for i, (x, y) in enumerate(data):
        if i == 3:  # after an eager step (creates momentum buffers), a trace and a replay
            assert len(graph._plans) == 1
            o_e.param_groups[0][name] = o_g.param_groups[0][name] = value
        assert graph(x, y).item() == eager_step(x, y)
    assert len(graph._plans) == 2  # recompiled for the new value instead of replaying the old one
    for pe, pg in zip(m_e.parameters(), m_g.parameters()):
        np.testing.assert_array_equal(_np(pg), _np(pe))


class _HandMadeSGD(flow.optim.SGD):
    """A subclass may change step(): the graph cannot know its per-step values."""


def test_unsupported_optimizer_is_refused():
    model = _mlp("cpu")
    with pytest.raises(TypeError, match="_HandMadeSGD is not supported in graph mode"):
        TrainGraph(model, _HandMadeSGD(model.parameters()))


def test_cnn_with_batch_norm_trains_like_eager(device):
    # BatchNorm's running statistics are persistent memory the plan updates in place.
    def setup():
        model = _cnn(device)
        return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(0)
    data = [(flow.tensor(rng.standard_normal((3, 1, 8, 8)).astype(np.float32), device=device),
             flow.tensor(rng.integers(0, 5, 3), device=device)) for _ in range(4)]
    m_e, o_e = setup()
    eager = []
    for x, y in data:
        o_e.zero_grad()
        loss = F.cross_entropy(m_e(x), y)
        loss.backward()
        o_e.step()
        eager.append(loss.item())
    m_g, o_g = setup()
    graph = TrainGraph(m_g, o_g)
    assert [graph(x, y).item() for x, y in data] == eager
    graph_state = TrainGraph(m_g, o_g).state_dict()
    assert "1.running_mean" in graph_state["model"]
    for (name, want), got in zip(m_e.state_dict().items(), m_g.state_dict().values()):
        np.testing.assert_array_equal(_np(got), _np(want), err_msg=name)


class ReadingTrainGraph(TrainGraph):
    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        if loss > 10:  # data-dependent: refused when traced
            loss = loss * 0
        return loss


def test_failed_training_trace_names_the_graph_and_keeps_step_counts():
    model, opt, _ = _train_setup("cpu", "adam")
    graph = ReadingTrainGraph(model, opt)
    (x, y), = _data("cpu", 1)
    graph(x, y)  # the eager first step (creates Adam's state) may read values
    assert all(opt.state[p]["step"] == 1 for p in model.parameters())
    with pytest.raises(RuntimeError, match=r"ReadingTrainGraph\.build\(\).*if loss > 10"):
        graph(x, y)
    assert all(opt.state[p]["step"] == 1 for p in model.parameters())


def test_config_slots_and_threads_keep_results():
    m_e, o_e, _ = _train_setup("cpu", "sgd_constant_lr")
    m_g, o_g, _ = _train_setup("cpu", "sgd_constant_lr")
    graph = TrainGraph(m_g, o_g)
    graph.config.slots, graph.config.threads = 2, 2
    for x, y in _data("cpu", 4, seed=3):
        o_e.zero_grad()
        loss = F.cross_entropy(m_e(x), y)
        loss.backward()
        o_e.step()
        assert graph(x, y).item() == loss.item()
    # the runtime's settings are visible where the graph is printed and debugged
    assert "(config): GraphConfig(slots=2, threads=2" in repr(graph)


def test_graph_name_is_unique_and_settable():
    """OneFlow's Graph.name: <class>_<n>, distinct per graph; a user's own `name` attribute wins."""
    class Named(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.fc = flow.nn.Linear(2, 2)

        def build(self, x):
            return self.fc(x)

    a, b = Named(), Named()
    assert a.name.startswith("Named_") and b.name.startswith("Named_") and a.name != b.name
    a.name = "mine"
    assert a.name == "mine" and a(flow.ones(1, 2)).shape == (1, 2)



def test_graph_outputs_are_contiguous_as_oneflows_lazy_outputs():
    # OneFlow's test_expand_stride (lazy): an expand() returned by build is a fresh contiguous tensor
    class Views(flow.nn.Graph):
        def build(self, x, y):
            return x.expand(2, 3, 4), [y.t()], {"same": y}

    g = Views()
    x, y = flow.randn(2, 1, 4), flow.randn(2, 3)
    for _ in range(2):  # the trace, then the plan
        ex, (t,), d = g(x, y)
        assert ex.is_contiguous() and ex.stride() == (12, 4, 1) and t.is_contiguous()
        np.testing.assert_array_equal(ex.numpy(), np.broadcast_to(x.numpy(), (2, 3, 4)))
        np.testing.assert_array_equal(t.numpy(), y.numpy().T)
        np.testing.assert_array_equal(d["same"].numpy(), y.numpy())


# ---------------------------------------------------------------- Note [Graphs run eagerly]

def test_value_dependent_shapes_run_build_eagerly_with_one_warning():
    class Select(flow.nn.Graph):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def build(self, x):
            return flow.masked_select(self.m(x), x > 0), flow.nonzero(x)

    m = flow.nn.Linear(3, 3)
    g = Select(m)
    rng = np.random.default_rng(0)
    with pytest.warns(UserWarning, match="output's shape depends on tensor values") as caught:
        for _ in range(3):  # different counts of positives each call
            x = flow.tensor(rng.standard_normal((4, 3)), dtype=flow.float32)
            sel, nz = g(x)
            np.testing.assert_allclose(sel.numpy(), flow.masked_select(m(x), x > 0).detach().numpy(), rtol=1e-6)
            np.testing.assert_array_equal(nz.numpy(), np.argwhere(x.numpy() != 0))
    assert len([w for w in caught if "output's shape" in str(w.message)]) == 1


@pytest.mark.parametrize("make", [
    lambda: flow.tensor([1.0, 2.0]),                       # from host data inside build
    lambda: flow.tensor([1.0, 2.0])[0:2],                  # a view of one
    lambda: flow.as_tensor(np.array([1.0, 2.0], np.float32)),
], ids=["tensor", "view", "as_tensor"])
def test_a_constant_written_in_place_in_build_starts_fresh_every_call(make):
    # Note [Constants written in place] (graph/trace.h): a plan would run the in-place add on what
    # the previous run left (1 + y, then 1 + 2y, ...); the graph runs build eagerly instead
    class G(nn.Graph):
        def build(self, y):
            x = make()
            x += y
            x.mul_(2)
            return x

    g = G()
    y = flow.tensor([0.5, -1.0])
    with pytest.warns(UserWarning, match="writes in place to a tensor the trace reads as a constant"):
        outs = [g(y).numpy() for _ in range(3)]
    for out in outs:
        np.testing.assert_array_equal(out, [3.0, 2.0])


def test_fills_and_inputs_written_in_place_keep_their_plan():
    # what a kernel made (zeros) or the call feeds (inputs) is no constant: the plan replays
    class G(nn.Graph):
        def build(self, y):
            x = flow.zeros(2)
            x += y
            y.mul_(3)
            return x, y

    g = G()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in range(3):
            y = flow.tensor([1.0, float(k)])
            x, y3 = g(y)
            np.testing.assert_array_equal(x.numpy(), [1.0, k])
            np.testing.assert_array_equal(y3.numpy(), [3.0, 3.0 * k])
            np.testing.assert_array_equal(y.numpy(), [1.0, k])  # (the caller's input is not written)
    assert len(g._plans) == 1 and not g._eager_builds


def test_a_training_graph_with_boolean_indexing_trains_as_eager():
    def make():
        flow.manual_seed(3)
        model = flow.nn.Sequential(flow.nn.Linear(3, 3), flow.nn.BatchNorm1d(3))
        return model, flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    class Train(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.model, opt = make()
            self.add_optimizer(opt)

        def build(self, x):
            loss = self.model(x)[x > 0].sum()
            loss.backward()
            return loss

    graph = Train()
    model, opt = make()
    rng = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(4):  # the first call is the eager warm-up step, the second tries a trace
            x = flow.tensor(rng.standard_normal((8, 3)), dtype=flow.float32)
            got = graph(x)
            opt.zero_grad()
            want = model(x)[x > 0].sum()
            want.backward()
            opt.step()
            np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-5)
    # the stopped trace's batch-norm update was undone: the statistics saw each batch once
    np.testing.assert_allclose(graph.model[1].running_mean.numpy(), model[1].running_mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(graph.model[0].weight.numpy(), model[0].weight.detach().numpy(), rtol=1e-5)


@pytest.mark.parametrize("training", [False, True])
def test_in_place_ops_on_inputs_leave_the_callers_tensors_as_oneflow(training):
    model = nn.Linear(3, 1)
    opt = flow.optim.SGD(model.parameters(), lr=0.1)

    class G(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model
            if training:
                self.add_optimizer(opt)

        def build(self, x, y):
            x += y  # OneFlow: the graph's copy of x
            out = self.model(x).sum()
            if training:
                out.backward()
            return out, x

    g = G()
    x, y = flow.zeros(2, 3), flow.ones(2, 3)
    for _ in range(3):  # first call (trace, or the eager warm-up step), then replays
        w, b = model.weight.detach().clone(), model.bias.detach().clone()
        out, xo = g(x, y)
        np.testing.assert_array_equal(x.numpy(), np.zeros((2, 3), np.float32))
        np.testing.assert_array_equal(xo.numpy(), np.ones((2, 3), np.float32))
        np.testing.assert_allclose(out.item(), ((w.sum() + b) * 2).item(), rtol=1e-5)
    # an input the plan only reads is not copied
    class R(nn.Graph):
        def build(self, x):
            return x * 2

    r = R()
    r(x)
    assert r._written_inputs == {} and g._written_inputs


def test_random_ops_that_check_values_on_the_host_trace():
    """multinomial's argument checks and a global random tensor's shared seed read values on the
    host, which a trace has not got: inside build they are left out (one process needs no shared
    seed), and every call draws anew, as OneFlow's compiled graphs do."""
    placement = flow.placement("cpu", ranks=[0])

    class Draw(nn.Graph):
        def build(self, probs):
            return flow.rand(64, placement=placement, sbp=flow.sbp.broadcast), flow.multinomial(probs, 64, True)

    probs = flow.tensor([[0.0, 1.0, 3.0], [1.0, 0.0, 0.0]])
    graph = Draw()
    (r1, m1), (r2, m2) = graph(probs), graph(probs)
    assert r1.is_global and tuple(r1.shape) == (64,) and not np.array_equal(r1.numpy(), r2.numpy())
    assert ((r1.numpy() >= 0) & (r1.numpy() < 1)).all()
    samples = np.concatenate([m1.numpy(), m2.numpy()], 1)
    assert set(samples[0]) <= {1, 2} and set(samples[1]) == {0}  # zero weights never drawn
    assert not np.array_equal(m1.numpy(), m2.numpy())


def test_keyword_arguments_reach_build():
    """OneFlow's ``graph(x, mask=m)``: build gets the keywords; they are part of the input signature
    (another keyword, or the same dict passed positionally, is another plan), and plans replay them."""
    class Masked(nn.Graph):
        def build(self, x, mask=None, scale=1.0):
            return x * scale if mask is None else x.masked_fill(mask, 0.0) * scale

    g = Masked()
    x = flow.tensor([1.0, 2.0, 3.0])
    m1, m2 = flow.tensor([True, False, False]), flow.tensor([False, False, True])
    np.testing.assert_array_equal(g(x, mask=m1).numpy(), [0, 2, 3])
    np.testing.assert_array_equal(g(x, mask=m2).numpy(), [1, 2, 0])  # replayed with the new mask
    np.testing.assert_array_equal(g(x, mask=m2, scale=2.0).numpy(), [2, 4, 0])
    np.testing.assert_array_equal(g(x).numpy(), [1, 2, 3])
    assert len(g._plans) == 3

    class Positional(nn.Graph):
        def build(self, x, extra):
            return x + extra["y"]

    class Keyword(nn.Graph):
        def build(self, x, **extra):
            return x + extra["y"]
    np.testing.assert_array_equal(Positional()(x, {"y": x}).numpy(), Keyword()(x, y=x).numpy())


def test_keyword_arguments_in_a_training_graph_with_accumulation():
    flow.manual_seed(0)
    model = nn.Linear(3, 1)
    opt = flow.optim.SGD(model.parameters(), lr=0.1)

    class Train(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model
            self.add_optimizer(opt)
            self.config.set_gradient_accumulation_steps(2)

        def build(self, x, *, target):
            loss = ((self.model(x) - target) ** 2).mean()
            loss.backward()
            return loss

    ref = nn.Linear(3, 1)
    ref.load_state_dict(model.state_dict())
    ref_opt = flow.optim.SGD(ref.parameters(), lr=0.1)
    g = Train()
    for step in range(3):
        x, y = flow.randn(4, 3), flow.randn(4, 1)
        g(x, target=y)
        ref_opt.zero_grad()
        for i in range(2):
            (((ref(x[2 * i:2 * i + 2]) - y[2 * i:2 * i + 2]) ** 2).mean() / 2).backward()
        ref_opt.step()
    np.testing.assert_allclose(model.weight.detach().numpy(), ref.weight.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_a_graph_follows_its_modules_tensors_when_they_move():
    """Note [Stale plans]: after p.data = x, set_, Module.double() or a new parameter, a plan would replay
    the memory it traced; the graph traces again instead (and only then: the same tensors keep the plan)."""
    lin = nn.Linear(2, 1)

    class G(nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = lin

        def build(self, x):
            return self.m(x)

    g, x = G(), flow.tensor([[1.0, 2.0]])
    for change in (lambda: None, lambda: setattr(lin.weight, "data", flow.full((1, 2), 5.0)),
                   lambda: lin.weight.set_(flow.full((1, 2), 7.0)),
                   lambda: setattr(g.m, "bias", nn.Parameter(flow.tensor([100.0]))),
                   lambda: flow.zeros(3).set_(flow.ones(2))):  # an unrelated tensor: the plan stays
        plans = dict(g._plans)
        change()
        np.testing.assert_allclose(g(x).numpy(), lin(x).detach().numpy(), rtol=1e-6)
        assert g(x) is not None and len(g._plans) == 1
    assert list(plans.values()) == list(g._plans.values())  # (the last change kept the plan)
    lin.double()
    np.testing.assert_allclose(g(x.double()).numpy(), lin(x.double()).detach().numpy())


def test_train_graph_state_dict_counts_steps_and_round_trips():
    # OneFlow's layout for a training graph: each module's state under its name, and
    # "System-Train-TrainStep", the train calls run (what its distributed save/load page reads)
    rng = np.random.default_rng(3)
    x = flow.tensor(rng.standard_normal((4, 6)).astype(np.float32))
    y = flow.tensor(rng.integers(0, 3, 4))
    model = nn.Linear(6, 3)
    graph = TrainGraph(model, flow.optim.SGD(model.parameters(), lr=0.1))
    assert graph.state_dict()["System-Train-TrainStep"].tolist() == [0]
    for _ in range(3):
        graph(x, y)
    sd = graph.state_dict()
    assert list(sd) == ["model", "System-Train-TrainStep"]
    assert sd["System-Train-TrainStep"].dtype == flow.int64 and sd["System-Train-TrainStep"].tolist() == [3]
    np.testing.assert_array_equal(sd["model"]["weight"].numpy(), model.weight.numpy())
    other = nn.Linear(6, 3)
    fresh = TrainGraph(other, flow.optim.SGD(other.parameters(), lr=0.1))
    fresh.load_state_dict(sd)
    np.testing.assert_array_equal(other.weight.numpy(), model.weight.numpy())
    assert fresh.state_dict()["System-Train-TrainStep"].tolist() == [3]
    # a global step count (OneFlow's distributed save/load page loads it as one)
    fresh.load_state_dict({**sd, "System-Train-TrainStep": flow.tensor([7]).to_global(
        placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)})
    assert fresh.state_dict()["System-Train-TrainStep"].tolist() == [7]
    # flat "<module>.<key>" names load too; a key matching no module is refused when strict
    third = nn.Linear(6, 3)
    TrainGraph(third, flow.optim.SGD(third.parameters(), lr=0.1)).load_state_dict(
        {"model." + k: v for k, v in model.state_dict().items()})
    np.testing.assert_array_equal(third.bias.numpy(), model.bias.numpy())
    with pytest.raises(RuntimeError, match="unexpected keys"):
        fresh.load_state_dict({**sd, "nope": flow.zeros(1)})


def test_saving_a_graph_saves_its_state(tmp_path):
    # OneFlow's flow.save(graph, path): the graph's state, loaded back with load_state_dict
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))

    class G(nn.Graph):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def build(self, x):
            return self.m(x)

    g = G(model)
    g(flow.randn(5, 3))
    flow.save(g, tmp_path / "graph")
    state = flow.load(tmp_path / "graph")
    assert set(state) == {"m"} and set(state["m"]) == set(model.state_dict())
    other = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    g2 = G(other)
    g2.load_state_dict(state)
    for a, b in zip(model.state_dict().values(), other.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_save_makes_the_paths_missing_directories(tmp_path):
    # OneFlow's pages save to "./1/model" in a fresh directory: flow.save makes the directories
    path = tmp_path / "1" / "2" / "model"
    flow.save({"w": flow.ones(2)}, path)
    assert flow.load(path)["w"].tolist() == [1.0, 1.0]


def test_config_training_follows_add_optimizer():
    # OneFlow's graph.config.training: one build for an eval and a training graph (its test_to_global)
    class Shared(nn.Graph):
        def __init__(self, model, opt=None):
            super().__init__()
            self.model = model
            if opt is not None:
                self.add_optimizer(opt)

        def build(self, x):
            loss = self.model(x).square().sum()
            if self.config.training:
                loss.backward()
            return loss

    x = flow.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    model, ref = nn.Linear(4, 3), nn.Linear(4, 3)
    ref.load_state_dict(model.state_dict())
    evaluate = Shared(model)
    assert evaluate.config.training is False and evaluate.training is False
    np.testing.assert_allclose(evaluate(x).numpy(), ref(x).square().sum().detach().numpy(), rtol=1e-6)
    train = Shared(model, flow.optim.SGD(model.parameters(), lr=0.1))
    assert train.config.training is True
    train(x)
    opt = flow.optim.SGD(ref.parameters(), lr=0.1)
    ref(x).square().sum().backward()
    opt.step()
    np.testing.assert_allclose(model.weight.detach().numpy(), ref.weight.detach().numpy(), rtol=1e-6)
    with pytest.raises(AttributeError):
        train.config.training = False


def test_trace_with_all_variables_refuses_a_constant_written_in_place():
    # the low-level trace: without all_variables, undeclared memory written in place is state the
    # replays update (a hand-written optimizer step); with it, a DynamicShapeError names the op
    from monoflow import _C, _graph

    w = flow.tensor([1.0, 2.0])

    def step(g):
        w.sub_(g)
        return w * 1

    ct = _graph.trace(step, flow.ones(2))
    ct.run(flow.ones(2))
    np.testing.assert_array_equal(w.numpy(), [-1.0, 0.0])  # the trace's step, then the replay's
    with pytest.raises(_C.DynamicShapeError, match="writes in place to a tensor the trace reads as a constant"):
        _graph.trace(step, flow.ones(2), all_variables=True)
    np.testing.assert_array_equal(w.numpy(), [-1.0, 0.0])  # refused before the kernel ran


def test_add_optimizer_is_sparse():
    # OneFlow's keyword: False is the ordinary update; True (lazy sparse rows) is not implemented
    model = nn.Linear(2, 1)

    class G(nn.Graph):
        def __init__(self, sparse):
            super().__init__()
            self.model = model
            self.add_optimizer(flow.optim.SGD(model.parameters(), lr=0.1), is_sparse=sparse)

        def build(self, x):
            loss = self.model(x).sum()
            loss.backward()
            return loss

    before = model.weight.detach().numpy().copy()
    G(False)(flow.ones(3, 2))
    np.testing.assert_allclose(model.weight.detach().numpy(), before - 0.1 * 3, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="is_sparse=True"):
        G(True)


def test_with_dynamic_input_shape_bounds_the_plan_cache():
    # OneFlow's @nn.Graph.with_dynamic_input_shape(size=N): one plan per input signature, at most N kept, the
    # least recently used dropped; every call's result equals torch's linear layer on the same weights.
    torch = pytest.importorskip("torch")
    lin = nn.Linear(3, 4)

    class G(nn.Graph):
        @nn.Graph.with_dynamic_input_shape(size=2)
        def __init__(self, m):
            super().__init__()
            self.m = m

        def build(self, x):
            return self.m(x)

    g = G(lin)
    assert G.__init__.__name__ == "__init__"  # functools.wraps keeps the decorated name
    compiled = []
    compile_plan = g._compile
    g.__dict__["_compile"] = lambda key, *a, **k: compiled.append(key) or compile_plan(key, *a, **k)
    ref = torch.nn.Linear(3, 4)
    with torch.no_grad():
        ref.weight.copy_(torch.from_numpy(_np(lin.weight)))
        ref.bias.copy_(torch.from_numpy(_np(lin.bias)))
    rng = np.random.default_rng(0)
    new_plan = []
    for n in (1, 2, 1, 3, 2, 2, 5):
        before = len(compiled)
        x = rng.standard_normal((n, 3)).astype(np.float32)
        got = _np(g(flow.tensor(x)))
        np.testing.assert_allclose(got, ref(torch.from_numpy(x)).detach().numpy(), rtol=1e-6, atol=1e-6)
        new_plan.append(len(compiled) > before)
        assert len(g._plans) <= 2
    # LRU: the second 1 is a hit and keeps 1, so 3 drops 2 and the next 2 recompiles (first-in-first-out
    # would have dropped 1 and hit 2)
    assert new_plan == [True, True, False, True, True, False, True]

    class Unbounded(nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = lin

        def build(self, x):
            return self.m(x)

    u = Unbounded()
    for n in (1, 2, 3, 4):
        u(flow.ones(n, 3))
    assert len(u._plans) == 4  # without the decorator every plan stays
    with pytest.raises(ValueError, match="with_dynamic_input_shape"):
        nn.Graph.with_dynamic_input_shape(size=0)
    with pytest.raises(TypeError, match="enable_shared"):
        nn.Graph.with_dynamic_input_shape(enable_shared="yes")
