"""Binary math ops (pow, atan2, remainder, fmod, logical and bitwise ops) on
every registered device against torch: broadcasting, type promotion with
Python numbers as PyTorch's wrapped numbers, in-place forms, operators, and
bad input."""
import operator

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from helpers import (
    DTYPES, FLOATING, broadcast_to_shape, can_cast, category, default_float, device_settings, np_cast,
    python_scalars, ref_result_type, scalar_kind, tensor_specs, to_np, value_fits,
)
from test_ops_math_oracle import assert_matches, in_float64, tensor_of

BINARY = ("pow", "atan2", "remainder", "fmod", "logical_and", "logical_or", "logical_xor", "bitwise_and",
          "bitwise_or", "bitwise_xor")
LOGICAL = ("logical_and", "logical_or", "logical_xor")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")
# value ranges: small (pow stays finite) and wide
RANGES = ((-4.0, 4.0), (-100.0, 100.0), (-1e4, 1e4))


def compute_dtype(op, operands):
    compute = ref_result_type(operands)
    if op == "atan2" and category(compute) < 2:
        compute = default_float()
    return compute


def result_dtype(op, compute):
    return "bool" if op in LOGICAL else compute


def expected_error(op, compute, *, base=None, exponent=None):
    """The exception monoflow raises, or None. `base` is the dtype of a tensor
    base and `exponent` a Python-number exponent (pow's scalar checks, as in
    torch: no negative integer powers of integers, and the exponent must fit
    the compute dtype)."""
    if op in BITWISE and compute in FLOATING:
        return TypeError
    if op in ("remainder", "fmod") and compute == "bool":
        return NotImplementedError  # (torch's "not implemented for 'Bool'")
    if op == "pow":
        if compute == "bool" and not (base is not None and exponent is not None):
            return NotImplementedError
        if (base is not None and category(base) <= 1 and isinstance(exponent, int)
                and not isinstance(exponent, bool) and exponent < 0):
            return RuntimeError  # "Integers to negative integer powers are not allowed."
        if exponent is not None and base is not None and not value_fits(compute, exponent):
            return RuntimeError  # "value ... cannot be converted to type ... without overflow"
    return None


def _has_zero(values, compute):
    return bool((np_cast(np.asarray(values), compute) == 0).any())


def _number_tensor(torch, s, compute):
    """A Python number as torch sees a wrapped number after conversion to the
    compute dtype (integers wrap), as a 0-dim tensor."""
    src = torch.float64 if isinstance(s, float) else torch.bool if isinstance(s, bool) else torch.int64
    return torch.tensor(s, dtype=src).to(getattr(torch, compute))


def torch_op(torch, op, x, y, compute):
    """torch's op on operands already of the compute dtype; floating results
    computed in float64 (in_float64). torch has no bool pow kernel (x ** True
    works there through a shortcut): for bools x ** y is y ? x : True,
    computed in int64."""
    if op == "pow" and compute == "bool":
        return torch.pow(x.long(), y.long()).bool()
    if compute in FLOATING and op not in LOGICAL:
        return in_float64(getattr(torch, op), x, y)
    return getattr(torch, op)(x, y)


@pytest.mark.parametrize("op", BINARY)
@device_settings
@given(data=st.data(), names=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)))
def test_binary_tensor_tensor(device, op, data, names):
    torch = pytest.importorskip("torch")
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
    sa, sb = shapes.input_shapes
    if data.draw(st.booleans(), label="zero-dim b"):
        sb = ()
    lo, hi = data.draw(st.sampled_from(RANGES), label="range")
    A = data.draw(tensor_specs(sa, names[0], lo=lo, hi=hi, nan=True), label="a")
    B = data.draw(tensor_specs(sb, names[1], lo=lo, hi=hi, nan=True), label="b")
    a, b = A.make(device), B.make(device)
    compute = compute_dtype(op, [("dim" if sa else "zero", names[0]), ("dim" if sb else "zero", names[1])])
    err = expected_error(op, compute)
    if err is not None:
        with pytest.raises(err, match=op):
            getattr(flow, op)(a, b)
        with pytest.raises((RuntimeError, TypeError, NotImplementedError)):
            getattr(torch, op)(tensor_of(a), tensor_of(b))
        return
    if op in ("remainder", "fmod") and category(compute) == 1:
        assume(not _has_zero(B.values, compute))  # integer division by zero: its own test
    before = (to_np(a), to_np(b))
    out = getattr(flow, op)(a, b)
    expected = torch_op(torch, op, tensor_of(a, compute), tensor_of(b, compute), compute)
    assert getattr(torch, op)(tensor_of(a), tensor_of(b)).dtype == expected.dtype  # torch's own promotion
    assert out.device == flow.device(device) and out.is_contiguous()
    assert_matches(out, expected, exact=op not in ("pow", "atan2", "remainder"))
    np.testing.assert_array_equal(to_np(a), before[0])
    np.testing.assert_array_equal(to_np(b), before[1])
    assert_matches(getattr(a, op)(b), expected, exact=op not in ("pow", "atan2", "remainder"))


