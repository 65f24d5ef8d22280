"""framework.graph_build_util (OneFlow's graph-build view, imported by its test_graph, test_graph_block,
test_graph_activation_checkpoint): lazy_mode is on exactly while a graph's build runs, and each module
of the graph runs in a scope carrying its activation checkpointing, pipeline stage and name."""
import numpy as np
import pytest

import monoflow as flow
from monoflow import nn
from monoflow.framework import graph_build_util as gbu


def test_lazy_mode_guard_nests_and_restores():
    assert gbu.lazy_mode.is_enabled() is False
    with gbu.lazy_mode.guard(True):
        assert gbu.lazy_mode.is_enabled() is True
        with gbu.lazy_mode.guard(False):
            assert gbu.lazy_mode.is_enabled() is False
        assert gbu.lazy_mode.is_enabled() is True
    assert gbu.lazy_mode.is_enabled() is False
    with pytest.raises(TypeError, match="guard"):
        with gbu.lazy_mode.guard(1):
            pass


def test_lazy_mode_is_on_in_build_and_module_forward_only():
    seen = []

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            seen.append(("forward", gbu.lazy_mode.is_enabled()))
            return self.lin(x)

    class G(nn.Graph):
        def __init__(self, m, train):
            super().__init__()
            self.m = m
            if train:
                self.add_optimizer(flow.optim.SGD(m.parameters(), lr=0.1))

        def build(self, x):
            seen.append(("build", gbu.lazy_mode.is_enabled()))
            y = self.m(x)
            if self.training:
                y.sum().backward()
            return y

    m = M()
    x = flow.randn(2, 3)
    m(x)
    assert seen == [("forward", False)]
    seen.clear()
    for train in (False, True):
        np.testing.assert_allclose(G(m, train)(x).numpy().shape, (2, 3))
    assert seen and all(on for _, on in seen)
    assert gbu.lazy_mode.is_enabled() is False and flow.current_scope() is None


def test_module_scopes_carry_checkpointing_stage_and_name():
    protos = {}

    class Leaf(nn.Module):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            protos[self.tag] = gbu.scope_to_proto(flow.current_scope())
            return self.lin(x)

    class Top(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Leaf("a")
            self.b = Leaf("b")

        def forward(self, x):
            protos["top"] = gbu.scope_to_proto(flow.current_scope())
            return self.b(self.a(x))

    class G(nn.Graph):
        def __init__(self):
            super().__init__()
            self.top = Top()
            self.top.a.to(nn.graph.GraphModule).activation_checkpointing = True
            self.top.b.to(nn.graph.GraphModule).set_stage(1)
            self.add_optimizer(flow.optim.SGD(self.top.parameters(), lr=0.1))

        def build(self, x):
            y = self.top(x)
            y.sum().backward()
            return y

    G()(flow.randn(2, 4))
    a, b, top = protos["a"], protos["b"], protos["top"]
    assert a.attr_name2attr_value["checkpointing"].at_bool is True
    assert a.attr_name2attr_value["pipeline_stage_id_hint"].WhichOneof("value") is None
    assert b.attr_name2attr_value["checkpointing"].WhichOneof("value") is None
    assert b.attr_name2attr_value["pipeline_stage_id_hint"].at_int64 == 1
    assert list(a.scope_op_name_prefixes) == ["top", "a"] and list(top.scope_op_name_prefixes) == ["top"]
    assert a.parent_scope_symbol_id == top.symbol_id == b.parent_scope_symbol_id
    with pytest.raises(TypeError, match="scope_to_proto"):
        gbu.scope_to_proto(None)


def test_scope_util_current_scope_is_the_running_modules_scope():
    # OneFlow's test_graph_block reads the scope through oneflow.framework.scope_util
    from monoflow.framework import scope_util

    seen = []

    class Probe(nn.Module):
        def forward(self, x):
            seen.append(gbu.scope_to_proto(scope_util.current_scope()))
            return x * 2

    class G(nn.Graph):
        def __init__(self):
            super().__init__()
            self.probe = Probe()
            self.probe.to(nn.graph.GraphModule).activation_checkpointing = True

        def build(self, x):
            return self.probe(x)

    x = flow.ones(2, requires_grad=False)
    np.testing.assert_array_equal(G()(x).numpy(), [2.0, 2.0])
    assert seen[0].attr_name2attr_value["checkpointing"].at_bool is True
    assert seen[0].scope_op_name_prefixes == ["probe"]
    assert scope_util.current_scope() is None
