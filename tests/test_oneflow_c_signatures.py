"""OneFlow's ``oneflow._C`` signatures of names torch also has (one_hot, pixel_shuffle, smooth_l1_loss,
mse_loss, cross_entropy, normalize, slice, normalization, arg_sort ...), as OneFlow's own tests call them
(test/exceptions/test_nn_functor.py, test_smooth_l1_loss_op.py, test_slice_op.py), against torch / numpy."""
import numpy as np
import pytest
import torch

import monoflow as flow


def test_one_hot_on_off_values():
    idx = np.array([0, 2, 1])
    out = flow._C.one_hot(flow.tensor(idx), 3, 0.9, 0)
    ref = np.where(np.eye(3)[idx] == 1, 0.9, 0.0)
    assert out.dtype == flow.float32 and np.allclose(out.numpy(), ref)
    out = flow._C.one_hot(flow.tensor(idx), num_classes=4, on_value=5, off_value=-1)
    assert out.dtype == flow.int64 and (out.numpy() == np.where(np.eye(4)[idx] == 1, 5, -1)).all()
    # torch's form still works, and F.one_hot is unchanged
    assert (flow._C.one_hot(flow.tensor(idx), 3).numpy() == torch.nn.functional.one_hot(torch.tensor(idx), 3).numpy()).all()
    assert (flow.nn.functional.one_hot(flow.tensor(idx)).numpy() == np.eye(3)[idx]).all()
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        flow._C.one_hot(flow.ones(3, 3), 3, 0.9, 0)


def test_pixel_shuffle_two_factors():
    a = np.random.randn(2, 8, 3, 3).astype(np.float32)
    out = flow._C.pixel_shuffle(flow.tensor(a), 2, 2)
    assert np.allclose(out.numpy(), torch.nn.functional.pixel_shuffle(torch.tensor(a), 2).numpy())
    b = np.random.randn(1, 12, 2, 3).astype(np.float32)
    out = flow._C.pixel_shuffle(flow.tensor(b), 2, 3)
    ref = b.reshape(1, 2, 2, 3, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 9)
    assert out.shape == (1, 2, 4, 9) and np.allclose(out.numpy(), ref)
    with pytest.raises(RuntimeError, match="Only Accept 4D Tensor"):
        flow._C.pixel_shuffle(flow.ones(1, 8, 4, 4, 1), 2, 2)
    with pytest.raises(RuntimeError, match=r"must be divisible by \(upscale_factor \* upscale_factor\)"):
        flow._C.pixel_shuffle(flow.ones(1, 8, 4, 4), 2, 3)


def test_losses_in_oneflow_argument_order():
    x, y = np.random.randn(4, 5).astype(np.float32), np.random.randn(4, 5).astype(np.float32)
    X, Y, tx, ty = flow.tensor(x), flow.tensor(y), torch.tensor(x), torch.tensor(y)
    F = torch.nn.functional
    assert np.allclose(flow._C.smooth_l1_loss(X, Y, 0.5, "sum").numpy(), F.smooth_l1_loss(tx, ty, beta=0.5, reduction="sum").numpy(), atol=1e-5)
    assert np.allclose(flow._C.mse_loss(X, Y, "none").numpy(), F.mse_loss(tx, ty, reduction="none").numpy(), atol=1e-6)
    assert np.allclose(flow._C.l1_loss(X, Y, "mean").numpy(), F.l1_loss(tx, ty).numpy(), atol=1e-6)
    t = np.array([0, 4, 2, 1])
    assert np.allclose(flow._C.cross_entropy(X, flow.tensor(t), None, 2, "sum").numpy(),
                       F.cross_entropy(tx, torch.tensor(t), ignore_index=2, reduction="sum").numpy(), atol=1e-5)
    lp = F.log_softmax(tx, 1)
    assert np.allclose(flow._C.nll_loss(flow.tensor(lp.numpy()), flow.tensor(t), None, -100, "none").numpy(),
                       F.nll_loss(lp, torch.tensor(t), reduction="none").numpy(), atol=1e-6)
    with pytest.raises(RuntimeError, match="Reduction should be none, sum or mean."):
        flow._C.mse_loss(X, Y, "just_test")
    with pytest.raises(RuntimeError, match="Reduction should be none, sum or mean."):
        flow._C.cross_entropy(X, flow.tensor(t), None, 0, "just_test")
    with pytest.raises(RuntimeError, match="beta must be greater than or equal to 0"):
        flow._C.smooth_l1_loss(X, Y, -1.0, "mean")
    with pytest.raises(TypeError, match="input and target are expected to have the same dtype"):
        flow._C.smooth_l1_loss(X, Y.double(), 1.0, "mean")


