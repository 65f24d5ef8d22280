"""Error messages of the ops m..z name the op the user called, torch-style
(issue 14 item 12: the fuzz allow-list's flow.* and flow.Tensor.* targets m..z).

Each case is a bad call: monoflow must raise the expected type with a message
naming the op; where torch refuses the same call, with torch's type too."""

import numpy as np
import pytest

import monoflow as flow

from helpers import TORCH, check_named_refusal

T = TORCH


def _case(name, call, exc, op, torch_call=None):
    return pytest.param(call, exc, op, torch_call, id=name)


# (id, monoflow call, expected type, op name the message must carry, the same call in torch)
CASES = [
    # a 0-dim tensor has no dim to ask for (this read past the strides once: a segfault)
    _case("Tensor.stride-0d", lambda: flow.tensor(1.5).stride(0), IndexError, "stride",
          lambda: T.tensor(1.5).stride(0)),
    _case("Tensor.size-0d", lambda: flow.tensor(1.5).size(-1), IndexError, "size", lambda: T.tensor(1.5).size(-1)),
    _case("Size-int", lambda: flow.Size(2), TypeError, "Size", lambda: T.Size(2)),
    _case("Size-float-item", lambda: flow.Size([2, 1.5]), TypeError, "Size", lambda: T.Size([2, 1.5])),
    _case("Size-tensor-item", lambda: flow.Size([flow.ones(2)]), TypeError, "Size", lambda: T.Size([T.ones(2)])),
    # an int beyond int64 given to an in-place operator: the in-place op is named
    _case("Tensor.__iand__-overflow", lambda: flow.zeros(2, dtype=flow.int8).__iand__(2 ** 64), OverflowError,
          "bitwise_and_", lambda: T.zeros(2, dtype=T.int8).__iand__(2 ** 64)),
    _case("Tensor.__itruediv__-overflow", lambda: flow.zeros(2).__itruediv__(2 ** 64), OverflowError, "div_"),
    _case("Tensor.__ifloordiv__-overflow", lambda: flow.zeros(2, dtype=flow.int8).__ifloordiv__(-2 ** 64),
          OverflowError, "floor_divide_"),
    # argument converters: a numpy array / a tensor of several elements is not an int
    _case("unsqueeze-ndarray", lambda: flow.unsqueeze(flow.zeros(2, 2), np.ones(3)), TypeError, "unsqueeze",
          lambda: T.unsqueeze(T.zeros(2, 2), np.ones(3))),
    _case("Tensor.unsqueeze-tensor", lambda: flow.zeros(2, 3).unsqueeze(flow.zeros(0, dtype=flow.int8)), TypeError,
          "unsqueeze", lambda: T.zeros(2, 3).unsqueeze(T.zeros(0, dtype=T.int8))),
    _case("Tensor.narrow-tensor", lambda: flow.tensor(3).narrow(flow.tensor([True, False]), 0, 1), TypeError,
          "narrow", lambda: T.tensor(3).narrow(T.tensor([True, False]), 0, 1)),
    _case("swapaxes-ndarray", lambda: flow.swapaxes(flow.zeros(2, 2), np.zeros((2, 0)), 0), TypeError, "swapaxes",
          lambda: T.swapaxes(T.zeros(2, 2), np.zeros((2, 0)), 0)),
    _case("tril_indices-ndarray", lambda: flow.tril_indices(np.ones(3), 2), TypeError, "tril_indices",
          lambda: T.tril_indices(np.ones(3), 2)),
    _case("narrow_copy-overflow", lambda: flow.narrow_copy(flow.zeros(3), 0, 0, 2 ** 64), OverflowError,
          "narrow_copy"),
    _case("Tensor.narrow_copy-overflow", lambda: flow.zeros(3).narrow_copy(2 ** 64, 0, 1), OverflowError,
          "narrow_copy"),
    _case("narrow_copy-not-tensor", lambda: flow.narrow_copy((2, 3), 0, 0, 1), TypeError, "narrow_copy",
          lambda: T.narrow_copy((2, 3), 0, 0, 1)),
    # shapes: elements that are not ints, named after the op called
    _case("ones-float", lambda: flow.ones((1.5, 2)), TypeError, "ones", lambda: T.ones((1.5, 2))),
    _case("zeros-tuple", lambda: flow.zeros((1.5, 2), 3), TypeError, "zeros", lambda: T.zeros((1.5, 2), 3)),
    _case("ones-ndarray", lambda: flow.ones(np.zeros((2, 0)), 3), TypeError, "ones"),
    _case("rand-float", lambda: flow.rand(-2.0), TypeError, "rand", lambda: T.rand(-2.0)),
    _case("randn-none", lambda: flow.randn(None, 3), TypeError, "randn", lambda: T.randn(None, 3)),
    _case("randint-size", lambda: flow.randint(0, 3, (None,)), TypeError, "randint", lambda: T.randint(0, 3, (None,))),
    _case("new_ones-float", lambda: flow.new_ones(flow.zeros(2), (1.5, 2)), TypeError, "new_ones"),
    _case("Tensor.new_zeros-str", lambda: flow.zeros(2).new_zeros("mean"), TypeError, "new_zeros",
          lambda: T.zeros(2).new_zeros("mean")),
    _case("Tensor.new_empty-bool", lambda: flow.zeros(2).new_empty(True, 2), TypeError, "new_empty",
          lambda: T.zeros(2).new_empty(True, 2)),
    _case("Tensor.new_ones-overflow", lambda: flow.zeros(2).new_ones(2 ** 64), OverflowError, "new_ones"),
    _case("Tensor.new_ones-complex", lambda: flow.zeros(2).new_ones(1j), TypeError, "new_ones",
          lambda: T.zeros(2).new_ones(1j)),
    _case("Tensor.new_zeros-dtype-array", lambda: flow.zeros(2).new_zeros(2, dtype=np.ones(3)), TypeError,
          "new_zeros", lambda: T.zeros(2).new_zeros(2, dtype=np.ones(3))),
    _case("Tensor.new_full-fill", lambda: flow.zeros(2).new_full((2,), flow.ones(2, 3)), RuntimeError, "new_full"),
    _case("Tensor.view-0d-float", lambda: flow.zeros(3).view(flow.tensor(1.5)), TypeError, "view",
          lambda: T.zeros(3).view(T.tensor(1.5))),
    _case("Tensor.view-empty-tensor", lambda: flow.zeros(3).view(flow.zeros(0, dtype=flow.uint8), 2), TypeError,
          "view", lambda: T.zeros(3).view(T.zeros(0, dtype=T.uint8), 2)),
    _case("Tensor.permute-tensor", lambda: flow.zeros(2, 3).permute(0, flow.zeros(4)), TypeError, "permute",
          lambda: T.zeros(2, 3).permute(0, T.zeros(4))),
    _case("reshape-0d-array", lambda: flow.reshape(flow.zeros(5), np.array(5.5)), TypeError, "reshape"),
    _case("unflatten-float", lambda: flow.unflatten(flow.zeros(4), 0, 0.5), TypeError, "unflatten",
          lambda: T.unflatten(T.zeros(4), 0, 0.5)),
    _case("std_mean-dim", lambda: flow.std_mean(flow.zeros(3), 5e-324), TypeError, "std_mean",
          lambda: T.std_mean(T.zeros(3), 5e-324)),
    _case("var_mean-dim", lambda: flow.var_mean(flow.zeros(3), float("inf")), TypeError, "var_mean",
          lambda: T.var_mean(T.zeros(3), float("inf"))),
    # bool arguments: a tensor's or an array's truth value is not a bool
    _case("Tensor.sum-keepdim", lambda: flow.zeros(2, 3).sum(0, flow.randn(2, 3)), TypeError, "sum",
          lambda: T.zeros(2, 3).sum(0, T.randn(2, 3))),
    _case("Tensor.requires_grad_", lambda: flow.zeros(2).requires_grad_(flow.randn(2, 3)), TypeError,
          "requires_grad_", lambda: T.zeros(2).requires_grad_(T.randn(2, 3))),
    _case("Tensor.min-keepdim", lambda: flow.zeros(2, 3).min(0, np.ones(3)), TypeError, "min",
          lambda: T.zeros(2, 3).min(0, np.ones(3))),
    _case("topk-largest", lambda: flow.topk(flow.zeros(3), 2, 0, np.ones(3)), TypeError, "topk",
          lambda: T.topk(T.zeros(3), 2, 0, np.ones(3))),
    _case("svd-some", lambda: flow.svd(flow.randn(3, 3), np.ones(3)), TypeError, "svd",
          lambda: T.svd(T.randn(3, 3), np.ones(3))),
    _case("rand-requires_grad", lambda: flow.rand(2, requires_grad=np.ones(3)), TypeError, "rand",
          lambda: T.rand(2, requires_grad=np.ones(3))),
    _case("zeros-requires_grad", lambda: flow.zeros(1, requires_grad=flow.zeros(0)), TypeError, "zeros",
          lambda: T.zeros(1, requires_grad=T.zeros(0))),
    # numbers
    _case("Tensor.normal_-array", lambda: flow.zeros(3).normal_(np.ones(3), 1.0), TypeError, "normal_",
          lambda: T.zeros(3).normal_(np.ones(3), 1.0)),
    _case("normal-tuple", lambda: flow.normal((3,), flow.tensor(1.0)), TypeError, "normal",
          lambda: T.normal((3,), T.tensor(1.0))),
    _case("quantile-str", lambda: flow.quantile(flow.zeros(3), "cpu"), TypeError, "quantile",
          lambda: T.quantile(T.zeros(3), "cpu")),
    _case("nanquantile-tuple", lambda: flow.nanquantile(flow.zeros(3), (3, -2)), TypeError, "nanquantile",
          lambda: T.nanquantile(T.zeros(3), (3, -2))),
    _case("Tensor.nanquantile-tuple", lambda: flow.zeros(3).nanquantile((3, -2)), TypeError, "nanquantile",
          lambda: T.zeros(3).nanquantile((3, -2))),
    _case("mvlgamma-tuple", lambda: flow.mvlgamma(flow.rand(3) + 2, (6, -1)), TypeError, "mvlgamma",
          lambda: T.mvlgamma(T.rand(3) + 2, (6, -1))),
    _case("Tensor.mvlgamma-float", lambda: (flow.rand(3) + 2).mvlgamma(float("nan")), TypeError, "mvlgamma",
          lambda: (T.rand(3) + 2).mvlgamma(float("nan"))),
    _case("Tensor.mvlgamma_-list", lambda: (flow.rand(3) + 2).mvlgamma_([1, 2]), TypeError, "mvlgamma_",
          lambda: (T.rand(3) + 2).mvlgamma_([1, 2])),
    _case("mvlgamma-not-tensor", lambda: flow.mvlgamma(True, 2), TypeError, "mvlgamma", lambda: T.mvlgamma(True, 2)),
    _case("multinomial-str", lambda: flow.multinomial(flow.rand(3), "abc"), TypeError, "multinomial",
          lambda: T.multinomial(T.rand(3), "abc")),
    _case("multinomial-0d", lambda: flow.multinomial(flow.tensor(1.0), 1), RuntimeError, "multinomial",
          lambda: T.multinomial(T.tensor(1.0), 1)),
    _case("Tensor.multinomial-nan", lambda: flow.tensor([1.0, float("nan")]).multinomial(1), RuntimeError,
          "multinomial", lambda: T.tensor([1.0, float("nan")]).multinomial(1)),
    _case("manual_seed-str", lambda: flow.manual_seed("cuda"), ValueError, "manual_seed",
          lambda: T.manual_seed("cuda")),
    _case("manual_seed-tuple", lambda: flow.manual_seed((-1,)), TypeError, "manual_seed",
          lambda: T.manual_seed((-1,))),
    _case("set_rng_state-dtype", lambda: flow.set_rng_state(flow.ones(2, 3, dtype=flow.int16)), TypeError,
          "set_rng_state", lambda: T.set_rng_state(T.ones(2, 3, dtype=T.int16))),
    _case("set_rng_state-size", lambda: flow.set_rng_state(flow.zeros(3, dtype=flow.uint8)), RuntimeError,
          "set_rng_state", lambda: T.set_rng_state(T.zeros(3, dtype=T.uint8))),
    _case("randperm-negative", lambda: flow.randperm(-1), RuntimeError, "randperm", lambda: T.randperm(-1)),
    _case("rand_like-int", lambda: flow.rand_like(flow.ones(2, dtype=flow.int8)), TypeError, "rand_like"),
    _case("randn_like-int", lambda: flow.randn_like(flow.arange(3)), TypeError, "randn_like"),
    _case("randn-int-dtype", lambda: flow.randn(2, dtype=flow.int64), TypeError, "randn"),
    _case("randn-python-type-dtype", lambda: flow.randn(2, dtype=int), TypeError, "randn"),
    _case("rand-tensor-dtype", lambda: flow.rand(2, dtype=flow.zeros(2)), TypeError, "rand",
          lambda: T.rand(2, dtype=T.zeros(2))),
    _case("randint_like-tuple", lambda: flow.randint_like(flow.zeros(2), (2, 3), 5), TypeError, "randint_like",
          lambda: T.randint_like(T.zeros(2), (2, 3), 5)),
    _case("tensor-dtype-int", lambda: flow.tensor(2, 100), TypeError, "tensor", lambda: T.tensor(2, 100)),
    _case("tensor-str-data", lambda: flow.tensor("cpu", flow.int64), ValueError, "tensor"),
    _case("Tensor.new_tensor-dtype", lambda: flow.zeros(2).new_tensor(1.0, (3,)), TypeError, "new_tensor",
          lambda: T.zeros(2).new_tensor(1.0, (3,))),
    _case("scalar_tensor-dtype", lambda: flow.scalar_tensor(flow.bool), TypeError, "scalar_tensor",
          lambda: T.scalar_tensor(T.bool)),
    _case("vander-tuple", lambda: flow.vander(flow.zeros(3), (None,)), TypeError, "vander",
          lambda: T.vander(T.zeros(3), (None,))),
    _case("vander-inf", lambda: flow.vander(flow.zeros(3), float("inf")), TypeError, "vander",
          lambda: T.vander(T.zeros(3), float("inf"))),
    # composites checking their arguments themselves
    _case("scatter_reduce-reduce", lambda: flow.scatter_reduce(flow.zeros(3), 0, flow.zeros(3, dtype=flow.int64),
                                                               flow.zeros(3), "cuda"), RuntimeError, "scatter_reduce",
          lambda: T.scatter_reduce(T.zeros(3), 0, T.zeros(3, dtype=T.int64), T.zeros(3), "cuda")),
    _case("Tensor.scatter_reduce_-float", lambda: flow.zeros(3).scatter_reduce_(0, flow.zeros(3, dtype=flow.int64),
                                                                                flow.zeros(3), float("inf")),
          TypeError, "scatter_reduce_",
          lambda: T.zeros(3).scatter_reduce_(0, T.zeros(3, dtype=T.int64), T.zeros(3), float("inf"))),
    _case("select_scatter-0d", lambda: flow.select_scatter(flow.tensor(3.0), flow.ones(2), 0, 0), IndexError,
          "select_scatter", lambda: T.select_scatter(T.tensor(3.0), T.ones(2), 0, 0)),
    _case("scatter_nd-index", lambda: flow.scatter_nd(flow.randn(3, 1), flow.randn(3), [8]), TypeError, "scatter_nd"),
    _case("slice-float", lambda: flow.slice(flow.zeros(3), -float("inf")), TypeError, "slice"),
    _case("slice-tensor", lambda: flow.slice(flow.zeros(3), flow.tensor(True)), TypeError, "slice"),
    _case("Tensor.sum_to_size-tuple", lambda: flow.zeros(2).sum_to_size((3, -2), 1), TypeError, "sum_to_size",
          lambda: T.zeros(2).sum_to_size((3, -2), 1)),
    _case("Tensor.sum_to_size-nan", lambda: flow.zeros(2).sum_to_size(float("nan")), TypeError, "sum_to_size",
          lambda: T.zeros(2).sum_to_size(float("nan"))),
    _case("Tensor.sum_to_size-shape", lambda: flow.zeros(0).sum_to_size(1, -7, 3), RuntimeError, "sum_to_size",
          lambda: T.zeros(0).sum_to_size(1, -7, 3)),
    _case("repeat_interleave-not-tensor", lambda: flow.repeat_interleave(0, 2), TypeError, "repeat_interleave",
          lambda: T.repeat_interleave(0, 2)),
    _case("Tensor.repeat_interleave-overflow", lambda: flow.zeros(2).repeat_interleave(2 ** 64), OverflowError,
          "repeat_interleave"),
    _case("tensor_split-0d", lambda: flow.tensor_split(flow.tensor(3), 2), RuntimeError, "tensor_split",
          lambda: T.tensor_split(T.tensor(3), 2)),
    _case("tensor_split-not-tensor", lambda: flow.tensor_split(2 ** 31, 2), TypeError, "tensor_split",
          lambda: T.tensor_split(2 ** 31, 2)),
    _case("tensordot-dims", lambda: flow.tensordot(flow.ones(2, 3), flow.ones(2, 3), 1), RuntimeError, "tensordot",
          lambda: T.tensordot(T.ones(2, 3), T.ones(2, 3), 1)),
    _case("trapezoid-0d", lambda: flow.trapezoid(flow.tensor(3.0), flow.zeros(0)), IndexError, "trapezoid",
          lambda: T.trapezoid(T.tensor(3.0), T.zeros(0))),
    _case("trapz-0d-x", lambda: flow.trapz(flow.zeros(3, 1), flow.tensor(3.0)), IndexError, "trapz"),
    _case("view_as_complex-size", lambda: flow.view_as_complex(flow.zeros(4)), RuntimeError, "view_as_complex",
          lambda: T.view_as_complex(T.zeros(4))),
    _case("polar-object", lambda: flow.polar(object(), flow.randn(3)), TypeError, "polar",
          lambda: T.polar(object(), T.randn(3))),
    _case("rsub-tuple", lambda: flow.rsub(flow.randn(3), (-1,)), TypeError, "rsub", lambda: T.rsub(T.randn(3), (-1,))),
    _case("nextafter-shapes", lambda: flow.nextafter(flow.randn(2, 3), flow.zeros(4)), RuntimeError, "nextafter"),
    _case("pixel_unshuffle-not-tensor", lambda: flow.pixel_unshuffle(1, 3), TypeError, "pixel_unshuffle",
          lambda: T.pixel_unshuffle(1, 3)),
    _case("Tensor.mul-ellipsis", lambda: flow.zeros(2).mul(Ellipsis), TypeError, "mul",
          lambda: T.zeros(2).mul(Ellipsis)),
    _case("Tensor.__rfloordiv__-tuple", lambda: flow.ones(2).__rfloordiv__((2, 3)), TypeError, "floor_divide"),
    _case("Tensor.sub-alpha-tensor", lambda: flow.ones(2).sub(flow.ones(2), alpha=flow.zeros(0)), TypeError, "sub",
          lambda: T.ones(2).sub(T.ones(2), alpha=T.zeros(0))),
    _case("Tensor.sub-shapes", lambda: flow.zeros(0).sub(flow.ones(2, 3), alpha=2.0), RuntimeError, "sub"),
    _case("Tensor.sub_-shapes", lambda: flow.zeros(0).sub_(flow.randn(3, 3), alpha=0.5), RuntimeError, "sub_"),
    _case("subtract-alpha-str", lambda: flow.subtract(flow.ones(2), flow.ones(2), alpha="abc"), TypeError, "subtract",
          lambda: T.subtract(T.ones(2), T.ones(2), alpha="abc")),
    _case("synchronize-tensor", lambda: flow.synchronize(flow.zeros(1)), TypeError, "synchronize"),
    # (torch raises RuntimeError here; monoflow's bool-subtraction refusals have always been TypeErrors)
    _case("Tensor.__rsub__-bool", lambda: flow.ones(2, dtype=flow.bool).__rsub__(3), RuntimeError, "rsub"),
    _case("Tensor.__setstate__", lambda: flow.tensor(1.5).__setstate__(float("inf")), TypeError, "__setstate__",
          lambda: T.tensor(1.5).__setstate__(float("inf"))),
    _case("pinverse-not-tensor", lambda: flow.pinverse(2 ** 63 - 1), TypeError, "pinverse",
          lambda: T.pinverse(2 ** 63 - 1)),
    # (torch writes the zeros through the overlap; monoflow's fill_ refuses any overlapping write)
    _case("Tensor.zero_-overlap", lambda: flow.zeros(2, 1).expand(2, 3).zero_(), RuntimeError, "zero_"),
    _case("Tensor.__setitem__-too-many", lambda: flow.tensor(3.0).__setitem__((2, 2), 0), IndexError, "indexing",
          lambda: T.tensor(3.0).__setitem__((2, 2), 0)),
    _case("Tensor.__setitem__-float-index", lambda: flow.zeros(3).__setitem__(flow.zeros(2), 1.0), IndexError,
          "indexing", lambda: T.zeros(3).__setitem__(T.zeros(2), 1.0)),
    _case("vmap-randomness-array", lambda: flow.vmap(lambda r: r, randomness=np.ones(3)), RuntimeError, "vmap"),
    _case("empty_like-device-array", lambda: flow.empty_like(flow.zeros(2), device=np.ones(3)), TypeError,
          "empty_like", lambda: T.empty_like(T.zeros(2), device=np.ones(3))),
    _case("randn_like-device-array", lambda: flow.randn_like(flow.zeros(2), device=np.zeros((2, 0))), TypeError,
          "randn_like", lambda: T.randn_like(T.zeros(2), device=np.zeros((2, 0)))),
]


