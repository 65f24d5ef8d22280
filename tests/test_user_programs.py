"""Users' own programs run unchanged (issue 13): the training programs of
tests/programs/, written the way well-known public PyTorch scripts are
written, run on PyTorch and on monoflow from the same source
(`import monoflow as torch`) with the same data and seeds.

Two checks per program:
- trajectory: PyTorch's initial weights are copied into the monoflow model
  and every randomness-free configuration (no dropout, no shuffling) must
  give the same losses step by step;
- spread: with each framework's own random init (the RNGs differ), monoflow's
  final loss must lie within PyTorch's seed-to-seed spread (the range of
  PyTorch's final losses over a few seeds, widened by that range itself on
  each side, with a 1% floor so that a lucky tight range is not a coin flip).
"""
import numpy as np
import pytest

import monoflow
from programs import gpt_char, mnist_rnn, sine_lbfgs, vae, word_lstm

torch = pytest.importorskip("torch")

SEEDS = (0, 1, 2)


@pytest.fixture(autouse=True)
def one_torch_thread():
    # The programs are tiny; one thread keeps torch's timing out of a shared machine's way.
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def assert_tracks(ref, got, rtol, atol=0.0):
    assert len(ref) == len(got) and len(ref) > 0
    np.testing.assert_allclose(np.asarray(got), np.asarray(ref), rtol=rtol, atol=atol)


def assert_in_spread(torch_finals, mf_final, what):
    """mf_final: one final loss, or several (their median is checked: for
    programs whose outcome over seeds is heavy-tailed, like LBFGS)."""
    mf_final = float(np.median(mf_final))
    lo, hi = min(torch_finals), max(torch_finals)
    margin = max(hi - lo, 0.01 * abs(np.mean(torch_finals)))
    assert lo - margin <= mf_final <= hi + margin, \
        f"{what}: monoflow {mf_final:.5f} outside torch's seed spread {sorted(torch_finals)} (margin {margin:.5f})"


# ------------------------------------------------------------ GPT (nanoGPT-style)

@pytest.mark.filterwarnings("ignore:.*GradScaler.*:FutureWarning")
@pytest.mark.parametrize("flash", [True, False], ids=["sdpa", "manual_attention"])
def test_gpt_char_tracks_torch(flash):
    ref = gpt_char.run(torch, steps=12, flash=flash)
    got = gpt_char.run(monoflow, steps=12, flash=flash, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=2e-4)
    assert got["val"] == pytest.approx(ref["val"], rel=2e-4)
    assert ref["losses"][-1] < ref["losses"][0] - 0.3  # it learned something
    assert len(got["sample"]) == 21 and set(got["sample"]) <= set(gpt_char.make_text(4000))


@pytest.mark.filterwarnings("ignore:.*GradScaler.*:FutureWarning")
def test_gpt_char_final_loss_within_torch_seed_spread():
    finals = [gpt_char.run(torch, steps=12, seed=s, dropout=0.1)["val"] for s in SEEDS]
    assert_in_spread(finals, gpt_char.run(monoflow, steps=12, seed=0, dropout=0.1)["val"], "gpt val loss")


# ------------------------------------------------------------ word-level LSTM LM

WORD_KW = dict(epochs=2, max_batches=12)


def test_word_lstm_tracks_torch_and_reloads_the_whole_model():
    ref = word_lstm.run(torch, dropout=0.0, **WORD_KW)
    got = word_lstm.run(monoflow, dropout=0.0, init=ref["init"], **WORD_KW)
    assert_tracks(ref["losses"], got["losses"], rtol=1e-4)
    assert_tracks(ref["val"], got["val"], rtol=1e-4)
    # the test loss comes from the model read back with torch.load(f, weights_only=False)
    assert got["model_type"] == "RNNModel_monoflow"
    assert got["test"] == pytest.approx(ref["test"], rel=1e-4)


def test_word_lstm_final_loss_within_torch_seed_spread():
    finals = [word_lstm.run(torch, seed=s, **WORD_KW)["test"] for s in SEEDS]
    assert_in_spread(finals, word_lstm.run(monoflow, seed=0, **WORD_KW)["test"], "word LM test loss")


# ------------------------------------------------------------ LBFGS time series (double)

def test_sine_lbfgs_tracks_torch():
    ref = sine_lbfgs.run(torch)
    got = sine_lbfgs.run(monoflow, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=1e-8)
    assert got["prediction"].dtype == np.float64
    np.testing.assert_allclose(got["prediction"], ref["prediction"], rtol=1e-6, atol=1e-9)
    assert ref["losses"][-1] < 0.1 * ref["losses"][0]


def test_sine_lbfgs_final_loss_within_torch_seed_spread():
    # LBFGS from an unlucky init can end 5x higher after 3 steps (either
    # framework), so monoflow's median over the same number of seeds is checked.
    finals = [sine_lbfgs.run(torch, seed=s)["test"] for s in SEEDS]
    assert_in_spread(finals, [sine_lbfgs.run(monoflow, seed=s)["test"] for s in SEEDS], "LBFGS test loss")


# ------------------------------------------------------------ VAE (randn_like: spread only)

def test_vae_final_loss_within_torch_seed_spread():
    finals = [vae.run(torch, seed=s)["test"] for s in SEEDS]
    got = vae.run(monoflow, seed=0)
    assert_in_spread(finals, got["test"], "VAE test loss")
    assert got["losses"][-1] < 0.75 * got["losses"][0]
    lo, hi = got["sample_range"]
    assert 0.0 <= lo <= hi <= 1.0  # decoded samples are sigmoid outputs


def test_vae_first_step_matches_torch_with_the_same_weights():
    # eps differs between the frameworks' RNGs, so only the first loss (before
    # any update) is comparable and only up to the KL/BCE noise eps adds: the
    # per-sample loss of the two frameworks must agree to 1%.
    ref = vae.run(torch, epochs=1, shuffle=False, n_train=64)
    got = vae.run(monoflow, epochs=1, shuffle=False, n_train=64, init=ref["init"])
    assert got["losses"][0] == pytest.approx(ref["losses"][0], rel=0.01)


# ------------------------------------------------------------ MNIST-style RNN classifier

def test_mnist_rnn_tracks_torch():
    ref = mnist_rnn.run(torch, dropout=False, shuffle=False)
    got = mnist_rnn.run(monoflow, dropout=False, shuffle=False, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=1e-4)
    assert got["accuracy"] == ref["accuracy"]
    assert ref["accuracy"] > 0.3  # well above chance (0.1)


def test_mnist_rnn_final_loss_within_torch_seed_spread():
    finals = [mnist_rnn.run(torch, seed=s)["test_loss"] for s in SEEDS]
    assert_in_spread(finals, mnist_rnn.run(monoflow, seed=0)["test_loss"], "MNIST RNN test loss")
