"""OneFlow's error types and phrases (its own exception tests check them by substring), kept
together with PyTorch's: each message still names the op, and where OneFlow raises
RuntimeError for a mistake PyTorch reports as IndexError or ValueError, the exception is
both (Note [Errors OneFlow raises as RuntimeError] in core/include/monoflow/error.h)."""
import numpy as np
import pytest

import monoflow as flow
from monoflow.nn import functional as F


def _raised(fn, *types):
    with pytest.raises(types) as info:
        fn()
    for t in types:
        assert isinstance(info.value, t), (t, type(info.value))
    return str(info.value)


def test_both_classes_are_exported_once():
    assert issubclass(flow._C.IndexRuntimeError, IndexError) and issubclass(flow._C.IndexRuntimeError, RuntimeError)
    assert issubclass(flow._C.ValueRuntimeError, ValueError) and issubclass(flow._C.ValueRuntimeError, RuntimeError)
    assert issubclass(flow._C.TypeRuntimeError, TypeError) and issubclass(flow._C.TypeRuntimeError, RuntimeError)


def test_indexing_a_0_dim_tensor_with_an_int():
    msg = _raised(lambda: flow.tensor(7)[0], IndexError, RuntimeError)
    assert msg.startswith("indexing: select() cannot be applied to a 0-dim tensor.")
    # a list index is not a select: still only the IndexError
    with pytest.raises(IndexError, match="indexing: Too many indices for tensor of dimension 0"):
        flow.tensor(7.0)[[0]]


def test_too_many_indices_and_slice_steps():
    x = flow.arange(16).reshape(4, 4)
    with pytest.raises(IndexError, match="indexing: Too many indices for tensor of dimension 2"):
        x[0, 0, 0] = 0
    for step in (-1, 0):
        msg = _raised(lambda: x[::step], ValueError, RuntimeError)
        assert msg == "indexing: Step must be greater than zero"


@pytest.mark.parametrize("op", [flow.add, flow.sub, flow.mul, flow.maximum, flow.pow, flow.eq, flow.logical_and])
def test_broadcast_mismatch_is_worded_as_in_torch_and_oneflow(op):
    msg = _raised(lambda: op(flow.ones(8, 10), flow.ones(8)), RuntimeError)
    assert "The size of tensor a (10) must match the size of tensor b (8) at non-singleton dimension 1" in msg
    assert "shapes [8, 10] and [8] cannot be broadcast together" in msg


def test_matrix_products():
    assert "mm: self must be a matrix" in _raised(lambda: flow.mm(flow.ones(2, 3, 3), flow.ones(3, 3)), RuntimeError)
    assert "mm: mat2 must be a matrix" in _raised(lambda: flow.mm(flow.ones(2, 3), flow.ones(3, 3, 2)), RuntimeError)
    assert "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x3)" in _raised(
        lambda: flow.mm(flow.ones(2, 3), flow.ones(4, 3)), RuntimeError)
    assert "mv: vector + matrix @ vector expected, got 1, 3, 1" in _raised(
        lambda: flow.mv(flow.ones(2, 3, 3), flow.ones(3)), RuntimeError)
    assert "mv: vector + matrix @ vector expected, got 1, 2, 2" in _raised(
        lambda: flow.mv(flow.ones(2, 3), flow.ones(3, 1)), RuntimeError)
    assert "mv: size mismatch, got input (2), mat (2x3), vec (4)" in _raised(
        lambda: flow.mv(flow.ones(2, 3), flow.ones(4)), RuntimeError)
    assert ("bmm: Expected 3-dimensional tensor, but got 1-dimensional tensor for argument #1 'batch1'"
            in _raised(lambda: flow.bmm(flow.ones(2), flow.ones(2)), RuntimeError))
    assert "dot: 1D tensors expected, but got 2D and 2D tensors" in _raised(
        lambda: flow.dot(flow.ones(2, 2), flow.ones(2, 2)), RuntimeError)
    assert "dot: expected both vectors to have same dtype, but found" in _raised(
        lambda: flow.dot(flow.ones(2, dtype=flow.int64), flow.ones(2)), RuntimeError)
    assert flow.mm(flow.ones(2, 3), flow.ones(3, 4)).shape == (2, 4)
    assert flow.mv(flow.ones(2, 3), flow.ones(3)).tolist() == [3.0, 3.0]


def test_tensordot_repeated_dim():
    a = flow.randn(1, 2, 3)
    assert "tensordot(): dim 1 appears multiple times in the list of dims" in _raised(
        lambda: flow.tensordot(a, a, dims=[[1, 1], [1, 1]]), RuntimeError)


def test_stft_argument_checks():
    x = flow.arange(1.0, 13.0, dtype=flow.float64).reshape(4, 3)
    kw = dict(center=True, onesided=True, return_complex=False)
    assert "stft(): Expected a 1D or 2D tensor, but got 3D" in _raised(
        lambda: flow.stft(x.reshape(2, 2, 3), n_fft=4, **kw), RuntimeError)
    assert "stft(): Expected 0 < n_fft <" in _raised(lambda: flow.stft(x, n_fft=-1, **kw), RuntimeError)
    assert "stft(): Expected hop_length > 0, but got hop_length=-1" in _raised(
        lambda: flow.stft(x, n_fft=4, hop_length=-1, **kw), RuntimeError)
    assert "stft(): Expected 0 < win_length <= n_fft, but got win_length=-1" in _raised(
        lambda: flow.stft(x, n_fft=4, win_length=-1, **kw), RuntimeError)
    assert "stft(): Expected a 1D window tensor of size equal to win_length=4" in _raised(
        lambda: flow.stft(x.reshape(2, 6), n_fft=4, window=flow.ones(9, dtype=flow.float64), **kw), RuntimeError)