def test_normalize_l2_kernel_axis_checks():
    a = np.random.randn(3, 4).astype(np.float32)
    out = flow._C.normalize(flow.tensor(a), 2.0, 1, 1e-12, True)
    assert np.allclose(out.numpy(), torch.nn.functional.normalize(torch.tensor(a), dim=1).numpy(), atol=1e-6)
    out = flow._C.normalize(flow.tensor(a), dim=0, use_l2_norm_kernel=False)
    assert np.allclose(out.numpy(), torch.nn.functional.normalize(torch.tensor(a), dim=0).numpy(), atol=1e-6)
    with pytest.raises(RuntimeError, match="Axis should < 2 but axis is 3 now."):
        flow._C.normalize(flow.ones(3, 3), dim=3, use_l2_norm_kernel=True)
    with pytest.raises(RuntimeError, match="Axis should >=0 but axis is -1 now."):
        flow._C.normalize(flow.ones(3, 3), dim=-3, use_l2_norm_kernel=True)


def test_slice_start_stop_step_lists():
    a = np.arange(24).reshape(4, 6)
    out = flow._C.slice(flow.tensor(a), [1, 0], [4, 6], [2, 4])
    assert (out.numpy() == a[1:4:2, 0:6:4]).all()
    x = flow.tensor(a.astype(np.float32), requires_grad=True)
    flow._C.slice(x, [0], [2], [1]).sum().backward()
    assert (x.grad.numpy() == np.r_[np.ones((2, 6)), np.zeros((2, 6))]).all()
    for start, stop, step, msg in (([-1], [1], [1], "start list elements must be greater than or equal to 0"),
                                   ([1], [-1], [1], "stop list elements must be greater than or equal to 0"),
                                   ([1], [1], [-1], "step list elements must be greater than 0"),
                                   ([2], [1], [1], "less than or equal to the element in stop list at index 0")):
        with pytest.raises(RuntimeError, match=msg):
            flow._C.slice(flow.tensor([1]), start, stop, step)


def test_normalization_train_and_eval():
    a = np.random.randn(4, 3, 5).astype(np.float32)
    g, b = np.random.rand(3).astype(np.float32), np.random.randn(3).astype(np.float32)
    rm, rv = flow.zeros(3), flow.ones(3)
    out = flow._C.normalization(flow.tensor(a), rm, rv, flow.tensor(g), flow.tensor(b), 1, 1e-5, 0.9, True)
    trm, trv = torch.zeros(3), torch.ones(3)
    ref = torch.nn.functional.batch_norm(torch.tensor(a), trm, trv, torch.tensor(g), torch.tensor(b), training=True,
                                         momentum=0.1, eps=1e-5)
    assert np.allclose(out.numpy(), ref.numpy(), atol=1e-5)
    assert np.allclose(rm.numpy(), trm.numpy(), atol=1e-6) and np.allclose(rv.numpy(), trv.numpy(), atol=1e-5)
    # eval: the running statistics just updated
    out = flow._C.normalization(flow.tensor(a), rm, rv, None, None, 1, 1e-5, 0.9, False)
    ref = torch.nn.functional.batch_norm(torch.tensor(a), trm, trv, training=False, eps=1e-5)
    assert np.allclose(out.numpy(), ref.numpy(), atol=1e-5)
    c = np.random.randn(2, 5, 3).astype(np.float32)
    out = flow._C.normalization(flow.tensor(c), flow.zeros(3), flow.ones(3), None, None, 2, 1e-5, 0.9, False)
    assert np.allclose(out.numpy(), c / np.sqrt(1 + 1e-5), atol=1e-5)
    with pytest.raises(RuntimeError, match="Must have moving_mean and moving_variance in eval mode."):
        flow._C.normalization(flow.tensor(a), None, None, None, None, 1, 1e-5, 0.9, False)
    with pytest.raises(RuntimeError, match="NumAxes of x should be greater or equal than 2."):
        flow._C.normalization(flow.ones(3), None, None, None, None, 1, 1e-5, 0.9, True)


