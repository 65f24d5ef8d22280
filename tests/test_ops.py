"""Properties of the first ops on every registered device, against numpy
(and torch where installed): creation, elementwise arithmetic and
comparisons with PyTorch's type promotion, in-place variants, sum, matmul,
casts between all dtypes and copies between devices."""
import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from helpers import (
    BINARY_OPS, COMPARISONS, DTYPES, EPS, FLOATING, FLOW, NAME, NP, SCALAR_OPS, TORCH, assert_values,
    broadcast_to_shape, can_cast, category, default_float, device_settings, np_binary, np_cast, op_dtypes,
    op_error, python_scalars, ref_promote, ref_result_type, scalar_kind, shapes, tdt, tensor_specs, to_np,
    torch_np, torch_of, value_fits, values,
)

needs_torch = pytest.mark.skipif(TORCH is None, reason="torch is not installed")


def other_devices(device):
    """Devices other than `device` (another index of the same type, other types)."""
    out = [f"{t}:0" for t in flow.devices.available() if f"{t}:0" != device]
    typ = device.split(":")[0]
    if flow.devices.count(typ) > 1:
        out.append(f"{typ}:1")
    return out


# ================================================================ type promotion

def test_promote_types_and_can_cast_all_pairs():
    for a, b in itertools.product(DTYPES, DTYPES):
        got = flow.promote_types(FLOW[a], FLOW[b])
        assert got == FLOW[ref_promote(a, b)], (a, b, got)
        assert got == flow.promote_types(FLOW[b], FLOW[a])
        assert flow.can_cast(FLOW[a], FLOW[b]) == can_cast(a, b), (a, b)


@needs_torch
def test_promotion_reference_matches_torch():
    for a, b in itertools.product(DTYPES, DTYPES):
        assert tdt(ref_promote(a, b)) == TORCH.promote_types(tdt(a), tdt(b)), (a, b)
        assert can_cast(a, b) == TORCH.can_cast(tdt(a), tdt(b)), (a, b)


def _operand(kind, name, device):
    if kind == "dim":
        return flow.ones(2, dtype=FLOW[name], device=device)
    return flow.ones((), dtype=FLOW[name], device=device)


def test_result_type_tensor_pairs(device):
    # every dtype pair, as tensors with dims and as 0-dim tensors
    for a, b in itertools.product(DTYPES, DTYPES):
        for ka, kb in itertools.product(("dim", "zero"), repeat=2):
            x, y = _operand(ka, a, device), _operand(kb, b, device)
            expected = ref_result_type([(ka, a), (kb, b)])
            assert (x * y).dtype == FLOW[expected], (ka, a, kb, b)
            assert (x == y).dtype == flow.bool
            div = (x / y).dtype
            assert div == FLOW[expected if category(expected) == 2 else default_float()], (ka, a, kb, b)


