"""flow.nn.graph.GraphModule (python/monoflow/nn/graph/graph_module.py):
``module.to(GraphModule)`` inside a graph, activation checkpointing (same
gradients as without, in graphs and eagerly through flow.utils.checkpoint,
lower peak memory), random ops under checkpointing, and set_stage's
validation and the graph's _stages() hook."""
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import nn
from monoflow.utils.checkpoint import checkpoint, checkpoint_sequential


def _np(t):
    return t.detach().numpy().copy()


def _deep_mlp(depth=6, width=32):
    flow.manual_seed(0)
    layers = [nn.Linear(8, width), nn.ReLU()]
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
    return nn.Sequential(nn.Sequential(*layers), nn.Linear(width, 4))


class CkptGraph(nn.Graph):
    def __init__(self, model, opt, checkpointed=True):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)
        if checkpointed:
            self.model[0].to(nn.graph.GraphModule).activation_checkpointing = True

    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(flow.tensor(rng.standard_normal((16, 8)).astype(np.float32)),
             flow.tensor(rng.integers(0, 4, 16))) for _ in range(n)]


def test_to_graph_module_gives_the_settings():
    model = _deep_mlp(1)
    graph = CkptGraph(model, flow.optim.SGD(model.parameters(), lr=0.1), checkpointed=False)
    gm = graph.model[0].to(flow.nn.graph.GraphModule)
    assert isinstance(gm, flow.nn.graph.GraphModule)
    assert gm is graph.model[0].to(flow.nn.graph.GraphModule) and gm.module is model[0]
    assert gm.activation_checkpointing is False
    assert isinstance(graph.model, nn.Sequential)  # the view passes for the module
    with pytest.raises(TypeError, match="must be a bool"):
        gm.activation_checkpointing = 1
    gm.activation_checkpointing = True
    assert "activation_checkpointing=True" in repr(graph)


def test_to_module_gives_the_eager_module():
    """OneFlow's ``graph.model.to(flow.nn.Module)``: the module behind the view."""
    model = _deep_mlp(1)
    graph = CkptGraph(model, flow.optim.SGD(model.parameters(), lr=0.1), checkpointed=False)
    assert graph.model.to(flow.nn.Module) is model
    assert graph.model[0].to(nn.Module) is model[0]
    assert type(graph.model[1].to(nn.Module)) is nn.Linear


def test_oneflow_08_block_api_over_the_views():
    """OneFlow 0.8's spelling, still in its documentation and libai:
    ``for block in graph.model.modules(): if isinstance(block.origin, X):
    block.config.activation_checkpointing = True``; the loop yields views."""
    model = _deep_mlp(1)
    graph = CkptGraph(model, flow.optim.SGD(model.parameters(), lr=0.1), checkpointed=False)
    blocks = list(graph.model.modules())
    assert len(blocks) == len(list(model.modules()))
    assert all(isinstance(b, nn.graph.Block) and isinstance(b, nn.graph.ProxyModule) for b in blocks)
    assert [b.origin for b in blocks] == list(model.modules())
    for block in blocks:
        if isinstance(block.origin, nn.Linear):
            block.config.activation_checkpointing = True
    linears = [i for i, m in enumerate(model[0]) if isinstance(m, nn.Linear)]
    assert [graph.model[0][i].to(nn.graph.GraphModule).activation_checkpointing for i in range(len(model[0]))] \
        == [i in linears for i in range(len(model[0]))]
    assert [name for name, _ in graph.model.named_children()] == ["0", "1"]
    assert [c.origin for c in graph.model.children()] == list(model.children())


