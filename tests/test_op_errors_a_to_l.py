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
]


def _run(lib, call):
    return eval(call, {"T": lib, "np": np})


@pytest.mark.parametrize("op,call,exc,torch_too", CASES, ids=[c[1] for c in CASES])
def test_error_names_the_op(op, call, exc, torch_too):
    with pytest.raises(exc) as info:
        _run(flow, call)
    assert re.search(rf"(?<![\w]){re.escape(op)}(?![\w])", str(info.value)), str(info.value)
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
    L = flow.tensor([[2.0, 0.0], [1.0, 3.0]])
    assert flow.cholesky_inverse(L, upper=np.bool_(False)).shape == (2, 2)