@pytest.mark.parametrize("op", BINARY)
@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), reverse=st.booleans())
def test_binary_tensor_scalar(device, op, data, name, reverse):
    torch = pytest.importorskip("torch")
    lo, hi = data.draw(st.sampled_from(RANGES), label="range")
    A = data.draw(tensor_specs(dtype=name, lo=lo, hi=hi, nan=True), label="a")
    s = data.draw(python_scalars(), label="scalar")
    a = A.make(device)
    kind = "dim" if A.values.ndim else "zero"
    compute = compute_dtype(op, [(kind, name), ("scalar", scalar_kind(s))])
    fn = getattr(flow, op)
    call = (lambda: fn(s, a)) if reverse else (lambda: fn(a, s))
    err = expected_error(op, compute, base=None if reverse else name, exponent=None if reverse else s)
    if err is not None:
        with pytest.raises(err, match=op):
            call()
        return
    if op in ("remainder", "fmod") and category(compute) == 1:
        divisor = A.values if reverse else s
        assume(not _has_zero(divisor, compute))
    out = call()
    ta, ts = tensor_of(a, compute), _number_tensor(torch, s, compute)
    expected = torch_op(torch, op, *((ts, ta) if reverse else (ta, ts)), compute)
    assert_matches(out, expected, exact=op not in ("pow", "atan2", "remainder"))
    # torch's own scalar forms (where it has them) agree on the dtype, and on
    # integer values (its floating kernels may keep the number at float
    # precision, and take shortcuts at the extremes: see in_float64)
    torch_fn = getattr(torch, op)
    if op in ("atan2",) + LOGICAL or (reverse and op == "fmod"):
        return
    direct = torch_fn(s, tensor_of(a)) if reverse else torch_fn(tensor_of(a), s)
    assert direct.dtype == getattr(torch, result_dtype(op, compute))
    if category(compute) < 2:
        assert_matches(out, direct, exact=True)


INPLACE_LAYOUTS = ("contiguous", "permuted", "strided")


@pytest.mark.parametrize("op", BINARY)
@device_settings
@given(data=st.data(), names=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)), use_scalar=st.booleans())
def test_binary_inplace(device, op, data, names, use_scalar):
    torch = pytest.importorskip("torch")
    ns, no = names
    S = data.draw(tensor_specs(dtype=ns, layouts=INPLACE_LAYOUTS, lo=-8, hi=8, nan=True), label="self")
    if use_scalar:
        other = data.draw(python_scalars(), label="scalar")
        kind_o = ("scalar", scalar_kind(other))
    else:
        O = data.draw(tensor_specs(data.draw(broadcast_to_shape(S.shape), label="shape"), no, lo=-8, hi=8),
                      label="other")
        kind_o = ("dim" if O.values.ndim else "zero", no)
    s = S.make(device)
    o = other if use_scalar else O.make(device)
    base_version = s._version
    compute = compute_dtype(op, [("dim" if S.values.ndim else "zero", ns), kind_o])
    method = getattr(s, op + "_")
    err = expected_error(op, compute, base=ns, exponent=other if use_scalar else None)
    if err is None and not can_cast(result_dtype(op, compute), ns):
        err = RuntimeError  # "result type ... can't be cast to the desired output type"
    if err is not None:
        with pytest.raises(err, match=op):
            method(o)
        assert s._version == base_version
        np.testing.assert_array_equal(to_np(s), S.values)
        return
    if op in ("remainder", "fmod") and category(compute) == 1:
        assume(not _has_zero(other if use_scalar else O.values, compute))
    ts = tensor_of(s)
    to = _number_tensor(torch, other, compute) if use_scalar else tensor_of(o)
    expected = torch_op(torch, op, ts.to(getattr(torch, compute)), to.to(getattr(torch, compute)), compute)
    expected = expected.to(ts.dtype)
    assert method(o) is s
    assert s._version > base_version
    assert_matches(s, expected, exact=op not in ("pow", "atan2", "remainder"))


