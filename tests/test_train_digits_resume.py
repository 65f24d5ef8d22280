"""The main job stopped after some epoch and resumed is the uninterrupted run,
bit for bit: the same per-epoch losses and accuracies and the same final
weights, with dropout and shuffling on (the checkpoint carries the global
random state and the loader's shuffling generator)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import monoflow as flow

pytest.importorskip("sklearn", reason="the digits data set ships with scikit-learn")
pytest.importorskip("tqdm", reason="the script draws a tqdm bar")

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "train_digits.py")
EPOCHS = 3
SMALL = ["--epochs", str(EPOCHS), "--batch-size", "128", "--dropout", "0.3", "--no-progress", "--seed", "5"]


def _run(out, *extra):
    env = dict(os.environ, MONOFLOW_DEVICE_PLUGINS="")
    r = subprocess.run([sys.executable, SCRIPT, *SMALL, "--out", str(out), *extra], capture_output=True, text=True,
                       timeout=600, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def _results(out):
    with open(os.path.join(out, "metrics.json")) as f:
        history = json.load(f)
    # samples/s is a timing, not a result
    rows = [{k: v for k, v in row.items() if k != "samples_per_s"} for row in history]
    state = flow.load(os.path.join(out, "checkpoint.mf"))
    return rows, {k: v.numpy() for k, v in state["model"].items()}, state


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("full")
    _run(out)
    return _results(out)


@pytest.mark.parametrize("stop_after", range(1, EPOCHS))
def test_resumed_run_is_bit_identical(tmp_path, uninterrupted, stop_after):
    _run(tmp_path, "--stop-after", str(stop_after))
    log = _run(tmp_path, "--resume")
    assert f"resumed from {tmp_path}" in log and f"after epoch {stop_after}" in log
    rows, weights, state = _results(tmp_path)
    ref_rows, ref_weights, ref_state = uninterrupted
    assert rows == ref_rows  # exact floats: every epoch's loss and accuracy
    assert weights.keys() == ref_weights.keys()
    for k in weights:
        np.testing.assert_array_equal(weights[k], ref_weights[k], err_msg=k)
    np.testing.assert_array_equal(state["rng_state"].numpy(), ref_state["rng_state"].numpy())


def test_the_random_state_matters(tmp_path, uninterrupted):
    """The control: resuming without the global random state (dropout) gives
    a different run, so the equality above is not vacuous."""
    _run(tmp_path, "--stop-after", "1")
    path = os.path.join(tmp_path, "checkpoint.mf")
    state = flow.load(path)
    flow.manual_seed(12345)
    state["rng_state"] = flow.get_rng_state()
    flow.save(state, path)
    _run(tmp_path, "--resume")
    rows, _, _ = _results(tmp_path)
    assert rows[0] == uninterrupted[0][0]
    assert rows[1]["train_loss"] != uninterrupted[0][1]["train_loss"]
