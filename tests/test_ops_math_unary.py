"""Unary math ops on every registered device against torch: floating functions
(integer and bool inputs compute in the default float dtype), activations,
dtype-keeping ops, bool-valued tests, in-place forms and bad input."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from helpers import DTYPES, FLOATING, FLOW, INTEGRAL, category, default_float, device_settings, tensor_specs, to_np
from test_ops_math_oracle import assert_matches, in_float64, tensor_of

FLOATING_FUNCS = ("exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan",
                  "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf",
                  "erfc", "reciprocal")
KEEPING = ("abs", "sign", "relu", "floor", "ceil", "round", "trunc", "square")
TESTS = ("isnan", "isinf", "isfinite", "logical_not")
# dtypes torch refuses (monoflow raises TypeError naming the op)
REFUSED = {"abs": ("bool",), "relu": ("bool",), "floor": ("bool",), "ceil": ("bool",), "round": ("bool",),
           "trunc": ("bool",), "bitwise_not": FLOATING, "gelu": ("bool",) + INTEGRAL,
           "silu": ("bool",) + INTEGRAL, "softplus": ("bool",) + INTEGRAL}


def refused_error(op, dtype_name):
    # torch's "not implemented for 'Bool'" is a NotImplementedError; the others are TypeErrors naming the op
    return NotImplementedError if dtype_name == "bool" and op in KEEPING else TypeError


# value ranges: small (where the functions are interesting) and wide (overflow, domain errors)
RANGES = ((-4.0, 4.0), (-100.0, 100.0), (-1e4, 1e4))


def _torch_fn(torch, name):
    F = torch.nn.functional
    return {"gelu": F.gelu, "silu": F.silu, "softplus": F.softplus, "relu": torch.relu}.get(name) or \
        getattr(torch, name)


@st.composite
def inputs(draw, dtypes=DTYPES):
    name = draw(st.sampled_from(dtypes), label="dtype")
    lo, hi = draw(st.sampled_from(RANGES), label="range")
    return draw(tensor_specs(dtype=name, lo=lo, hi=hi, nan=True), label="x")


@pytest.mark.parametrize("op", FLOATING_FUNCS)
@device_settings
@given(X=inputs())
def test_floating_functions(device, op, X):
    torch = pytest.importorskip("torch")
    x = X.make(device)
    before = to_np(x)
    out = getattr(flow, op)(x)
    expected = in_float64(getattr(torch, op), tensor_of(x))
    assert out.device == flow.device(device) and out.is_contiguous()
    assert_matches(out, expected)
    if X.name not in FLOATING:
        assert out.dtype == FLOW[default_float()]
    np.testing.assert_array_equal(to_np(x), before)  # the input is untouched
    assert_matches(getattr(x, op)(), expected)  # the method


@pytest.mark.parametrize("op", KEEPING + TESTS + ("bitwise_not",))
@device_settings
@given(X=inputs())
def test_dtype_keeping_and_bool_valued(device, op, X):
    torch = pytest.importorskip("torch")
    x = X.make(device)
    if X.name in REFUSED.get(op, ()):
        with pytest.raises(refused_error(op, X.name), match=op):
            getattr(flow, op)(x)
        with pytest.raises((RuntimeError, TypeError, NotImplementedError)):
            getattr(torch, op)(tensor_of(x))
        return
    out = getattr(flow, op)(x)
    expected = _torch_fn(torch, op)(tensor_of(x))
    assert_matches(out, expected, exact=True)
    if op in KEEPING and X.name != "bool" or op == "bitwise_not":
        assert out.dtype == x.dtype
    assert_matches(getattr(x, op)(), expected, exact=True)


@pytest.mark.parametrize("op", ("gelu", "gelu_tanh", "silu", "softplus"))
@device_settings
@given(X=inputs(), beta=st.sampled_from([1.0, 2.0, 0.5, -1.0]), threshold=st.sampled_from([20.0, 5.0, 1.0]))
def test_activations(device, op, X, beta, threshold):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x = X.make(device)
    name = "gelu" if op == "gelu_tanh" else op
    call = {"gelu": lambda m, t: m.gelu(t), "gelu_tanh": lambda m, t: m.gelu(t, approximate="tanh"),
            "silu": lambda m, t: m.silu(t),
            "softplus": lambda m, t: m.softplus(t, beta=beta, threshold=threshold)}[op]
    if X.name in REFUSED[name]:
        with pytest.raises(TypeError, match=name):
            call(flow, x)
        with pytest.raises((RuntimeError, NotImplementedError)):
            call(F, tensor_of(x))
        return
    out = call(flow, x)
    # gelu computes 1 + erf(x) (or 1 + tanh): values near -|x| cancel
    expected = in_float64(lambda t: call(F, t), tensor_of(x))
    assert_matches(out, expected, scale=np.abs(to_np(x)) if name == "gelu" else None)


@device_settings
@given(X=inputs(FLOATING), decimals=st.integers(-4, 5))
def test_round_decimals(device, X, decimals):
    torch = pytest.importorskip("torch")
    x = X.make(device)
    out = flow.round(x, decimals=decimals)
    # x * 10^d rounds at the compute precision first (2.675 * 100 is 267.5 in
    # float32), as in torch, so a float64 oracle would differ
    expected = torch.round(tensor_of(x), decimals=decimals)  # at the dtype's precision, as torch (not float64)
    assert_matches(out, expected)
    assert_matches(x.round(decimals=decimals), expected)
    y = x.clone()
    assert y.round_(decimals=decimals) is y
    assert_matches(y, expected)


def test_round_examples(device):
    x = flow.tensor([2.5, 3.5, -2.5, -0.5, 1234.5678, 0.125], device=device)
    assert flow.round(x).tolist() == [2.0, 4.0, -2.0, -0.0, 1235.0, 0.0]  # half to even
    assert flow.round(x, decimals=2).tolist() == pytest.approx([2.5, 3.5, -2.5, -0.5, 1234.57, 0.12])
    assert flow.round(x, decimals=-2).tolist() == [0.0, 0.0, -0.0, -0.0, 1200.0, 0.0]
    i = flow.tensor([12, 15, -7], device=device)
    assert flow.round(i).tolist() == [12, 15, -7] and flow.round(i).dtype == flow.int64  # integers: a copy
    assert flow.floor(i)._is_view_of(i) is False
    with pytest.raises(TypeError, match="round: expected a floating-point tensor"):
        flow.round(i, decimals=1)


@pytest.mark.parametrize("op", FLOATING_FUNCS[:8] + KEEPING + ("logical_not", "bitwise_not", "sigmoid"))
@device_settings
@given(data=st.data())
def test_inplace_unary(device, op, data):
    torch = pytest.importorskip("torch")
    S = data.draw(tensor_specs(layouts=("contiguous", "permuted", "strided"), lo=-4, hi=4, nan=True), label="self")
    s = S.make(device)
    base_version = s._version
    ts = tensor_of(s)
    try:
        getattr(ts, op + "_")()
        torch_error = None
    except (RuntimeError, TypeError, NotImplementedError) as e:
        torch_error = e
    if torch_error is not None:
        error = refused_error(op, S.name) if S.name in REFUSED.get(op, ()) else RuntimeError
        with pytest.raises(error, match=op):
            getattr(s, op + "_")()
        np.testing.assert_array_equal(to_np(s), S.values)
        return
    r = getattr(s, op + "_")()
    assert r is s
    assert s._version > base_version
    assert_matches(s, ts, exact=op not in FLOATING_FUNCS)


def test_inplace_writes_through_views(device):
    base = flow.tensor([[1.0, -4.0], [9.0, -16.0]], device=device)
    base[:, 0].sqrt_()
    base.T[1].abs_()  # row 1 of the transpose: column 1 of base
    assert base.tolist() == [[1.0, 4.0], [3.0, 16.0]]
    i = flow.tensor([1, 2], device=device)
    with pytest.raises(RuntimeError, match="exp_: result type Float can't be cast to the desired output type Long"):
        i.exp_()
    assert i.tolist() == [1, 2]
    b = flow.tensor([True, False], device=device)
    with pytest.raises(RuntimeError, match="square_: result type Long can't be cast"):
        b.square_()
    assert i.logical_not_().tolist() == [0, 0]  # bool results cast into any dtype
    e = flow.zeros(3, device=device).expand(2, 3)
    with pytest.raises(RuntimeError, match="exp_: unsupported operation: more than one element"):
        e.exp_()


def test_unary_examples_and_special_values(device):
    inf, nan = math.inf, math.nan
    x = flow.tensor([0.0, -0.0, 1.0, -1.0, inf, -inf, nan], device=device)
    assert to_np(flow.sign(x)).tolist()[:6] == [0.0, 0.0, 1.0, -1.0, 1.0, -1.0]
    assert flow.sign(x)[6].item() == 0.0  # torch's CPU sign of NaN
    assert [math.copysign(1, v) for v in flow.relu(x).tolist()[:2]] == [1.0, -1.0]  # relu keeps -0.0, as torch
    assert flow.isnan(x).tolist() == [False] * 6 + [True]
    assert flow.isinf(x).tolist() == [False] * 4 + [True, True, False]
    assert flow.isfinite(x).tolist() == [True] * 4 + [False] * 3
    assert flow.rsqrt(flow.tensor([0.0, -0.0, 4.0], device=device)).tolist() == [inf, -inf, 0.5]
    assert flow.reciprocal(flow.tensor([0, 2], device=device)).tolist() == [inf, 0.5]
    i8 = flow.tensor([-128, -3, 5], dtype=flow.int8, device=device)
    assert flow.abs(i8).tolist() == [-128, 3, 5]  # wraps, as in torch
    assert abs(i8).tolist() == [-128, 3, 5]
    assert flow.square(i8).tolist() == [0, 9, 25]
    assert (~i8).tolist() == [127, 2, -6]
    assert (~flow.tensor([True, False], device=device)).tolist() == [False, True]
    assert flow.abs(flow.tensor([253], dtype=flow.uint8, device=device)).tolist() == [253]
    b = flow.tensor([True, False], device=device)
    assert flow.square(b).dtype == flow.int64 and flow.square(b).tolist() == [1, 0]
    assert flow.sqrt(b).dtype == flow.float32
    for t in (flow.isnan(i8), flow.isinf(i8)):
        assert t.tolist() == [False] * 3
    assert flow.isfinite(i8).tolist() == [True] * 3
    # aliases
    assert flow.arcsin(flow.tensor([1.0], device=device)).item() == pytest.approx(math.pi / 2)
    assert flow.absolute(i8).tolist() == [-128, 3, 5] and flow.fix(flow.tensor([-1.5], device=device)).item() == -1


def test_default_dtype_is_used_for_integer_inputs(device):
    old = flow.get_default_dtype()
    try:
        flow.set_default_dtype(flow.float64)
        assert flow.exp(flow.tensor([1, 2], device=device)).dtype == flow.float64
        assert flow.sigmoid(flow.tensor([True], device=device)).dtype == flow.float64
    finally:
        flow.set_default_dtype(old)


def test_zero_size_and_zero_dim(device):
    z = flow.zeros(0, 3, device=device)
    for op in ("exp", "abs", "isnan", "logical_not", "round"):
        r = getattr(flow, op)(z)
        assert r.shape == (0, 3)
    assert flow.exp(flow.tensor(0.0, device=device)).shape == ()
    assert flow.exp(flow.tensor(0.0, device=device)).item() == 1.0
    assert flow.gelu(flow.tensor(0.0, device=device)).item() == 0.0


def test_bad_arguments(device):
    x = flow.tensor([1.0, 2.0], device=device)
    with pytest.raises(ValueError, match="gelu: approximate argument must be either 'none' or 'tanh'"):
        flow.gelu(x, approximate="fast")
    with pytest.raises(TypeError, match=r"exp\(\): argument 'input' must be Tensor"):
        flow.exp([1.0, 2.0])
    with pytest.raises(TypeError, match="gelu: expected a floating-point tensor, got int64"):
        flow.gelu(flow.tensor([1], device=device))
    with pytest.raises(TypeError, match="bitwise_not: only integer and bool tensors are supported, got float32"):
        ~x
    with pytest.raises(NotImplementedError, match="abs: not implemented for 'Bool'"):
        abs(flow.tensor([True], device=device))
    # the bindings' op ids: an op of another arity, or one needing attributes, is refused
    from monoflow import _C
    with pytest.raises(ValueError, match="math_unary: op gelu is not one of its ops"):
        _C.math_unary(_C.math_op("gelu"), x)
    with pytest.raises(ValueError, match="math_binary: op exp is not one of its ops"):
        _C.math_binary(_C.math_op("exp"), x, x)
    with pytest.raises(ValueError, match="unknown op 'nope'"):
        _C.math_op("nope")
    # an id out of the op table with an operand of the wrong type: a TypeError naming the id (it
    # was read past the table for the message: a segfault)
    for call in (lambda: _C.math_unary(-1, None), lambda: _C.math_unary_(10 ** 6, "abc"),
                 lambda: _C.math_binary_(-100, flow.bool, x)):
        with pytest.raises(TypeError, match=r"op #-?\d+ \(unknown\)"):
            call()
    with pytest.raises(OverflowError, match=r"op #-1 \(unknown\)"):
        _C.math_binary(-1, x, 2 ** 64)


def test_integer_results_of_floating_functions_match_category(device):
    # every integral dtype takes the default float dtype; floating ones keep theirs
    for name in DTYPES:
        t = flow.ones(2, dtype=FLOW[name], device=device)
        expected = name if category(name) == 2 else default_float()
        assert flow.tanh(t).dtype == FLOW[expected], name
