"""Official PyTorch tutorials and pytorch/examples programs (rewritten small,
on synthetic data: tests/programs/) run on torch and on monoflow from the same
source. Where randomness can be shared (torch's initial weights copied in, no
dropout, no shuffling) the losses must track step by step; otherwise
monoflow's result must lie within torch's seed-to-seed spread."""
import numpy as np
import pytest

import monoflow
from programs import dcgan_stn, gat, nlp_tutorials, nn_really, poly_fit, pt_examples, rl_programs, seq2seq_attention, transformer_lm
from test_user_programs import SEEDS, assert_in_spread, assert_tracks, one_torch_thread  # noqa: F401 - autouse fixture

torch = pytest.importorskip("torch")


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


# ------------------------------------------------------------ Deep Learning for NLP / Sequence Models

def test_nlp_tutorials_track_torch():
    # bag of words, n-gram LM, LSTM POS tagger, BiLSTM-CRF (zeros for its per-sentence randn LSTM state)
    ref = nlp_tutorials.run(torch, crf_random_hidden=False)
    got = nlp_tutorials.run(monoflow, init=ref["init"], crf_random_hidden=False)
    assert_stages_track(ref["losses"], got["losses"], rtol=2e-5)
    assert got["decoded"] == ref["decoded"]
    assert ref["losses"]["crf"][-2] < 0.8 * ref["losses"]["crf"][0]


def test_bilstm_crf_with_random_lstm_state_within_torch_seed_spread():
    kw = dict(epochs=(1, 1, 1, 8))

    def final_nll(lib, seed):  # the mean negative log-likelihood of the last epoch's two sentences
        return float(np.mean(nlp_tutorials.run(lib, seed=seed, **kw)["losses"]["crf"][-3:-1]))

    # the initial transitions matter a lot: monoflow's median over the same seeds is checked
    assert_in_spread([final_nll(torch, s) for s in SEEDS], [final_nll(monoflow, s) for s in SEEDS], "BiLSTM-CRF NLL")


# ------------------------------------------------------------ seq2seq translation with attention

def test_seq2seq_attention_tracks_torch():
    ref = seq2seq_attention.run(torch, dropout=0.0, sampler="sequential")
    got = seq2seq_attention.run(monoflow, dropout=0.0, sampler="sequential", init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=2e-5)
    assert got["words"] == ref["words"] == ["i", "am", "cold", "<EOS>"]
    assert got["attn_shape"] == ref["attn_shape"] == (1, 5, 4)


def test_seq2seq_attention_with_dropout_within_torch_seed_spread():
    finals = [seq2seq_attention.run(torch, seed=s)["losses"][-1] for s in SEEDS]
    assert_in_spread(finals, seq2seq_attention.run(monoflow, seed=0)["losses"][-1], "seq2seq train loss")


# ------------------------------------------------------------ Language Modeling with nn.Transformer

def test_transformer_lm_tracks_torch():
    # SGD at lr=5 amplifies float32 rounding: layer_norm's last-bit differences from torch (either way, each
    # within 5e-7 of float64) grow to ~3e-5 of the loss by the 16th step
    ref = transformer_lm.run(torch, dropout=0.0)
    got = transformer_lm.run(monoflow, dropout=0.0, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=1e-4)
    assert_tracks(ref["val"], got["val"], rtol=1e-4)
    assert got["best"] == pytest.approx(ref["best"], rel=1e-4)
    assert ref["best"] < 0.5 * ref["losses"][0]


def test_transformer_lm_with_dropout_learns():
    # the final loss over seeds spreads from 0.4 to 1.3 in torch (8 seeds): only the learning is checked
    got = transformer_lm.run(monoflow, seed=0)
    assert got["best"] < 0.6 * got["losses"][0]


# ------------------------------------------------------------ DCGAN and Spatial Transformer Networks