@pytest.mark.parametrize("opt_kind", ["sgd", "adam"])
def test_checkpointed_graph_trains_like_the_plain_graph_and_eager(opt_kind):
    def make_opt(m):
        if opt_kind == "sgd":
            return flow.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        return flow.optim.Adam(m.parameters(), lr=0.01)
    data = _data(4)
    m_e = _deep_mlp()
    o_e = make_opt(m_e)
    eager = []
    for x, y in data:
        loss = F.cross_entropy(m_e(x), y)
        loss.backward()
        o_e.step()
        o_e.zero_grad()
        eager.append(loss.item())
    for checkpointed in (True, False):
        m_g = _deep_mlp()
        o_g = make_opt(m_g)
        graph = CkptGraph(m_g, o_g, checkpointed)
        got = [graph(x, y).item() for x, y in data]
        # same kernels, recomputed: bit for bit
        assert got == eager
        for pe, pg in zip(m_e.parameters(), m_g.parameters()):
            np.testing.assert_array_equal(_np(pg), _np(pe))
            for k, v in o_e.state[pe].items():
                if isinstance(v, flow.Tensor):
                    np.testing.assert_array_equal(_np(o_g.state[pg][k]), _np(v))
        plan = next(iter(graph._plans.values()))
        if checkpointed:
            nodes_ckpt = plan.stats()["nodes"]
        else:
            assert nodes_ckpt > plan.stats()["nodes"]  # the recompute is in the plan


def test_checkpoint_eagerly_same_gradients_and_lower_peak_memory():
    model = _deep_mlp(depth=24, width=128)
    x = flow.randn(1024, 8)
    y = flow.randint(0, 4, (1024,))

    def grads_and_peak(ckpt):
        model.zero_grad()
        flow.memory.reset_peak_memory_stats()
        base = flow.memory.memory_allocated()
        # 7 checkpointed segments: only their inputs are kept, one segment is recomputed at a time
        out = checkpoint_sequential(model[0], 7, x, use_reentrant=False) if ckpt else model[0](x)
        loss = F.cross_entropy(model[1](out), y)
        loss.backward()
        peak = flow.memory.max_memory_allocated() - base
        return [_np(p.grad) for p in model.parameters()], peak
    plain, peak_plain = grads_and_peak(False)
    ckpt, peak_ckpt = grads_and_peak(True)
    for a, b in zip(plain, ckpt):
        np.testing.assert_array_equal(a, b)
    assert peak_ckpt < 0.7 * peak_plain, (peak_ckpt, peak_plain)


def test_checkpointed_segments_lower_the_plans_memory():
    def plan_for(segments):
        model = _deep_mlp(depth=16, width=128)
        if segments:  # model[0] regrouped into `segments` sub-Sequentials, each checkpointed
            mods = list(model[0].children())
            k = -(-len(mods) // segments)
            model[0] = nn.Sequential(*[nn.Sequential(*mods[i:i + k]) for i in range(0, len(mods), k)])
        graph = CkptGraph(model, flow.optim.SGD(model.parameters(), lr=0.1), checkpointed=False)
        for i in range(len(model[0]) if segments else 0):
            graph.model[0][i].to(nn.graph.GraphModule).activation_checkpointing = True
        x, y = flow.randn(512, 8), flow.randint(0, 4, (512,))
        loss = graph(x, y)  # SGD without momentum: the first call traces
        plan = next(iter(graph._plans.values()))
        return loss.item(), plan
    loss_plain, plain = plan_for(0)
    loss_ckpt, ckpt = plan_for(4)
    assert loss_plain == loss_ckpt
    assert "cse" not in [name for name, _ in ckpt.passes]  # CSE would merge the recompute back into the forward
    assert ckpt.stats()["nodes"] > plain.stats()["nodes"]
    assert ckpt.memory()["transient"] < 0.7 * plain.memory()["transient"]


class DropoutNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.lin(x))


def test_checkpoint_eagerly_redraws_the_same_dropout_mask():
    flow.manual_seed(0)
    net = DropoutNet()
    x = flow.randn(4, 8, requires_grad=True)
    flow.manual_seed(1)
    net(x).sum().backward()
    plain = _np(x.grad)
    x.grad = None
    flow.manual_seed(1)
    checkpoint(net, x, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), plain)