def test_arg_sort_direction():
    a = np.random.randn(3, 7).astype(np.float32)
    out = flow._C.arg_sort(flow.tensor(a), "DESCENDING")
    assert out.dtype == flow.int32 and (out.numpy() == np.argsort(-a, axis=-1, kind="stable")).all()
    assert (flow._C.arg_sort(flow.tensor(a), "ASCENDING").numpy() == np.argsort(a, axis=-1, kind="stable")).all()
    with pytest.raises(RuntimeError, match="arg_sort"):
        flow._C.arg_sort(flow.tensor(a), "UP")


def test_moving_average_observer_takes_older_training_keyword():
    # older OneFlow releases (and OneFlow's own quantization-aware modules) pass training=
    w = (np.random.random((4, 5)) - 0.5).astype(np.float32)
    step = flow.tensor([0], dtype=flow.int64)
    obs = flow.nn.MovingAverageMinMaxObserver(training=True, quantization_formula="google", stop_update_after_iters=1,
                                              quantization_bit=8, quantization_scheme="affine", momentum=0.95)
    assert obs.training
    scale, zero_point = obs(flow.tensor(w), step)
    ref_scale = (w.max() - w.min()) / 255.0
    assert np.allclose(scale.numpy(), ref_scale, rtol=1e-5)
    assert np.allclose(zero_point.numpy(), -np.round(w.min() / ref_scale))
    frozen = flow.nn.MovingAverageMinMaxObserver(training=False)
    assert not frozen.training
    frozen(flow.tensor(w), step)
    assert float(frozen.moving_max[0]) == 0.0  # eval mode: the statistics are not updated