def test_result_type_tensor_scalar(device):
    for a in DTYPES:
        for kind in ("dim", "zero"):
            x = _operand(kind, a, device)
            for s in (True, 3, 2.5):
                expected = FLOW[ref_result_type([(kind, a), ("scalar", scalar_kind(s))])]
                assert (x * s).dtype == expected, (kind, a, s)
                assert (s * x).dtype == expected, (kind, a, s)
                if expected != flow.bool:
                    assert (x // s).dtype == expected, (kind, a, s)
                    assert (s // x).dtype == expected, (kind, a, s)
                if a != "bool" and not isinstance(s, bool):
                    assert (x - s).dtype == expected
                    assert (s - x).dtype == expected


def test_result_type_examples(device):
    i32 = flow.tensor([1, 2], dtype=flow.int32, device=device)
    assert (i32 + 2.5).dtype == flow.float32
    assert (flow.tensor([1], dtype=flow.uint8, device=device) +
            flow.tensor([1], dtype=flow.int8, device=device)).dtype == flow.int16
    assert (i32 + flow.tensor(5, dtype=flow.int64, device=device)).dtype == flow.int32
    assert (i32 + flow.tensor(5.0, dtype=flow.float64, device=device)).dtype == flow.float64
    assert (flow.tensor([1.0], dtype=flow.float16, device=device) + 2.5).dtype == flow.float16
    assert (flow.tensor([True], device=device) + 1).dtype == flow.int64
    assert (flow.tensor(1.0, dtype=flow.float16, device=device) + flow.tensor(1.0, device=device)).dtype == \
        flow.float32


@needs_torch
def test_result_type_matches_torch():
    # the reference itself against torch.result_type, every operand kind
    kinds = ("dim", "zero")
    for a, b in itertools.product(DTYPES, DTYPES):
        for ka, kb in itertools.product(kinds, kinds):
            ta = TORCH.ones(2 if ka == "dim" else (), dtype=tdt(a))
            tb = TORCH.ones(2 if kb == "dim" else (), dtype=tdt(b))
            assert tdt(ref_result_type([(ka, a), (kb, b)])) == TORCH.result_type(ta, tb), (ka, a, kb, b)
        for s in (True, 3, 2.5):
            for ka in kinds:
                ta = TORCH.ones(2 if ka == "dim" else (), dtype=tdt(a))
                assert tdt(ref_result_type([(ka, a), ("scalar", scalar_kind(s))])) == TORCH.result_type(ta, s)


# ================================================================ creation

nested = st.recursive(
    st.one_of(st.booleans(), st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_subnormal=False)),
    lambda inner: st.integers(0, 3).flatmap(lambda n: st.lists(inner, min_size=n, max_size=n)),
    max_leaves=12,
)


def _rectangular(data):
    try:
        a = np.array(data)
    except ValueError:
        return False
    return a.dtype != object


def _inferred(data):
    flat = np.array(data, dtype=object).ravel().tolist() if isinstance(data, list) else [data]
    if any(isinstance(v, float) for v in flat):
        return default_float()
    if any(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        return "int64"
    if flat and all(isinstance(v, bool) for v in flat):
        return "bool"
    return default_float()  # empty lists


@device_settings
@given(data=nested.filter(_rectangular))
def test_tensor_from_nested_lists(device, data):
    t = flow.tensor(data, device=device)
    name = _inferred(data)
    assert t.dtype == FLOW[name]
    assert t.device == flow.device(device)
    assert_values(t, np_cast(np.array(data, dtype=np.float64 if name in FLOATING else None), name), name)
    if TORCH is not None:
        assert TORCH.tensor(data).dtype == tdt(name)


def test_tensor_from_scalars(device):
    for v, name in ((3, "int64"), (2.5, "float32"), (True, "bool"), (-0.0, "float32")):
        t = flow.tensor(v, device=device)
        assert t.dim() == 0 and t.shape == () and t.dtype == FLOW[name]
        assert t.item() == v and type(t.item()) is type(v)
    assert flow.tensor(7, dtype=flow.float64, device=device).item() == 7.0
    assert flow.tensor([1.7, -1.7], dtype=flow.int32, device=device).tolist() == [1, -1]


@device_settings
@given(data=st.data())
def test_tensor_from_numpy_keeps_dtype(device, data):
    name = data.draw(st.sampled_from([n for n in DTYPES if n != "bfloat16"]))
    arr = data.draw(values(name, data.draw(shapes())))
    if data.draw(st.booleans()) and arr.ndim >= 2:
        arr = arr.T  # non-contiguous source
    t = flow.tensor(arr, device=device)
    assert_values(t, arr, name)
    arr_copy = arr.copy()
    if arr.size:
        arr[...] = arr.flat[0]  # tensor() copies
    np.testing.assert_array_equal(to_np(t), arr_copy)
    # numpy scalars keep their dtype as well
    s = NP[name].type(0)
    assert flow.tensor(s, device=device).dtype == FLOW[name]


def test_tensor_from_tensor_and_dtype_arg(device):
    src = flow.tensor([[1, 2], [3, 4]], device=device)
    t = flow.tensor(src, dtype=flow.float16)
    assert t.dtype == flow.float16 and t.device == src.device
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    t.fill_(0)
    assert src.tolist() == [[1, 2], [3, 4]]  # a copy
    assert flow.tensor([1, 2], dtype=flow.bfloat16, device=device).tolist() == [1.0, 2.0]


@device_settings
@given(shape=shapes(max_dims=3), name=st.sampled_from(DTYPES), fill=python_scalars())
def test_zeros_ones_full_empty(device, shape, name, fill):
    dt = FLOW[name]
    for fn, v in ((flow.zeros, 0), (flow.ones, 1)):
        t = fn(*shape, dtype=dt, device=device)
        assert_values(t, np_cast(np.full(shape, v), name), name)
        assert t.device == flow.device(device)
        t2 = fn(shape, dtype=dt, device=device)
        assert t2.shape == shape
    if not value_fits(name, fill):
        with pytest.raises(RuntimeError, match=f"value .* cannot be converted to type {name} without overflow"):
            flow.full(shape, fill, dtype=dt, device=device)
        fill = 1
    f = flow.full(shape, fill, dtype=dt, device=device)
    expected = np_cast(np.full(shape, fill, dtype=np.float64 if isinstance(fill, float) else np.int64), name)
    assert_values(f, expected, name)
    e = flow.empty(*shape, dtype=dt, device=device)
    assert e.shape == shape and e.dtype == dt and e.device == flow.device(device) and e.is_contiguous()
    for like, v in ((flow.zeros_like, 0), (flow.ones_like, 1)):
        r = like(f)
        assert_values(r, np_cast(np.full(shape, v), name), name)
        assert r.device == f.device
    assert_values(flow.full_like(f, 1), np_cast(np.full(shape, 1), name), name)
    assert flow.empty_like(f).shape == shape and flow.empty_like(f).dtype == dt
    assert flow.zeros_like(f, dtype=flow.float64).dtype == flow.float64


def test_default_dtypes_of_creation(device):
    assert flow.zeros(2, device=device).dtype == flow.float32
    assert flow.empty(2, device=device).dtype == flow.float32
    assert flow.full((2,), 3, device=device).dtype == flow.int64
    assert flow.full((2,), 3.0, device=device).dtype == flow.float32
    assert flow.full((2,), True, device=device).dtype == flow.bool
    assert flow.zeros((), device=device).shape == ()
    assert flow.zeros([], device=device).dim() == 0
    assert flow.ones(flow.Size([2, 3]), device=device).shape == (2, 3)
    if TORCH is not None:
        assert TORCH.full((2,), 3).dtype == TORCH.int64


arange_args = st.one_of(
    st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5).filter(bool)),
    st.tuples(st.integers(-80, 80).map(lambda k: k / 4), st.integers(-80, 80).map(lambda k: k / 4),
              st.sampled_from([0.25, 0.5, 1.5, -0.25, -0.75, 3.0, -2.0])),
)


