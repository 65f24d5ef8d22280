"""Global ops give the values and gradients of the local run.

For every op with SBP rules (python/monoflow/_global/signatures.py) the
worker (global_worker.py, cases in global_op_cases.py) draws random logical
inputs (shapes with sizes that do not divide the number of ranks, dtypes,
arguments) and random input SBPs, runs the op on global tensors and on local
ones, and compares the values and the gradients of a random linear loss on
every rank. Hypothesis draws the seeds (fixed in CI); one launch runs all
cases for its seeds, so the suite pays the processes' start-up once per
layout: 2 ranks (a 1-D placement) and 4 ranks as a 2x2 hierarchy (tiny
shapes, a quarter of the cases, chosen by the seed: 4 processes share 2
cores). A failure names its case, seeds, shapes, dtypes and input SBPs;
rerun it alone with
    python -m monoflow.distributed.launch --nproc-per-node N tests/global_worker.py OUT ops SEED \
        --only=LABEL --case-seed=CASE_SEED

The same module checks the SBPs chosen where a valid but different choice
would defeat the point (x * 2 of a partial sum stays partial; on 2 ranks and
on the 2x2 hierarchy), and that bad input raises a clear exception on every
rank.
"""
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import monoflow.distributed as dist
from global_launch import report, run_worker
from monoflow._global.signatures import RULES

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")

# one launch per test; a failure is reported with its seeds, never shrunk (each
# try would be another launch)
once = settings(max_examples=1, deadline=None, phases=[Phase.explicit, Phase.generate], database=None)
seeds = st.integers(0, 2 ** 31 - 1)


def _assert_no_failures(results):
    for rank, res in enumerate(results):
        ops = res["ops"]
        assert ops["cases"] > 0, f"rank {rank} ran no cases"
        assert not ops["failures"], f"rank {rank}: " + report(ops["failures"])


@needs_gloo
@once
@given(seed=seeds)
def test_ops_match_local_on_2_ranks(seed, tmp_path_factory):
    results = run_worker(2, tmp_path_factory.mktemp("ops2"), ["ops"], [seed])
    _assert_no_failures(results)
    # every form of every op is a case of its own, so any seed reaches every rule
    covered = set().union(*(set(r["ops"]["covered"][str(seed)]) for r in results))
    missing = sorted(set(RULES) - covered)
    assert not missing, f"ops with SBP rules that no case reached: {missing} (add them to global_op_cases.py)"


@needs_gloo
@once
@given(seed=seeds)
def test_ops_match_local_on_2x2_ranks(seed, tmp_path_factory):
    results = run_worker(4, tmp_path_factory.mktemp("ops4"), ["ops", "checks"], [seed], ["--stride=4"])
    _assert_no_failures(results)
    _assert_checks(results)


# ------------------------------------------------------------ SBP choices and bad input

@pytest.fixture(scope="module")
def checks(tmp_path_factory):
    if not dist.is_gloo_available():
        pytest.skip("monoflow was built without Gloo")
    return run_worker(2, tmp_path_factory.mktemp("checks"), ["checks", "errors"])


def _assert_checks(results):
    for rank, res in enumerate(results):
        bad = {k: v for k, v in res["checks"].items() if v != "ok"}
        assert not bad, f"rank {rank}:\n" + "\n".join(f"{k}: {v}" for k, v in bad.items())
    assert len(results[0]["checks"]) >= 40


def test_sbp_choices(checks):
    _assert_checks(checks)