def test_cosine_similarity_needs_a_floating_common_dtype():
    x = flow.ones(2, 5, dtype=flow.int32)
    msg = _raised(lambda: F.cosine_similarity(x, x, dim=1), RuntimeError)
    assert msg.startswith("cosine_similarity(): expected common dtype to be floating point, yet common dtype is")
    assert "int32" in msg


def test_mode_names_the_empty_reduction_dim():
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1 to have non-zero size"):
        flow.mode(flow.randn(2, 0, 2), 1)


def test_in_top_k_checks():
    pred = flow.tensor([[0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0]])
    cases = [(flow.tensor([1.0, 1.0]), pred, "targets data type must be index type"),
             (flow.tensor([[3, 1], [1, 3]]), pred, "The dimension of targets must be 1"),
             (flow.tensor([3, 1]), pred.unsqueeze(1), "The dimension of predictions must be 2"),
             (flow.tensor([3]), pred, "The num of targets must equal the num of predictions")]
    for targets, predictions, phrase in cases:
        msg = _raised(lambda: flow.in_top_k(targets, predictions, 1), ValueError, RuntimeError)
        assert msg.startswith("in_top_k(): ") and phrase in msg
    assert flow.in_top_k(flow.tensor([3, 0]), pred, 1).tolist() == [True, True]


def test_oneflow_bias_add():
    out = flow._C.bias_add(flow.zeros(2, 3, 2), flow.tensor([1.0, 2.0, 3.0]), axis=1)
    assert out[:, :, 0].tolist() == [[1.0, 2.0, 3.0]] * 2 and out.shape == (2, 3, 2)
    assert "bias_add(): The size of tensor x (4,4) must match the size of tensor b (5,) at dimension 1" in _raised(
        lambda: flow._C.bias_add(flow.ones(4, 4), flow.ones(5), axis=1), RuntimeError)
    assert "bias_add(): Dimension out of range" in _raised(
        lambda: flow._C.bias_add(flow.ones(4, 4), flow.ones(4), axis=3), IndexError)
    assert "bias_add(): Bias tensor has to be a one-dimensional vector" in _raised(
        lambda: flow._C.bias_add(flow.ones(2, 2), flow.ones(2, 2), axis=0), RuntimeError)


def test_oneflow_phrases_next_to_the_torch_wording():
    msg = _raised(lambda: flow._C.normal(0.0, 1.0, size=(3, 3), dtype=flow.int32), TypeError)
    assert msg.startswith("normal(): expected a floating point dtype") and "Only support float and double in normal()." in msg
    out = flow.zeros(3, 3, dtype=flow.float64)
    msg = _raised(lambda: flow.normal(0.0, 1.0, size=(3, 3), dtype=flow.float32, out=out), RuntimeError)
    assert msg == "normal(): data type monoflow.float32 does not match data type of out parameter monoflow.float64"
    assert flow.normal(0.0, 1.0, size=(3, 3), dtype=flow.float64, out=out) is out
    assert "tensordot(): tensordot expects dims >= 0, but got dims=-1" in _raised(
        lambda: flow.tensordot(flow.ones(2, 2), flow.ones(2, 2), dims=-1), RuntimeError)
    msg = _raised(lambda: flow.randperm(-1), RuntimeError)
    assert msg.startswith("randperm(): ") and "Trying to create tensor with negative dimension -1" in msg
    msg = _raised(lambda: flow.diag(flow.ones(2, 2, 2)), RuntimeError)
    assert msg.startswith("diag(): ") and "expected to be in range of [1, 2], but got 3" in msg
    for fn in (lambda: flow.nn.functional.triplet_margin_loss(flow.ones(3, 3), flow.ones(3, 3), flow.ones(3, 3),
                                                              reduction="just_test"),
               lambda: flow.nn.functional.mse_loss(flow.ones(3), flow.ones(3), reduction="just_test")):
        msg = _raised(fn, ValueError)
        assert "is not a valid value for reduction" in msg and "Reduction should be none, sum or mean." in msg
        assert msg.split("(")[0] in ("triplet_margin_loss", "mse_loss")


def test_oneflow_global_phrases():
    msg = _raised(lambda: flow.tensor([1.0]).to_local(), RuntimeError)
    assert msg.startswith("to_local: ") and "Expected global tensor for to_local but got local tensor!" in msg
    msg = _raised(lambda: flow.sbp.split(-1), ValueError, RuntimeError)
    assert msg.startswith("sbp.split: ") and "Split axis must not be negative, but got -1!" in msg
    x = flow.tensor([1, 2, 3, 4])
    msg = _raised(lambda: x.to_global(placement=flow.placement.all("cpu"), sbp=flow.sbp.split(1)),
                  ValueError, RuntimeError)
    assert msg.startswith("to_global: ") and "Split axis out of range (expected to be in range of [0, 1), but got 1!" in msg