@device_settings
@given(args=arange_args, dtype=st.sampled_from([None, "int64", "int32", "float32", "float64", "float16"]))
def test_arange(device, args, dtype):
    start, end, step = args
    assume((end - start) * step >= 0)
    if dtype is not None and category(dtype) == 1:
        assume(all(float(v).is_integer() for v in args))
    kw = {} if dtype is None else {"dtype": FLOW[dtype]}
    t = flow.arange(start, end, step, device=device, **kw)
    name = dtype or ("int64" if all(isinstance(v, int) for v in args) else default_float())
    n = max(math.ceil((end - start) / step), 0)
    expected = np_cast(np.array([start + i * step for i in range(n)], dtype=np.float64), name)
    assert_values(t, expected, name)
    if TORCH is not None:
        tt = TORCH.arange(start, end, step, **({} if dtype is None else {"dtype": tdt(dtype)}))
        assert tt.dtype == tdt(name)
        np.testing.assert_array_equal(torch_np(tt), to_np(t))


def test_arange_forms_and_errors(device):
    assert flow.arange(5, device=device).tolist() == [0, 1, 2, 3, 4]
    assert flow.arange(5.0, device=device).dtype == flow.float32
    assert flow.arange(2, 5, device=device).tolist() == [2, 3, 4]
    assert flow.arange(10, 0, -3, device=device).tolist() == [10, 7, 4, 1]
    assert flow.arange(0, 0, device=device).shape == (0,)
    with pytest.raises(RuntimeError, match="arange.*step must be nonzero"):
        flow.arange(0, 5, 0, device=device)
    with pytest.raises(RuntimeError, match="arange.*step"):
        flow.arange(0, 5, -1, device=device)
    with pytest.raises(RuntimeError, match="arange.*step must be nonzero"):
        flow.arange(0, 5, 0.5, dtype=flow.int64, device=device)  # the step truncates to 0, as in torch


# ================================================================ elementwise binary ops

def _broadcastable_pair(draw):
    shapes_ = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0,
                                                     max_side=4))
    return shapes_.input_shapes


def _exact_in(x, name):
    """Whether operand x (a tensor or a Python number) converts exactly to dtype `name`."""
    v = np.asarray(to_np(x) if isinstance(x, flow.Tensor) else x, dtype=np.float64)
    with np.errstate(all="ignore"):
        c = np_cast(v, name).astype(np.float64)
    return bool(np.all((c == v) | np.isnan(v)))


def _check_with_torch(op, fa, fb, got, compute):
    """torch as a second oracle. For float16/bfloat16 computations torch is
    not consistent about when it rounds an operand of another dtype to the
    compute dtype (0-dim tensors and Python numbers keep their value in some
    kernels), so those cases are only compared when the operands convert
    exactly; monoflow always converts first (docs/kernels.md) and is checked
    exactly against numpy above."""
    if TORCH is None:
        return
    if compute in ("float16", "bfloat16") and not (_exact_in(fa, compute) and _exact_in(fb, compute)):
        return
    if compute in ("float16", "bfloat16") and op == "floor_divide":
        return  # torch's half kernels round a / b before the floor (4472 // 3 gives 1491)
    ta = torch_of(fa) if not isinstance(fa, (bool, int, float)) else fa
    tb = torch_of(fb) if not isinstance(fb, (bool, int, float)) else fb
    fn = {"maximum": TORCH.maximum, "minimum": TORCH.minimum}.get(op, BINARY_OPS[op][0])
    if op in ("maximum", "minimum") and not isinstance(ta, TORCH.Tensor):
        return
    expected = fn(ta, tb)
    assert expected.dtype == tdt(NAME[got.dtype]), (op, expected.dtype, got.dtype)
    exp, act = torch_np(expected), to_np(got)
    if op == "div" and isinstance(fa, (bool, int, float)):
        # torch computes `s / t` as `t.reciprocal() * s`, rounding twice
        np.testing.assert_allclose(act, exp, rtol=EPS[NAME[got.dtype]] * 4, atol=0)
    else:
        np.testing.assert_array_equal(act, exp)