def test_more_oneflow_c_signatures_against_torch():
    F = torch.nn.functional
    a = np.random.randn(4, 5).astype(np.float32)
    X, tX = flow.tensor(a), torch.tensor(a)
    # ctc_loss(log_probs, targets, input_lengths, target_lengths, max_target_length, blank, zero_infinity, reduction)
    lp = np.log(np.random.dirichlet(np.ones(4), size=(6, 2))).astype(np.float32)
    tg, il, tl = np.array([[1, 2], [3, 3]]), np.array([6, 5]), np.array([2, 1])
    got = flow._C.ctc_loss(flow.tensor(lp), flow.tensor(tg), flow.tensor(il), flow.tensor(tl), 2, 0, False, "sum")
    ref = F.ctc_loss(torch.tensor(lp), torch.tensor(tg), torch.tensor(il), torch.tensor(tl), blank=0, reduction="sum")
    assert np.allclose(got.numpy(), ref.numpy(), atol=1e-4)
    with pytest.raises(RuntimeError, match="Reduction should be none, sum or mean."):
        flow._C.ctc_loss(flow.tensor(lp), flow.tensor(tg), flow.tensor(il), flow.tensor(tl), 2, blank=0,
                         zero_infinity=False, reduction="just_test")
    t = np.sign(np.random.randn(5)).astype(np.float32)
    got = flow._C.margin_ranking_loss(X[0], X[1], flow.tensor(t), 0.3, "mean")
    assert np.allclose(got.numpy(), F.margin_ranking_loss(tX[0], tX[1], torch.tensor(t), margin=0.3).numpy(), atol=1e-6)
    assert np.allclose(flow._C.softshrink(X, alpha=0.3).numpy(), F.softshrink(tX, 0.3).numpy())
    out = flow._C.argmax(X, dim=1, keepdim=True, dtype=flow.int32)
    assert out.dtype == flow.int32 and (out.numpy() == a.argmax(1)[:, None]).all()
    assert int(flow._C.argmin(X)) == int(a.argmin())
    assert (flow._C.argwhere(X > 0, dtype=flow.int32).numpy() == np.argwhere(a > 0)).all()
    idx = np.random.randint(0, 5, (4, 3))
    assert (flow._C.dim_gather(X, 1, flow.tensor(idx)).numpy() == np.take_along_axis(a, idx, 1)).all()
    img, grid = np.random.randn(1, 2, 4, 4).astype(np.float32), np.random.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
    got = flow._C.grid_sample(flow.tensor(img), flow.tensor(grid), interpolation_mode="bilinear", padding_mode="border",
                              align_corners=True)
    ref = F.grid_sample(torch.tensor(img), torch.tensor(grid), mode="bilinear", padding_mode="border", align_corners=True)
    assert np.allclose(got.numpy(), ref.numpy(), atol=1e-5)
    assert np.allclose(flow._C.reduce_sum(X, [0, 1]).numpy(), a.sum(), atol=1e-5)
    assert np.allclose(flow._C.reduce_sum(X, [1], True).numpy(), a.sum(1, keepdims=True), atol=1e-5)
    assert np.allclose(flow._C.reduce_max(X, [0]).numpy(), a.max(0))
    assert np.allclose(flow._C.reduce_min(X, [0, 1], True).numpy(), a.min(keepdims=True))
    assert np.allclose(flow._C.vector_norm(X, 3, [1], False).numpy(), torch.linalg.vector_norm(tX, 3, 1).numpy(), atol=1e-5)
    assert np.allclose(flow._C.sqrt_square_sum(X).numpy(), np.sqrt((a * a).sum()), atol=1e-5)
    y = flow._C.identity(X)
    assert np.array_equal(y.numpy(), a) and y.data_ptr() != X.data_ptr()
    assert flow._C.expand_dims(X, -1).shape == (4, 5, 1)
    assert np.array_equal(flow._C.unfold_tensor(X, 1, 2, 2).numpy(), tX.unfold(1, 2, 2).numpy())
    p = F.softmax(torch.randn(4, 5), 1)
    assert np.allclose(flow._C.softmax_cross_entropy(X, flow.tensor(p.numpy())).numpy(),
                       F.cross_entropy(tX, p, reduction="none").numpy(), atol=1e-5)
    z = np.array([2.0, 0.0, -4.0], np.float32)
    assert np.array_equal(flow._C.reciprocal_no_nan(flow.tensor(z)).numpy(), [0.5, 0.0, -0.25])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_pad_takes_a_zero_value_with_every_mode(mode):
    # OneFlow's _C.pad(x, pad, mode="constant", value=0) and torch's F.pad accept value=0 with any mode
    a = np.random.randn(1, 2, 4, 5).astype(np.float32)
    ref = torch.nn.functional.pad(torch.tensor(a), (1, 2, 2, 1), mode=mode, value=0).numpy()
    assert np.array_equal(flow._C.pad(flow.tensor(a), [1, 2, 2, 1], mode, 0).numpy(), ref)
    assert np.array_equal(flow.nn.functional.pad(flow.tensor(a), (1, 2, 2, 1), mode=mode, value=0.0).numpy(), ref)
    if mode != "constant":
        with pytest.raises(RuntimeError, match=f'Padding mode "{mode}" doesn\'t take in value argument'):
            flow._C.pad(flow.tensor(a), [1, 1, 1, 1], mode, 1.5)
