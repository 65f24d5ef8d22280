"""Error messages of the public ops a..l name the op, torch-style (issue 14 item 12).

Each case is one call written once for both libraries (`T` is monoflow or
torch): monoflow must raise `exc` with a message that names `op`; where the
case is marked as torch's, torch raises the same exception type for it.
"""
import re

import numpy as np
import pytest

import monoflow as flow
from helpers import TORCH

TORCH_TOO, OURS = True, False

CASES = [
    # (op, call, exception, torch raises the same type)
    ("inverse", "T.inverse(T.tensor(3))", RuntimeError, TORCH_TOO),
    ("inverse", "T.zeros(2, 3).inverse()", RuntimeError, TORCH_TOO),
    ("logdet", "T.logdet(2)", TypeError, TORCH_TOO),
    ("logdet", "T.logdet(T.ones(2, 3, dtype=T.int32))", RuntimeError, TORCH_TOO),
    ("cholesky_solve", "T.cholesky_solve(T.zeros(2, 3), T.zeros(2, 2), object())", TypeError, TORCH_TOO),
    ("cholesky_solve", "T.cholesky_solve(T.zeros(0, dtype=T.float16), T.tensor(3.0, dtype=T.float64))",
     RuntimeError, TORCH_TOO),
    ("cholesky_inverse", "T.cholesky_inverse(T.tensor(3.0))", RuntimeError, TORCH_TOO),
    ("cholesky_inverse", "T.cholesky_inverse(T.zeros(3, 3), (2, 3))", TypeError, TORCH_TOO),
    ("cholesky_inverse", "T.zeros(3, 1).cholesky_inverse()", RuntimeError, TORCH_TOO),
    ("chain_matmul", "T.chain_matmul()", RuntimeError, TORCH_TOO),
    ("chain_matmul", "T.chain_matmul(2, T.zeros(3))", TypeError, TORCH_TOO),
    ("chain_matmul", "T.chain_matmul(T.zeros(2, 3), (1,))", TypeError, TORCH_TOO),
    ("chain_matmul", "T.chain_matmul(T.zeros(2))", RuntimeError, TORCH_TOO),
    ("dist", "T.dist(T.zeros(2), T.float32)", TypeError, TORCH_TOO),
    ("dist", "T.dist(T.zeros(2), T.zeros(2), (1.5, 2))", TypeError, TORCH_TOO),
    ("dist", "T.zeros(2).dist(T.zeros(2), 'a')", TypeError, TORCH_TOO),
    ("cross", "T.cross(T.zeros(3), T.zeros(3), [2, 3])", TypeError, TORCH_TOO),
    ("cross", "T.cross(T.zeros(3), T.zeros(3), 2**63 - 1)", IndexError, TORCH_TOO),
    ("cross", "T.cross(T.tensor(3.0), T.tensor(3.0), 0)", IndexError, TORCH_TOO),
    # comparisons with an operand that is neither Tensor nor Number
    ("ge", "T.ge(T.zeros(2), (1, 2))", TypeError, TORCH_TOO),
    ("gt", "T.gt(T.zeros(2), T.Size([2, 3]))", TypeError, TORCH_TOO),
    ("greater_equal", "T.greater_equal((1, 2), True)", TypeError, TORCH_TOO),
    ("greater", "T.greater(2, T.zeros(2))", TypeError, TORCH_TOO),
    ("less", "T.less(T.zeros(0), (2**40, 2**40))", TypeError, TORCH_TOO),
    ("less_equal", "T.less_equal(T.zeros(2), [])", TypeError, TORCH_TOO),
    # pointwise composites
    ("divide", "T.zeros(2).divide((2, 3))", TypeError, TORCH_TOO),
    ("divide_", "T.zeros(2).divide_((2, 3))", TypeError, TORCH_TOO),
    ("divide", "T.divide(T.zeros(2), T.ones(2), rounding_mode=(3, -2))", TypeError, TORCH_TOO),
    ("divide", "T.divide(T.zeros(2), T.ones(2), rounding_mode='x')", RuntimeError, TORCH_TOO),
    ("copysign", "T.copysign(T.tensor(True), [])", TypeError, TORCH_TOO),
    ("copysign", "T.tensor(3).copysign(...)", TypeError, TORCH_TOO),
    ("float_power", "T.zeros(0).float_power((None,))", TypeError, TORCH_TOO),
    ("float_power_", "T.tensor(3.0, dtype=T.float64).float_power_(None)", TypeError, TORCH_TOO),
    ("ldexp", "T.ldexp(T.tensor(3.0), T.bool)", TypeError, TORCH_TOO),
    ("bitwise_left_shift", "T.tensor(7).bitwise_left_shift((0,))", TypeError, TORCH_TOO),
    ("bitwise_left_shift", "T.tensor(7).bitwise_left_shift(2.5)", NotImplementedError, TORCH_TOO),
    ("bitwise_right_shift", "T.bitwise_right_shift(T.tensor(7), float('nan'))", NotImplementedError, TORCH_TOO),
    ("lcm", "T.lcm(T.tensor(3.0), T.tensor(7))", NotImplementedError, TORCH_TOO),
    ("lcm_", "T.lcm_(T.zeros(3, 1), T.zeros(3, 1))", NotImplementedError, TORCH_TOO),
    ("logit_", "T.zeros(3).logit_((5,))", TypeError, TORCH_TOO),
    ("is_nonzero", "T.is_nonzero(T.zeros(2))", RuntimeError, TORCH_TOO),
    ("is_nonzero", "T.zeros(0).is_nonzero()", RuntimeError, TORCH_TOO),
    ("isin", "T.isin(0.5, 3)", TypeError, TORCH_TOO),
    # isclose / allclose
    ("isclose", "T.isclose(T.zeros(2), T.zeros(2, dtype=T.int64))", RuntimeError, TORCH_TOO),
    ("allclose", "T.allclose(T.zeros(2), T.zeros(2, dtype=T.int64))", RuntimeError, TORCH_TOO),
    ("allclose", "T.zeros(2).allclose(T.zeros(2, dtype=T.int64))", RuntimeError, TORCH_TOO),
    ("allclose", "T.allclose(2, 3)", TypeError, TORCH_TOO),
    ("isclose", "T.isclose(T.zeros(2), T.zeros(2), 'a')", TypeError, TORCH_TOO),
    ("isclose", "T.isclose(T.zeros(2), T.zeros(2), 1e-5, T.zeros(2))", TypeError, TORCH_TOO),
    ("isclose", "T.isclose(T.zeros(2), T.zeros(2), 1e-5, 1e-8, 3)", TypeError, TORCH_TOO),
    ("cumulative_trapezoid", "T.cumulative_trapezoid(T.tensor(7.0))", IndexError, TORCH_TOO),
    ("cumulative_trapezoid", "T.cumulative_trapezoid(T.ones(2, 3), T.ones(3), dx=T.zeros(3, 1))", TypeError,
     TORCH_TOO),
    ("cumulative_trapezoid", "T.cumulative_trapezoid(T.ones(3), dx='a')", TypeError, TORCH_TOO),
    # diagonals
    ("diagonal", "T.diagonal(T.ones(2, 3), 100, -2**62, (2**31, 2**31, 4))", TypeError, TORCH_TOO),
    ("diagonal", "T.diagonal(T.ones(2, 3), 1.5)", TypeError, TORCH_TOO),
    ("diagonal", "T.ones(2, 3).diagonal(3, 2**64, (3, -2))", OverflowError, OURS),  # torch: dim2 first
    ("diagonal_scatter", "T.diagonal_scatter(T.zeros(2, 3), T.zeros(2), 1.5)", TypeError, TORCH_TOO),
    ("diagonal_scatter", "T.diagonal_scatter(T.zeros(2, 3), T.zeros(2), 0, (0,))", TypeError, TORCH_TOO),
    ("diagonal_scatter", "T.diagonal_scatter(T.tensor(3.0), T.zeros(2))", RuntimeError, OURS),  # torch: IndexError
    ("diag_embed", "T.diag_embed(T.ones(2, 3), T.Size([2, 3]))", TypeError, TORCH_TOO),
    ("diag_embed", "T.ones(2, 3).diag_embed(0, 1.5)", TypeError, TORCH_TOO),
    ("diag_embed", "T.diag_embed(T.zeros(0), -2**63, 2**31, 2**63 - 1)", IndexError, TORCH_TOO),
    ("diag_embed", "T.diag_embed(T.zeros(2, 3), 0, 0, 0)", RuntimeError, TORCH_TOO),
    ("diagflat", "T.diagflat(T.zeros(3), (6, -1))", TypeError, TORCH_TOO),
    ("diagflat", "T.zeros(3).diagflat(2.0)", TypeError, TORCH_TOO),
    ("fill_diagonal_", "T.zeros(3).fill_diagonal_(0)", RuntimeError, TORCH_TOO),
    ("fill_diagonal_", "T.zeros(2, 3, 4).fill_diagonal_(0)", RuntimeError, TORCH_TOO),
    ("fill_diagonal_", "T.zeros(2, 2).fill_diagonal_(0, 1)", TypeError, TORCH_TOO),
    ("fill_diagonal_", "T.zeros(2, 2).fill_diagonal_(T.zeros(2))", TypeError, TORCH_TOO),
    ("index_fill", "T.index_fill(T.zeros(2, 2), 0, T.tensor([0]), T.zeros(1))", RuntimeError, TORCH_TOO),
    ("index_put", "T.index_put(T.zeros(3), T.tensor([0]), T.tensor(1.0))", TypeError, TORCH_TOO),
    ("index_put", "T.zeros(3).index_put(3, T.tensor(1.0))", TypeError, TORCH_TOO),
    ("index_put", "T.zeros(3).index_put((T.tensor([0]),), T.tensor(1.0), 2**64)", TypeError, TORCH_TOO),
    # reductions, splits, histograms
    ("all", "T.zeros(2, 3).all(0.5)", TypeError, TORCH_TOO),
    ("all", "T.all(T.zeros(2), (0, None))", TypeError, TORCH_TOO),
    ("any", "T.any(T.zeros(2), ...)", TypeError, TORCH_TOO),
    ("hsplit", "T.hsplit(T.zeros(2, 3), 2.5)", TypeError, TORCH_TOO),
    ("hsplit", "T.zeros(2, 3).hsplit(T.device('cpu'))", TypeError, TORCH_TOO),
    ("hsplit", "T.hsplit(T.zeros(2, 3), -1)", RuntimeError, TORCH_TOO),
    ("dsplit", "T.dsplit(T.zeros(1, 2, 3, 4), (None,))", TypeError, TORCH_TOO),
    ("broadcast_to", "T.broadcast_to(T.tensor(3), (1.5, 2))", TypeError, TORCH_TOO),
    ("broadcast_to", "T.broadcast_to(T.tensor(3), False)", TypeError, TORCH_TOO),
    ("histc", "T.histc(T.randn(2, 3), (2, 3))", TypeError, TORCH_TOO),
    ("histc", "T.histc(T.randn(2, 3), 10, 'mean')", TypeError, TORCH_TOO),
    ("histc", "T.randn(2, 3).histc(10, 0, T.zeros(1))", TypeError, TORCH_TOO),
    ("kthvalue", "T.zeros(3).kthvalue((None,))", TypeError, TORCH_TOO),
    ("kthvalue", "T.zeros(3).kthvalue(1.0)", TypeError, TORCH_TOO),
    ("bucketize", "T.bucketize(T.ones(2, 3), T.tensor(3))", RuntimeError, TORCH_TOO),
    # Tensor protocols
    ("float", "float(T.zeros(2))", ValueError, TORCH_TOO),
    ("int", "int(T.zeros(0))", ValueError, TORCH_TOO),
    ("__array__", "T.zeros(2).__array__('abc')", TypeError, TORCH_TOO),
    ("__dlpack__", "T.zeros(2).__dlpack__(max_version=np.array(5))", TypeError, OURS),
    ("__dlpack__", "T.zeros(2).__dlpack__(max_version=T.ones(2, 3))", TypeError, OURS),
    # creation
    ("as_tensor", "T.as_tensor(...)", TypeError, OURS),  # torch: RuntimeError
    ("as_tensor", "T.as_tensor(b'x')", TypeError, OURS),
    ("full", "T.full(0.5, 1)", TypeError, TORCH_TOO),
    ("full", "T.full(T.float32, 1)", TypeError, TORCH_TOO),
    ("empty_strided", "T.empty_strided(1e308, 'abc')", TypeError, TORCH_TOO),
    ("empty_strided", "T.empty_strided((2,), 'abc')", TypeError, TORCH_TOO),
    ("complex", "T.complex(T.tensor([1]), T.tensor([1]))", RuntimeError, TORCH_TOO),
    ("complex", "T.complex(T.zeros(2), T.zeros(2, dtype=T.float64))", RuntimeError, TORCH_TOO),
    # legacy constructors and Generator
    ("FloatTensor", "T.FloatTensor(device=(2, 3))", TypeError, TORCH_TOO),
    ("IntTensor", "T.IntTensor(-5)", RuntimeError, TORCH_TOO),
    ("BoolTensor", "T.BoolTensor(2**64)", OverflowError, OURS),  # torch: a TypeError naming new()
    ("Generator", "T.Generator((None,))", TypeError, TORCH_TOO),
    # methods of the bindings
    ("__delitem__", "T.zeros(2).__delitem__(0)", TypeError, TORCH_TOO),
    ("indexing", "T.zeros(2)[T.zeros(2)]", IndexError, TORCH_TOO),
    ("indexing", "T.zeros(2)[T.device('cpu')]", IndexError, TORCH_TOO),
    ("index", "T.zeros(2)[2**64]", OverflowError, OURS),  # torch: ValueError naming no op
    ("add", "T.zeros(2).add((0,))", TypeError, TORCH_TOO),
    ("fill_", "T.zeros(2).fill_(T.zeros(3))", RuntimeError, TORCH_TOO),
    ("fill", "flow.fill(T.zeros(2), T.zeros(3))", RuntimeError, OURS),  # OneFlow's fill over fill_
    ("copy_", "T.zeros(2).copy_(T.zeros(3))", RuntimeError, TORCH_TOO),
    ("expand_as", "T.zeros(2).expand_as(T.zeros(3))", RuntimeError, TORCH_TOO),
    ("expand_as", "T.zeros(3, 1).expand_as(T.tensor(1.5))", RuntimeError, TORCH_TOO),
    ("floor_divide_", "T.zeros(2).floor_divide_(1j)", TypeError, OURS),  # torch: RuntimeError (no complex here)
    # in-place ops with a number name the op, not the scalar kernel (div_scalar_)
    ("div_", "T.tensor(3, dtype=T.int16).div_(False)", RuntimeError, TORCH_TOO),
    ("div_", "T.zeros(6).as_strided((2, 2), (1, 1)).div_(2.0)", RuntimeError, OURS),  # torch: lets it through
    ("mul_", "T.zeros(1).expand(4).__imul__(2.0)", RuntimeError, TORCH_TOO),
]