@pytest.mark.parametrize("op", sorted(BINARY_OPS))
@device_settings
@given(data=st.data(), names=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)))
def test_binary_tensor_tensor(device, op, data, names):
    sa, sb = _broadcastable_pair(data.draw)
    na, nb = names
    if data.draw(st.booleans(), label="zero_dim_b"):
        sb = ()
    nan = op in ("maximum", "minimum") + COMPARISONS
    A = data.draw(tensor_specs(sa, na, nan=nan), label="a")
    B = data.draw(tensor_specs(sb, nb, nan=nan), label="b")
    a, b = A.make(device), B.make(device)
    compute, result = op_dtypes(op, ref_result_type([("dim" if sa else "zero", na), ("dim" if sb else "zero", nb)]))
    fn = BINARY_OPS[op][0]
    err = op_error(op, compute, na, nb)
    if err is not None:
        with pytest.raises(err, match=op):
            fn(a, b)
        if TORCH is not None:
            with pytest.raises((RuntimeError, TypeError)):
                BINARY_OPS[op][0](torch_of(a), torch_of(b))
        return
    if op == "floor_divide" and category(compute) <= 1:
        assume(not (np_cast(B.values, compute) == 0).any())  # division by zero: tested on its own
    before = (to_np(a), to_np(b))
    out = fn(a, b)
    expected = np_binary(op, np_cast(A.values, compute), np_cast(B.values, compute), compute)
    assert out.device == flow.device(device)
    assert out.is_contiguous()
    assert_values(out, expected, result)
    # inputs are untouched
    np.testing.assert_array_equal(to_np(a), before[0])
    np.testing.assert_array_equal(to_np(b), before[1])
    _check_with_torch(op, a, b, out, compute)


@pytest.mark.parametrize("op", SCALAR_OPS)
@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), reverse=st.booleans())
def test_binary_tensor_scalar(device, op, data, name, reverse):
    A = data.draw(tensor_specs(dtype=name), label="a")
    s = data.draw(python_scalars(), label="scalar")
    a = A.make(device)
    kind = "dim" if A.values.ndim else "zero"
    compute, result = op_dtypes(op, ref_result_type([(kind, name), ("scalar", scalar_kind(s))]))
    fn = BINARY_OPS[op][0]
    call = (lambda: fn(s, a)) if reverse else (lambda: fn(a, s))
    err = op_error(op, compute, name, "bool" if isinstance(s, bool) else "")
    if err is not None:
        with pytest.raises(err, match=op):
            call()
        return
    av = np_cast(A.values, compute)
    if category(compute) == 2:
        # add/sub/mul/div combine the tensor with the number at the compute
        # precision (float32 for half types); the other ops with the number
        # cast to the compute dtype (as if it were a 0-dim tensor)
        sv = np.float64(s) if compute == "float64" else np.float32(s)
        if op not in ("add", "sub", "mul", "div"):
            sv = np_cast(np.float64(s), compute)
    else:
        sv = np_cast(np.array(s), compute)  # wraps into the integer type
    if op == "floor_divide" and category(compute) <= 1:
        assume(not (np.asarray(av if reverse else sv) == 0).any())
    out = call()
    x, y = (sv, av) if reverse else (av, sv)
    work = np.float32 if compute in ("float16", "bfloat16") else None
    with np.errstate(all="ignore"):
        if work is not None:
            r = BINARY_OPS[op][1](np.asarray(x, dtype=work), np.asarray(y, dtype=work))
            expected = r if op in COMPARISONS else np_cast(r, compute)
        else:
            expected = np_binary(op, np.broadcast_to(x, A.values.shape), np.broadcast_to(y, A.values.shape),
                                 compute)
    expected = np.broadcast_to(expected, A.values.shape)
    assert_values(out, expected, result)
    if TORCH is not None:
        _check_with_torch(op, s if reverse else a, a if reverse else s, out, compute)