# ---------------------------------------------------------------- operators

OPERATORS = {"pow": (operator.pow, operator.ipow), "remainder": (operator.mod, operator.imod),
             "bitwise_and": (operator.and_, operator.iand), "bitwise_or": (operator.or_, operator.ior),
             "bitwise_xor": (operator.xor, operator.ixor)}


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_operators_match_torch(device, op):
    torch = pytest.importorskip("torch")
    fn, ifn = OPERATORS[op]
    for dt in ("int64", "int32", "uint8", "bool", "float32", "float16"):
        if op.startswith("bitwise") and dt in FLOATING or op in ("pow", "remainder") and dt == "bool":
            continue
        x = flow.tensor([[1, 2, 3], [4, 5, 7]], device=device).to(getattr(flow, dt))
        y = flow.tensor([2, 3, 1], device=device).to(getattr(flow, dt))
        tx, ty = tensor_of(x), tensor_of(y)
        exact = op != "pow"
        assert_matches(fn(x, y), fn(tx, ty), exact=exact)
        for number in (3, True) + ((2.5,) if not op.startswith("bitwise") else ()):
            assert_matches(fn(x, number), fn(tx, number), exact=exact)  # __op__
            assert_matches(fn(number, x), fn(number, tx), exact=exact)  # __rop__
        z = x.clone()
        r = ifn(z, y)  # __iop__
        assert r is z
        assert_matches(z, ifn(tx.clone(), ty), exact=exact)
        z = x.clone()
        if dt == "bool":  # the int64 result can't be written into bool, as in torch
            with pytest.raises(RuntimeError, match=f"{op}_: result type Long can't be cast"):
                ifn(z, 2)
            with pytest.raises(RuntimeError):
                ifn(tx.clone(), 2)
        else:
            assert_matches(ifn(z, 2), ifn(tx.clone(), 2), exact=exact)


def test_operator_fallbacks(device):
    x = flow.tensor([1, 2], device=device)
    # operands of other types: NotImplemented, so Python raises TypeError
    for fn in (operator.pow, operator.mod, operator.and_, operator.or_, operator.xor):
        with pytest.raises(TypeError):
            fn(x, "a")
        with pytest.raises(TypeError):
            fn(object(), x)
    with pytest.raises(TypeError):
        pow(x, 2, 5)
    assert (np.int64(2) ** x).tolist() == [2, 4]  # numpy scalars are numbers
    assert (x ** np.float32(0.5)).dtype == flow.float32


# ---------------------------------------------------------------- wrapped numbers and examples

def test_python_numbers_promote_as_wrapped_numbers(device):
    i32 = flow.tensor([1, 2, 3], dtype=flow.int32, device=device)
    u8 = flow.tensor([3, 200], dtype=flow.uint8, device=device)
    h = flow.tensor([1.5, -2.0], dtype=flow.float16, device=device)
    assert (i32 ** 2.5).dtype == flow.float32
    assert (i32 % 2).dtype == flow.int32
    assert (h ** 3.0).dtype == flow.float16 and (h % 3.0).dtype == flow.float16
    assert flow.atan2(i32, 2.5).dtype == flow.float32
    assert (flow.tensor(2, dtype=flow.int8, device=device) ** 2).dtype == flow.int8  # 0-dim tensor, int number
    assert (flow.tensor(2, dtype=flow.int8, device=device) ** 2.0).dtype == flow.float32
    assert (u8 & 300).tolist() == [0, 8]  # 300 wraps to 44, as torch converts wrapped numbers
    assert (u8 | 257).tolist() == [3, 201]
    assert flow.remainder(u8, 300).tolist() == [3, 24]
    assert flow.logical_and(u8, 0.5).dtype == flow.bool
    # the comparisons promote Python numbers the same way
    assert (flow.tensor([1], dtype=flow.int8, device=device) < 1000).tolist() == [False]  # 1000 wraps to -24
    assert (i32 == 2.5).tolist() == [False, False, False] and (i32 < 2.5).tolist() == [True, True, False]
    assert (h > 1.4).dtype == flow.bool
    assert (flow.tensor([True], device=device) == 1).tolist() == [True]


