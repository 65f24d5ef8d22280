"""Graph.state_dict / load_state_dict of a training graph carry its optimizers' state under
OneFlow's variable names ("<parameter>-<state>", nn/graph/optimizer_state.py): a graph saved
after some steps and loaded into a fresh graph continues exactly as the eager loop that never
stopped (checked bit for bit against eager training of the same model)."""
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import nn


class TrainGraph(nn.Graph):
    def __init__(self, model, opt, sch=None):
        super().__init__()
        self.model = model
        self.add_optimizer(opt, lr_sch=sch)

    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def _mlp():
    flow.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))


def _data(n):
    rng = np.random.default_rng(1)
    return [(flow.tensor(rng.standard_normal((8, 6)).astype(np.float32)), flow.tensor(rng.integers(0, 3, 8)))
            for _ in range(n)]


OPTIMIZERS = {
    "sgd_momentum": (lambda ps: flow.optim.SGD(ps, lr=0.1, momentum=0.9), ["momentum"]),
    "adam": (lambda ps: flow.optim.Adam(ps, lr=0.01), ["m", "v", "step"]),
    "adamw_amsgrad": (lambda ps: flow.optim.AdamW(ps, lr=0.01, weight_decay=0.1, amsgrad=True),
                      ["m", "v", "max_v", "step"]),
    "rmsprop_centered": (lambda ps: flow.optim.RMSprop(ps, lr=0.01, centered=True), ["mean_square", "mean_gradient", "step"]),
    "adagrad": (lambda ps: flow.optim.Adagrad(ps, lr=0.1), ["sum", "step"]),
}


def _eager(make_opt, batches):
    model = _mlp()
    opt = make_opt(model.parameters())
    for x, y in batches:
        F.cross_entropy(model(x), y).backward()
        opt.step()
        opt.zero_grad()
    return model


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_graph_resumes_from_saved_state_as_eager(kind, tmp_path):
    make_opt, names = OPTIMIZERS[kind]
    batches = _data(5)
    model = _mlp()
    graph = TrainGraph(model, make_opt(model.parameters()))
    for x, y in batches[:3]:
        graph(x, y)
    sd = graph.state_dict()
    assert sorted(k for k in sd if k.startswith("model.0.weight-")) == sorted(f"model.0.weight-{n}" for n in names)
    assert sd["System-Train-TrainStep"].tolist() == [3]
    flow.save(sd, str(tmp_path / "g"))

    fresh_model = _mlp()  # same initial weights; the loaded state replaces them
    with flow.no_grad():
        for p in fresh_model.parameters():
            p.add_(1.0)
    fresh = TrainGraph(fresh_model, make_opt(fresh_model.parameters()))
    fresh.load_state_dict(flow.load(str(tmp_path / "g")))
    for x, y in batches[3:]:
        fresh(x, y)
    want = _eager(make_opt, batches)
    for (name, w), g in zip(want.named_parameters(), fresh_model.parameters()):
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy(), err_msg=name)
    assert fresh.state_dict()["System-Train-TrainStep"].tolist() == [5]


def test_state_saved_without_step_counts_takes_the_train_step():
    # what OneFlow saves for Adam: m and v, no per-parameter step (its bias correction reads the
    # graph's train step), so a loaded state without "-step" steps from System-Train-TrainStep
    make_opt = OPTIMIZERS["adam"][0]
    batches = _data(4)
    model = _mlp()
    graph = TrainGraph(model, make_opt(model.parameters()))
    for x, y in batches[:2]:
        graph(x, y)
    sd = {k: v for k, v in graph.state_dict().items() if not k.endswith("-step")}
    fresh_model = _mlp()
    fresh = TrainGraph(fresh_model, make_opt(fresh_model.parameters()))
    fresh.load_state_dict(sd)
    for x, y in batches[2:]:
        fresh(x, y)
    want = _eager(make_opt, batches)
    for w, g in zip(want.parameters(), fresh_model.parameters()):
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())


def test_loading_into_a_running_graph_updates_its_state_in_place():
    # state that exists already is overwritten in place: the compiled plan stays and reads it
    make_opt = OPTIMIZERS["sgd_momentum"][0]
    batches = _data(4)
    model = _mlp()
    graph = TrainGraph(model, make_opt(model.parameters()))
    for x, y in batches[:2]:
        graph(x, y)
    sd = {k: v.clone() if hasattr(v, "clone") else v for k, v in graph.state_dict().items()}
    sd = {k: ({kk: vv.clone() for kk, vv in v.items()} if isinstance(v, dict) else v) for k, v in sd.items()}
    graph(*batches[2])  # moves on; loading goes back to step 2
    plans = list(graph._plans.values())
    graph.load_state_dict(sd)
    assert list(graph._plans.values()) == plans
    for x, y in batches[2:]:
        graph(x, y)
    want = _eager(make_opt, batches)
    for w, g in zip(want.parameters(), model.parameters()):
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())


def test_optimizer_state_keys_are_refused_when_nothing_holds_them():
    model = _mlp()
    graph = TrainGraph(model, flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    with pytest.raises(RuntimeError, match="unexpected keys"):
        graph.load_state_dict({**graph.state_dict(), "other.weight-momentum": flow.zeros(1)})
