"""NumPy scalars on either side of a tensor operator act as the Python number they hold, as torch takes
Python numbers (crash sweep 10: `np.complex128(1j) < t` ordered complex numbers, `np.uint64(2) == t` and
`np.bool_(True) - t` raised or answered otherwise than `2 == t` / `True - t`).

torch 2.13 treats two NumPy scalars differently from the Python numbers: np.bool_ as a float (so
`np.bool_(True) - t` works there while `True - t` raises) and np.complex64 by its real part only; monoflow
follows the Python numbers, so the oracle below is torch with `.item()` of each scalar."""
import operator

import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")

OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
       "%": operator.mod, "**": operator.pow, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
       "<=": operator.le, ">": operator.gt, ">=": operator.ge, "&": operator.and_, "|": operator.or_,
       "^": operator.xor}
SCALARS = [np.float64(2.0), np.float32(2.0), np.float16(2.0), np.int64(2), np.int32(2), np.int8(2), np.uint8(2),
           np.uint16(2), np.uint64(2), np.bool_(True), np.complex128(1j), np.complex64(1j)]
VALUES = {"float32": [0.0, 1.0, 2.0], "int64": [0, 1, 2], "bool": [True, False, True], "complex64": [1j, 2.0, 0j]}


def _outcome(f, lib, scalar, dtype, op, left):
    t = lib.tensor(VALUES[dtype], dtype=getattr(lib, dtype))
    try:
        r = f(scalar, t) if left else f(t, scalar)
    except (TypeError, RuntimeError, NotImplementedError, ValueError, ZeroDivisionError) as e:
        return "error", e
    assert isinstance(r, lib.Tensor), (op, type(r))
    return str(r.dtype).split(".")[-1], r.numpy()


@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("dtype", list(VALUES))
def test_numpy_scalar_is_the_python_number_and_matches_torch(scalar, dtype):
    for op, f in OPS.items():
        for left in (True, False):
            got = _outcome(f, flow, scalar, dtype, op, left)
            as_python = _outcome(f, flow, scalar.item(), dtype, op, left)
            where = f"{type(scalar).__name__} {op} {dtype} tensor ({'left' if left else 'right'})"
            assert got[0] == as_python[0], where
            if got[0] == "error":
                assert type(got[1]) is type(as_python[1]), where
            else:
                np.testing.assert_array_equal(got[1], as_python[1], err_msg=where)
            if np.iscomplexobj(scalar) and op in ("/", "**") or (type(scalar) is np.bool_ and dtype == "complex64"
                                                                 and op == "-"):
                continue  # complex 1/0 and pow round differently; torch refuses `True - complex tensor`
            want = _outcome(f, torch, scalar.item(), dtype, op, left)
            assert got[0] == want[0], (where, got, want)
            if got[0] != "error":
                np.testing.assert_allclose(got[1], want[1], rtol=1e-6, err_msg=where)


def test_reported_cases():
    t = flow.tensor([0.0, 1.0, 2.0])
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        np.complex128(1j) < t  # complex numbers have no order (NumPy's lexicographic one answered before)
    with pytest.raises(NotImplementedError):
        t < np.complex128(1j)
    assert (np.uint64(2) == t).tolist() == [False, False, True]
    assert (np.uint64(2) * t).tolist() == [0.0, 2.0, 4.0]
    with pytest.raises(RuntimeError, match="subtraction, the `-` operator, with a bool tensor is not supported"):
        np.bool_(True) - t  # as `True - t` in torch and monoflow
    assert (np.bool_(True) + flow.tensor([1, 2])).tolist() == [2, 3]
    # a NumPy scalar stays weak: a float32 tensor stays float32, autograd goes through
    x = flow.ones(2, requires_grad=True)
    y = np.float64(3.0) - x
    assert y.dtype == flow.float32
    y.sum().backward()
    assert x.grad.tolist() == [-1.0, -1.0]