def test_pow_examples(device):
    torch = pytest.importorskip("torch")
    i = flow.tensor([2, 1, -1, 0, 3], device=device)
    e = flow.tensor([-1, -2, -3, -1, 0], device=device)
    assert (i ** e).tolist() == [0, 1, -1, 0, 1]  # torch's integer pow with negative exponents
    assert (i ** 70).tolist() == (torch.tensor([2, 1, -1, 0, 3]) ** 70).tolist()  # wraps, as torch
    with pytest.raises(RuntimeError, match="pow: Integers to negative integer powers are not allowed"):
        i ** -1
    with pytest.raises(RuntimeError, match="pow: Integers to negative integer powers are not allowed"):
        flow.tensor([True], device=device) ** -2
    assert (i ** -1.0).tolist() == pytest.approx([0.5, 1.0, -1.0, float("inf"), 1 / 3])
    assert (2 ** flow.tensor([-1, 0, 3], device=device)).tolist() == [0, 1, 8]  # a number base: no error
    u8 = flow.tensor([3, 200], dtype=flow.uint8, device=device)
    with pytest.raises(RuntimeError, match="pow: value 300 cannot be converted to type uint8 without overflow"):
        u8 ** 300
    assert (300 ** u8).tolist() == [192, 0]  # a number base wraps like other wrapped numbers
    with pytest.raises(RuntimeError, match="pow: value 1e\\+06 cannot be converted to type float16"):
        flow.tensor([1.0], dtype=flow.float16, device=device) ** 1e6
    b = flow.tensor([True, False], device=device)
    assert (b ** True).dtype == flow.bool and (b ** True).tolist() == [True, False]
    assert (b ** False).tolist() == [True, True]
    assert (b ** 2).dtype == flow.int64
    with pytest.raises(NotImplementedError, match="pow: not implemented for 'Bool'"):
        b ** b
    with pytest.raises(NotImplementedError, match="pow: not implemented for 'Bool'"):
        True ** b
    assert flow.pow(2, flow.tensor([0.5], device=device)).tolist() == pytest.approx([2 ** 0.5])
    with pytest.raises(TypeError, match="pow: expected at least one tensor operand"):
        flow.pow(2, 3)


def test_remainder_fmod_examples(device):
    x = flow.tensor([5, -5, 7, -7], device=device)
    assert (x % 3).tolist() == [2, 1, 1, 2] and flow.fmod(x, 3).tolist() == [2, -2, 1, -1]
    assert (x % -3).tolist() == [-1, -2, -2, -1] and flow.fmod(x, -3).tolist() == [2, -2, 1, -1]
    assert (7 % flow.tensor([2, 4], device=device)).tolist() == [1, 3]
    assert (7.5 % flow.tensor([2, 4], device=device)).tolist() == [1.5, 3.5]
    i8 = flow.tensor([-128], dtype=flow.int8, device=device)
    assert (i8 % -1).tolist() == [0] and flow.fmod(i8, -1).tolist() == [0]  # no INT_MIN % -1 trap
    f = flow.tensor([5.0, -5.0, 3.0, -0.0, 5.0, -1e-30], device=device)
    r = flow.remainder(f, flow.tensor([0.0, 3.0, -3.0, 2.0, float("inf"), 3.0], device=device)).tolist()
    assert np.isnan(r[0]) and r[1:] == [1.0, 0.0, 0.0, 5.0, 3.0]
    with pytest.raises(ZeroDivisionError, match="remainder: integer division by zero"):
        flow.remainder(x, 0).tolist()
    with pytest.raises(ZeroDivisionError, match="fmod: integer division by zero"):
        flow.fmod(x, flow.tensor([1, 0, 1, 1], device=device)).tolist()
    with pytest.raises(NotImplementedError, match="remainder: not implemented for 'Bool'"):
        flow.tensor([True], device=device) % True