def _run(lib, call):
    return eval(call, {"T": lib, "np": np, "flow": flow})


@pytest.mark.parametrize("op,call,exc,torch_too", CASES, ids=[c[1] for c in CASES])
def test_error_names_the_op(op, call, exc, torch_too):
    with pytest.raises(exc) as info:
        _run(flow, call)
    names = {op, op.rstrip("_")}  # an in-place op_ may name op, as the fuzzer's rule
    assert any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", str(info.value)) for n in names), str(info.value)
    if torch_too and TORCH is not None:
        with pytest.raises(exc):
            _run(TORCH, call)


def test_accepted_calls_match_torch():
    """The checks added for the messages refuse nothing torch accepts."""
    a = flow.tensor([[2.0, 0.0], [1.0, 3.0]])
    assert flow.chain_matmul(a).tolist() == a.tolist()
    assert flow.chain_matmul(a, a).tolist() == (a @ a).tolist()
    assert flow.dist(a, flow.zeros(2, 2), True).item() == pytest.approx(6.0)  # p=True is p=1
    assert flow.cross(flow.ones(2, 3), flow.ones(2, 3), -1).shape == (2, 3)
    x = flow.tensor([1.0, -2.0])
    assert flow.copysign(x, True).tolist() == [1.0, 2.0]
    assert flow.float_power(2, x).tolist() == [2.0, 0.25]
    assert flow.ldexp(x, 2).tolist() == [4.0, -8.0]
    assert flow.tensor([1, 2]).bitwise_left_shift(np.int64(1)).tolist() == [2, 4]
    assert flow.divide(x, 2, rounding_mode="floor").tolist() == [0.0, -1.0]
    assert flow.greater_equal(x, np.float32(0)).tolist() == [True, False]
    assert flow.isin(x, -2.0).tolist() == [False, True]
    assert flow.isclose(x, x, 0, 0, np.bool_(True)).tolist() == [True, True]
    assert flow.cumulative_trapezoid(flow.ones(3), dx=2).tolist() == [2.0, 4.0]
    assert flow.diag_embed(flow.tensor(2.0)).tolist() == [[2.0]]  # a 0-D input is one element
    assert flow.diagonal(flow.eye(3), np.int64(1)).tolist() == [0.0, 0.0]
    assert flow.zeros(2, 2).fill_diagonal_(flow.tensor(5.0)).tolist() == [[5.0, 0.0], [0.0, 5.0]]
    assert flow.zeros(3).index_put([flow.tensor([1])], flow.tensor(1.0)).tolist() == [0.0, 1.0, 0.0]
    b = flow.tensor([[True, False], [True, True]])
    assert b.all([0]).tolist() == [True, False] and b.any(()).shape == (2, 2)
    assert [t.shape for t in flow.hsplit(flow.zeros(2, 4), [1, 3])] == [(2, 1), (2, 2), (2, 1)]
    assert flow.broadcast_to(flow.tensor(3), flow.Size([2])).tolist() == [3, 3]
    assert flow.histc(flow.tensor([0.0, 1.0, 1.0]), np.int64(2), 0, True).tolist() == [1.0, 2.0]
    assert float(flow.tensor([2.5])) == 2.5 and int(flow.tensor([[3]])) == 3
    assert flow.ones(2).__array__(flow.float64).dtype == np.float64  # a monoflow dtype: its numpy twin
    assert np.asarray(flow.ones(2), np.int8).dtype == np.int8
    assert flow.full(2, 1).tolist() == [1, 1] and flow.full(flow.Size([1]), 1j).dtype == flow.complex64
    assert flow.FloatTensor(2, device=flow.device("cpu")).shape == (2,)
    assert flow.Generator(flow.device("cpu")).device == flow.device("cpu")
    y = flow.zeros(2, 3)
    assert y.copy_(flow.ones(3)).tolist() == [[1.0] * 3] * 2  # a broadcast source still copies
    assert flow.zeros(1, 3).expand_as(y).shape == (2, 3)
    assert y.fill_(flow.tensor([4.0])).tolist() == [[4.0] * 3] * 2
    assert flow.ones(2).add(np.ones(2)).tolist() == [2.0, 2.0]  # numpy's reflected add still answers
    L = flow.tensor([[2.0, 0.0], [1.0, 3.0]])
    assert flow.cholesky_inverse(L, upper=np.bool_(False)).shape == (2, 2)
