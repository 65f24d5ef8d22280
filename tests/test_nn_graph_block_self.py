"""Inside an nn.Graph's build, a module's forward (and the methods it calls through self) runs with self
as the graph's view of the module (OneFlow's Block), so that the submodules reached through self are
views too (OneFlow's test/graph/test_graph_block.py: isinstance(self.linear, flow.nn.graph.Block))."""
import numpy as np

import monoflow as flow


class _Inner(flow.nn.Module):
    def __init__(self, linear, seen):
        super().__init__()
        self.linear = linear
        self.seen = seen

    def forward(self, x):
        return self._impl(x)

    def _impl(self, x):
        self.seen.append((type(self).__name__, isinstance(self.linear, flow.nn.graph.Block),
                          isinstance(self, _Inner), isinstance(self.linear, flow.nn.Linear)))
        return self.linear(x)


def test_forward_and_helpers_see_submodules_as_blocks():
    seen = []
    lin = flow.nn.Linear(3, 2)
    m = _Inner(lin, seen)

    class G(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = m

        def build(self, x):
            return self.m(x)

    x = flow.randn(4, 3)
    out = G()(x)
    assert np.allclose(out.numpy(), lin(x).detach().numpy(), atol=1e-6)
    assert seen[0] == ("ModuleView", True, True, True)
    # eager: the module itself
    m(x)
    assert seen[-1] == ("_Inner", False, True, True)


def test_hooks_and_training_through_blocks():
    calls = []
    lin = flow.nn.Linear(3, 1)
    seq = flow.nn.Sequential(lin, flow.nn.Identity())
    lin.register_forward_hook(lambda mod, inp, out: calls.append(type(mod).__name__))
    opt = flow.optim.SGD(seq.parameters(), lr=0.1)

    class G(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.seq = seq
            self.add_optimizer(opt)

        def build(self, x):
            loss = self.seq(x).sum()
            loss.backward()
            return loss

    w0 = lin.weight.detach().clone()
    x = flow.ones(2, 3)
    G()(x)
    assert calls == ["Linear"]  # a module with hooks runs through its own __call__
    assert not np.allclose(lin.weight.numpy(), w0.numpy())  # the parameters reached through views train