def test_oneflow_only_ops_check_as_oneflow():
    F = flow.nn.functional
    for x, idx, phrase in [
            (flow.tensor(1.0), flow.tensor([0]), "The dimension of the input tensor should be greater than zero, but got 0"),
            (flow.tensor([1.0]), flow.tensor(0), "The dimension of the indices tensor should be greater than zero, but got 0"),
            (flow.ones(1), flow.zeros(3, 2, dtype=flow.int64), "The dimension of the input tensor should be greater "
                                                               "than or equal to the dimension of the indices tensor"),
            (flow.ones(4, 5), flow.zeros(3, 2, dtype=flow.int64), "The size of bias tensor must match the size of input tensor")]:
        msg = _raised(lambda: flow.batch_gather(x, idx), RuntimeError)
        assert msg.startswith("batch_gather(): ") and phrase in msg
    assert "The dtype of the indices tensor must be int32 or int64" in _raised(
        lambda: flow.batch_gather(flow.ones(2), flow.ones(2, dtype=flow.float64)), TypeError)
    assert flow.batch_gather(flow.tensor([[1.0, 2.0], [3.0, 4.0]]), flow.tensor([1, 0])).tolist() == [[3.0, 4.0], [1.0, 2.0]]

    for x, rois, phrase in [(flow.ones(2, 3, 8), flow.ones(2, 5), "The demensions of x tensor must be equal to 4, but got 3"),
                            (flow.ones(2, 3, 8, 8), flow.ones(2, 5, 1), "The demensions of rois tensor must be equal to 2, but got 3"),
                            (flow.ones(2, 3, 8, 8), flow.ones(2, 3), "The size of rois tensor must be equal to 5 at dimension 1, but got 3")]:
        msg = _raised(lambda: flow.roi_align(x, rois, 2.0, 2, 2, 2, True), RuntimeError)
        assert msg.startswith("roi_align(): ") and phrase in msg

    sce = flow._C.sparse_softmax_cross_entropy
    for logits, labels, phrase in [
            (flow.randn(10), flow.zeros(10, 10, dtype=flow.int64), "The dimension of prediction must greater than or equal to 2, but got 1"),
            (flow.randn(10, 5), flow.zeros(10, 5, dtype=flow.int64), "The dimension of label is expected to be less than that of prediction by 1"),
            (flow.randn(10, 10, 5), flow.zeros(10, 9, dtype=flow.int64), "must match the size of label")]:
        msg = _raised(lambda: sce(logits, labels), RuntimeError)
        assert msg.startswith("sparse_softmax_cross_entropy(): ") and phrase in msg
    assert "The dtype of label must be integer, but got" in _raised(lambda: sce(flow.randn(3, 2), flow.zeros(3)), TypeError)
    assert sce(flow.zeros(2, 2), flow.tensor([0, 1])).shape == (2,)

    assert "reshape_like(): The element number of in tensor must be equal to the element number of like tensor" in \
        _raised(lambda: flow._C.reshape_like(flow.ones(2), flow.ones(2, 3)), RuntimeError)
    msg = _raised(lambda: flow._C.reduce_sum_like(flow.ones(2), flow.ones(3), []), RuntimeError)
    assert msg.startswith("reduce_sum_like(): ") and "The shape of the x tensor must be consistent to the shape of the like tensor" in msg
    assert "reduce_sum_like(): Tensors x and like must have the same type" in _raised(
        lambda: flow._C.reduce_sum_like(flow.ones(2, dtype=flow.int64), flow.ones(2, dtype=flow.float64), [1]), TypeError)


def test_repeat_interleave_and_broadcast_tensors_phrases():
    x = flow.tensor([[1, 2], [3, 4]])
    assert "repeat_interleave: repeats has to be Long tensor" in _raised(
        lambda: flow.repeat_interleave(x, flow.tensor([1.0, 2.0]), dim=1), RuntimeError)
    msg = _raised(lambda: flow.repeat_interleave(x, flow.tensor([[1, 2], [3, 4]]), dim=1), RuntimeError)
    assert msg.startswith("repeat_interleave: ") and "repeat_interleave only accept 1D vector as repeat" in msg
    assert flow.repeat_interleave(x, flow.tensor([1, 2]), dim=1).tolist() == [[1, 2, 2], [3, 4, 4]]
    msg = _raised(lambda: flow.broadcast_tensors(flow.ones(2, 3), flow.ones(4, 3)), RuntimeError)
    assert msg.startswith("broadcast_tensors(): ") and "The size of tensor a (2) must match the size of tensor b (4)" in msg
    assert "input and other can't be broadcasted to a single shape." in msg


def test_grid_sample_phrases():
    gs = F.grid_sample
    for inp, grid, phrase in [(flow.ones(3, 4, 5), flow.ones(3, 5, 1), "MUST be 4D or 5D input"),
                              (flow.ones(3, 2, 9, 11), flow.ones(3, 9, 11, 1), "Grid shape MUST (N, H_out, W_out, 2)"),
                              (flow.ones(3, 2, 9, 11), flow.ones(3, 9, 11), "Grid and input MUST have same dimention"),
                              (flow.ones(3, 2, 5, 9, 11), flow.ones(3, 5, 9, 11, 2), "Grid shape MUST (N, H_out, W_out, 3)"),
                              (flow.ones(3, 2, 5, 9, 11), flow.ones(3, 5, 9, 11), "Grid and input MUST have same dimention")]:
        msg = _raised(lambda: gs(inp, grid, mode="bilinear", padding_mode="zeros", align_corners=False), RuntimeError)
        assert msg.startswith("grid_sampler(): ") and phrase in msg


