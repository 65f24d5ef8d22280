"""Boxing: converting a global tensor between SBPs (python/monoflow/_global/boxing.py).

The worker (global_worker.py, suite 'boxing' in global_checks.py) converts
random tensors with uneven sizes (some ranks hold nothing) between every pair
of 1-D SBPs (S(i) for every dim, B, P) on 2 and 3 ranks, and between a set of
nd-SBPs on a 2x2 hierarchy, and checks on every rank:
- the value and this rank's shard after the conversion and after the round trip back;
- the backward: a gradient laid out as the dual of the target arrives laid
  out as the dual of the source with the same value (the transposed
  conversion), and x.grad through a loss equals the local run's gradient;
- the bytes the communicator counted for this rank equal boxing.cost's
  prediction (the cost model's ground truth).
"""
import pytest

import monoflow.distributed as dist
from global_launch import report, run_worker


@pytest.fixture(scope="module", params=[2, 3, 4], ids=["2ranks", "3ranks", "2x2ranks"])
def boxing(request, tmp_path_factory):
    if not dist.is_gloo_available():
        pytest.skip("monoflow was built without Gloo")
    return run_worker(request.param, tmp_path_factory.mktemp("boxing"), ["boxing"], [request.param])


def test_conversions_values_and_gradients(boxing):
    for rank, res in enumerate(boxing):
        box = res["boxing"]
        assert box["cases"] >= 20
        assert not box["failures"], f"rank {rank}: " + report(box["failures"])


def _byte_failures(boxing, float16):
    if not boxing[0]["boxing"]["stats"]:
        pytest.skip("the communicator's traffic counters (distributed.get_comm_stats) are not available")
    out = []
    for rank, res in enumerate(boxing):
        out += [dict(f, rank=rank) for f in res["boxing"]["byte_failures"] if (f["dtype"] == "float16") == float16]
    return out


def test_cost_is_the_bytes_received(boxing):
    failures = _byte_failures(boxing, float16=False)
    assert not failures, report(failures)


def test_cost_is_the_bytes_received_float16_reductions(boxing):
    # the communicator reduces float16 in float32: 4 bytes an element
    if len(boxing) == 4:
        pytest.skip("the 2x2 cases have no float16 reduction")
    failures = _byte_failures(boxing, float16=True)
    assert not failures, report(failures)


@pytest.mark.parametrize("nproc", [2, 3])
def test_moves_between_placements(nproc, tmp_path):
    # forward and backward across rank sets; ranks outside a placement hold
    # empty shards and still take part in the backward (move.py)
    if not dist.is_gloo_available():
        pytest.skip("monoflow was built without Gloo")
    results = run_worker(nproc, tmp_path, ["moves"])
    for rank, res in enumerate(results):
        bad = {k: v for k, v in res["moves"].items() if v != "ok"}
        assert len(res["moves"]) == 4 and not bad, f"rank {rank}: {bad}"