@pytest.mark.parametrize("call, exc, op, torch_call", CASES)
def test_message_names_the_op(call, exc, op, torch_call):
    check_named_refusal(call, exc, op, torch_call)


def test_the_forms_that_stay_accepted():
    # the checks refuse what torch refuses, not the numbers and shapes it takes
    assert flow.zeros(2, 3).sum(0, np.bool_(True)).shape == (1, 3)
    assert flow.zeros(2, 3).sum(0, keepdim=1).shape == (1, 3)
    assert flow.zeros(3).view(flow.tensor(3)).shape == (3,)
    assert flow.zeros(3).unsqueeze(flow.tensor(0)).shape == (1, 3)
    assert flow.zeros(2, 3).sum_to_size(flow.tensor(3)).shape == (3,)
    assert flow.ones(2, 3).sub(flow.ones(2, 3), alpha=2).tolist() == [[-1.0] * 3] * 2
    assert flow.ones(2, 3).sub(flow.ones(2, 3), alpha=True).tolist() == [[0.0] * 3] * 2
    assert flow.zeros(3).sort(stable=None).values.shape == (3,)
    assert flow.zeros(3).normal_(np.float64(0.0), 1.0).shape == (3,)
    assert flow.ones(2).mul(np.float32(2.0)).tolist() == [2.0, 2.0]
    assert flow.ones(2).__rfloordiv__(flow.tensor(3.0)).tolist() == [3.0, 3.0]
    assert flow.Size([flow.tensor(2), np.int64(3), True]) == T.Size([T.tensor(2), np.int64(3), True])
    x = flow.tensor([7, -7])
    x //= 2
    assert x.tolist() == [3, -4] and flow.zeros(2, 3).stride(-1) == 1 and flow.zeros(2, 3).size(-2) == 2
    flow.manual_seed("7")  # int(seed), as torch
    assert flow.initial_seed() == 7
    state = flow.get_rng_state()
    a = flow.rand(3)
    flow.set_rng_state(state)
    assert flow.rand(3).tolist() == a.tolist()
    assert flow.rand(2, requires_grad=1).requires_grad
    assert not flow.zeros(2, requires_grad=None).requires_grad  # torch takes None as False here
    assert flow.zeros(2).new_zeros(3, dtype=flow.int32).dtype == flow.int32
    flow.synchronize("cpu")
    flow.synchronize(flow.device("cpu"))