def test_reverse_scalar_ops_values(device):
    x = flow.tensor([1, 2, 4], device=device)
    assert (10 - x).tolist() == [9, 8, 6]
    assert (8 / x).tolist() == [8.0, 4.0, 2.0]
    assert (7 // x).tolist() == [7, 3, 1]
    assert (-7 // x).tolist() == [-7, -4, -2]
    assert (7.5 // x).tolist() == [7.0, 3.0, 1.0]
    assert (2 < x).tolist() == [False, False, True]
    assert (1 == x).tolist() == [True, False, False]
    assert (2 * x).tolist() == [2, 4, 8]
    assert (1 + x).tolist() == [2, 3, 5]


def test_floor_divide_int_by_zero_raises(device):
    a = flow.tensor([1, 2], device=device)
    with pytest.raises(ZeroDivisionError, match="floor_divide"):
        (a // flow.tensor([1, 0], device=device)).tolist()
    with pytest.raises(ZeroDivisionError, match="floor_divide"):
        (a // 0).tolist()
    # floating division by zero gives inf/nan, as in numpy and torch
    f = flow.tensor([1.0, -1.0, 0.0], device=device)
    r = (f // 0.0).tolist()
    assert r[0] == math.inf and r[1] == -math.inf and math.isnan(r[2])


@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES))
def test_neg(device, data, name):
    A = data.draw(tensor_specs(dtype=name))
    a = A.make(device)
    if name == "bool":
        with pytest.raises(RuntimeError, match="neg"):
            -a
        return
    out = -a
    with np.errstate(all="ignore"):
        expected = np_cast(-A.values.astype(np.float64), name) if category(name) == 2 else -A.values
    assert_values(out, expected, name)
    assert_values(flow.neg(a), expected, name)
    if TORCH is not None:
        np.testing.assert_array_equal(torch_np(-torch_of(a)), to_np(out))


def test_function_forms(device):
    a = flow.tensor([[1.0, -2.0], [3.0, 4.0]], device=device)
    b = flow.tensor([2.0, 2.0], device=device)
    assert flow.add(a, b).tolist() == (a + b).tolist()
    assert flow.add(a, b, alpha=2).tolist() == [[5.0, 2.0], [7.0, 8.0]]
    assert flow.sub(a, b, alpha=0.5).tolist() == [[0.0, -3.0], [2.0, 3.0]]
    assert flow.mul(a, 2).tolist() == [[2.0, -4.0], [6.0, 8.0]]
    assert flow.div(a, b).tolist() == [[0.5, -1.0], [1.5, 2.0]]
    assert flow.floor_divide(a, b).tolist() == [[0.0, -1.0], [1.0, 2.0]]
    assert flow.maximum(a, b).tolist() == [[2.0, 2.0], [3.0, 4.0]]
    assert flow.minimum(a, b).tolist() == [[1.0, -2.0], [2.0, 2.0]]
    assert flow.lt(a, b).tolist() == [[True, True], [False, False]]
    assert flow.ge(a, 3).tolist() == [[False, False], [True, True]]
    assert a.floor_divide(2).tolist() == [[0.0, -1.0], [1.0, 2.0]]


# ================================================================ in-place

INPLACE = {"add": "__iadd__", "sub": "__isub__", "mul": "__imul__", "div": "__itruediv__",
           "floor_divide": "__ifloordiv__"}
INPLACE_METHODS = {"add": "add_", "sub": "sub_", "mul": "mul_", "div": "div_", "floor_divide": "floor_divide_"}


@pytest.mark.parametrize("op", sorted(INPLACE))
@device_settings
@given(data=st.data(), names=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)), use_scalar=st.booleans(),
       method=st.booleans())
def test_inplace_binary(device, op, data, names, use_scalar, method):
    ns, no = names
    S = data.draw(tensor_specs(dtype=ns, layouts=("contiguous", "permuted", "strided")), label="self")
    if use_scalar:
        other = data.draw(python_scalars(), label="scalar")
        kind_o = ("scalar", scalar_kind(other))
        O = None
    else:
        O = data.draw(tensor_specs(data.draw(broadcast_to_shape(S.shape)), no), label="other")
        kind_o = ("dim" if O.values.ndim else "zero", no)
    s = S.make(device)
    o = other if use_scalar else O.make(device)
    base_version = s._version
    compute, result = op_dtypes(op, ref_result_type([("dim" if S.values.ndim else "zero", ns), kind_o]))
    call = (lambda: getattr(s, INPLACE_METHODS[op])(o)) if method else (lambda: getattr(s, INPLACE[op])(o))
    err = op_error(op, compute, ns, "bool" if use_scalar and isinstance(other, bool) else kind_o[1])
    if err is not None:
        with pytest.raises(err, match=op):
            call()
        return
    if not can_cast(result, ns):
        with pytest.raises(RuntimeError, match=f"{op}_.*result type .* can't be cast to the desired output type"):
            call()
        assert s._version == base_version
        np.testing.assert_array_equal(to_np(s), np_cast(S.values, ns))
        return
    if use_scalar:
        ov = np.float32(other) if compute in ("float16", "bfloat16") and op != "floor_divide" else \
            np_cast(np.array(other if category(compute) < 2 else float(other)), compute)
        if compute == "float64":
            ov = np.float64(other)
    else:
        ov = np_cast(O.values, compute)
    if op == "floor_divide" and category(compute) <= 1:
        assume(not (np.asarray(ov) == 0).any())
    r = call()
    assert r is s
    sv = np_cast(S.values, compute)
    with np.errstate(all="ignore"):
        if compute in ("float16", "bfloat16"):
            raw = BINARY_OPS[op][1](sv.astype(np.float32), np.asarray(ov, dtype=np.float32))
            expected = np_cast(raw, compute)
        else:
            expected = np_binary(op, sv, np.broadcast_to(ov, sv.shape), compute)
    expected = np_cast(np.broadcast_to(expected, S.shape), ns)
    assert_values(s, expected, ns)
    assert s._version > base_version


def test_inplace_writes_through_views(device):
    base = flow.zeros(3, 4, device=device)
    v = base[:, 1::2]
    v += 1
    assert base.tolist() == [[0, 1, 0, 1]] * 3
    t = base.t()
    t *= 2
    assert base.tolist() == [[0, 2, 0, 2]] * 3
    assert base._version == v._version == t._version


# ================================================================ sum

@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES), keepdim=st.booleans())
def test_sum(device, data, name, keepdim):
    X = data.draw(tensor_specs(dtype=name, **({"lo": -100, "hi": 100} if name in FLOATING else {})), label="x")
    x = X.make(device)
    nd = X.values.ndim
    dims = None
    if data.draw(st.booleans(), label="given dims"):
        # distinct dims, each maybe negative (a 0-dim tensor takes 0 and -1)
        n = max(nd, 1)
        dims = [d - n if neg else d for d, neg in
                data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.booleans()), unique_by=lambda p: p[0],
                                   max_size=n), label="dims")]
    dt = data.draw(st.sampled_from([None, None, "int64", "float64", "float32", "int32"]), label="dtype")
    # (summing floats with an integer dtype= truncates each element first: test_sum_examples)
    assume(not (dt is not None and category(dt) == 1 and name in FLOATING))
    kw = {} if dt is None else {"dtype": FLOW[dt]}
    out = x.sum(dims, keepdim, **kw)
    src = np_cast(X.values, dt) if dt else X.values
    acc = dt or ("int64" if category(name) < 2 else name)
    axes = tuple(range(nd)) if not dims else tuple(d % nd for d in dims) if nd else ()
    work = np.float64 if category(acc) == 2 else np.int64
    exp = np.sum(src.astype(work), axis=axes, keepdims=keepdim)
    if acc in FLOATING:
        n = max(int(np.prod([X.values.shape[a] for a in axes])) if axes else 1, 1)
        bound = np.sum(np.abs(src.astype(np.float64)), axis=axes, keepdims=keepdim)
        tol = (n + 2) * max(EPS[acc], EPS.get(name, 0.0)) * bound + 1e-300
        assert_values(out, exp, acc, atol=tol)
    else:
        assert_values(out, np_cast(exp, acc), acc)
    if TORCH is not None:
        tkw = {} if dt is None else {"dtype": tdt(dt)}
        tx = torch_of(x)
        tt = tx.sum(dims, keepdim, **tkw)
        assert tt.dtype == tdt(acc)
        assert tuple(tt.shape) == tuple(out.shape)


