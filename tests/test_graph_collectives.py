"""Collectives inside graph traces (Note [Host nodes] in graph/host_node.h,
Note [Collectives inside graph traces] in distributed/collectives.py): on 2
ranks, traced functions with all_reduce / all_gather / broadcast / send-recv
replay with new inputs and match eager mode on every rank, for slots and
threads 1 and 2 (also: in-place writes to inputs, an input written by an
eager kernel just before the run, DCE/CSE keeping collectives, two groups,
a destroyed group); data- and tensor-parallel training with global tensors
inside nn.Graph matches eager global training bit for bit (and one
process); a dead or absent peer makes the graph run raise on the other
rank, and a slow one within the group's timeout is not killed by the
runtime's watchdog. The ranks run graph_collectives_worker.py, which
records each check's outcome."""
import json
import os
import sys

import pytest

import monoflow as flow
import monoflow.distributed as dist
from monoflow import _graph

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_ddp import launch  # noqa: E402

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")


def run_suite(tmp_path, suite, env=None, timeout=240):
    r = launch(2, [os.path.join(HERE, "graph_collectives_worker.py"), str(tmp_path), suite], tmp_path, env=env,
               timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = []
    for k in range(2):
        path = tmp_path / f"rank{k}.json"
        assert path.exists(), f"rank {k} wrote nothing:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        out.append(json.loads(path.read_text()))
    return out


def assert_ok(results, names):
    for k, res in enumerate(results):
        assert "crashed" not in res, f"rank {k} crashed:\n{res['crashed']}"
        for name in names:
            assert res.get(name) == "ok", f"rank {k}, {name}:\n{res.get(name, 'missing')}"


@needs_gloo
def test_traced_collectives_replay_like_eager(tmp_path):
    res = run_suite(tmp_path, "collectives")
    assert_ok(res, ["all_reduce", "all_reduce_max_in_place_input", "input_written_by_an_eager_kernel_just_before",
                    "all_gather", "broadcast", "send_recv", "chain_and_dce", "identical_collectives_not_merged",
                    "subgroup_and_world"])


@needs_gloo
def test_data_parallel_training_in_nn_graph(tmp_path):
    assert_ok(run_suite(tmp_path, "dp_graph"), ["dp_graph_matches_eager_and_single_process",
                                                      "dp_graph_adamw_and_a_new_input_sbp"])


@needs_gloo
def test_tensor_parallel_mlp_in_nn_graph(tmp_path):
    assert_ok(run_suite(tmp_path, "tp_graph"), ["tp_graph_matches_eager"])


@needs_gloo
def test_dead_peer_fails_the_graph_run(tmp_path):
    # a short group timeout: the run must fail within it, not hang
    res = run_suite(tmp_path, "dead_peer", env={"GRAPH_COLL_TIMEOUT": "5"})
    r0 = res[0]
    assert "crashed" not in r0, r0["crashed"]
    assert r0.get("dead_peer_threads1") == "ok", r0
    if "dead_peer_threads2" in r0:
        assert r0["dead_peer_threads2"] == "ok", r0


@needs_gloo
def test_watchdog_waits_for_a_slow_peer_within_the_group_timeout(tmp_path):
    res = run_suite(tmp_path, "slow_peer", env={"GRAPH_COLL_TIMEOUT": "3"})
    assert_ok(res, ["slow_peer_within_group_timeout"])
    assert res[0].get("absent_peer_fails") == "ok", res[0]


def test_collective_outside_a_group_records_nothing_and_single_process_trace_is_unchanged():
    # without a process group a collective raises as in eager mode, also in a trace
    if dist.is_initialized():
        pytest.skip("a process group exists in this process")

    def fn(x):
        dist.all_reduce(x)
        return x

    with pytest.raises(RuntimeError):
        _graph.trace(fn, flow.ones(3))
    ct = _graph.trace(lambda x: x * 2, flow.ones(3))
    assert "host" not in ct.describe()