def test_dcgan_tracks_torch():
    ref = dcgan_stn.dcgan(torch, noise="numpy")
    got = dcgan_stn.dcgan(monoflow, noise="numpy", init=ref["init"])
    assert_tracks(ref["G"], got["G"], rtol=2e-5)
    assert_tracks(ref["D"], got["D"], rtol=2e-5)
    np.testing.assert_allclose(np.asarray(got["stats"]), np.asarray(ref["stats"]), rtol=2e-5)
    np.testing.assert_allclose(got["samples"][-1], ref["samples"][-1], rtol=1e-4, atol=1e-5)


def test_dcgan_within_torch_seed_spread():
    finals = [dcgan_stn.dcgan(torch, seed=s)["D"][-1] for s in SEEDS]
    assert_in_spread(finals, dcgan_stn.dcgan(monoflow, seed=0)["D"][-1], "DCGAN discriminator loss")


def test_spatial_transformer_tracks_torch():
    # The localisation net starts at the identity, where every sample lands on a pixel centre and the
    # gradient with respect to theta depends on which side of the centre the last ulp of the grid falls:
    # torch's own linspace differs in the last bit across CPUs (its vector width), so the tolerance is wider.
    ref = dcgan_stn.stn(torch, dropout=False, shuffle=False)
    got = dcgan_stn.stn(monoflow, dropout=False, shuffle=False, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=3e-3)
    assert [c for _, c in got["tests"]] == [c for _, c in ref["tests"]]
    np.testing.assert_allclose([l for l, _ in got["tests"]], [l for l, _ in ref["tests"]], rtol=3e-3)
    assert got["moved"] > 0.01  # the transformer learned to move the image


def test_spatial_transformer_with_dropout_within_torch_seed_spread():
    # (a lucky seed in either framework learns the corners early: medians over five seeds)
    finals = [dcgan_stn.stn(torch, seed=s)["tests"][-1][0] for s in range(5)]
    assert_in_spread(finals, [dcgan_stn.stn(monoflow, seed=s)["tests"][-1][0] for s in range(5)], "STN test loss")


# ------------------------------------------------------------ DQN tutorial, REINFORCE / actor-critic examples

def test_dqn_tracks_torch():
    # all of its randomness is python's random: the same weights take the same actions
    ref = rl_programs.dqn(torch)
    got = rl_programs.dqn(monoflow, init=ref["init"])
    assert got["durations"] == ref["durations"]
    assert_tracks(ref["losses"], got["losses"], rtol=2e-5, atol=1e-7)
    assert got["mean10"] == ref["mean10"]


@pytest.mark.parametrize("actor_critic", [False, True], ids=["reinforce", "actor_critic"])
def test_policy_gradient_within_torch_seed_spread(actor_critic):
    # episodes are Categorical samples (the frameworks' RNGs differ) and the outcome is heavy-tailed:
    # the median over five seeds of the mean reward over all episodes
    def mean_reward(lib, seed):
        return float(np.mean(rl_programs.policy_gradient(lib, actor_critic, seed=seed)["rewards"]))

    finals = [mean_reward(torch, s) for s in range(5)]
    assert_in_spread(finals, [mean_reward(monoflow, s) for s in range(5)], "policy-gradient mean reward")


# ------------------------------------------------------------ pytorch/examples

def test_forward_forward_tracks_torch():
    ref = pt_examples.forward_forward(torch)
    got = pt_examples.forward_forward(monoflow, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=2e-5)
    assert got["error"] == ref["error"]


def test_regression_converges_like_torch():
    for lib in (torch, monoflow):
        out = pt_examples.regression(lib)
        assert out["loss"] < 1e-3 and out["batches"] < 3000, (lib.__name__, out)
        assert out["learned"].startswith("y = ") and out["learned"].count("x^") == 4
    assert_in_spread([pt_examples.regression(torch, seed=s)["batches"] for s in SEEDS],
                     [pt_examples.regression(monoflow, seed=s)["batches"] for s in SEEDS], "regression batches")