def test_checkpointed_random_module_in_a_graph_matches_eager_checkpointing():
    # The recompute's dropout shares the forward's draw in the plan (Note
    # [Shared random draws] in generator.h): the same masks as eagerly.
    x, y = flow.randn(4, 8), flow.randint(0, 4, (4,))

    def make():
        flow.manual_seed(0)
        model = nn.Sequential(DropoutNet(), nn.Linear(8, 4))
        return model, flow.optim.SGD(model.parameters(), lr=0.1)

    model, opt = make()
    flow.manual_seed(5)
    eager = []
    for _ in range(3):
        loss = F.cross_entropy(model[1](checkpoint(model[0], x, use_reentrant=False)), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        eager.append(_np(loss))
    eager_params = [_np(p) for p in model.parameters()]

    model, opt = make()
    graph = CkptGraph(model, opt)
    flow.manual_seed(5)
    losses = [_np(graph(x, y)) for _ in range(3)]  # SGD without momentum: the first call traces
    for g, e in zip(losses, eager):
        np.testing.assert_array_equal(g, e)
    for p, e in zip(model.parameters(), eager_params):
        np.testing.assert_array_equal(_np(p), e)
    assert "same draw as %" in next(iter(graph._plans.values())).describe()


def test_set_stage_validates_and_feeds_the_stages_hook():
    model = _deep_mlp(1)
    graph = CkptGraph(model, flow.optim.SGD(model.parameters(), lr=0.1), checkpointed=False)
    p0 = flow.placement("cpu", [0])
    assert graph._stages() == []
    graph.model[1].to(nn.graph.GraphModule).set_stage(1, p0)
    graph.model[0].to(nn.graph.GraphModule).set_stage(0, p0)
    stages = graph._stages()
    assert [(s[0], s[2]) for s in stages] == [(0, "model.0"), (1, "model.1")]
    assert stages[0][1] == p0 and stages[0][3] is model[0]
    with pytest.raises(ValueError, match=r"ranks \[1, 3\] do not exist.*1 process"):
        graph.model[0].to(nn.graph.GraphModule).set_stage(0, flow.placement("cpu", [0, 1, 3]))
    with pytest.raises(ValueError, match="non-negative int"):
        graph.model[0].to(nn.graph.GraphModule).set_stage(-1, p0)
    with pytest.raises(TypeError, match="flow.placement"):
        graph.model[0].to(nn.graph.GraphModule).set_stage(0, "cpu")


def test_graph_with_an_optimizer_over_no_parameters():
    """OneFlow's graph check builds optimizers over frozen models: an empty parameter list is accepted."""
    model = nn.Linear(3, 2)
    for p in model.parameters():
        p.requires_grad_(False)
    opt = flow.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    sched = flow.optim.lr_scheduler.StepLR(opt, 2)

    class Frozen(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model
            self.add_optimizer(opt, lr_sch=sched)

        def build(self, x):
            return self.model(x).sum()

    x = flow.randn(4, 3)
    np.testing.assert_allclose(Frozen()(x).numpy(), model(x).sum().numpy(), rtol=1e-6)
    assert opt.state_dict() == {"state": {}, "param_groups": []}


def test_graph_module_name_prefix_type_and_proxy_class():
    # OneFlow's GraphModule naming: name is the attribute, name_prefix the path above it
    class Sub(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 1, 3)

        def forward(self, x):
            return self.conv1(x)

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = Sub()

        def forward(self, x):
            return self.layer(x)

    class G(nn.Graph):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def build(self, x):
            return self.m(x)

    m = Outer()
    g = G(m)
    top, conv = g.m.to(nn.graph.GraphModule), g.m.layer.conv1.to(nn.graph.GraphModule)
    assert (top.name, top.name_prefix, top.type) == ("m", "", "MODULE")
    assert (conv.name, conv.name_prefix) == ("conv1", "m.layer.")
    assert isinstance(g.m, nn.graph.Proxy) and isinstance(g.m.layer.conv1, nn.Conv2d)
    assert not isinstance(m, nn.graph.Proxy)
    # settings keyed by the full path still reach the right module
    g.m.layer.to(nn.graph.GraphModule).activation_checkpointing = True
    x = flow.randn(1, 1, 5, 5)
    np.testing.assert_array_equal(g(x).numpy(), m(x).detach().numpy())
    assert "(m.layer): GraphModule(m.layer, activation_checkpointing=True)" in repr(g)