def test_deform_conv2d_checks_are_value_and_runtime_errors():
    dc = F.deform_conv2d
    x, w, off = flow.randn(4, 3, 10, 10), flow.randn(5, 3, 3, 3), flow.randn(4, 18, 8, 8)
    for args, kw, phrase in [((flow.randn(2, 5, 1), flow.randn(2, 5, 1, 1), flow.randn(2, 5, 1, 1)), {},
                              "The dimension of input tensor weight must be 4"),
                             ((flow.randn(2, 5, 1, 1), flow.randn(2, 5, 1), flow.randn(2, 5, 1, 1)), {},
                              "The dimension of offset tensor weight must be 4"),
                             ((flow.randn(2, 5, 1, 1), flow.randn(2, 3, 1, 1), flow.randn(2, 5, 1)), {},
                              "The dimension of weight tensor weight must be 4"),
                             ((flow.randn(2, 5, 1, 1), flow.randn(2, 3, 1, 1), flow.randn(2, 4, 5, 1)),
                              {"mask": flow.randn(2, 3, 1)}, "The dimension of mask tensor weight must be 4"),
                             ((x, off, w), {"dilation": (-1, 0)}, "The dilation must be greater than 0"),
                             ((x, off, w), {"padding": (-1, 0)}, "The pad must be greater than or equal to 0"),
                             ((x, off, w), {"stride": (-1, 0)}, "The stride must be greater than 0")]:
        msg = _raised(lambda: dc(*args, **kw), ValueError, RuntimeError)
        assert msg.startswith("deform_conv2d(): ") and phrase in msg, msg


def test_array_op_phrases():
    pred = flow.tensor([[0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0]])
    msg = _raised(lambda: flow.in_top_k(flow.tensor([[3, 1]]), pred, 1), ValueError, RuntimeError)
    assert "in_top_k(): The num of targets must equal the num of predictions" in msg
    assert "meshgrid: meshgrid expects a non-empty TensorList" in _raised(lambda: flow.meshgrid([]), RuntimeError)
    msg = _raised(lambda: flow.meshgrid(flow.tensor([]), flow.ones(1, 2, 3)), RuntimeError)
    assert msg.startswith("meshgrid: Expected 0D or 1D tensor") and "Expected scalar or 1D tensor in the tensor list" in msg
    g = flow.tensor([0.0, 1.0], placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)
    assert "meshgrid: meshgrid expects all tensors are global tensor" in _raised(
        lambda: flow.meshgrid(g, flow.tensor([0.0, 1.0])), RuntimeError)
    assert [t.shape for t in flow.meshgrid(g, g)] == [(2, 2), (2, 2)]
    msg = _raised(lambda: flow._C.broadcast_like(flow.ones(2, 2, 2), flow.ones(2, 2)), RuntimeError)
    assert msg.startswith("broadcast_like(): The number of sizes provided (2)")
    msg = _raised(lambda: flow.tensor_scatter_nd_update(flow.arange(8, dtype=flow.float32), flow.tensor([[1], [3]]),
                                                        flow.tensor([-1.0, -2.0], dtype=flow.float64)), RuntimeError)
    assert msg.startswith("tensor_scatter_nd_update(): The dtype of tensor and updates must be same.")
    import numpy as np
    for x in (np.ones((2, 2)), flow.ones(2, 2)):
        msg = _raised(lambda: F.pad(x), TypeError)
        assert msg.startswith("pad(): ") and "pad() missing 1 required positional argument: 'pad'" in msg


def test_oneflow_split_like_and_sparse_cross_entropy():
    split_like = flow._C.split_like
    x = flow.arange(10.0).reshape(5, 2)
    a, b = split_like(x, (flow.empty(2, 2), flow.empty(3, 2)), 0)
    assert a.tolist() == [[0.0, 1.0], [2.0, 3.0]] and b.shape == (3, 2)
    x = flow.randn(4, 4)
    for like, axis, phrase in [((flow.randn(2, 4, 4), flow.randn(2, 4, 4)), 0, ") should be less than or equal to input ("),
                               ((flow.randn(2, 4), flow.randn(2, 4)), 3, "should be less than the dimension of like"),
                               ((flow.randn(2, 4), flow.randn(2)), 0, "must match the dimension of the first like"),
                               ((flow.randn(2, 4), flow.randn(2, 3)), 0, "must match the size of like_i"),
                               ((flow.randn(2, 4), flow.randn(3, 4)), 0, "shape situation, the total size of like")]:
        msg = _raised(lambda: split_like(x, like, axis), RuntimeError)
        assert msg.startswith("split_like(): ") and phrase in msg

    sce = flow._C.sparse_cross_entropy
    p = flow.tensor([[0.5, 0.5], [0.25, 0.75]], requires_grad=True)
    out = sce(p, flow.tensor([0, 1]), 2)
    assert abs(out[1].item() - 0.2877) < 1e-4
    out.sum().backward()
    assert abs(p.grad[1, 1].item() + 1 / 0.75) < 1e-5 and p.grad[1, 0].item() == 0
    for pred, label, exc, phrase in [
            (flow.randn(10), flow.zeros(10, 10, dtype=flow.int64), RuntimeError, "The dimension of prediction must greater than or equal to 2"),
            (flow.randn(10, 5), flow.zeros(10, 5, dtype=flow.int64), RuntimeError, "The dimension of label is expected to be less than that of prediction by 1"),
            (flow.randn(10, 10, 5), flow.zeros(10, 5, dtype=flow.int64), RuntimeError, "must match the size of label"),
            (flow.randn(10, 10, 5), flow.randn(10, 10), TypeError, "The dtype of label must be integer, but got")]:
        msg = _raised(lambda: sce(pred, label, 5), exc)
        assert msg.startswith("sparse_cross_entropy(): ") and phrase in msg


