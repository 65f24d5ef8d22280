"""torch.nn.functional's ops refuse bad arguments with a message that names
the op the user called, torch-style (issue 14 item 12): each case is one
the fuzzer (tests/fuzz) found unnamed. Where torch raises for the same call,
the exception type is checked against torch's too."""
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from helpers import TORCH

# (op, the call given (functional module, tensor library), exception type,
#  whether torch raises the same type for the same call)
CASES = [
    # pooling: parameters checked where the op starts; the *_with_indices
    # spellings and max_pool3d name themselves, not the pool they run
    ("max_pool1d_with_indices", lambda F, lib: F.max_pool1d_with_indices(lib.zeros(3), 2), RuntimeError, True),
    ("max_pool1d_with_indices", lambda F, lib: F.max_pool1d_with_indices(lib.zeros(2, 3, 4), 1.5), TypeError,
     True),
    ("max_pool2d_with_indices", lambda F, lib: F.max_pool2d_with_indices(lib.zeros(3, 1, 4), (None,)), TypeError,
     True),
    ("max_pool3d", lambda F, lib: F.max_pool3d(lib.zeros(1, 2, 4, 4, 4), 1.5), TypeError, True),
    ("max_pool3d", lambda F, lib: F.max_pool3d(lib.zeros(1, 2, 4, 4, 4), (2, 3)), ValueError, False),
    ("max_pool3d_with_indices", lambda F, lib: F.max_pool3d_with_indices(lib.zeros(2, 3), 2), RuntimeError, True),
    ("adaptive_avg_pool1d", lambda F, lib: F.adaptive_avg_pool1d(lib.zeros(2, 3, 8), (1.5, 2)), TypeError, True),
    ("adaptive_avg_pool1d", lambda F, lib: F.adaptive_avg_pool1d(lib.zeros(2, 3, 8), (2, 2)), RuntimeError, True),
    ("adaptive_avg_pool2d", lambda F, lib: F.adaptive_avg_pool2d(lib.zeros(2, 3, 4, 4), -float("inf")), TypeError,
     True),
    ("adaptive_max_pool1d", lambda F, lib: F.adaptive_max_pool1d(lib.zeros(2, 3, 8), lib.float32), TypeError, True),
    ("adaptive_max_pool2d", lambda F, lib: F.adaptive_max_pool2d(lib.tensor(7.0), (None,)), ValueError, True),
    ("adaptive_max_pool1d_with_indices", lambda F, lib: F.adaptive_max_pool1d_with_indices(lib.zeros(3), 2),
     RuntimeError, True),
    ("adaptive_max_pool2d_with_indices",
     lambda F, lib: F.adaptive_max_pool2d_with_indices(lib.zeros(2, 4, 4), (1.5, 2)), TypeError, True),
    ("adaptive_max_pool3d_with_indices", lambda F, lib: F.adaptive_max_pool3d_with_indices(lib.zeros(3, 1), 2),
     RuntimeError, True),
    ("lp_pool1d", lambda F, lib: F.lp_pool1d(lib.zeros(2, 3, 8), None, 2), TypeError, True),
    ("lp_pool2d", lambda F, lib: F.lp_pool2d(lib.zeros(2, 3, 4, 4), 2, (2, 2, 2)), ValueError, False),
    ("lp_pool3d", lambda F, lib: F.lp_pool3d(lib.zeros(1, 2, 4, 4, 4), 2, 1.5), TypeError, True),
    ("max_unpool1d", lambda F, lib: F.max_unpool1d(lib.zeros(1, 2, 4), lib.zeros(1, 2, 4).long(), (None,)),
     TypeError, True),
    ("max_unpool2d", lambda F, lib: F.max_unpool2d(lib.tensor(3.0), lib.tensor([1]), 2), RuntimeError, False),
    ("max_unpool3d", lambda F, lib: F.max_unpool3d(lib.zeros(1, 2, 2, 2, 2), lib.zeros(1, 2, 2, 2, 2).long(),
                                                   (2, 3)), ValueError, False),
    # activations: the scalars are checked as Numbers where the op starts
    ("hardshrink", lambda F, lib: F.hardshrink(lib.zeros(3), ()), TypeError, True),
    ("softshrink", lambda F, lib: F.softshrink(lib.zeros(3), lib.float16), TypeError, True),
    ("threshold", lambda F, lib: F.threshold(lib.zeros(3), (-1,), 1.0), TypeError, True),
    ("threshold_", lambda F, lib: F.threshold_(lib.zeros(3), (2, 3), 1.0), TypeError, True),
    ("hardtanh", lambda F, lib: F.hardtanh(lib.zeros(3), slice(None)), TypeError, True),
    ("hardtanh_", lambda F, lib: F.hardtanh_(lib.zeros(3), "cpu"), TypeError, True),
    ("celu", lambda F, lib: F.celu(lib.zeros(3), (-1,)), TypeError, True),
    ("rrelu", lambda F, lib: F.rrelu(lib.zeros(3), 0.1, "a"), TypeError, True),
    ("rrelu", lambda F, lib: F.rrelu(lib.tensor([1, 2]), 0.1, 0.2), TypeError, False),  # torch: NotImplementedError
    ("rrelu_", lambda F, lib: F.rrelu_(lib.tensor([1, 2]), 0.1, 0.2, True), TypeError, False),
    ("gumbel_softmax", lambda F, lib: F.gumbel_softmax(lib.zeros(3), []), TypeError, True),
    ("gumbel_softmax", lambda F, lib: F.gumbel_softmax(lib.tensor([1, 2]), 1.0), RuntimeError, True),
    # a loss written over logsigmoid names itself, not logsigmoid
    ("multilabel_soft_margin_loss",
     lambda F, lib: F.multilabel_soft_margin_loss(lib.tensor([[1, 2]]), lib.tensor([[1, 0]])), TypeError, False),
    ("linear", lambda F, lib: F.linear(lib.ones(2, 3), lib.tensor(1.5)), RuntimeError, True),
    ("linear", lambda F, lib: F.linear(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3)), RuntimeError, True),
    # the upsample* spellings name themselves, not the interpolate they run
    ("upsample", lambda F, lib: F.upsample((1,)), TypeError, False),
    ("upsample", lambda F, lib: F.upsample(lib.zeros(1, 1, 4), 2, None, 3), NotImplementedError, False),
    ("upsample_bilinear", lambda F, lib: F.upsample_bilinear(lib.zeros(1, 1, 4, 4), scale_factor="a"), TypeError,
     True),
    ("upsample_nearest", lambda F, lib: F.upsample_nearest(lib.zeros(1, 1, 4), scale_factor=[1.5, 2]), ValueError,
     False),
    # losses
    ("binary_cross_entropy", lambda F, lib: F.binary_cross_entropy(lib.zeros(2), lib.zeros(3)), ValueError, True),
    ("binary_cross_entropy_with_logits", lambda F, lib: F.binary_cross_entropy_with_logits(lib.zeros(2),
                                                                                           lib.zeros(3)),
     ValueError, True),
    ("kl_div", lambda F, lib: F.kl_div(lib.zeros(2), [1, 2]), TypeError, True),
    ("margin_ranking_loss", lambda F, lib: F.margin_ranking_loss(lib.zeros(2), lib.zeros(2), lib.zeros(2), []),
     TypeError, True),
    ("margin_ranking_loss", lambda F, lib: F.margin_ranking_loss(lib.zeros(2), b"x", lib.zeros(2)), TypeError,
     False),  # torch: AttributeError
    ("gaussian_nll_loss", lambda F, lib: F.gaussian_nll_loss(lib.zeros(2, 3), lib.zeros(2, 3), lib.ones(3)),
     ValueError, True),
    ("gaussian_nll_loss", lambda F, lib: F.gaussian_nll_loss(lib.zeros(2, 3), lib.zeros(2, 3), -1.0), ValueError,
     True),
    ("gaussian_nll_loss", lambda F, lib: F.gaussian_nll_loss(lib.zeros(2, 3), lib.zeros(2, 3), "a"), TypeError,
     True),
    ("huber_loss", lambda F, lib: F.huber_loss(lib.zeros(2), lib.zeros(2), 2), ValueError, True),
    ("mse_loss", lambda F, lib: F.mse_loss(lib.zeros(2), lib.zeros(2), reduction=3), ValueError, True),
    ("mse_loss", lambda F, lib: F.mse_loss(lib.zeros(2), lib.zeros(2), np.zeros(0)), TypeError, False),
    ("multi_margin_loss", lambda F, lib: F.multi_margin_loss(lib.zeros(2, 3), lib.zeros(2).long(), 0.5),
     ValueError, True),
    ("nll_loss", lambda F, lib: F.nll_loss(lib.zeros(2, 3), lib.zeros(2).long(), ignore_index=np.zeros(3)),
     TypeError, True),
    ("cross_entropy", lambda F, lib: F.cross_entropy(lib.zeros(2, 3), lib.zeros(2).long(), ignore_index=1.5),
     TypeError, True),
    ("triplet_margin_loss", lambda F, lib: F.triplet_margin_loss(lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3),
                                                                 margin=slice(None)), TypeError, True),
    ("triplet_margin_with_distance_loss",
     lambda F, lib: F.triplet_margin_with_distance_loss(lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3),
                                                        distance_function=lib.zeros(2)), TypeError, True),
    ("pairwise_distance", lambda F, lib: F.pairwise_distance(lib.zeros(3), lib.zeros(3), "cuda"), TypeError, True),
    ("pdist", lambda F, lib: F.pdist(lib.zeros(2, 3), "fro"), TypeError, False),  # torch: RuntimeError in C++
    # normalisation, shuffles, bags, folds, grids, attention
    ("normalize", lambda F, lib: F.normalize(lib.zeros(3), 2, 1.5), TypeError, True),
    ("normalize", lambda F, lib: F.normalize(lib.zeros(3), []), TypeError, True),
    ("instance_norm", lambda F, lib: F.instance_norm(lib.zeros(0)), ValueError, True),
    ("local_response_norm", lambda F, lib: F.local_response_norm(lib.zeros(2, 3), 2), ValueError, True),
    ("local_response_norm", lambda F, lib: F.local_response_norm(lib.zeros(2, 3, 4), (0,)), TypeError, True),
    ("local_response_norm", lambda F, lib: F.local_response_norm(lib.zeros(2, 3, 4), 2, []), TypeError, True),
    ("channel_shuffle", lambda F, lib: F.channel_shuffle(lib.zeros(2, 3, 4), 1.5), TypeError, True),
    ("channel_shuffle", lambda F, lib: F.channel_shuffle(lib.zeros(2, 3, 4), -1), RuntimeError, True),
    ("channel_shuffle", lambda F, lib: F.native_channel_shuffle(lib.zeros(2, 3, 4), 0), RuntimeError, True),
    ("embedding_bag", lambda F, lib: F.embedding_bag(lib.zeros(2, 3, 4).long(), lib.zeros(3, 3)), ValueError,
     True),
    ("embedding_bag", lambda F, lib: F.embedding_bag(lib.tensor([0, 1]), lib.zeros(3, 3), lib.tensor([0]), mode=3),
     ValueError, True),
    ("fold", lambda F, lib: F.fold(lib.zeros(2, 4, 3), (3, 2), 1j), TypeError, True),
    ("affine_grid", lambda F, lib: F.affine_grid(lib.arange(6).view(1, 2, 3), (1, 1, 2, 3), False), ValueError,
     True),
    ("conv_transpose1d", lambda F, lib: F.conv_transpose1d(lib.zeros(1, 2, 3), lib.zeros(2, 1, 1), None, (1, 1)),
     ValueError, False),  # torch: RuntimeError
    ("scaled_dot_product_attention",
     lambda F, lib: F.scaled_dot_product_attention(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 2),
                                                   0.0, True), RuntimeError, True),
    ("scaled_dot_product_attention",
     lambda F, lib: F.scaled_dot_product_attention(lib.zeros(3), lib.zeros(3), lib.zeros(3)), RuntimeError, True),
    ("scaled_dot_product_attention",
     lambda F, lib: F.scaled_dot_product_attention(lib.zeros(2, 2), lib.zeros(2, 2), lib.zeros(2, 2), (None,)),
     TypeError, True),
    # found by other fuzz seeds
    ("group_norm", lambda F, lib: F.group_norm(lib.zeros(2, 3), "a"), TypeError, True),
    ("group_norm", lambda F, lib: F.group_norm(lib.zeros(2, 3), -7), RuntimeError, True),
    ("layer_norm", lambda F, lib: F.layer_norm(lib.zeros(3), 1.5), TypeError, True),
    ("affine_grid", lambda F, lib: F.affine_grid(lib.zeros(1, 2, 3), False, False), TypeError, True),
    ("soft_margin_loss", lambda F, lib: F.soft_margin_loss(lib.zeros(3), (1,)), TypeError, True),
    ("hinge_embedding_loss", lambda F, lib: F.hinge_embedding_loss(lib.zeros(3), lib.zeros(3), None), TypeError,
     True),
    ("cosine_embedding_loss", lambda F, lib: F.cosine_embedding_loss(lib.zeros(2, 3), lib.zeros(2, 3), lib.ones(2),
                                                                     (0,)), TypeError, True),
    ("poisson_nll_loss", lambda F, lib: F.poisson_nll_loss(lib.zeros(3), lib.zeros(3), eps="abc"), TypeError, True),
    ("poisson_nll_loss", lambda F, lib: F.poisson_nll_loss(lib.zeros(3), lib.zeros(3), np.ones(3)), TypeError,
     False),  # torch: ValueError from numpy
    ("smooth_l1_loss", lambda F, lib: F.smooth_l1_loss(lib.zeros(3), lib.zeros(3), beta=[2, 3]), TypeError, True),
    ("huber_loss", lambda F, lib: F.huber_loss(lib.zeros(3), lib.zeros(3), weight=slice(None)), TypeError, False),
    ("binary_cross_entropy_with_logits",
     lambda F, lib: F.binary_cross_entropy_with_logits(lib.zeros(3), lib.zeros(3), pos_weight=object()), TypeError,
     True),
    ("multilabel_soft_margin_loss", lambda F, lib: F.multilabel_soft_margin_loss(lib.tensor(3.0), lib.tensor(3.0)),
     IndexError, True),
    ("embedding_bag", lambda F, lib: F.embedding_bag(lib.zeros(3, 3), lib.zeros(3, 3)), RuntimeError, True),
    ("embedding_bag", lambda F, lib: F.embedding_bag(lib.tensor([0, 1]), lib.zeros(3, 3), (0,)), TypeError, False),
    ("elu_", lambda F, lib: F.elu_(lib.zeros(3), lib.bool), TypeError, True),
    ("adaptive_avg_pool2d", lambda F, lib: F.adaptive_avg_pool2d(lib.zeros(1, 4, 4), np.zeros(())), TypeError,
     True),
    ("gelu", lambda F, lib: F.gelu(lib.zeros(3), np.ones(3)), ValueError, False),  # torch: numpy's ValueError
    ("grid_sample", lambda F, lib: F.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), np.ones(3)),
     ValueError, False),
    ("embedding", lambda F, lib: F.embedding(lib.tensor([0]), lib.zeros(2, 2), (1,)), TypeError, False),
    ("instance_norm", lambda F, lib: F.instance_norm(lib.zeros(2, 3, 4), lib.zeros(2), lib.ones(2)), RuntimeError,
     True),
    ("instance_norm", lambda F, lib: F.instance_norm(lib.zeros(1, 6)), ValueError, True),
    ("multi_head_attention_forward",
     lambda F, lib: F.multi_head_attention_forward(lib.zeros(5, 2, 8), lib.zeros(5, 2, 8), lib.zeros(5, 2, 8), 8, 2,
                                                   lib.zeros(24, 8), lib.zeros(24), None, None, False, 0.0, 1.5,
                                                   None), TypeError, False),
    ("multi_head_attention_forward",
     lambda F, lib: F.multi_head_attention_forward(lib.zeros(5, 2, 8), lib.zeros(5, 8), lib.zeros(5, 8), 8, 2,
                                                   lib.zeros(24, 8), lib.zeros(24), None, None, False, 0.0,
                                                   lib.zeros(8, 8), None), AssertionError, True),
]


