"""div/divide/true_divide with rounding_mode, in every call form, and
where(condition) alone, against PyTorch."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import monoflow as flow

torch = pytest.importorskip("torch")

MODES = [None, "trunc", "floor"]


def _operands(draw_dtype, n):
    return st.lists(st.integers(-50, 50).filter(bool), min_size=n, max_size=n) if draw_dtype == "int64" \
        else st.lists(st.floats(-50, 50, width=32).filter(lambda v: abs(v) > 1e-3), min_size=n, max_size=n)


@st.composite
def cases(draw):
    dtype = draw(st.sampled_from(["int64", "float32"]))
    n = draw(st.integers(1, 6))
    a = np.array(draw(_operands(dtype, n)), dtype=dtype)
    b = np.array(draw(_operands(dtype, n)), dtype=dtype)
    scalar = draw(_operands(draw(st.sampled_from(["int64", "float32"])), 1))[0]
    return a, b, scalar, draw(st.sampled_from(MODES))


def _same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_rounding_mode_in_every_call_form_matches_torch(case):
    a, b, s, mode = case
    x, y, tx, ty = flow.tensor(a), flow.tensor(b), torch.tensor(a), torch.tensor(b)
    _same(flow.div(x, y, rounding_mode=mode), torch.div(tx, ty, rounding_mode=mode))
    _same(x.div(s, rounding_mode=mode), tx.div(s, rounding_mode=mode))
    _same(flow.div(s, y, rounding_mode=mode), torch.div(s, ty, rounding_mode=mode))
    _same(flow.divide(x, y, rounding_mode=mode), torch.divide(tx, ty, rounding_mode=mode))
    _same(flow.true_divide(x, y), torch.true_divide(tx, ty))
    _same(x.divide(y, rounding_mode=mode), tx.divide(ty, rounding_mode=mode))
    if mode is not None or a.dtype.kind == "f":
        x2, tx2 = x.clone(), tx.clone()
        x2.div_(y, rounding_mode=mode)
        tx2.div_(ty, rounding_mode=mode)
        _same(x2, tx2)


def test_an_unknown_rounding_mode_is_refused_as_torch_refuses_it():
    with pytest.raises(RuntimeError, match="rounding_mode"):
        torch.div(torch.ones(2), 2, rounding_mode="round")
    with pytest.raises(RuntimeError, match="rounding_mode"):
        flow.div(flow.ones(2), 2, rounding_mode="round")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=12), st.sampled_from([(12,), (3, 4), (2, 3, 2)]))
def test_where_of_a_condition_alone_gives_its_nonzero_indices(values, shape):
    data = np.resize(np.array(values), shape)
    ours = flow.where(flow.tensor(data))
    theirs = torch.where(torch.tensor(data))
    assert isinstance(ours, tuple) and len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.numpy(), t.numpy())


def test_where_with_one_of_input_and_other_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match=r"where.*other"):
        flow.where(flow.tensor([True]), flow.ones(1))