def test_super_resolution_tracks_torch_and_reloads_the_whole_model():
    ref = pt_examples.super_resolution(torch, shuffle=False)
    got = pt_examples.super_resolution(monoflow, shuffle=False, init=ref["init"])
    np.testing.assert_allclose(got["lr"], ref["lr"], rtol=1e-5, atol=1e-6)  # bicubic downscale
    assert_tracks(ref["losses"], got["losses"], rtol=2e-5)
    assert_tracks(ref["psnr"], got["psnr"], rtol=2e-5)
    assert got["out_shape"] == ref["out_shape"] == (1, 24, 24)


def test_fast_neural_style_tracks_torch():
    ref = pt_examples.fast_neural_style(torch)
    got = pt_examples.fast_neural_style(monoflow, init=ref["init"])
    assert_tracks(ref["content"], got["content"], rtol=2e-5)
    assert_tracks(ref["style"], got["style"], rtol=2e-5)
    np.testing.assert_allclose(got["output"], ref["output"], rtol=1e-4, atol=1e-4)


def test_vision_transformer_tracks_torch():
    ref = pt_examples.vision_transformer(torch, dropout=0.0, shuffle=False)
    got = pt_examples.vision_transformer(monoflow, dropout=0.0, shuffle=False, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=2e-5)
    assert_tracks(ref["val"], got["val"], rtol=2e-5)


def test_vision_transformer_with_dropout_within_torch_seed_spread():
    finals = [pt_examples.vision_transformer(torch, seed=s)["val"][-1] for s in SEEDS]
    assert_in_spread(finals, pt_examples.vision_transformer(monoflow, seed=0)["val"][-1], "ViT loss")


def test_gat_tracks_torch():
    # sparse diag @ dense scaling, int64 sparse adjacency + eye, torch.where masking, .mT
    ref = gat.run(torch, dropout=0.0)
    got = gat.run(monoflow, dropout=0.0, init=ref["init"])
    assert_tracks(ref["losses"], got["losses"], rtol=2e-5)
    np.testing.assert_allclose(np.asarray(got["val"]), np.asarray(ref["val"]), rtol=2e-5)
    assert got["test"] == pytest.approx(ref["test"], rel=2e-5)
    assert got["adj_dtype"].split(".")[-1] == ref["adj_dtype"].split(".")[-1] and got["adj_sum"] == ref["adj_sum"]


def test_gat_with_dropout_within_torch_seed_spread():
    finals = [gat.run(torch, seed=s)["test"][0] for s in SEEDS]
    assert_in_spread(finals, gat.run(monoflow, seed=0)["test"][0], "GAT test loss")


# ------------------------------------------------------------ focused checks of what the programs needed

@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "rand", "randn"])
def test_creation_functions_take_size_keyword(name):
    # pytorch/examples gat: nn.Parameter(torch.empty(size=(in_features, n_hidden * n_heads)))
    for size in ((2, 3), [4], ()):
        t = getattr(torch, name)(size=size, dtype=torch.float64)
        m = getattr(monoflow, name)(size=size, dtype=monoflow.float64)
        assert tuple(m.shape) == tuple(t.shape) and m.dtype == monoflow.float64
    with pytest.raises(TypeError):
        getattr(monoflow, name)(2, size=(2,))


def test_keyword_forms_of_arange_and_new_tensors():
    for call in ("arange(end=5)", "arange(end=3, dtype=lib.float64)", "arange(start=1, end=4, step=2)"):
        t, m = eval("lib." + call, {"lib": torch}), eval("lib." + call, {"lib": monoflow})
        np.testing.assert_array_equal(m.numpy(), t.numpy())
    for name in ("new_zeros", "new_ones", "new_empty"):
        t = getattr(torch.ones(2, dtype=torch.float64), name)(size=(3, 1))
        m = getattr(monoflow.ones(2, dtype=monoflow.float64), name)(size=(3, 1))
        assert tuple(m.shape) == tuple(t.shape) and m.dtype == monoflow.float64
    with pytest.raises(TypeError):
        monoflow.arange()