def test_sum_examples(device):
    x = flow.arange(24, device=device).reshape(2, 3, 4)
    assert x.sum().item() == 276 and x.sum().shape == ()
    assert x.sum((0, 2)).tolist() == [60, 92, 124]
    assert x.sum([-1], keepdim=True).shape == (2, 3, 1)
    assert x.sum(1, dtype=flow.float16).dtype == flow.float16
    assert flow.sum(x, 0).shape == (3, 4)
    b = flow.tensor([True, True, False], device=device)
    assert b.sum().item() == 2 and b.sum().dtype == flow.int64
    assert flow.tensor([1.7, 2.6], device=device).sum(dtype=flow.int64).item() == 3  # casts first
    assert flow.zeros(0, 3, device=device).sum(0).tolist() == [0.0, 0.0, 0.0]
    z = flow.tensor(5, device=device)
    assert z.sum(0).item() == 5 and z.sum(-1, keepdim=True).shape == ()
    i8 = flow.full((100,), 100, dtype=flow.int8, device=device)
    assert i8.sum().item() == 10000 and i8.sum().dtype == flow.int64
    with pytest.raises(RuntimeError, match="sum.*appears multiple times"):
        x.sum((1, -2))
    with pytest.raises(IndexError, match="sum.*out of range"):
        x.sum(3)


# ================================================================ matmul

