"""What the graph pass tests share: a training graph, one function that
trains a model eagerly or through nn.Graph with given passes, seeded
inputs and classification batches. (A helper module, not a test file.)"""
import numpy as np

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import nn


def np_of(t):
    return t.detach().numpy().copy()


def assert_all_equal(first, *others):
    """Every list in others equals first, element by element, bit for bit."""
    for items in zip(first, *others):
        for other in items[1:]:
            np.testing.assert_array_equal(items[0], other)


def randn(device, *shape, seed=0, dtype=None):
    """Seeded standard-normal values (drawn in float32, then cast to dtype if given)."""
    rng = np.random.default_rng(seed)
    t = flow.tensor(rng.standard_normal(shape).astype(np.float32), device=device)
    return t if dtype is None else t.to(dtype)


class TrainGraph(nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def train(make, device, data, passes, slots=1, threads=1):
    """(graph or None, losses, parameters) after training make(device)'s
    (model, optimizer) on data: eagerly when passes == "eager", else through
    a TrainGraph running `passes`."""
    model, opt = make(device)
    if passes == "eager":
        losses = []
        for x, y in data:
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(np_of(loss))
        return None, losses, [np_of(p) for p in model.parameters()]
    graph = TrainGraph(model, opt)
    graph.config.passes = passes
    graph.config.slots, graph.config.threads = slots, threads
    losses = [np_of(graph(x, y)) for x, y in data]
    return graph, losses, [np_of(p) for p in model.parameters()]


def classification_data(device, steps, shape, classes=3, seed=1):
    rng = np.random.default_rng(seed)
    return [(flow.tensor(rng.standard_normal(shape).astype(np.float32), device=device),
             flow.tensor(rng.integers(0, classes, shape[0]), device=device)) for _ in range(steps)]