def _id(case):
    return case[0]


@pytest.mark.parametrize("op,call,exc,torch_same", CASES, ids=[_id(c) for c in CASES])
def test_message_names_the_op(op, call, exc, torch_same):
    with pytest.raises(exc, match=rf"^(nn\.functional\.)?{op}\(\)"):  # (grid_sample's is torch's)
        call(F, flow)
    if torch_same and TORCH is not None:
        with pytest.raises(exc):
            call(TORCH.nn.functional, TORCH)


# -- the calls the checks above must keep accepting, against torch
def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


@pytest.mark.skipif(TORCH is None, reason="torch is not installed")
@pytest.mark.parametrize("var_shape", [None, (2, 3), (2,), (2, 1)], ids=["float", "full", "row", "row1"])
def test_gaussian_nll_loss_var_forms(var_shape):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    var = 0.7 if var_shape is None else rng.uniform(0.5, 2.0, var_shape)
    wrap = (lambda lib, a: a) if var_shape is None else (lambda lib, a: lib.tensor(a))
    got = F.gaussian_nll_loss(flow.tensor(x), flow.tensor(y), wrap(flow, var), reduction="none")
    want = TORCH.nn.functional.gaussian_nll_loss(TORCH.tensor(x), TORCH.tensor(y), wrap(TORCH, var), reduction="none")
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6)