MIXING = "got both global and local tensors"
DIFFER = "ranks passed different placements, SBPs or dtypes"
ERRORS = {
    "split axis out of range (creation)": ("ValueRuntimeError", "split(dim=2) is out of range"),
    "split axis out of range (to_global of a local)": ("ValueRuntimeError", "split(dim=5) is out of range"),
    "split axis out of range (to_global of a global)": ("ValueRuntimeError", "split(dim=2) is out of range"),
    "too many SBPs for the hierarchy": ("ValueError", "one SBP per hierarchy axis"),
    "placement names missing ranks": ("ValueRuntimeError", "that do not exist"),
    "placement names missing ranks (creation)": ("ValueRuntimeError", "that do not exist"),
    "ranks pass different SBPs": ("RuntimeError", DIFFER),
    "ranks pass different placements": ("RuntimeError", DIFFER),
    "ranks of the placement pass different dtypes": ("RuntimeError", DIFFER),
    "ranks pass different SBPs (global to_global)": ("RuntimeError", DIFFER),
    "mixing: global + local": ("RuntimeError", MIXING),
    "mixing: local + global": ("RuntimeError", MIXING),
    "mixing: flow.add(local, global)": ("RuntimeError", MIXING),
    "mixing: F.linear(local, global)": ("RuntimeError", MIXING),
    "mixing: cat([global, local])": ("RuntimeError", MIXING),
    "mixing: where(local, global, global)": ("RuntimeError", MIXING),
    "to_local of a local tensor": ("RuntimeError", "Expected global tensor for to_local but got local tensor!"),
    "op without a rule: masked_select": ("RuntimeError", "masked_select: not supported on global tensors"),
    "op without a rule: scatter_add": ("RuntimeError", "scatter_add: not supported on global tensors"),
    "op without a rule: flow.scatter_add": ("RuntimeError", "no SBP rule for global tensors"),
    "as_strided of a global tensor": ("RuntimeError", "as_strided: not supported on global tensors"),
    "random op on an unsplittable tensor": ("RuntimeError", "rand_like: a random global tensor of shape [1]"),
    "boolean mask indexing": ("RuntimeError", "__getitem__: indexing a global tensor with a boolean mask"),
    "dropout of an unsplittable broadcast input": ("RuntimeError", "different random mask on each rank"),
    "different placements in one op": ("RuntimeError", "global operands are on different placements"),
    "shapes that do not broadcast": ("RuntimeError", "cannot be broadcast together"),
    "dim out of range": ("IndexError", "sum: Dimension out of range"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_input_raises_on_every_rank(checks, case):
    kind, text = ERRORS[case]
    messages = []
    for rank, res in enumerate(checks):
        got = res["errors"][case]
        assert got["type"] == kind, f"rank {rank}: expected {kind}, got {got['type']}: {got['message']}"
        assert text in got["message"], f"rank {rank}: {got['message']!r} does not say {text!r}"
        messages.append(got["message"])
    if "different" not in case:  # the same call on every rank fails the same way
        assert len(set(messages)) == 1, messages


def test_every_bad_input_is_checked(checks):
    assert sorted(checks[0]["errors"]) == sorted(ERRORS)


def test_numpy_of_a_global_tensor_that_requires_grad():
    # OneFlow's rule, as for local tensors: the logical value, no refusal.
    import numpy as np

    import monoflow as flow

    P = flow.placement("cpu", ranks=[0])
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    x = flow.tensor(a).to_global(P, flow.sbp.broadcast).requires_grad_()
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.requires_grad


def test_zero_dim_global_tensors_take_the_local_rules():
    # (the global shape rules indexed a 0-d tensor's missing dim: IndexError "tuple index out of range")
    import monoflow as flow

    x = flow.tensor(1.5).to_global(placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)
    assert x.mean(-1).item() == 1.5 and x.mean(0, keepdim=True).shape == ()
    local = flow.tensor(1.5)
    calls = [(lambda t: flow.cat([t, t]), "zero-dimensional tensor"), (lambda t: t.chunk(3, 0), "1-dimensional"),
             (lambda t: t.split(1), "1-dimensional"), (lambda t: t.narrow(0, 1, 2), "0-dim tensor"),
             (lambda t: t.unbind(0), "no dimensions")]
    for call, words in calls:
        with pytest.raises(Exception) as want:  # the local op's error type
            call(local)
        with pytest.raises(want.type, match=words):
            call(x)
