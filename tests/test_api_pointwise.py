"""The elementwise composites and aliases of ops_pointwise against PyTorch:
values, dtypes, gradients, in-place and method forms."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from api_oracle import assert_same, compare, same_error, torch

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)
floats = st.sampled_from([np.float32, np.float64])


def _arr(draw, shape, dtype, lo=-4, hi=4):
    # (no subnormals: there torch's formulas underflow in intermediate products, e.g. hypot's
    # gradient w * b / h is 0 for b = 5e-324 where the value is w; conventions, not semantics)
    return draw(hnp.arrays(np.float64, shape, elements=st.floats(lo, hi, allow_subnormal=False))).astype(dtype)


# torch's float32 gradients of these are no oracle near 0: sinc's cancels (off
# by 30% at 2e-4), hypot's rounds g * x to a subnormal before dividing by h.
# monoflow's float32 is held to float64 torch on the same inputs.
FLOAT64_ORACLE = {"sinc", "hypot"}

UNARY = {  # name: (low, high, differentiable)
    "negative": (-5, 5, True), "logit": (0.05, 0.95, True), "frac": (-5, 5, True), "sgn": (-5, 5, True),
    "deg2rad": (-360, 360, True), "rad2deg": (-7, 7, True), "sinc": (-3, 3, True), "nan_to_num": (-5, 5, True),
    "signbit": (-5, 5, False), "isposinf": (-5, 5, False), "isneginf": (-5, 5, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@given(data=st.data())
def test_unary(name, data):
    lo, hi, diff = UNARY[name]
    a = _arr(data.draw, data.draw(shapes), data.draw(floats), lo, hi)
    t_fn = getattr(torch, name)
    if name in FLOAT64_ORACLE:
        t_fn = lambda x: getattr(torch, name)(x.double())  # noqa: E731
    compare(getattr(flow, name), t_fn, a, grad=diff, rtol=1e-5, atol=1e-5, check_dtype=name not in FLOAT64_ORACLE)
    compare(lambda x: getattr(x, name)(), lambda x: getattr(x, name)(), a, grad=False)


BINARY = {  # name: (low, high, differentiable)
    "xlogy": (0.0, 4, True), "hypot": (-4, 4, True), "copysign": (-4, 4, True), "logaddexp": (-30, 30, True),
    "logaddexp2": (-30, 30, True), "fmax": (-4, 4, True), "fmin": (-4, 4, True), "multiply": (-4, 4, True),
    "subtract": (-4, 4, True), "divide": (0.5, 4, True), "true_divide": (0.5, 4, True), "float_power": (0.5, 2, True),
    "greater": (-2, 2, False), "less_equal": (-2, 2, False), "not_equal": (-2, 2, False), "nextafter": (-4, 4, False),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@given(data=st.data())
def test_binary(name, data):
    lo, hi, diff = BINARY[name]
    shape = data.draw(shapes)
    dt = data.draw(floats)
    a = _arr(data.draw, shape, dt, lo, hi)
    b = _arr(data.draw, data.draw(st.sampled_from([shape, shape[-1:]])), dt, lo, hi)
    if name == "xlogy":
        b = np.asarray(b + 0.125)  # at y = 0 torch's gradients are -inf and NaN: conventions, not tested here
    if name in ("fmax", "fmin", "copysign"):
        b = np.asarray(b + 0.25)  # ties: maximum's split gradient and sign(0) are conventions, not values
    t_fn = getattr(torch, name)
    if name in FLOAT64_ORACLE:
        t_fn = lambda x, y: getattr(torch, name)(x.double(), y.double())  # noqa: E731
    compare(getattr(flow, name), t_fn, a, b, grad=diff, rtol=1e-5, atol=1e-5, check_dtype=name not in FLOAT64_ORACLE)
    compare(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), a, b, grad=False)


def test_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0], dtype=np.float32)
    for name in ("signbit", "isposinf", "isneginf", "nan_to_num", "sgn", "frac"):
        compare(getattr(flow, name), getattr(torch, name), x, grad=False)
    assert_same(flow.nan_to_num(flow.tensor(x), nan=1.0, posinf=2.0, neginf=-2.0),
                torch.nan_to_num(torch.tensor(x), nan=1.0, posinf=2.0, neginf=-2.0))
    y = np.array([0.0, 0.0, 1.0, np.nan, 2.0, 0.0, 1.0], dtype=np.float32)
    z = np.array([0.0, np.nan, 0.0, 1.0, np.inf, 5.0, -1.0], dtype=np.float32)
    compare(flow.xlogy, torch.xlogy, y, z, grad=False)
    compare(flow.logaddexp, torch.logaddexp, x, x, grad=False)
    compare(flow.fmax, torch.fmax, x, z, grad=False)


@given(hnp.arrays(np.int64, hnp.array_shapes(max_dims=2, max_side=5), elements=st.integers(-60, 60)),
       hnp.arrays(np.int64, hnp.array_shapes(max_dims=2, max_side=5), elements=st.integers(-60, 60)))
def test_gcd_lcm(a, b):
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return
    compare(flow.gcd, torch.gcd, a, b)
    compare(flow.lcm, torch.lcm, a, b)
    compare(lambda x, y: x.gcd(y), lambda x, y: x.gcd(y), a, b)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_shifts(dtype):
    a = np.array([1, -8, 5, 7, -1, 100], dtype=dtype)
    s = np.array([0, 1, 2, 3, 4, 2], dtype=dtype)
    compare(flow.bitwise_left_shift, torch.bitwise_left_shift, a, s)
    compare(flow.bitwise_right_shift, torch.bitwise_right_shift, a, s)
    compare(lambda x: x.bitwise_left_shift(1), lambda x: x.bitwise_left_shift(1), a)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_divide_rounding_mode(mode, dtype):
    a = np.array([7, -7, 6, -6, 0], dtype=dtype)
    b = np.array([2, 2, -4, -4, 3], dtype=dtype)
    compare(lambda x, y: flow.divide(x, y, rounding_mode=mode), lambda x, y: torch.divide(x, y, rounding_mode=mode),
            a, b, grad=False)
    same_error(lambda: flow.divide(flow.tensor(a), flow.tensor(b), rounding_mode="up"),
               lambda: torch.divide(torch.tensor(a), torch.tensor(b), rounding_mode="up"))


def test_heaviside_and_isin():
    x = np.array([-1.5, 0.0, 2.0, 0.0], dtype=np.float32)
    v = np.array([0.5, 0.25, 0.5, 1.0], dtype=np.float32)
    compare(flow.heaviside, torch.heaviside, x, v, grad=False)
    same_error(lambda: flow.heaviside(flow.tensor(x), flow.tensor(v).double()),
               lambda: torch.heaviside(torch.tensor(x), torch.tensor(v).double()))
    e = np.array([[1, 2], [3, 4]])
    t = np.array([2, 4, 9])
    compare(flow.isin, torch.isin, e, t)
    compare(lambda a, b: flow.isin(a, b, invert=True), lambda a, b: torch.isin(a, b, invert=True), e, t)


@pytest.mark.parametrize("name", ["lt", "le", "gt", "ge", "eq", "ne", "less", "greater_equal", "not_equal"])
def test_comparison_methods_and_inplace(name):
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    b = np.array([2.0, 2.0, 2.0], dtype=np.float32)
    compare(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), a, b, grad=False)
    compare(lambda x: getattr(x, name)(2), lambda x: getattr(x, name)(2), a, grad=False)
    fx, tx = flow.tensor(a), torch.tensor(a)
    assert_same(getattr(fx, name + "_")(flow.tensor(b)), getattr(tx, name + "_")(torch.tensor(b)))
    assert_same(fx, tx)


def test_hypot_subnormal():
    # the gradient x / h is formed directly: through the overflow-safe scaled
    # form it rounded subnormal products (to 0 or 2x at the smallest inputs)
    x, y = flow.tensor([0.0, 0.0, 3.0], requires_grad=True), flow.tensor([1.4e-45, 3.9e-44, 4.0], requires_grad=True)
    (flow.hypot(x, y) * flow.tensor([1.0, 0.125, 2.0])).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 0.125, 1.6], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, 1.2], rtol=1e-6)
    z = flow.tensor([3.0, -2.0, 0.5], dtype=flow.float64, requires_grad=True)
    assert flow.autograd.gradgradcheck(lambda v: flow.hypot(v, 2 * v + 1), (z,))


def test_sinc_near_zero():
    # a subnormal input (a^2 underflows) and the edge of the series region
    edges = np.array([0.05, 0.5]) / np.pi
    a = np.concatenate([[2.2e-309, -2.2e-309, 0.0, 1e-3, 0.5], edges * 0.999, edges * 1.001])
    compare(flow.sinc, torch.sinc, a, rtol=1e-12, atol=1e-300)
    # float32 against the float64 truth: torch's float32 gradient cancels near 0
    a32 = a.astype(np.float32).astype(np.float64)
    compare(lambda x: flow.sinc(x.float()), torch.sinc, a32, rtol=1e-6, atol=1e-30, check_dtype=False)


def test_inplace_forms():
    a = np.array([0.2, 0.5, 0.7], dtype=np.float32)
    for name in ("logit_", "frac_", "deg2rad_", "sinc_", "negative_"):
        fx, tx = flow.tensor(a), torch.tensor(a)
        getattr(fx, name)()
        getattr(tx, name)()
        assert_same(fx, tx)


def test_errors():
    # complex is not an integer type: Euclid's loop never ended on it (a hang)
    for bad in (flow.ones(2, dtype=flow.complex64), flow.ones(2)):
        with pytest.raises(NotImplementedError, match="gcd"):
            flow.gcd(flow.ones(2, dtype=flow.int64), bad)
        with pytest.raises(NotImplementedError, match="lcm"):
            flow.lcm(bad, bad)
    same_error(lambda: flow.gcd(flow.tensor([1.0]), flow.tensor([2.0])),
               lambda: torch.gcd(torch.tensor([1.0]), torch.tensor([2.0])))
    same_error(lambda: flow.frac(flow.tensor([1])), lambda: torch.frac(torch.tensor([1])))
    with pytest.raises(TypeError, match="logit.*Tensor"):
        flow.logit([0.5])


_PROMO_DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("fn", ["hypot", "copysign", "nextafter", "ldexp"])
def test_mixed_dtype_binary_functions_promote_as_torch(fn):
    # an integer (or bool) side takes the floating side's dtype: hypot/nextafter refused such
    # pairs, copysign/ldexp computed float16 and bfloat16 pairs in float32
    if torch is None:
        pytest.skip("torch is the oracle")
    x = np.array([1.5, -2.0, 3.0])
    y = np.array([2.0, 1.0, -1.0])
    checked = 0
    for a in _PROMO_DTYPES:
        for b in _PROMO_DTYPES:
            ta, tb = torch.tensor(x).to(getattr(torch, a)), torch.tensor(y).to(getattr(torch, b))
            try:
                want = getattr(torch, fn)(ta, tb)
            except (RuntimeError, TypeError):
                continue  # (monoflow may be more permissive where torch refuses)
            got = getattr(flow, fn)(flow.tensor(ta.float().numpy()).to(getattr(flow, a)),
                                    flow.tensor(tb.float().numpy()).to(getattr(flow, b)))
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (fn, a, b)
            np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=1e-2, err_msg=f"{fn} {a} {b}")
            checked += 1
    assert checked >= 20


def test_angle_of_a_real_half_tensor_keeps_its_dtype():
    x = flow.tensor([-1.0, 0.0, 2.0], dtype=flow.float16)
    out = flow.angle(x)
    assert out.dtype == flow.float16
    np.testing.assert_allclose(out.float().numpy(), [np.pi, 0, 0], rtol=1e-3)
    assert flow.angle(flow.tensor([-1, 2])).dtype == flow.float32