def test_pad_and_oneflow_matmul_phrases():
    msg = _raised(lambda: flow._C.pad(flow.ones(1, 1), (1, 1, 1, 1, 1)), RuntimeError)
    assert msg.startswith("pad: Padding length should be less than or equal to two times the input dimension")
    assert "Pad size should less than or equal to input axes * 2." in msg
    msg = _raised(lambda: flow._C.pad(flow.ones(1, 1), (1, 1, 1)), RuntimeError)
    assert msg.startswith("pad: Padding length must be divisible by 2")
    assert "Length of pad must be even but instead it equals 3" in msg
    msg = _raised(lambda: flow._C.pad(flow.ones(1, 1, 2, 2), (4, 4, 4, 4), mode="test"), NotImplementedError)
    assert msg.startswith("pad: ") and "Pad mode is test, but only constant, reflect and replicate are valid." in msg
    for a, b, name in ((flow.ones(()), flow.ones(4, 4), "a"), (flow.ones(4, 4), flow.ones(()), "b")):
        msg = _raised(lambda: flow._C.matmul(a, b, False, False, 1.0), RuntimeError)
        assert msg.startswith("matmul(): both arguments to matmul need to be at least 1D") and f"Tensor {name}'s dim should >= 1" in msg


def test_oneflow_fused_mlp():
    mlp = flow._C.fused_mlp
    x = flow.randn(3, 4, requires_grad=True)
    w1, w2 = flow.randn(5, 4), flow.randn(2, 5)
    b1, b2 = flow.randn(5), flow.randn(2)
    want = F.linear(F.linear(x, w1, b1).relu(), w2, b2)
    assert flow.allclose(mlp(x, [w1, w2], [b1, b2], True), want)
    assert flow.allclose(mlp(x, [w1, w2], [b1, b2], False), want.relu())
    mlp(x, [w1, w2], [b1, b2], True).sum().backward()
    assert x.grad.shape == (3, 4)
    ones = flow.ones
    for ws, bs, phrase in [([], [ones(4)], "The number of weights should be greater equal than 1"),
                           ([ones(4, 4), ones(4, 4)], [ones(4)], "The number of weights should be equal to biases"),
                           ([ones(4)], [ones(4)], "Weight's dim size should == 2"),
                           ([ones(4, 4)], [ones(4, 4)], "Bias's dim size should == 1"),
                           ([ones(6, 4)], [ones(5)], "Bias's dim is not equal to weight's first dim."),
                           ([ones(3, 6)], [ones(3)], "weight's second dim should be equal to input's second dim.")]:
        msg = _raised(lambda: mlp(ones(2, 4), ws, bs, False), RuntimeError)
        assert msg.startswith("fused_mlp(): ") and phrase in msg


def test_oneflow_view_function_and_to_of_a_global_other():
    assert flow.view(flow.arange(6), 2, 3).tolist() == [[0, 1, 2], [3, 4, 5]]
    x = flow.arange(6.0)
    v = flow.view(x, (3, 2))
    v[0, 0] = 7.0
    assert x[0].item() == 7.0
    msg = _raised(lambda: flow.view(flow.ones(2, 3, 4).permute(1, 0, 2), flow.ones(4, 6).shape), RuntimeError)
    assert msg.startswith("view: view size is not compatible with input tensor's size")
    g = flow.tensor([0.0, 1.0], placement=flow.placement("cpu", ranks=[0]), sbp=[flow.sbp.split(0)])
    msg = _raised(lambda: flow.tensor([0.0, 1.0]).to(g), RuntimeError)
    assert msg.startswith("to(): tensor.to(other) can only be called when tensor and other are local tensors")
    assert flow.tensor([1, 2]).to(flow.tensor([0.5])).dtype == flow.float32


def test_oneflow_slice_update_list_form_checks():
    su = flow._C.slice_update
    ref = flow.tensor([[1], [2]])
    for start, stop, step, phrase in [([-1], [1], [1], "The start list elements must be greater than or equal to 0, but got -1"),
                                      ([1], [-1], [1], "The stop list elements must be greater than or equal to 0"),
                                      ([1], [1], [0], "The step list elements must be greater than 0, but got 0"),
                                      ([2], [1], [1], "The element in start list must be less than or equal to the element in stop list at index 0")]:
        msg = _raised(lambda: su(ref, flow.tensor([[1], [2]]), start, stop, step), RuntimeError)
        assert msg.startswith("slice_update(): ") and phrase in msg
    msg = _raised(lambda: su(flow.tensor([1, 2]), flow.tensor([1, 2]), [1, 2, 3], [1, 2, 3], [1, 2, 3]), IndexError, RuntimeError)
    assert "The size of slice tuple must be equal to the size of value tensor at dimension" in msg
    msg = _raised(lambda: su(flow.tensor([1]), flow.tensor([0.5]), [1], [2], [1]), TypeError)
    assert msg.startswith("slice_update(): Tensors ref and value must have same type")
    assert su(flow.zeros(4), flow.ones(2), [0], [4], [2]).tolist() == [1.0, 0.0, 1.0, 0.0]


def test_masked_fill_refuses_a_float_mask():
    for fn in (lambda: flow._C.masked_fill_(flow.ones(5), flow.ones(5), 2),
               lambda: flow.ones(5).masked_fill(flow.ones(5), 2), lambda: flow.masked_fill(flow.ones(5), flow.ones(5), 2)):
        msg = _raised(fn, RuntimeError)
        assert msg.split("(")[0] in ("masked_fill_", "masked_fill") and "mask type must be integral or bool" in msg
    x = flow.zeros(3)
    assert flow._C.masked_fill_(x, flow.tensor([1, 0, 1]), 2.0) is x and x.tolist() == [2.0, 0.0, 2.0]
    assert flow.masked_select(flow.arange(3.0), flow.tensor([0.0, 1.0, 0.5])).tolist() == [1.0, 2.0]


