"""Activation checkpointing in an nn.Graph when the checkpointed module changes its input in place
(OneFlow's test_graph_random_seed, TestRandOpInFRB): the recompute starts from the input's value at
forward time and repeats the forward's random draw, so the trained parameter matches the output."""
import numpy as np

import monoflow as flow
from monoflow import nn


class _InplaceRand(nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.weight = weight
        self.param = nn.Parameter(flow.zeros(*weight.shape))

    def forward(self, x):
        w = self.param - self.weight
        y = nn.init.uniform_(x)
        return y * w


class _G(nn.Graph):
    def __init__(self, model, ckpt):
        super().__init__()
        self.model = model
        self.model.to(nn.graph.GraphModule).activation_checkpointing = ckpt
        self.add_optimizer(flow.optim.SGD(self.model.parameters(), lr=1.0))

    def build(self, x):
        y = self.model(x)
        (y * self.model.weight).sum().backward()
        return y


def test_checkpointed_module_with_inplace_rand_on_input_trains_like_oneflow():
    flow.manual_seed(0)
    weight = flow.randn(4, 16)
    model = _InplaceRand(weight)
    y = _G(model, True)(flow.randn(4, 16))
    # y = u * (0 - weight); d(sum(y * weight))/d(param) = u * weight; param = -u * weight after SGD(lr=1)
    np.testing.assert_allclose(y.numpy(), model.param.numpy(), rtol=1e-6, atol=1e-6)
    assert np.abs(y.numpy()).sum() > 0


def test_checkpointed_and_plain_graph_agree():
    outs = []
    for ckpt in (False, True):
        flow.manual_seed(3)
        weight = flow.randn(4, 16)
        model = _InplaceRand(weight)
        flow.manual_seed(5)
        g = _G(model, ckpt)
        x = flow.randn(4, 16)
        outs.append((g(x).numpy(), model.param.numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6)