def test_logical_and_bitwise_examples(device):
    f = flow.tensor([1.0, 0.0, float("nan")], device=device)
    z = flow.tensor([0, 0, 0], device=device)
    assert flow.logical_xor(f, z).tolist() == [True, False, True]
    assert flow.logical_or(f, 0).tolist() == [True, False, True]
    assert flow.logical_and(2, f).tolist() == [True, False, True]
    assert flow.bitwise_and(flow.tensor([5], dtype=flow.int8, device=device),
                            flow.tensor([3], dtype=flow.uint8, device=device)).dtype == flow.int16
    assert flow.bitwise_xor(True, flow.tensor([True, False], device=device)).tolist() == [False, True]
    assert (flow.tensor([2, 4], device=device) & True).tolist() == [0, 0]
    with pytest.raises(TypeError, match="bitwise_and: only integer and bool tensors are supported, got float32"):
        flow.tensor([5], device=device) & 2.5
    with pytest.raises(TypeError, match="bitwise_or: only integer and bool tensors"):
        f | f


def test_zero_size_and_zero_dim(device):
    z = flow.zeros(0, 2, device=device)
    assert (z ** flow.ones(2, device=device)).shape == (0, 2)
    assert flow.atan2(z, 1.0).shape == (0, 2)
    assert flow.logical_and(z, flow.ones(3, 1, 1, device=device)).shape == (3, 0, 2)
    s = flow.tensor(2.0, device=device)
    assert (s ** s).shape == () and (s ** s).item() == 4.0


def test_bad_input(device):
    a = flow.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match="pow: The size of tensor a \\(3\\) must match the size of tensor b \\(2\\) at non-singleton "
                                           "dimension 1: shapes \\[2, 3\\] and \\[2\\] cannot be broadcast"):
        a ** flow.ones(2, device=device)
    with pytest.raises(RuntimeError, match="atan2: The size of tensor a"):
        flow.atan2(a, flow.ones(4, device=device))
    with pytest.raises(RuntimeError, match="remainder_: output with shape \\[3\\] doesn't match the broadcast shape"):
        flow.ones(3, device=device).remainder_(flow.ones(2, 3, device=device))
    with pytest.raises(TypeError, match=r"fmod\(\): argument 'other' \(position 2\) must be Tensor or Number, not str"):
        flow.fmod(a, "x")
    with pytest.raises(TypeError, match=r"atan2_\(\): argument 'other' \(position 1\) must be Tensor or Number, not list"):
        a.atan2_([1.0])
    e = flow.zeros(3, device=device).expand(2, 3)
    with pytest.raises(RuntimeError, match="pow_: unsupported operation: more than one element"):
        e.pow_(2)
    x = flow.arange(6.0, device=device)
    with pytest.raises(RuntimeError, match="pow_: unsupported operation: some elements of the input tensor"):
        x[1:].pow_(x[:-1])
    others = [d for d in flow.devices.available() if f"{d}:0" != device]
    if others:
        with pytest.raises(RuntimeError, match="remainder: expected all tensors to be on the same device"):
            flow.remainder(a, flow.ones(3, device=others[0]))


def test_inplace_aliasing(device):
    x = flow.tensor([1.0, 2.0, 3.0], device=device)
    x.pow_(x)  # the same elements: fine
    assert x.tolist() == [1.0, 4.0, 27.0]
    y = flow.arange(8, device=device)
    y[::2].bitwise_xor_(y[1::2])  # interleaved, not overlapping
    assert y.tolist() == [1, 1, 1, 3, 1, 5, 1, 7]
    i = flow.tensor([1, 2], dtype=flow.int32, device=device)
    i **= flow.tensor([2], dtype=flow.int64, device=device)  # computes in int64, casts back
    assert i.dtype == flow.int32 and i.tolist() == [1, 4]
