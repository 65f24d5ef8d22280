"""ZeRO stages 1 and 3 in nn.Graph (graph.config.enable_zero; Notes [ZeRO stage
1 in a graph] and [ZeRO stage 3 in a graph] in nn/graph/zero.py). Stage 3: the
parameters split S(0) at rest, training equal to one process, about half the
parameter elements per rank, turned off back to broadcast. On 2 ranks (graph_zero_worker.py): SGD momentum
and AdamW data-parallel training with ZeRO equals the same graph without
ZeRO bit for bit (losses, parameters, logical optimizer state) and one
process within float tolerance; each rank holds its rows of the state of
each sharded parameter (the small one stays whole) and about half the
optimizer's bytes; one step's traffic is the no-ZeRO traffic plus exactly the
parameters' all-gather; optimizer checkpoints load across ZeRO and no ZeRO.
Here: bad settings and graphs without global parameters raise clear errors,
and print(graph) shows the setting."""
import json
import os
import sys

import numpy as np
import pytest

import monoflow as flow
import monoflow.distributed as dist
import monoflow.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_ddp import launch  # noqa: E402

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    d = tmp_path_factory.mktemp("zero")
    r = launch(2, [os.path.join(HERE, "graph_zero_worker.py"), str(d)], d, timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = []
    for k in range(2):
        path = d / f"rank{k}.json"
        assert path.exists(), f"rank {k} wrote nothing:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        res = json.loads(path.read_text())
        assert "crashed" not in res, f"rank {k} crashed:\n{res['crashed']}"
        out.append(res)
    return out


@needs_gloo
@pytest.mark.parametrize("name", ["sgd_momentum_zero_matches", "plain_sgd_is_not_sharded", "adamw_zero_matches",
                                  "adamw_zero2_matches",
                                  "comm_bytes_per_step", "adamw_zero3_matches",
                                  "adamw_zero1_no_restore_keeps_params_split",
                                  "checkpoints_cross_zero_and_no_zero"])
def test_zero_on_two_ranks(results, name):
    for k, res in enumerate(results):
        assert res.get(name) == "ok", f"rank {k}, {name}:\n{res.get(name, 'missing')}"


class _Step(nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.m = model
        self.add_optimizer(opt)

    def build(self, x):
        loss = self.m(x).sum()
        loss.backward()
        return loss


def test_bad_settings_are_refused():
    model = nn.Linear(4, 4)
    g = _Step(model, flow.optim.SGD(model.parameters(), lr=0.1))
    g.config.enable_zero()  # OneFlow's default stage, 2: stage 1's plan
    assert g.config.zero.stage == 2 and not g.config.zero.params_split
    # level 0 ("no restore") leaves the sharded parameters split at rest in any stage
    g.config.enable_zero(stage=2, shard_restore_level=0)
    assert g.config.zero.params_split
    with pytest.raises(ValueError, match="shard_restore_level must be 0, 1 or 2"):
        g.config.enable_zero(stage=3, shard_restore_level=3)
    g.config.enable_zero(stage=3, shard_restore_level=1)
    assert g.config.zero.params_split
    g.config.enable_zero(False)
    with pytest.raises(ValueError, match="stage must be 1, 2 or 3"):
        g.config.enable_zero(stage=4)
    with pytest.raises(TypeError, match="shard_min_size must be an int"):
        g.config.enable_zero(stage=1, shard_min_size=1.5)
    with pytest.raises(ValueError, match="shard_restore_level"):
        g.config.enable_zero(stage=1, shard_restore_level=-1)
    assert g.config.zero is None


def test_zero_config_is_printed_and_turned_off():
    model = nn.Linear(4, 4)
    g = _Step(model, flow.optim.Adam(model.parameters(), lr=0.1))
    g.config.enable_zero(stage=1, shard_min_size=4)
    text = repr(g)
    assert "(zero): ZeRO(stage=1, shard_min_size=4, shard_restore_level=1)" in text, text
    assert "zero=ZeRO(stage=1" in repr(g.config)
    g.config.enable_zero(False)  # off again
    assert "(zero)" not in repr(g)
    g(flow.randn(2, 4))
    g(flow.randn(2, 4))


def test_zero_on_local_parameters_is_a_no_op_as_oneflow_single_device():
    # OneFlow runs a one-device graph with enable_zero on (nothing to shard); monoflow refused it
    def train(zero):
        flow.manual_seed(0)
        m = flow.nn.Linear(4, 2)
        opt = flow.optim.Adam(m.parameters(), lr=0.1)

        class G(flow.nn.Graph):
            def __init__(self):
                super().__init__()
                self.m = m
                self.add_optimizer(opt)
                if zero:
                    self.config.enable_zero(True, stage=1, shard_min_size=1)

            def build(self, x):
                loss = self.m(x).square().sum()
                loss.backward()
                return loss

        g = G()
        x = flow.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=flow.float32)
        return [g(x).item() for _ in range(4)], m.weight.numpy()

    (losses, w), (losses_zero, w_zero) = train(False), train(True)
    assert losses_zero == losses and losses[-1] < losses[0]
    np.testing.assert_array_equal(w_zero, w)