MATMUL_DTYPES = ("float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "uint8", "bool")


@st.composite
def matmul_shapes(draw):
    m, k, n = draw(st.integers(0, 4)), draw(st.integers(0, 5)), draw(st.integers(0, 4))
    kind = draw(st.sampled_from(["1x1", "1x2", "2x1", "2x2", "batched", "Nx1", "1xN"]))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    ba, bb = batch.input_shapes
    return {
        "1x1": ((k,), (k,)),
        "1x2": ((k,), (k, n)),
        "2x1": ((m, k), (k,)),
        "2x2": ((m, k), (k, n)),
        "batched": (ba + (m, k), bb + (k, n)),
        "Nx1": (ba + (m, k), (k,)),
        "1xN": ((k,), bb + (k, n)),
    }[kind]


@device_settings
@given(data=st.data(), shapes_=matmul_shapes(), name=st.sampled_from(MATMUL_DTYPES))
def test_matmul(device, data, shapes_, name):
    sa, sb = shapes_
    kw = {"lo": -8, "hi": 8} if category(name) >= 1 else {}
    A = data.draw(tensor_specs(sa, name, **kw), label="a")
    B = data.draw(tensor_specs(sb, name, **kw), label="b")
    a, b = A.make(device), B.make(device)
    out = a @ b
    assert out.device == flow.device(device)
    if name == "bool":
        exp = np.matmul(A.values.astype(np.int64), B.values.astype(np.int64)) != 0
        assert_values(out, exp, name)
    elif category(name) == 1:
        exp = np.matmul(A.values.astype(np.int64), B.values.astype(np.int64))
        assert_values(out, np_cast(exp, name), name)
    else:
        a64, b64 = A.values.astype(np.float64), B.values.astype(np.float64)
        exp = np.matmul(a64, b64)
        k = sa[-1]
        bound = np.matmul(np.abs(a64), np.abs(b64))
        # plus half the spacing of the dtype's subnormals (the result's one rounding)
        subnormal = float(np.finfo(np.float32 if name == "bfloat16" else name).smallest_subnormal)
        tol = (k + 2) * max(EPS[name], 2.0 ** -24) * bound + EPS[name] * np.abs(exp) + subnormal
        assert_values(out, exp, name, atol=tol)
        if TORCH is not None and name in ("float32", "float64"):
            tt = TORCH.matmul(torch_of(a), torch_of(b))
            assert tuple(tt.shape) == tuple(out.shape)
    assert_values(flow.matmul(a, b), to_np(out), name)


def test_matmul_examples(device):
    a = flow.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    assert (a @ a.t()).tolist() == [[5.0, 11.0], [11.0, 25.0]]
    v = flow.tensor([1.0, 1.0], device=device)
    assert (a @ v).tolist() == [3.0, 7.0]
    assert (v @ a).tolist() == [4.0, 6.0]
    assert (v @ v).shape == () and (v @ v).item() == 2.0
    assert flow.mm(a, a).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    z = flow.zeros(2, 0, device=device) @ flow.zeros(0, 3, device=device)
    assert z.tolist() == [[0.0] * 3] * 2
    batched = flow.ones(4, 1, 2, 3, device=device) @ flow.ones(5, 3, 2, device=device)
    assert batched.shape == (4, 5, 2, 2) and batched.sum().item() == 4 * 5 * 4 * 3


def test_matmul_errors(device):
    a = flow.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match=r"matmul.*\[2, 3\].*\[2, 3\]"):
        a @ a
    with pytest.raises(RuntimeError, match="matmul.*same dtype.*float32.*float64"):
        a @ flow.ones(3, 2, dtype=flow.float64, device=device)
    with pytest.raises(RuntimeError, match="matmul.*at least 1D"):
        a @ flow.tensor(1.0, device=device)
    with pytest.raises(RuntimeError, match="matmul.*broadcast"):
        flow.ones(2, 2, 3, device=device) @ flow.ones(3, 3, 2, device=device)
    with pytest.raises(RuntimeError, match="mm"):
        flow.mm(flow.ones(3, device=device), a)


# ================================================================ casts

def _cast_source_values(src, dst):
    """Values of dtype `src` that convert to `dst` without overflow (a float
    to an integer out of range is undefined in C and differs between
    libraries)."""
    if category(src) == 2 and category(dst) == 1:
        lo, hi = (0, 255) if dst == "uint8" else (-128, 127)
        return {"lo": lo, "hi": hi}
    if src in ("float32", "float64") and dst in ("float16", "bfloat16"):
        return {"lo": -6e4, "hi": 6e4}
    return {}


@pytest.mark.parametrize("src", DTYPES)
@device_settings
@given(data=st.data(), dst=st.sampled_from(DTYPES))
def test_cast_all_dtype_pairs(device, src, data, dst):
    X = data.draw(tensor_specs(dtype=src, **_cast_source_values(src, dst)), label="x")
    x = X.make(device)
    y = x.to(FLOW[dst])
    expected = np_cast(X.values, dst)
    assert_values(y, expected, dst)
    assert y.device == x.device
    assert_values(x, X.values, src)  # the source is unchanged
    if src == dst:
        assert y.data_ptr() == x.data_ptr()  # no copy
    elif TORCH is not None and x.numel():  # the layout torch's preserve_format gives (a permuted input keeps its order)
        ref = TORCH.empty_strided(tuple(x.shape), x.stride(), dtype=getattr(TORCH, src)).to(getattr(TORCH, dst))
        sized = [d for d in range(y.dim()) if y.shape[d] > 1]  # a size-1 dim's stride is arbitrary
        assert [y.stride()[d] for d in sized] == [ref.stride()[d] for d in sized]
    if TORCH is not None:
        tt = torch_of(x).to(tdt(dst))
        np.testing.assert_array_equal(torch_np(tt), to_np(y))


