"""Pipeline parallelism in nn.Graph (Note [Pipeline stages in a graph] in
nn/graph/pipeline.py): a 2-stage MLP on 2 ranks with 4 micro-batches per
step equals the same training in one process (losses per micro-batch and
final parameters), with 2 and 3 worker threads; a stage placement naming a
rank that does not exist is refused; 2 stages x 2-way data parallelism on
4 ranks trains like one process. The ranks run graph_pipeline_worker.py."""
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


def run_pipeline(tmp_path, mode, nproc=2, schedule="1F1B"):
    r = launch(nproc, [os.path.join(HERE, "graph_pipeline_worker.py"), str(tmp_path), str(mode), schedule], tmp_path,
               timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = [json.loads((tmp_path / f"rank{k}.json").read_text()) for k in range(nproc)]
    for k, rk in enumerate(res):
        assert "crashed" not in rk, f"rank {k}:\n{rk['crashed']}"
    return res


@needs_gloo
@pytest.mark.parametrize("threads,schedule", [(2, "1F1B"), (3, "1F1B"), (2, "GPipe")])
def test_two_stage_pipeline_equals_single_process_training(tmp_path, threads, schedule):
    for k, rk in enumerate(run_pipeline(tmp_path, threads, schedule=schedule)):
        np.testing.assert_allclose(rk["losses"], rk["ref_losses"], rtol=1e-5, atol=1e-6,
                                   err_msg=f"rank {k}: losses per micro-batch")
        assert np.asarray(rk["losses"]).shape == (4, 4)  # 4 steps, one loss per micro-batch
        for name, want in rk["ref_params"].items():
            np.testing.assert_allclose(rk["params"][name], want, rtol=1e-5, atol=1e-6, err_msg=f"rank {k}: {name}")
        assert rk["bad_placement"] == "ok", rk["bad_placement"]
        plan = rk["plans"][-1]
        # each rank's plan holds its side of the stage boundary, as host nodes
        assert ("send[" in plan) and ("recv[" in plan), plan


@needs_gloo
def test_1f1b_holds_fewer_activations_than_gpipe(tmp_path):
    # Note [Pipeline schedules]: 8 micro-batches on 2 stages. GPipe keeps all
    # 8 micro-batches' activations at the peak, 1F1B at most 2; the planned
    # transient memory (activations and temporaries, memory planning's arena)
    # shows it on both stages, and the two schedules train identically.
    res = run_pipeline(tmp_path, "memory")
    for k, rk in enumerate(res):
        gpipe, one_f_one_b = rk["GPipe"], rk["1F1B"]
        assert gpipe["losses"] == one_f_one_b["losses"], f"rank {k}: the schedules trained differently"
        assert one_f_one_b["transient"] * 2 < gpipe["transient"], (k, one_f_one_b["transient"], gpipe["transient"])
    print({f"rank {k}": {s: rk[s]["transient"] for s in ("GPipe", "1F1B")} for k, rk in enumerate(res)})


def test_pipeline_schedule_config():
    g = type("G", (nn.Graph,), {"build": lambda self, x: x})()
    assert g.config.pipeline_schedule == "1F1B"
    g.config.set_pipeline_schedule("gpipe")
    assert g.config.pipeline_schedule == "GPipe" and "pipeline_schedule='GPipe'" in repr(g.config)
    with pytest.raises(ValueError, match="set_pipeline_schedule"):
        g.config.set_pipeline_schedule("interleaved")


@needs_gloo
def test_pipeline_mixed_with_data_parallelism_on_4_ranks(tmp_path):
    # 2 stages x 2-way data parallel (split(0) batch): the parameters equal
    # single-process training, and so does each step's mean loss. (Each
    # micro-batch takes its rows from both data-parallel shards - the
    # accumulation's dim-0 slice of a split(0) global tensor - so the
    # per-micro-batch losses are of other row sets than the reference's.)
    for k, rk in enumerate(run_pipeline(tmp_path, 2, nproc=4)):
        np.testing.assert_allclose(np.mean(rk["losses"], 1), np.mean(rk["ref_losses"], 1), rtol=1e-5, atol=1e-6,
                                   err_msg=f"rank {k}: mean loss per step")
        for name, want in rk["ref_params"].items():
            np.testing.assert_allclose(rk["params"][name], want, rtol=1e-5, atol=1e-6, err_msg=f"rank {k}: {name}")
        assert "[host, collective order]" in rk["plans"][-1]  # boxing and the stage transfer


def test_stages_in_one_process_train_like_the_plain_graph():
    # one process holds every stage: set_stage changes nothing (local modules are fine)
    def train(stages):
        flow.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
        opt = flow.optim.SGD(model.parameters(), lr=0.1)

        class G(nn.Graph):
            def __init__(self):
                super().__init__()
                self.m = model
                self.add_optimizer(opt)
                self.config.set_gradient_accumulation_steps(2)

            def build(self, x):
                loss = self.m(x).square().mean()
                loss.backward()
                return loss

        g = G()
        if stages:
            g.m[0].to(nn.graph.GraphModule).set_stage(0, flow.placement("cpu", [0]))
            g.m[2].to(nn.graph.GraphModule).set_stage(1, flow.placement("cpu", [0]))
        losses = [g(flow.tensor(np.random.default_rng(s).standard_normal((4, 3)).astype(np.float32))).detach().numpy()
                  for s in range(3)]
        return np.stack(losses), [p.detach().numpy() for p in model.parameters()]

    (l1, p1), (l2, p2) = train(True), train(False)
    np.testing.assert_array_equal(l1, l2)
    assert l1.shape == (3, 2)
    for a, b in zip(p1, p2):
        np.testing.assert_array_equal(a, b)