def test_placement_rank_errors_are_value_and_runtime_errors():
    msg = _raised(lambda: flow.placement(type="cpu", ranks=[]), ValueError, RuntimeError)
    assert msg.startswith("placement: ") and "placement ranks shoule be an array of long int" in msg
    p = flow.placement(type="cpu", ranks=[1000])
    msg = _raised(lambda: flow.Tensor(2, 3, placement=p, sbp=flow.sbp.broadcast), ValueError, RuntimeError)
    assert "names rank(s) [1000] that do not exist" in msg
    assert "Placement is invalid because rank must be less than world size!" in msg


def test_an_int_index_past_the_end_carries_oneflows_phrase():
    msg = _raised(lambda: flow.ones(2, 3, dtype=flow.int32)[3], IndexError)
    assert msg.startswith("index 3 is out of bounds for dimension 0 with size 2")
    assert "Index out of range (expected to be in range of [-2, 1], but got 3)" in msg
    msg = _raised(lambda: flow.ones(2, 3).select(1, -4), IndexError)
    assert msg.startswith("select(): index -4 is out of bounds for dimension 1 with size 3")
    assert "Index out of range (expected to be in range of [-3, 2], but got -4)" in msg


def test_oneflow_add_of_more_than_two_tensors():
    a, b = flow.tensor([1, 2]), flow.tensor([3, 4])
    assert flow.add(a, b, flow.tensor([2, 2])).tolist() == [6, 8]
    msg = _raised(lambda: flow.add(a, b, flow.tensor([[2, 2], [2, 2]])), RuntimeError)
    assert msg.startswith("add(): inconsistent tensor size, expected all tensor to have the same number of elements")
    msg = _raised(lambda: flow.add(a, b, flow.tensor([2.0, 2.0], dtype=flow.float64)), RuntimeError)
    assert msg.startswith("add(): expected all tenser to have same type, but found")
    with pytest.warns(UserWarning):  # torch's deprecated add(input, alpha, other) is kept
        assert flow.add(flow.tensor([1.0, 2.0]), 2, flow.tensor([3.0, 4.0])).tolist() == [7.0, 10.0]


def test_glu_checks_as_torch_and_oneflow():
    msg = _raised(lambda: F.glu(flow.tensor(1.0)), RuntimeError)
    assert msg == "glu: glu does not support scalars because halving size must be even"
    msg = _raised(lambda: F.glu(flow.randn(2, 3)), RuntimeError)
    assert msg == "glu: Halving dimension must be even, but dimension 1 is size 3"
    assert "Dimension out of range (expected to be in range of [-2, 1], but got 3)" in _raised(
        lambda: flow.nn.GLU(dim=3)(flow.randn(2, 4)), IndexError)
    assert F.glu(flow.tensor([1.0, 2.0, 0.0, 0.0])).tolist() == [0.5, 1.0]


def test_arg_sort_direction_wording():
    msg = _raised(lambda: flow._C.arg_sort(flow.tensor([3.0, 1.0]), "NONE"), RuntimeError)
    assert msg.startswith("arg_sort(): expected the input direction parameter value is") and msg.endswith("NONE")
    assert flow._C.arg_sort(flow.tensor([3.0, 1.0]), "ASCENDING").tolist() == [1, 0]


@pytest.mark.parametrize("idx", [slice(0.0, 2.0), slice(None, 2.5), slice(0, 5, 1.0), slice("a", 2), (0, slice(0.0, 2))])
def test_a_slice_bound_that_is_not_an_integer(idx):
    # torch's TypeError (its wording), OneFlow's RuntimeError (test_tensor_indexing2: x[0.0:2.0])
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="slice indices must be integers or None or have an __index__ method"):
        torch.zeros(3, 4)[idx]
    x = flow.zeros(3, 4)
    msg = _raised(lambda: x[idx], TypeError, RuntimeError)
    assert msg.startswith("indexing: slice indices must be integers or None or have an __index__ method")

    def assign():
        x[idx] = 1.0
    _raised(assign, TypeError, RuntimeError)
    # a float index (not a slice bound) stays torch's and OneFlow's IndexError; an index tensor bound still works
    with pytest.raises(IndexError, match="got float"):
        x[0.0]
    assert x[flow.tensor(1):flow.tensor(3)].shape == (2, 4)


def test_indices_into_a_dimension_of_size_0_carry_torchs_phrase():
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError, match="index is out of bounds for dimension with size 0"):
        torch.empty(10, 0)[:, [0, 1]]
    with pytest.raises(IndexError, match="index is out of bounds for dimension with size 0 \\(dimension 1\\)"):
        flow.empty(10, 0)[:, [0, 1]]
    assert flow.empty(10, 0)[[1, 2]].shape == (2, 0)  # the size-0 dim not indexed: no error


def test_in_place_on_a_leaf_that_requires_grad_says_leaf_tensor():
    # OneFlow's phrase (test_activation, test_binary_functor_exception): "a leaf Tensor", not torch's "Variable"
    x = flow.ones(4, 4, requires_grad=True)
    for fn in (lambda: x.relu_(), lambda: x.add_(1.0), lambda: x.div_(flow.ones(4, 4)),
               lambda: flow.nn.CELU(inplace=True)(x), lambda: flow.nn.Hardsigmoid(inplace=True)(x),
               lambda: flow.nn.Hardshrink(inplace=True)(x), lambda: flow.nn.Softshrink(inplace=True)(x)):
        with pytest.raises(RuntimeError, match="a leaf Tensor that requires grad is being used in an in-place operation"):
            fn()
    with pytest.raises(RuntimeError, match="view of a leaf Tensor that requires grad"):
        x[0].add_(1.0)


