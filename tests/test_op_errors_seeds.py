"""Error messages found by the fuzzer's seeds 1-20 (python -m tests.fuzz --seed S):
each bad call raises the expected type with a message naming the op the user
called; where torch refuses the same call, with torch's type too (issue 14)."""

import numpy as np
import pytest

import monoflow as flow

from helpers import TORCH, check_named_refusal

T = TORCH
F = flow.nn.functional
TF = T.nn.functional if T is not None else None


def _case(name, call, exc, op, torch_call=None):
    return pytest.param(call, exc, op, torch_call, id=name)


# (id, monoflow call, expected type, op name the message must carry, the same call in torch)
CASES = [
    _case("multinomial-n0", lambda: flow.multinomial(flow.ones(3), -1), RuntimeError, "multinomial",
          lambda: T.multinomial(T.ones(3), -1)),
    _case("tensor_split-negative", lambda: flow.ones(3).tensor_split(-7), RuntimeError, "tensor_split",
          lambda: T.ones(3).tensor_split(-7)),
    _case("matrix_power-tuple", lambda: flow.matrix_power(flow.ones(2, 2), ()), TypeError, "matrix_power",
          lambda: T.matrix_power(T.ones(2, 2), ())),
    _case("unravel_index-dtype", lambda: flow.unravel_index(-7, flow.bool), TypeError, "unravel_index"),
    _case("unravel_index-overflow", lambda: flow.unravel_index(2 ** 64, (3,)), OverflowError, "unravel_index"),
    _case("Tensor.add_-tuple-alpha", lambda: flow.ones(3).add_((1.5, 2), alpha=2.0), TypeError, "add_",
          lambda: T.ones(3).add_((1.5, 2), alpha=2.0)),
    _case("Tensor.sub-tuple-alpha", lambda: flow.ones(3).sub((1.5, 2), alpha=2.0), TypeError, "sub",
          lambda: T.ones(3).sub((1.5, 2), alpha=2.0)),
    _case("Tensor.sub_-tuple-alpha", lambda: flow.ones(3).sub_((1.5, 2), alpha=2.0), TypeError, "sub_",
          lambda: T.ones(3).sub_((1.5, 2), alpha=2.0)),
    _case("add-alpha-empty-tensor", lambda: flow.add(flow.ones(3), 1, alpha=flow.Tensor()), TypeError, "add",
          lambda: T.add(T.ones(3), 1, alpha=T.Tensor())),
    _case("Tensor.new_full-size", lambda: flow.ones(3).new_full(flow.ones(2), 1), TypeError, "new_full",
          lambda: T.ones(3).new_full(T.ones(2), 1)),
    _case("mul-dtype", lambda: flow.mul(flow.tensor(7), flow.int64), TypeError, "mul",
          lambda: T.mul(T.tensor(7), T.int64)),
    _case("multiply-list", lambda: flow.multiply(flow.tensor(7), [None]), TypeError, "multiply",
          lambda: T.multiply(T.tensor(7), [None])),
    _case("multiply-device", lambda: flow.multiply(flow.ones(3), flow.device("cpu")), TypeError, "multiply",
          lambda: T.multiply(T.ones(3), T.device("cpu"))),
    _case("subtract-list", lambda: flow.subtract(flow.Tensor(), [None]), TypeError, "subtract",
          lambda: T.subtract(T.Tensor(), [None])),
    _case("subtract-dict", lambda: flow.subtract(flow.ones(3), {}), TypeError, "subtract",
          lambda: T.subtract(T.ones(3), {})),
    _case("Tensor.subtract-list", lambda: flow.ones(3).subtract([None]), TypeError, "subtract",
          lambda: T.ones(3).subtract([None])),
    # flags given arrays: the array's truth value is ambiguous
    _case("leaky_relu-inplace", lambda: F.leaky_relu(flow.ones(3), 0.1, np.ones(3)), TypeError, "leaky_relu"),
    _case("celu-inplace", lambda: F.celu(flow.ones(3), 1.0, np.ones(3)), TypeError, "celu"),
    _case("threshold-inplace", lambda: F.threshold(flow.ones(3), 0.1, 0.2, np.ones(3)), TypeError, "threshold"),
    _case("backward-retain_graph", lambda: flow.ones(3, requires_grad=True).sum().backward(retain_graph=np.ones(3)),
          TypeError, "backward", lambda: T.ones(3, requires_grad=True).sum().backward(retain_graph=np.ones(3))),
    _case("Tensor.__dlpack__-copy", lambda: flow.ones(3).__dlpack__(copy=np.ones(3)), TypeError, "__dlpack__",
          lambda: T.ones(3).__dlpack__(copy=np.ones(3))),
    _case("max_pool1d-ceil_mode", lambda: F.max_pool1d(flow.ones(1, 4), 2, ceil_mode=np.ones(3)), TypeError,
          "max_pool1d", lambda: TF.max_pool1d(T.ones(1, 4), 2, ceil_mode=np.ones(3))),
    _case("avg_pool1d-count_include_pad", lambda: F.avg_pool1d(flow.ones(1, 4), 2, count_include_pad=np.ones(3)),
          TypeError, "avg_pool1d", lambda: TF.avg_pool1d(T.ones(1, 4), 2, count_include_pad=np.ones(3))),
    _case("max_pool2d-ceil_mode", lambda: F.max_pool2d(flow.ones(1, 4, 4), 2, ceil_mode=np.ones(3)), TypeError,
          "max_pool2d", lambda: TF.max_pool2d(T.ones(1, 4, 4), 2, ceil_mode=np.ones(3))),
    _case("avg_pool3d-ceil_mode", lambda: F.avg_pool3d(flow.ones(1, 2, 2, 2), 2, ceil_mode=np.ones(3)), TypeError,
          "avg_pool3d", lambda: TF.avg_pool3d(T.ones(1, 2, 2, 2), 2, ceil_mode=np.ones(3))),
    _case("dropout1d-training", lambda: F.dropout1d(flow.ones(2, 3), 0.5, np.ones(3)), TypeError, "dropout1d"),
    _case("alpha_dropout-training", lambda: F.alpha_dropout(flow.ones(2, 3), 0.5, np.ones(3)), TypeError,
          "alpha_dropout", lambda: TF.alpha_dropout(T.ones(2, 3), 0.5, np.ones(3))),
    _case("alpha_dropout-empty-array", lambda: F.alpha_dropout(flow.ones(2, 3), 0.5, np.zeros((2, 0))), TypeError,
          "alpha_dropout", lambda: TF.alpha_dropout(T.ones(2, 3), 0.5, np.zeros((2, 0)))),
    _case("kl_div-log_target", lambda: F.kl_div(flow.ones(3), flow.ones(3), log_target=np.ones(3)), TypeError,
          "kl_div", lambda: TF.kl_div(T.ones(3), T.ones(3), log_target=np.ones(3))),
    # other arguments of the wrong type
    _case("hann_window-dtype-int", lambda: flow.hann_window(4, dtype=int), TypeError, "hann_window"),
    _case("lgamma-str", lambda: flow.lgamma("a"), TypeError, "lgamma", lambda: T.lgamma("a")),
    _case("corrcoef-3d", lambda: flow.corrcoef(flow.zeros(2, 0, 3)), RuntimeError, "corrcoef",
          lambda: T.corrcoef(T.zeros(2, 0, 3))),
    _case("bincount-minlength-tuple", lambda: flow.bincount(flow.tensor([1]), minlength=()), TypeError, "bincount",
          lambda: T.bincount(T.tensor([1]), minlength=())),
    _case("bincount-minlength-negative", lambda: flow.bincount(flow.tensor([1]), minlength=-7), RuntimeError,
          "bincount", lambda: T.bincount(T.tensor([1]), minlength=-7)),
    _case("unique-dim-tuple", lambda: flow.unique(flow.tensor([1]), dim=()), TypeError, "unique",
          lambda: T.unique(T.tensor([1]), dim=())),
    _case("diff-n-str", lambda: flow.diff(flow.ones(3), "cpu"), TypeError, "diff", lambda: T.diff(T.ones(3), "cpu")),
    _case("trapz-dx-list", lambda: flow.trapz(flow.ones(3), dx=[]), TypeError, "trapz",
          lambda: T.trapz(T.ones(3), dx=[])),
    _case("rot90-k-tuple", lambda: flow.rot90(flow.ones(2, 2), k=(1,)), TypeError, "rot90",
          lambda: T.rot90(T.ones(2, 2), k=(1,))),
    # seeds 6-20
    _case("acosh-complex-scalar", lambda: flow.acosh(1j), TypeError, "acosh", lambda: T.acosh(1j)),
    # (torch's Python-level tanhshrink fails with an AttributeError of its own)
    _case("tanhshrink-complex-scalar", lambda: F.tanhshrink(1j), TypeError, "tanhshrink"),
    _case("tril-complex-scalar", lambda: flow.tril(1j, 100), TypeError, "tril", lambda: T.tril(1j, 100)),
    _case("Tensor.__add__-overflow", lambda: flow.tensor(7).__add__(2 ** 64), OverflowError, "add"),
    _case("Tensor.__sub__-overflow", lambda: flow.tensor([1]).__sub__(2 ** 64), OverflowError, "sub"),
    _case("Tensor.sub_-alpha-overflow", lambda: flow.tensor(3.0).sub_(flow.tensor(7), alpha=2 ** 64), OverflowError,
          "sub_"),
    _case("Tensor.sub_-leaf", lambda: flow.randn(2, 3, requires_grad=True).sub_(3), RuntimeError, "sub_",
          lambda: T.randn(2, 3, requires_grad=True).sub_(3)),
    _case("Tensor.sub_-alpha-cast", lambda: flow.ones(2, 3, dtype=flow.uint8).sub_(flow.ones(2, 3), alpha=0.5),
          RuntimeError, "sub_", lambda: T.ones(2, 3, dtype=T.uint8).sub_(T.ones(2, 3), alpha=0.5)),
    _case("Tensor.sub-alpha-shapes", lambda: flow.zeros(0).sub(flow.ones(2, 3), alpha=2), RuntimeError, "sub",
          lambda: T.zeros(0).sub(T.ones(2, 3), alpha=2)),
    _case("cross-no-size-3", lambda: flow.cross(flow.tensor(7), flow.zeros(1).expand(4)), RuntimeError, "cross",
          lambda: T.cross(T.tensor(7), T.zeros(1).expand(4))),
    _case("linalg.cross-shapes", lambda: flow.linalg.cross(flow.ones(2, 3), flow.ones(4, 3)), RuntimeError,
          "cross", lambda: T.linalg.cross(T.ones(2, 3), T.ones(4, 3))),
    _case("tensordot-dims-too-many", lambda: flow.tensordot(flow.randn(3, 3), flow.tensor(3), 1), RuntimeError,
          "tensordot", lambda: T.tensordot(T.randn(3, 3), T.tensor(3), 1)),
    _case("tensordot-overflow", lambda: flow.tensordot(flow.tensor(3), flow.tensor([5, 0]), 2 ** 64), OverflowError,
          "tensordot"),
    _case("tensordot-dims-tensor", lambda: flow.tensordot(flow.tensor(3), flow.ones(2), flow.zeros(4)), TypeError,
          "tensordot"),
    _case("randint-size-int", lambda: flow.randint(1, flow.ones(2, 3), -1), TypeError, "randint",
          lambda: T.randint(1, T.ones(2, 3), -1)),
    _case("tensor_split-float", lambda: flow.tensor_split(flow.ones(2, 3), -2.0), TypeError, "tensor_split",
          lambda: T.tensor_split(T.ones(2, 3), -2.0)),
    _case("hsplit-too-many", lambda: flow.zeros(2, 0, 3).hsplit(2 ** 62 + 2 ** 61), ValueError, "hsplit"),
    _case("fill-slice", lambda: flow.fill(flow.tensor(3), slice(None)), TypeError, "fill",
          lambda: T.fill(T.tensor(3), slice(None))),
    _case("combinations-float", lambda: flow.combinations(flow.randn(6), 1e308), TypeError, "combinations",
          lambda: T.combinations(T.randn(6), 1e308)),
    _case("set_float32_matmul_precision-array", lambda: flow.set_float32_matmul_precision(np.ones(3)), RuntimeError,
          "set_float32_matmul_precision", lambda: T.set_float32_matmul_precision(np.ones(3))),
    _case("bartlett_window-overflow", lambda: flow.bartlett_window(2 ** 64), ValueError, "bartlett_window",
          lambda: T.bartlett_window(2 ** 64)),
    _case("hamming_window-too-big", lambda: flow.hamming_window(2 ** 62 + 2 ** 61), RuntimeError, "hamming_window"),
    _case("blackman_window-dtype-array", lambda: flow.blackman_window(4, dtype=np.ones(3)), TypeError,
          "blackman_window", lambda: T.blackman_window(4, dtype=np.ones(3))),
    _case("matrix_power-float", lambda: flow.matrix_power(flow.eye(2), 1e308), TypeError, "matrix_power",
          lambda: T.matrix_power(T.eye(2), 1e308)),
    _case("unravel_index-none", lambda: flow.unravel_index(100, (None,)), TypeError, "unravel_index"),
    _case("lgamma-int", lambda: flow.lgamma(-1), TypeError, "lgamma", lambda: T.lgamma(-1)),
    _case("bincount-minlength-str", lambda: flow.bincount(flow.tensor([1]), None, "cpu"), TypeError, "bincount",
          lambda: T.bincount(T.tensor([1]), None, "cpu")),
    _case("selu-inplace-empty-array", lambda: flow.selu(flow.ones(2, 3), np.zeros((2, 0))), TypeError, "selu"),
    _case("ByteTensor-oom", lambda: flow.ByteTensor(2 ** 63 - 1), RuntimeError, "ByteTensor"),
    _case("LongTensor-device", lambda: flow.LongTensor(device="nodev"), RuntimeError, "LongTensor"),
    _case("Tensor-device", lambda: flow.Tensor(device="nodev"), RuntimeError, "Tensor"),
    _case("Generator-device-type", lambda: flow.Generator("mean"), RuntimeError, "Generator",
          lambda: T.Generator("mean")),
    _case("synchronize-device-type", lambda: flow.synchronize("mean"), RuntimeError, "synchronize"),
    _case("embedding-padding_idx", lambda: F.embedding(flow.tensor(1), flow.randn(2, 3), 2 ** 63 - 1), AssertionError,
          "embedding", lambda: TF.embedding(T.tensor(1), T.randn(2, 3), 2 ** 63 - 1)),
    _case("rms_norm-float-shape", lambda: F.rms_norm(flow.tensor(7.0), 5e-324), TypeError, "rms_norm",
          lambda: TF.rms_norm(T.tensor(7.0), 5e-324)),
    _case("group_norm-int-weight", lambda: flow.group_norm(flow.zeros(2, 3), 1, -2 ** 63), TypeError, "group_norm",
          lambda: T.group_norm(T.zeros(2, 3), 1, -2 ** 63)),
    _case("addr-tuple", lambda: flow.addr((3, -2), flow.zeros(0), flow.zeros(3)), TypeError, "addr",
          lambda: T.addr((3, -2), T.zeros(0), T.zeros(3))),
    _case("load-global_src_rank-inf", lambda: flow.load("x.pt", global_src_rank=float("inf")), TypeError, "load"),
    _case("save-pickle_module", lambda: flow.save(1, __import__("io").BytesIO(), pickle_module=tuple), AttributeError,
          "save", lambda: T.save(1, __import__("io").BytesIO(), pickle_module=tuple)),
    _case("Tensor.cumsum-dtype-tensor", lambda: flow.zeros(2).cumsum(0, dtype=flow.tensor(3)), TypeError, "cumsum",
          lambda: T.zeros(2).cumsum(0, dtype=T.tensor(3))),
    _case("unique-0d-dim", lambda: flow.unique(flow.tensor(True), dim=-1), IndexError, "unique",
          lambda: T.unique(T.tensor(True), dim=-1)),
    _case("unique_consecutive-0d-dim", lambda: flow.unique_consecutive(flow.tensor(3.0), dim=-1), IndexError,
          "unique_consecutive", lambda: T.unique_consecutive(T.tensor(3.0), dim=-1)),
    _case("unique_consecutive-array-flag", lambda: flow.unique_consecutive(flow.ones(3), np.zeros((2, 0))),
          TypeError, "unique_consecutive"),
    _case("div-tuple", lambda: flow.div(flow.ones(3), (None,)), TypeError, "div", lambda: T.div(T.ones(3), (None,))),
    _case("Tensor.floor_divide-list", lambda: flow.zeros(2).floor_divide([]), TypeError, "floor_divide",
          lambda: T.zeros(2).floor_divide([])),
    _case("Tensor.__floordiv__-tuple", lambda: flow.zeros(3).__floordiv__((1, 2)), TypeError, "floor_divide"),
    _case("avg_pool3d-divisor-array", lambda: F.avg_pool3d(flow.ones(1, 2, 2, 2), 2, None, 0, False, True, np.ones(3)),
          TypeError, "avg_pool3d", lambda: TF.avg_pool3d(T.ones(1, 2, 2, 2), 2, None, 0, False, True, np.ones(3))),
    _case("subtract-str-input", lambda: flow.subtract("cuda", flow.zeros(0), alpha=flow.device("cpu")), TypeError,
          "subtract", lambda: T.subtract("cuda", T.zeros(0), alpha=T.device("cpu"))),
    _case("ctc_loss-reduction", lambda: F.ctc_loss(flow.zeros(3), flow.tensor(3.0), flow.tensor(3), flow.tensor(3),
                                                   flow.tensor(3), 2 ** 62), ValueError, "ctc_loss"),
    _case("Tensor.sub-tuple", lambda: flow.zeros(0).sub((2 ** 62,)), TypeError, "sub", lambda: T.zeros(0).sub((2 ** 62,))),
    _case("sub-ellipsis", lambda: flow.sub(flow.ones(3), Ellipsis), TypeError, "sub", lambda: T.sub(T.ones(3), Ellipsis)),
    _case("Tensor.__setitem__-value-too-big", lambda: flow.tensor([2 ** 62, -2 ** 62]).__setitem__(1, flow.tensor([-1, 9])),
          RuntimeError, "__setitem__", lambda: T.tensor([2 ** 62, -2 ** 62]).__setitem__(1, T.tensor([-1, 9]))),
    _case("scalar_tensor-device-array", lambda: flow.scalar_tensor(flow.ones(2, 3), device=np.ones(3)), TypeError,
          "scalar_tensor"),
    # seeds 21-30
    _case("div-rounding_mode-array", lambda: flow.div(flow.ones(3), flow.ones(3), rounding_mode=np.ones(3)), TypeError,
          "div", lambda: T.div(T.ones(3), T.ones(3), rounding_mode=np.ones(3))),
    _case("scatter_add-complex-input", lambda: flow.scatter_add(1j, -1, flow.zeros(3), flow.ones(2, 3)), TypeError,
          "scatter_add", lambda: T.scatter_add(1j, -1, T.zeros(3), T.ones(2, 3))),
    _case("Tensor.__setitem__-value-overflow", lambda: flow.zeros(3).__setitem__(0, 2 ** 64), ValueError,
          "__setitem__", lambda: T.zeros(3).__setitem__(0, 2 ** 64)),
    _case("take_along_dim-tuple-dim", lambda: flow.zeros(3).take_along_dim(flow.zeros(3, dtype=flow.int64), (None,)),
          TypeError, "take_along_dim", lambda: T.zeros(3).take_along_dim(T.zeros(3, dtype=T.int64), (None,))),
    _case("fold-negative-kernel", lambda: F.fold(flow.randn(3, 3), (6, -1), (6, -1), (3, -2)), RuntimeError, "fold",
          lambda: TF.fold(T.randn(3, 3), (6, -1), (6, -1), (3, -2))),
    _case("unfold-zero-stride", lambda: F.unfold(flow.ones(1, 1, 3, 3), 2, stride=0), RuntimeError, "unfold",
          lambda: TF.unfold(T.ones(1, 1, 3, 3), 2, stride=0)),
    _case("fold-indivisible", lambda: F.fold(flow.randn(3, 3), (3, 3), 2), RuntimeError, "fold",
          lambda: TF.fold(T.randn(3, 3), (3, 3), 2)),
    _case("Tensor.nan_to_num_-complex-posinf", lambda: flow.ones(2).nan_to_num_(0.5, 1j, "cpu"), TypeError, "nan_to_num_",
          lambda: T.ones(2).nan_to_num_(0.5, 1j, "cpu")),
    _case("cholesky_solve-bfloat16-1d", lambda: flow.zeros(0, dtype=flow.bfloat16).cholesky_solve(flow.eye(2)),
          RuntimeError, "cholesky_solve", lambda: T.zeros(0, dtype=T.bfloat16).cholesky_solve(T.eye(2))),
    _case("cholesky_solve-dtypes", lambda: flow.eye(2, dtype=flow.bfloat16).cholesky_solve(flow.eye(2)), RuntimeError,
          "cholesky_solve", lambda: T.eye(2, dtype=T.bfloat16).cholesky_solve(T.eye(2))),
    _case("cholesky_solve-half", lambda: flow.eye(2, dtype=flow.float16).cholesky_solve(flow.eye(2, dtype=flow.float16)),
          NotImplementedError, "cholesky_solve", lambda: T.eye(2, dtype=T.float16).cholesky_solve(T.eye(2, dtype=T.float16))),
    _case("hamming_window-str-beta", lambda: flow.hamming_window(2, -2.0, float("inf"), "cuda"), TypeError,
          "hamming_window", lambda: T.hamming_window(2, -2.0, float("inf"), "cuda")),
    _case("split_with_sizes-int", lambda: flow.split_with_sizes(flow.tensor(3, dtype=flow.int8), 1, 0), TypeError,
          "split_with_sizes", lambda: T.split_with_sizes(T.tensor(3, dtype=T.int8), 1, 0)),
    _case("Tensor.split_with_sizes-0d", lambda: flow.tensor(3.0).split_with_sizes([1], 0), RuntimeError,
          "split_with_sizes", lambda: T.tensor(3.0).split_with_sizes([1], 0)),
    _case("Tensor.repeat_interleave-tuple", lambda: flow.ones(3).repeat_interleave(()), TypeError, "repeat_interleave",
          lambda: T.ones(3).repeat_interleave(())),
    _case("concatenate-0d-array", lambda: flow.concatenate(np.array(5), [flow.ones(2)]), TypeError, "cat",
          lambda: T.concatenate(np.array(5), [T.ones(2)])),
    _case("cov-correction-list", lambda: flow.cov(flow.ones(2, 3), correction=[]), TypeError, "cov",
          lambda: T.cov(T.ones(2, 3), correction=[])),
    # seeds 31-40
    _case("unique-empty-unselected-dim", lambda: flow.unique(flow.zeros(0, 3), dim=1), RuntimeError, "unique",
          lambda: T.unique(T.zeros(0, 3), dim=1)),
    _case("unique-sorted-tensor", lambda: flow.unique(flow.zeros(2), flow.tensor([2 ** 62, -2 ** 62])), TypeError,
          "unique", lambda: T.unique(T.zeros(2), T.tensor([2 ** 62, -2 ** 62]))),
    _case("pinverse-rcond-object", lambda: flow.pinverse(flow.randn(2, 3), object()), TypeError, "pinverse",
          lambda: T.pinverse(T.randn(2, 3), object())),
    _case("Tensor.__ne__-overflow", lambda: flow.tensor(3, dtype=flow.uint8).__ne__(2 ** 64), OverflowError, "ne",
          lambda: T.tensor(3, dtype=T.uint8).__ne__(2 ** 64)),
    _case("Tensor.div-overflow", lambda: flow.ones(2, dtype=flow.uint8).div(2 ** 64), OverflowError, "div",
          lambda: T.ones(2, dtype=T.uint8).div(2 ** 64)),
    _case("Tensor.mul-overflow", lambda: flow.ones(2).mul(-2 ** 64), OverflowError, "mul",
          lambda: T.ones(2).mul(-2 ** 64)),
    _case("leaky_relu-dtype-slope", lambda: F.leaky_relu(flow.randn(3, 3), flow.int64), TypeError, "leaky_relu",
          lambda: TF.leaky_relu(T.randn(3, 3), T.int64)),
    _case("as_tensor-device-array", lambda: flow.as_tensor(flow.ones(2), flow.int8, np.zeros((2, 0))), TypeError,
          "as_tensor", lambda: T.as_tensor(T.ones(2), dtype=T.int8, device=np.zeros((2, 0)))),
    _case("scalar_tensor-dtype-array", lambda: flow.scalar_tensor(2.0, dtype=np.zeros((2, 0))), TypeError,
          "scalar_tensor", lambda: T.scalar_tensor(2.0, dtype=np.zeros((2, 0)))),
    _case("scalar_tensor-2d-tensor", lambda: flow.scalar_tensor(flow.ones(2, 3)), TypeError, "scalar_tensor",
          lambda: T.scalar_tensor(T.ones(2, 3))),
    _case("Tensor.slice_scatter-0d", lambda: flow.tensor(3, dtype=flow.int16).slice_scatter(flow.zeros(0)), IndexError,
          "slice_scatter", lambda: T.tensor(3, dtype=T.int16).slice_scatter(T.zeros(0))),
    _case("slice_scatter-start-object", lambda: flow.slice_scatter(flow.randn(3, 3), flow.ones(3, 3), -1, object()),
          TypeError, "slice_scatter", lambda: T.slice_scatter(T.randn(3, 3), T.ones(3, 3), -1, object())),
    _case("slice_scatter-step-0", lambda: flow.slice_scatter(flow.zeros(5), flow.zeros(0), step=0), RuntimeError,
          "slice_scatter", lambda: T.slice_scatter(T.zeros(5), T.zeros(0), step=0)),
    _case("normal-int-size", lambda: flow.normal(np.float32(2), -2 ** 62, -2 ** 63), TypeError, "normal",
          lambda: T.normal(np.float32(2), -2 ** 62, -2 ** 63)),
    _case("zeros-0d-float-array", lambda: flow.zeros(np.array(5.5)), TypeError, "zeros",
          lambda: T.zeros(np.array(5.5))),
    _case("index_fill-dtype-value", lambda: flow.index_fill(flow.tensor(3.0), -1, flow.zeros(0, dtype=flow.int64),
                                                           flow.float16), TypeError, "index_fill",
          lambda: T.index_fill(T.tensor(3.0), -1, T.zeros(0, dtype=T.int64), T.float16)),
    # seeds 41-45
    _case("gelu-approximate-array", lambda: flow.gelu(flow.ones(3), np.ones(3)), TypeError, "gelu",
          lambda: TF.gelu(T.ones(3), approximate=np.ones(3))),
    _case("Tensor.qr-some-array", lambda: flow.ones(2, 2).qr(np.zeros((2, 0))), TypeError, "qr",
          lambda: T.ones(2, 2).qr(np.zeros((2, 0)))),
    _case("copysign-number-size", lambda: flow.copysign(100, flow.Size([2, 3])), TypeError, "copysign",
          lambda: T.copysign(100, T.Size([2, 3]))),
    _case("randperm-dtype-float", lambda: flow.randperm(10, dtype=float("nan")), TypeError, "randperm",
          lambda: T.randperm(10, dtype=float("nan"))),
    _case("take-float-index", lambda: flow.take(flow.zeros(0), flow.tensor([float("nan"), 0.0])), RuntimeError, "take",
          lambda: T.take(T.zeros(0), T.tensor([float("nan"), 0.0]))),
    _case("Tensor.copy_-leaf", lambda: flow.randn(2, 3, requires_grad=True).copy_(flow.tensor(3.0)), RuntimeError,
          "copy_", lambda: T.randn(2, 3, requires_grad=True).copy_(T.tensor(3.0))),
    _case("Tensor.new_tensor-ragged", lambda: flow.ones(2).new_tensor((flow.zeros(2), None)), ValueError,
          "new_tensor", lambda: T.ones(2).new_tensor((T.zeros(2), None))),
    _case("Tensor.floor_divide-overflow", lambda: flow.zeros(0, dtype=flow.int8).floor_divide(2 ** 64), OverflowError,
          "floor_divide", lambda: T.zeros(0, dtype=T.int8).floor_divide(2 ** 64)),
    _case("rms_norm-weight-device", lambda: F.rms_norm(flow.ones(2, 3), (3,), flow.device("cpu")), TypeError,
          "rms_norm", lambda: TF.rms_norm(T.ones(2, 3), (3,), T.device("cpu"))),
]


