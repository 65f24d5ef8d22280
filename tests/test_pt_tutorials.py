"""Official PyTorch tutorials and pytorch/examples programs (rewritten small,
on synthetic data: tests/programs/) run on torch and on monoflow from the same
source. Where randomness can be shared (torch's initial weights copied in, no
dropout, no shuffling) the losses must track step by step; otherwise
monoflow's result must lie within torch's seed-to-seed spread."""
import numpy as np
import pytest

import monoflow
from programs import nn_really, poly_fit
from test_user_programs import SEEDS, assert_in_spread, assert_tracks

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def one_torch_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def assert_stages_track(ref, got, rtol, atol=0.0):
    assert ref.keys() == got.keys()
    for k in ref:
        try:
            assert_tracks(ref[k], got[k], rtol=rtol, atol=atol)
        except AssertionError as e:
            raise AssertionError(f"stage {k!r}: {e}") from None


# ------------------------------------------------------------ Learning PyTorch with Examples

def test_poly_fit_all_five_ways_track_torch():
    ref = poly_fit.run(torch)
    got = poly_fit.run(monoflow, init=ref["init"])
    assert_stages_track(ref["losses"], got["losses"], rtol=2e-5)
    assert ref["losses"]["tensor"][59] < 0.1 * ref["losses"]["tensor"][0]


# ------------------------------------------------------------ What is torch.nn really?

def test_nn_really_tracks_torch():
    ref = nn_really.run(torch, shuffle=False)
    got = nn_really.run(monoflow, shuffle=False, init=ref["init"])
    assert_stages_track(ref["stages"], got["stages"], rtol=2e-5)
    assert ref["stages"]["linear_valid"][-1] < 0.5  # the stripes are learnable


def test_nn_really_shuffled_within_torch_seed_spread():
    finals = [nn_really.run(torch, seed=s)["stages"]["linear_valid"][-1] for s in SEEDS]
    assert_in_spread(finals, nn_really.run(monoflow, seed=0)["stages"]["linear_valid"][-1], "nn-really valid loss")
