"""Whole programs written the way public PyTorch scripts are (issue 13), run on torch and on
monoflow from the same source: the sparse GCN of pytorch/examples gcn (tests/programs/gcn_sparse.py)."""
import pytest

import monoflow
from programs import gcn_sparse
from test_user_programs import SEEDS, assert_in_spread, assert_tracks

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")


@pytest.fixture(autouse=True)
def one_torch_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def test_gcn_sparse_tracks_torch():
    ref = gcn_sparse.run(torch)
    got = gcn_sparse.run(monoflow, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=1e-4)
    assert got["test"] == pytest.approx(ref["test"], rel=1e-4)
    assert got["layouts"][0].endswith("sparse_coo") and got["layouts"][1].endswith("sparse_coo")
    assert ref["losses"][-1] < 0.5 * ref["losses"][0] and ref["acc"] > 0.6  # it learned the classes


def test_gcn_sparse_with_dropout_within_torch_seed_spread():
    finals = [gcn_sparse.run(torch, seed=s, dropout=0.5)["test"] for s in SEEDS]
    assert_in_spread(finals, gcn_sparse.run(monoflow, seed=0, dropout=0.5)["test"], "GCN test loss")