def test_hardshrink_and_softshrink_take_oneflows_inplace():
    torch = pytest.importorskip("torch")
    v = [-2.0, -0.4, 0.0, 0.3, 1.5]
    for name in ("Hardshrink", "Softshrink"):
        x = flow.tensor(v)
        out = getattr(flow.nn, name)(0.5, inplace=True)(x)
        assert out is x
        assert x.tolist() == pytest.approx(getattr(torch.nn, name)(0.5)(torch.tensor(v)).tolist())
        assert getattr(flow.nn, name)(0.5, inplace=True).extra_repr() == "0.5, inplace=True"
    # the in-place form on a non-leaf keeps the gradient of the out-of-place one
    a = flow.tensor(v, requires_grad=True)
    F.softshrink(a * 1.0, 0.5, inplace=True).sum().backward()
    ta = torch.tensor(v, requires_grad=True)
    torch.nn.functional.softshrink(ta * 1.0, 0.5).sum().backward()
    assert a.grad.tolist() == ta.grad.tolist()


def test_softshrink_refuses_a_negative_lambd():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        torch.nn.Softshrink(-0.1)(torch.randn(2))
    with pytest.raises(RuntimeError, match=r"^softshrink: lambd must be greater or equal to 0, but found to be -0.1\."):
        flow.nn.Softshrink(-0.1)(flow.randn(2))
    assert F.softshrink(flow.tensor([0.5]), 0.0).tolist() == [0.5]


def test_prelu_parameter_count_mismatch_carries_oneflows_phrase():
    msg = _raised(lambda: flow.nn.PReLU(5)(flow.ones(4, 4)), RuntimeError)
    assert msg.startswith("prelu: num_parameters in prelu must be 1 or 4")
    assert "Found parameter numbers = 5 and channel size = 4" in msg


def test_in_place_binary_ops_with_a_shape_that_does_not_fit_self():
    torch = pytest.importorskip("torch")
    for name in ("add_", "sub_", "mul_", "div_"):
        # not broadcastable at all: OneFlow's phrase, then the broadcast error (torch's wording)
        with pytest.raises(RuntimeError, match="The size of tensor a"):
            getattr(torch.ones(2, 3), name)(torch.ones(2, 4))
        msg = _raised(lambda: getattr(flow.ones(2, 3), name)(flow.ones(2, 4)), RuntimeError)
        assert msg.startswith(f"{name}: Tensor with shape (2,3) doesn't match the broadcast shape in an inplace "
                              "operation"), msg
        assert "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1" in msg
        # broadcastable, but to a larger shape than self: torch's wording, then OneFlow's
        with pytest.raises(RuntimeError, match=r"output with shape \[3, 3\] doesn't match the broadcast shape"):
            getattr(torch.ones(3, 3), name)(torch.ones(2, 3, 3))
        msg = _raised(lambda: getattr(flow.ones(3, 3), name)(flow.ones(2, 3, 3)), RuntimeError)
        assert msg == (f"{name}: output with shape [3, 3] doesn't match the broadcast shape [2, 3, 3] "
                       "(Can not expand origin shape (2,3,3) to (3,3))")
    assert flow.ones(2, 3).add_(flow.ones(3), alpha=2.0).tolist() == [[3.0] * 3] * 2
    with pytest.raises(RuntimeError, match=r"^add_: Tensor with shape \(2,\) doesn't match"):
        flow.ones(2).add_(flow.ones(3), alpha=2.0)


def test_narrow_start_out_of_range_and_reshape_invalid_dim():
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError, match=r"expected to be in range of \[-3, 3\], but got 4"):
        torch.narrow(torch.ones(3, 3), 0, 4, 0)
    for start in (4, -4):
        msg = _raised(lambda: flow.narrow(flow.ones(3, 3), 0, start, 0), IndexError)
        assert msg == (f"narrow: start ({start}) is out of bounds for dimension 0 of size 3: Dimension out of range "
                       f"(expected to be in range of [-3, 3], but got {start})")
    assert flow.narrow(flow.arange(3), 0, -3, 2).tolist() == torch.narrow(torch.arange(3), 0, -3, 2).tolist()
    assert flow.narrow(flow.arange(3), 0, 3, 0).shape == (0,)
    with pytest.raises(RuntimeError, match=r"invalid shape dimension -2"):
        torch.tensor((2, 2)).reshape((-2, 4))
    msg = _raised(lambda: flow.tensor((2, 2)).reshape((-2, 4)), RuntimeError)
    assert msg == "reshape: Invalid shape dimension -2 at index 0 of shape [-2, 4]"


def test_linalg_inv_checks_the_dimensions_before_the_dtype():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        torch.linalg.inv(torch.tensor((2, 2)))  # (an int64 vector: torch names the dimensions too)
    msg = _raised(lambda: flow.linalg.inv(flow.tensor((2, 2))), RuntimeError)
    assert msg == "linalg.inv: The input tensor must be at least 2 dimensions. Got A with 1."
    with pytest.raises(RuntimeError, match="linalg.inv: Expected a floating point tensor as input. Got int64"):
        flow.linalg.inv(flow.tensor([[1, 2], [3, 4]]))


