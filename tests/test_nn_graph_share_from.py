"""nn.Graph._share_from (OneFlow's test_graph_multi_graph): a second graph of the same modules runs
another input shape on the same weights; sharing from an uncalled graph, into a called one, or
between graphs of different modules is refused."""
import numpy as np
import pytest

import monoflow as flow
from monoflow import nn


class _G(nn.Graph):
    def __init__(self, m):
        super().__init__()
        self.my_linear = m

    def build(self, x):
        return self.my_linear(x)


def test_share_from_runs_other_shapes_on_the_same_weights():
    lin = nn.Linear(3, 8, False)
    nn.init.constant_(lin.weight, 2.3)
    x = flow.tensor(np.random.randn(8, 3).astype(np.float32))
    g0 = _G(lin)
    assert not g0._is_compiled
    np.testing.assert_array_equal(g0(x).numpy(), lin(x).numpy())
    assert g0._is_compiled
    g1 = _G(lin)
    g1._share_from(g0)
    x1 = x[:4].clone()
    np.testing.assert_array_equal(g1(x1).numpy(), lin(x1).numpy())
    with flow.no_grad():
        lin.weight.fill_(-1.0)  # both graphs see the weight change
    np.testing.assert_array_equal(g1(x1).numpy(), lin(x1).numpy())
    np.testing.assert_array_equal(g0(x).numpy(), lin(x).numpy())


def test_share_from_refusals():
    lin = nn.Linear(3, 2)
    g0, g1 = _G(lin), _G(lin)
    with pytest.raises(RuntimeError, match="must be compiled"):
        g1._share_from(g0)
    g0(flow.ones(1, 3))
    with pytest.raises(TypeError, match="_share_from"):
        g1._share_from(lin)
    with pytest.raises(RuntimeError, match="same parameters"):
        _G(nn.Linear(3, 2))._share_from(g0)
    g1(flow.ones(1, 3))
    with pytest.raises(RuntimeError, match="already compiled"):
        g1._share_from(g0)