@pytest.mark.parametrize("call, exc, op, torch_call", CASES)
def test_message_names_the_op(call, exc, op, torch_call):
    check_named_refusal(call, exc, op, torch_call)


def test_the_forms_that_stay_accepted():
    # flags and numbers torch takes (ints, numpy bools, 0-dim tensors) still go
    x = flow.ones(3, requires_grad=True)
    x.sum().backward(retain_graph=1)
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    assert flow.ones(3).add(1, alpha=flow.tensor(2.0)).tolist() == T.ones(3).add(1, alpha=T.tensor(2.0)).tolist()
    assert flow.ones(3).add_(2, alpha=2).tolist() == [5.0] * 3
    assert flow.ones(3).sub(1, alpha=3).tolist() == [-2.0] * 3
    assert flow.ones(3).sub_(flow.ones(3), alpha=np.float32(2)).tolist() == [-1.0] * 3
    assert flow.mul(2, flow.ones(2)).tolist() == [2.0, 2.0]
    assert flow.multiply(flow.ones(2), np.bool_(True)).tolist() == [1.0, 1.0]
    assert flow.multiply(2.0, flow.ones(2)).tolist() == [2.0, 2.0]
    assert flow.subtract(3, flow.ones(2), alpha=2).tolist() == T.subtract(3, T.ones(2), alpha=2).tolist()
    assert F.leaky_relu(flow.ones(3), 0.1, 1).tolist() == [1.0] * 3
    assert F.elu(-flow.ones(1), inplace=np.bool_(True)).tolist() == TF.elu(-T.ones(1), inplace=np.bool_(True)).tolist()
    assert tuple(F.max_pool1d(flow.ones(1, 5), 2, ceil_mode=np.bool_(True)).shape) == (1, 3)
    assert tuple(F.avg_pool2d(flow.ones(1, 4, 4), 2, count_include_pad=np.bool_(False)).shape) == (1, 2, 2)
    assert F.dropout(flow.ones(3), training=0).tolist() == [1.0] * 3
    assert float(F.kl_div(flow.ones(3), flow.ones(3), reduction="sum", log_target=True)) == 0.0
    assert flow.matrix_power(flow.eye(2) * 2, np.int64(3)).tolist() == [[8.0, 0.0], [0.0, 8.0]]
    assert [t.tolist() for t in flow.unravel_index(flow.tensor(5), (2, 4))] == [1, 1]
    assert flow.bincount(flow.tensor([1]), minlength=np.int64(3)).tolist() == [0, 1, 0]
    assert flow.rot90(flow.eye(2), k=np.int64(1)).tolist() == T.rot90(T.eye(2), k=1).tolist()
    assert float(flow.trapz(flow.ones(3), dx=np.float64(2.0))) == 4.0
    assert flow.ones(2).new_full((2,), 3).tolist() == [3.0, 3.0]
    assert flow.cross(flow.eye(3), flow.eye(3).flip(0)).tolist() == T.cross(T.eye(3), T.eye(3).flip(0)).tolist()
    assert flow.tensordot(flow.ones(2, 3), flow.ones(3, 4), ([1], [0])).tolist() == [[3.0] * 4] * 2
    assert tuple(flow.tensordot(flow.ones(2, 3), flow.ones(3, 4), 1).shape) == (2, 4)
    assert tuple(flow.randint(0, 3, flow.Size([2, 2])).shape) == (2, 2)
    assert [tuple(t.shape) for t in flow.tensor_split(flow.ones(5), [1, 3])] == [(1,), (2,), (2,)]
    assert flow.fill(flow.zeros(2), np.float32(3)).tolist() == [3.0, 3.0]
    assert flow.combinations(flow.tensor([1, 2, 3]), np.int64(2)).shape[0] == 3
    assert flow.acosh(flow.tensor([1j])).dtype == flow.complex64
    assert flow.ones(2, dtype=flow.int64).__add__(2 ** 62).tolist() == [2 ** 62 + 1] * 2
    assert flow.LongTensor(2, 3).shape == (2, 3) and flow.Tensor([1.0]).tolist() == [1.0]
    assert F.rms_norm(flow.ones(2, 3), np.int64(3)).shape == (2, 3)
    assert flow.unique(flow.tensor([2, 1, 2]), return_counts=1)[1].tolist() == [1, 2]
    assert flow.zeros(2).cumsum(0, dtype=flow.float64).dtype == flow.float64
    assert flow.zeros(2).cumsum(0, dtype=flow.complex64).dtype == flow.complex64
    assert (flow.ones(2) // 2).tolist() == [0.0, 0.0] and flow.ones(2).div(np.float32(2)).tolist() == [0.5, 0.5]
    assert flow.ones(3).sub(flow.ones(3), alpha=-2 ** 63).tolist() == T.ones(3).sub(T.ones(3), alpha=-2 ** 63).tolist()
    y = flow.ones(3, dtype=flow.int64)
    assert y.sub_(y.clone(), alpha=-2 ** 63).tolist() == T.ones(3, dtype=T.int64).sub_(T.ones(3, dtype=T.int64),
                                                                                        alpha=-2 ** 63).tolist()
    assert flow.div(flow.ones(2), 2, rounding_mode="floor").tolist() == [0.0, 0.0]
    assert flow.cov(flow.tensor([[1.0, 2.0, 4.0]]), correction=np.int64(0)).item() == pytest.approx(T.cov(
        T.tensor([[1.0, 2.0, 4.0]]), correction=0).item(), rel=1e-6)
    assert flow.ones(3).repeat_interleave(flow.tensor([1, 0, 2])).tolist() == [1.0, 1.0, 1.0]
    assert flow.ones(3).nan_to_num_(0.5, 1, np.float32(-1)).tolist() == [1.0] * 3
    assert flow.hamming_window(4, True, 1, np.float64(0.5)).tolist() == T.hamming_window(4, True, 1, 0.5).tolist()
    assert flow.cholesky_solve(flow.eye(2, dtype=flow.float64), flow.eye(2, dtype=flow.float64)).tolist() == [[1, 0], [0, 1]]
    assert [tuple(t.shape) for t in flow.unique(flow.zeros(2, 0), return_counts=True, dim=1)] == [(2, 0), (0,)]
    assert tuple(flow.zeros(np.array(5)).shape) == tuple(T.zeros(np.array(5)).shape) == (5,)
    assert tuple(flow.ones(flow.tensor(3)).shape) == (3,)
    assert flow.slice_scatter(flow.zeros(4), flow.ones(2), 0, np.int64(1), None, 2).tolist() == [0, 1, 0, 1]
    assert flow.index_fill(flow.zeros(3), 0, flow.tensor([1]), True).tolist() == [0.0, 1.0, 0.0]
    assert flow.scalar_tensor(flow.tensor(3.0)).item() == 3.0
    assert tuple(flow.normal(0.0, 1.0, (2, 3)).shape) == (2, 3)
    assert flow.as_tensor([1, 2], flow.int8, "cpu").dtype == flow.int8
    assert tuple(F.instance_norm(flow.zeros(2, 0, 3)).shape) == tuple(TF.instance_norm(T.zeros(2, 0, 3)).shape)
    assert flow.take(flow.arange(4.0), flow.tensor([3, -1], dtype=flow.int32)).tolist() == [3.0, 3.0]
    assert flow.copysign(2, -flow.ones(2)).tolist() == [-2.0, -2.0]
    flow.synchronize("cpu")


def test_properties_check_their_self():
    # a property read through flow.Tensor's own descriptor with a foreign self
    # refuses it by name, as the methods do (Tensor.float(None))
    for name in ("mT", "T", "real", "imag", "itemsize", "nbytes", "is_cuda", "is_global", "is_local"):
        with pytest.raises(TypeError, match=rf"'{name}'"):
            __import__("inspect").getattr_static(flow.Tensor, name).__get__(np.array(5), flow.Tensor)
    x = flow.ones(2, 3)
    assert tuple(x.mT.shape) == (3, 2) and x.itemsize == 4 and x.is_local and not x.is_global
    assert tuple(flow.nn.Parameter(flow.ones(2, 3)).mT.shape) == (3, 2)