def test_broadcast_shapes_and_tensors_carry_oneflows_phrases():
    msg = _raised(lambda: flow.broadcast_shapes((2,), (3, 3), (1, 1, 1)), RuntimeError)
    assert msg.startswith("broadcast_shapes: The size of tensor a (2) must match the size of tensor b (3)")
    assert msg.endswith("(input and other can't be broadcasted to a single shape.)")
    # no arguments: torch's empty results (OneFlow refuses; torch code that broadcasts an
    # empty list must keep working)
    assert flow.broadcast_shapes() == () and flow.broadcast_tensors() == ()
    assert flow.broadcast_shapes((2, 1), (3,)) == (2, 3)


def test_oneflow_softmax_cross_entropy_and_its_grad():
    torch = pytest.importorskip("torch")
    logits, label = [[0.5, -1.0, 2.0], [0.0, 0.3, 0.1]], [[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]
    tl = torch.tensor(logits, requires_grad=True)
    loss = -(torch.tensor(label) * tl.log_softmax(-1)).sum(-1)
    dy = torch.tensor([1.5, -0.5])
    loss.backward(dy)
    out = flow._C.softmax_cross_entropy(flow.tensor(logits), flow.tensor(label))
    assert out.tolist() == pytest.approx(loss.tolist(), rel=1e-6)
    grad = flow._C.softmax_cross_entropy_grad(flow.tensor(dy.tolist()), flow.tensor(label),
                                              flow.tensor(logits).softmax(-1))
    np.testing.assert_allclose(grad.numpy(), tl.grad.numpy(), rtol=1e-5, atol=1e-7)
    C = flow._C
    cases = [
        (lambda: C.softmax_cross_entropy(flow.randn(10), flow.randn(1, 10)), RuntimeError,
         "softmax_cross_entropy: The dimension of prediction must greater than or equal to 2, but got 1"),
        (lambda: C.softmax_cross_entropy(flow.randn(1, 10), flow.randn(1, 11)), RuntimeError,
         "must match the size of prediction"),
        (lambda: C.softmax_cross_entropy(flow.randn(1, 10), flow.randn(1, 10, dtype=flow.float64)), TypeError,
         f"label and prediction are expected to have the same dtype, but found {flow.float64} and {flow.float32}"),
        (lambda: C.softmax_cross_entropy_grad(flow.randn(10, 5), flow.randn(10, 10, 5), flow.randn(10)),
         RuntimeError, "The dimension of prob must greater than or equal to 2, but got 1"),
        (lambda: C.softmax_cross_entropy_grad(flow.randn(10, 10, 5), flow.randn(10, 10, 5), flow.randn(10, 10, 5)),
         RuntimeError, "The dimension of dy is expected to be less than that of prob by 1, but found 3 and 3"),
        (lambda: C.softmax_cross_entropy_grad(flow.randn(10, 8), flow.randn(10, 10, 5), flow.randn(10, 10, 5)),
         RuntimeError, "The size of dy (8) at dimension 1 must match the size of label (10)"),
        (lambda: C.softmax_cross_entropy_grad(flow.randn(10, 10), flow.randn(10, 10, 5), flow.randn(10, 10, 6)),
         RuntimeError, "must match the size of prob"),
        (lambda: C.softmax_cross_entropy_grad(flow.randn(10, 10, dtype=flow.float64), flow.randn(10, 10, 5),
                                              flow.randn(10, 10, 5, dtype=flow.float64)),
         TypeError, "label and prob are expected to have the same dtype"),
        (lambda: C.softmax_cross_entropy_grad(flow.randn(10, 10), flow.randn(10, 10, 5, dtype=flow.float64),
                                              flow.randn(10, 10, 5, dtype=flow.float64)),
         TypeError, "dy and prob are expected to have the same dtype"),
    ]
    for fn, exc, phrase in cases:
        msg = _raised(fn, exc)
        assert msg.startswith("softmax_cross_entropy") and phrase in msg, msg


def test_in_place_activation_on_a_leaf_names_the_activation_not_the_copy_node():
    x = flow.ones(2, requires_grad=True)
    for name in ("celu", "elu", "leaky_relu", "hardsigmoid", "hardshrink", "softshrink"):
        with pytest.raises(RuntimeError) as info:
            getattr(F, name)(x, inplace=True)
        assert str(info.value) == f"{name}(): a leaf Tensor that requires grad is being used in an in-place operation."
    with pytest.raises(RuntimeError, match=r"^copy_\(\): a leaf Tensor that requires grad"):
        x.copy_(flow.zeros(2))


def test_a_global_tensor_to_a_device_string_with_an_index_is_refused():
    # OneFlow's check (exceptions/test_array_functor): a global tensor's devices are its placement's
    x = flow.tensor([0.0, 1.0], placement=flow.placement("cpu", ranks=[0]), sbp=[flow.sbp.split(0)])
    for bad in ("cpu:0", "cpp"):
        for call in (lambda: x.to(bad), lambda: x.to(device=bad)):
            with pytest.raises(RuntimeError, match=r'^to\(\): Only string device without device id \(eg\. "cpu" or '
                                                   rf'"cuda"\) is expected for global tensor, but got {bad}$'):
                call()
    y = x.to("cpu", flow.float64)
    assert y.is_global and y.dtype == flow.float64 and y.sbp == x.sbp and y.to_local().tolist() == [0.0, 1.0]
    assert flow.ones(2).to("cpu:0").device == flow.device("cpu:0")  # a local tensor takes an index