@pytest.mark.skipif(TORCH is None, reason="torch is not installed")
@pytest.mark.parametrize("call", [
    lambda F, lib, x: F.linear(x, lib.ones(2, 3), lib.ones(1, 2)),  # a bias addmm does not take: broadcast by `+`
    lambda F, lib, x: F.linear(x, lib.ones(3)),
    lambda F, lib, x: F.max_pool1d_with_indices(x.unsqueeze(0), 2, ())[0],  # an empty stride: the kernel size
    lambda F, lib, x: F.adaptive_max_pool2d(x.unsqueeze(0), (None, 1)),
    lambda F, lib, x: F.lp_pool2d(x.unsqueeze(0).abs(), 2, [1, 3]),
    lambda F, lib, x: F.normalize(x, 2.0, (0, 1)),
    lambda F, lib, x: F.hardtanh(x, -0.5, 0.5),
    lambda F, lib, x: F.threshold(x, 0.1, 20),
    lambda F, lib, x: F.channel_shuffle(x.reshape(1, 2, 3), 2),
    lambda F, lib, x: F.upsample(x.unsqueeze(0), scale_factor=2),
    lambda F, lib, x: F.pdist(x, lib.tensor(1.5)),  # a 0-d tensor p
    lambda F, lib, x: F.poisson_nll_loss(x, x.abs(), False, True, reduction="none"),
    lambda F, lib, x: F.group_norm(x.reshape(1, 2, 3), 2),
    lambda F, lib, x: F.layer_norm(x, [3]),
])
def test_accepted_calls_match_torch(call):
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    got, want = call(F, flow, flow.tensor(x)), call(TORCH.nn.functional, TORCH, TORCH.tensor(x))
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call, exc, words", [
    (lambda F, m: F.interpolate(m.zeros(1, 1, 4, 4), size=(0, 0)), RuntimeError, "sizes should be greater than 0"),
    (lambda F, m: F.interpolate(m.zeros(1, 1, 4, 4), scale_factor=-1), RuntimeError, "sizes should be greater than 0"),
    (lambda F, m: m.nn.Upsample(size=0)(m.zeros(1, 1, 3)), RuntimeError, "sizes should be greater than 0"),
    (lambda F, m: m.gradient(m.ones(3, 4), dim=2), IndexError, "Dimension out of range"),
    (lambda F, m: m.fft.fftfreq(-2), RuntimeError, "negative dimension"),
])
def test_size_and_dim_errors_match_torch(call, exc, words):
    # (a zero output size was a ZeroDivisionError; a dim past the end differentiated along another dim)
    with pytest.raises(exc, match=words):
        call(F, flow)
    if TORCH is not None:
        with pytest.raises(exc):
            call(TORCH.nn.functional, TORCH)


def test_fftfreq_of_length_zero_matches_torch():
    assert flow.fft.fftfreq(0).shape == (0,)
    assert np.isnan(flow.fft.rfftfreq(0).numpy()).all() and flow.fft.rfftfreq(0).shape == (1,)
