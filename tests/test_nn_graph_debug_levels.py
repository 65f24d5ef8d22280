"""nn.Graph.debug with OneFlow's levels and ranks (its test_graph_debug): v_level 0..3 opens debug mode,
-1 closes it; ranks None is rank 0, -1 among the ranks is every rank; the graph's modules follow
(graph.m._debug); OneFlow 0.7's positional debug(mode, v_level, ranks) is accepted."""
import pytest

import monoflow as flow
from monoflow import nn


class _G(nn.Graph):
    def __init__(self):
        super().__init__()
        self.m = nn.Sequential(nn.Linear(3, 3), nn.ReLU())

    def build(self, x):
        return self.m(x)


@pytest.mark.parametrize("v_level", [0, 1, 2, 3])
def test_levels_zero_to_three_open_and_minus_one_closes(v_level, capsys):
    g = _G().debug(v_level)
    assert g._debug and g.m._debug and g.m[0]._debug
    g(flow.randn(2, 3))
    assert "compiled plan" in capsys.readouterr().out
    g.debug(-1)
    assert not g._debug and not g.m._debug and not g.m[0]._debug
    g(flow.randn(5, 3))  # a new plan, compiled quietly
    assert "compiled plan" not in capsys.readouterr().out


@pytest.mark.parametrize("ranks,opened", [(None, True), (0, True), (1, False), ([1, 2], False), (-1, True),
                                          ([-1], True), ([0, 3], True)])
def test_ranks_choose_the_processes_that_open_debug(ranks, opened):  # this process is rank 0
    g = _G().debug(0, ranks=ranks)
    assert g._debug is opened and g.m._debug is opened


def test_oneflow_07_positional_form_and_refusals():
    g = _G()
    assert g.debug(True, 0, None)._debug and g.m._debug
    assert not g.debug(False)._debug and not g.m._debug
    assert not _G().debug(True, 0, [1, 2])._debug
    with pytest.raises(ValueError, match="v_level"):
        _G().debug(4)
    with pytest.raises(ValueError, match="ranks"):
        _G().debug(0, ranks="0")
    with pytest.raises(TypeError, match="debug"):
        _G().debug(1, 2)


def test_module_view_debug_sets_its_submodules_only():
    g = _G()
    g.m[0].debug(1)
    assert g.m[0]._debug and not g.m._debug and not g._debug
    g.m.debug(0)
    assert g.m._debug and g.m[1]._debug
    g.m.debug(-1)
    assert not g.m[0]._debug
