"""Every op case of the property suite (global_op_cases) also runs as an
auto-generated one-op graph and must match eager mode, values and gradients,
on new inputs at every replay (graph_one_op.py does one case)."""
import gc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import monoflow as flow
from monoflow import _graph

import global_op_cases as cases
import graph_one_op as one


@pytest.fixture
def cheap_collections():
    """trace() runs a full gc.collect() per call (tens of ms with pytest's
    heap); objects that exist before the test cannot hold traced tensors,
    so freezing them keeps a collection cheap and changes nothing else."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@settings(max_examples=1)  # one example is a sweep of the whole catalog
@given(seed=st.integers(0, 2 ** 31 - 1))
def test_every_catalog_op_as_a_one_op_graph_matches_eager(device, cheap_collections, seed):
    outcomes, failures = {}, []
    for idx, (label, gen) in enumerate(cases.CASES):
        if one.excluded(label, device):
            outcomes[label] = "excluded"
            continue
        # the case's draw, and the replays' inputs from another stream
        case = gen(np.random.default_rng([seed, idx]), True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome, problems = one.run_case(label, case, device, np.random.default_rng([seed, idx, 1]))
        outcomes[label] = outcome
        failures += [f"{label} (seed {seed}): {p}" for p in problems]
        if label in one.REFUSED and outcome not in ("refused", "error"):
            failures.append(f"{label}: listed as refused, but the trace accepted it")
    assert not failures, "\n".join(failures)

    # every case ran one way or another; the refusals are exactly the listed ones
    labels = [label for label, _ in cases.CASES]
    assert sorted(outcomes) == sorted(set(labels))
    refused = {k for k, v in outcomes.items() if v == "refused"}
    assert refused <= set(one.REFUSED), f"refused but not listed: {sorted(refused - set(one.REFUSED))}"
    assert {k for k, v in outcomes.items() if v == "random"} == one.RANDOM
    ran = sum(v == "ran" for v in outcomes.values())
    # error cases (eager refuses this draw, and so must the trace) stay a handful
    assert ran >= len(labels) - len(one.REFUSED) - len(one.RANDOM) - 10 - sum(
        v == "excluded" for v in outcomes.values())


def test_the_lists_name_catalog_cases():
    labels = {label for label, _ in cases.CASES}
    for listed in (one.REFUSED, one.RANDOM, one.EXCLUDED, one.NOT_ON_ACCELERATORS):
        assert set(listed) <= labels, sorted(set(listed) - labels)


# ---------------------------------------------------------------- known bugs of the foundation

def test_namedtuple_results_of_a_graph():
    x = flow.tensor([[1.0, 5.0], [3.0, 2.0]])
    ct = _graph.trace(lambda t: t.max(0), x)
    out = ct.run(flow.tensor([[4.0, 0.0], [3.0, 2.0]]))
    assert type(out) is type(x.max(0))
    assert out.values.tolist() == [4.0, 2.0] and out.indices.tolist() == [0, 1]


def test_copies_of_device_values_in_a_graph_are_refused():
    # a copy between devices is not a kernel: a trace cannot replay it
    if "testdev" not in flow.devices.available():
        pytest.skip("needs a second device")
    with pytest.raises(RuntimeError, match="copies of device values inside a graph trace are not supported"):
        _graph.trace(lambda t: t.cpu(), flow.tensor([1.0, 2.0], device="testdev:0"))


def test_masked_fill_tensor_value_in_a_graph_is_an_input():
    x, m = flow.tensor([1.0, 2.0, 3.0]), flow.tensor([True, False, True])
    ct = _graph.trace(lambda x, m, v: x.masked_fill(m, v), x, m, flow.tensor(5.0))
    assert ct.run(x, m, flow.tensor(9.0)).tolist() == [9.0, 2.0, 9.0]