def test_cast_examples(device):
    f = flow.tensor([-2.7, -0.5, 0.0, 0.5, 2.7], device=device)
    assert f.to(flow.int32).tolist() == [-2, 0, 0, 0, 2]
    assert f.bool().tolist() == [True, True, False, True, True]
    assert f.long().dtype == flow.int64 and f.double().dtype == flow.float64
    assert f.half().dtype == flow.float16 and f.bfloat16().dtype == flow.bfloat16
    assert flow.tensor([-1, 256, 300], device=device).to(flow.uint8).tolist() == [255, 0, 44]
    assert flow.tensor([1.0, 257.0], device=device).to(flow.bfloat16).tolist() == [1.0, 256.0]
    assert flow.tensor([3.0], device=device).type(flow.int8).dtype == flow.int8
    c = f.to(flow.float32, copy=True)
    assert c.data_ptr() != f.data_ptr()
    assert f.to(f).data_ptr() == f.data_ptr()
    assert f.type_as(flow.tensor([1], device=device)).dtype == flow.int64


# ================================================================ copies between devices

@device_settings
@given(data=st.data(), src=st.sampled_from(DTYPES), dst=st.sampled_from(DTYPES))
def test_copy_between_devices(device, data, src, dst):
    X = data.draw(tensor_specs(dtype=src, **_cast_source_values(src, dst)), label="x")
    for other in other_devices(device):
        x = X.make(device)
        y = x.to(other)
        assert y.device == flow.device(other) and y.dtype == x.dtype
        assert_values(y, X.values, src)
        z = x.to(other, FLOW[dst])
        assert z.device == flow.device(other)
        assert_values(z, np_cast(X.values, dst), dst)
        back = z.to(device)
        assert back.device == flow.device(device)
        assert_values(back, np_cast(X.values, dst), dst)
        # copy_ into a (possibly non-contiguous) destination on the other device, with broadcasting
        dst_t = flow.zeros(*((2,) + X.shape), dtype=FLOW[dst], device=other)
        view = dst_t[1]
        version = dst_t._version
        view.copy_(x)
        assert_values(dst_t[1], np_cast(X.values, dst), dst)
        assert_values(dst_t[0], np_cast(np.zeros(X.shape), dst), dst)
        assert dst_t._version > version


def test_copy_broadcasts_and_checks_shape(device):
    d = flow.zeros(2, 3, device=device)
    d.copy_(flow.tensor([1.0, 2.0, 3.0], device=device))
    assert d.tolist() == [[1, 2, 3], [1, 2, 3]]
    d.copy_(flow.tensor(5, device=device))
    assert d.tolist() == [[5, 5, 5]] * 2
    with pytest.raises(RuntimeError, match="expand"):
        d.copy_(flow.ones(4, device=device))
    assert flow.tensor([1, 2], device=device).cpu().device == flow.device("cpu")


# ================================================================ larger tensors (parallel kernel paths)

def test_large_tensors(device):
    rng = np.random.default_rng(1234)
    a = rng.standard_normal((300, 257)).astype(np.float32)
    b = rng.standard_normal((257,)).astype(np.float32)
    ta, tb = flow.tensor(a, device=device), flow.tensor(b, device=device)
    assert_values(ta + tb, a + b, "float32")
    assert_values(ta.t() * 2.5, a.T * np.float32(2.5), "float32")
    assert_values(ta.t().contiguous(), a.T, "float32")
    assert_values(ta[::3, 1::2].to(flow.float16), a[::3, 1::2].astype(np.float16), "float16")
    assert_values(ta.t() < tb[:, None], a.T < b[:, None], "bool")
    for dims in ((0,), (1,), (0, 1)):
        exact = a.astype(np.float64).sum(axis=dims)
        tol = 4 * a.shape[dims[0]] * 2.0 ** -24 * np.abs(a).astype(np.float64).sum(axis=dims) + 1e-6
        assert_values(ta.sum(dims), exact, "float32", atol=tol)
    i = rng.integers(-1000, 1000, (70001,)).astype(np.int32)
    ti = flow.tensor(i, device=device)
    assert ti.sum().item() == int(i.astype(np.int64).sum())
    assert_values(ti // 7, i // 7, "int32")
    assert_values(ti[1::2] - ti[::2][:35000], i[1::2] - i[::2][:35000], "int32")
    m = rng.standard_normal((97, 130))
    n = rng.standard_normal((130, 65))
    out = flow.tensor(m, device=device) @ flow.tensor(n.T.copy(), device=device).t()
    assert_values(out, m @ n, "float64", atol=1e-10)
