"""clamp, where and lerp on every registered device against torch: bounds,
values and weights given as tensors or Python numbers (promoting as
PyTorch's wrapped numbers), broadcasting of all operands, in-place forms and
bad input."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from helpers import (
    DTYPES, FLOATING, broadcast_to_shape, can_cast, device_settings, python_scalars, ref_result_type,
    scalar_kind, tensor_specs, to_np, value_fits,
)
from test_ops_math_oracle import assert_matches, tensor_of


def _three_shapes(draw):
    return draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=4)).input_shapes


@st.composite
def operand(draw, shape, label, *, allow_none=False, dtypes=DTYPES, **kw):
    """(value, promotion kind): None, a Python number or a TensorSpec."""
    kinds = ["scalar", "tensor"] + (["none"] if allow_none else [])
    kind = draw(st.sampled_from(kinds), label=f"{label} kind")
    if kind == "none":
        return None, None
    if kind == "scalar":
        s = draw(python_scalars(), label=label)
        return s, ("scalar", scalar_kind(s))
    name = draw(st.sampled_from(dtypes), label=f"{label} dtype")
    spec = draw(tensor_specs(shape, name, **kw), label=label)
    return spec, ("dim" if spec.values.ndim else "zero", name)


def _number_tensor(torch, s, compute):
    """A Python number converted to the compute dtype as torch converts a
    wrapped number (integers wrap), as a 0-dim tensor."""
    src = torch.float64 if isinstance(s, float) else torch.bool if isinstance(s, bool) else torch.int64
    return torch.tensor(s, dtype=src).to(getattr(torch, compute))


def _torch_operand(torch, v, compute):
    if v is None or not hasattr(v, "make"):
        return None if v is None else _number_tensor(torch, v, compute)
    return tensor_of(v.made, compute)


# ---------------------------------------------------------------- clamp

@device_settings
@given(data=st.data())
def test_clamp(device, data):
    torch = pytest.importorskip("torch")
    sx, smin, smax = _three_shapes(data.draw)
    X = data.draw(tensor_specs(sx, data.draw(st.sampled_from(DTYPES), label="dtype"), nan=True), label="x")
    lo, kind_lo = data.draw(operand(smin, "min", allow_none=True, nan=True))
    hi, kind_hi = data.draw(operand(smax, "max", allow_none=True, nan=True))
    x = X.make(device)
    for v in (lo, hi):
        if hasattr(v, "make"):
            v.made = v.make(device)
    flo, fhi = (v.made if hasattr(v, "make") else v for v in (lo, hi))
    method = data.draw(st.sampled_from(["function", "method", "clip"]), label="form")
    call = {"function": lambda: flow.clamp(x, flo, fhi), "method": lambda: x.clamp(flo, fhi),
            "clip": lambda: flow.clip(x, min=flo, max=fhi)}[method]
    if lo is None and hi is None:
        with pytest.raises(RuntimeError, match="clamp: at least one of 'min' or 'max' must not be None"):
            call()
        return
    kinds = [("dim" if X.values.ndim else "zero", X.name)] + [k for k in (kind_lo, kind_hi) if k]
    compute = ref_result_type(kinds)
    if compute == "bool":
        with pytest.raises(NotImplementedError, match="clamp: not implemented for 'Bool'"):
            call()
        return
    if any(v is not None and not hasattr(v, "make") and not value_fits(compute, v) for v in (lo, hi)):
        with pytest.raises(RuntimeError, match=f"clamp: value .* cannot be converted to type {compute}"):
            call()
        return
    out = call()
    tlo, thi = _torch_operand(torch, lo, compute), _torch_operand(torch, hi, compute)
    expected = torch.clamp(tensor_of(x, compute), min=tlo, max=thi)
    assert_matches(out, expected, exact=True)
    # torch's own forms take both bounds as numbers or both as tensors
    if all(v is None or not hasattr(v, "make") for v in (lo, hi)):
        assert torch.clamp(tensor_of(x), min=lo, max=hi).dtype == expected.dtype
    elif all(v is None or hasattr(v, "make") for v in (lo, hi)):
        assert torch.clamp(tensor_of(x), min=None if lo is None else tensor_of(flo),
                           max=None if hi is None else tensor_of(fhi)).dtype == expected.dtype


@device_settings
@given(data=st.data())
def test_clamp_inplace(device, data):
    torch = pytest.importorskip("torch")
    S = data.draw(tensor_specs(dtype=data.draw(st.sampled_from(DTYPES), label="dtype"),
                               layouts=("contiguous", "permuted", "strided")), label="self")
    lo, kind_lo = data.draw(operand(data.draw(broadcast_to_shape(S.shape)), "min", allow_none=True))
    hi, kind_hi = data.draw(operand(data.draw(broadcast_to_shape(S.shape)), "max", allow_none=True))
    if lo is None and hi is None:
        hi, kind_hi = 1, ("scalar", "int64")
    which = data.draw(st.sampled_from(["clamp_", "clamp_min_", "clamp_max_"]), label="method")
    if which == "clamp_min_":
        hi, kind_hi = None, None
        if lo is None:
            lo, kind_lo = 0, ("scalar", "int64")
    if which == "clamp_max_":
        lo, kind_lo = None, None
        if hi is None:
            hi, kind_hi = 0, ("scalar", "int64")
    s = S.make(device)
    for v in (lo, hi):
        if hasattr(v, "make"):
            v.made = v.make(device)
    flo, fhi = (v.made if hasattr(v, "make") else v for v in (lo, hi))
    args = {"clamp_": (flo, fhi), "clamp_min_": (flo,), "clamp_max_": (fhi,)}[which]
    compute = ref_result_type([("dim" if S.values.ndim else "zero", S.name)] + [k for k in (kind_lo, kind_hi) if k])
    version = s._version
    if compute == "bool" or not can_cast(compute, S.name) or any(
            v is not None and not hasattr(v, "make") and not value_fits(compute, v) for v in (lo, hi)):
        with pytest.raises((TypeError, RuntimeError), match="clamp"):
            getattr(s, which)(*args)
        assert s._version == version
        np.testing.assert_array_equal(to_np(s), S.values)
        return
    expected = torch.clamp(tensor_of(s, compute), min=_torch_operand(torch, lo, compute),
                           max=_torch_operand(torch, hi, compute)).to(tensor_of(s).dtype)
    assert getattr(s, which)(*args) is s
    assert s._version > version
    assert_matches(s, expected, exact=True)


def test_clamp_examples(device):
    nan = float("nan")
    x = flow.tensor([1.0, nan, 9.0, 5.0], device=device)
    assert to_np(flow.clamp(x, 2, 7)).tolist()[2:] == [7.0, 5.0] and np.isnan(flow.clamp(x, 2, 7)[1].item())
    assert np.isnan(to_np(flow.clamp(x, nan, 7))).all()  # a NaN bound gives NaN
    assert np.isnan(to_np(flow.clamp(x, max=flow.tensor(nan, device=device)))).all()
    assert flow.clamp(flow.tensor([1.0, 5.0, 9.0], device=device), 7, 2).tolist() == [2.0] * 3  # min > max: max
    i = flow.tensor([1, 5, 9], device=device)
    assert flow.clamp(i, 2.5, 7).tolist() == [2.5, 5.0, 7.0] and flow.clamp(i, 2.5, 7).dtype == flow.float32
    assert flow.clamp(i, min=flow.tensor([2.5], device=device)).dtype == flow.float32
    assert flow.clamp(i, max=6).dtype == flow.int64 and i.clamp_max(6).tolist() == [1, 5, 6]
    assert i.clamp_min(6).tolist() == [6, 6, 9]
    mixed = flow.clamp(i, flow.tensor([2, 3, 4], device=device), 5)  # a tensor and a number: fine here
    assert mixed.tolist() == [2, 5, 5]
    i8 = flow.tensor([1, 5], dtype=flow.int8, device=device)
    with pytest.raises(RuntimeError, match="clamp: value -300 cannot be converted to type int8 without overflow"):
        flow.clamp(i8, -300, 30)
    assert flow.clamp(flow.tensor([1, 5], dtype=flow.uint8, device=device), -255, 30).tolist() == [1, 5]
    with pytest.raises(RuntimeError, match="clamp_: result type Float can't be cast"):
        i.clamp_(0.5)
    with pytest.raises(RuntimeError, match="clamp_: output with shape \\[1\\] doesn't match the broadcast shape"):
        flow.tensor([1.0], device=device).clamp_(flow.ones(2, 1, device=device))
    with pytest.raises(NotImplementedError, match="clamp: not implemented for 'Bool'"):
        flow.clamp(flow.tensor([True], device=device), False, True)
    with pytest.raises(TypeError, match=r"clamp\(\): argument 'min' must be Tensor, Number or None, not str"):
        flow.clamp(x, "0")
    with pytest.raises(RuntimeError, match="clamp: The size of tensor a"):
        flow.clamp(x, flow.ones(3, device=device))


# ---------------------------------------------------------------- where

@device_settings
@given(data=st.data())
def test_where(device, data):
    torch = pytest.importorskip("torch")
    sc, sx, sy = _three_shapes(data.draw)
    C = data.draw(tensor_specs(sc, "bool"), label="cond")
    xv, kind_x = data.draw(operand(sx, "x", nan=True))
    yv, kind_y = data.draw(operand(sy, "y", nan=True))
    cond = C.make(device)
    for v in (xv, yv):
        if hasattr(v, "make"):
            v.made = v.make(device)
    fx, fy = (v.made if hasattr(v, "make") else v for v in (xv, yv))
    compute = ref_result_type([kind_x, kind_y])
    method = data.draw(st.booleans(), label="method") and hasattr(xv, "make")
    call = (lambda: fx.where(cond, fy)) if method else (lambda: flow.where(cond, fx, fy))
    if any(v is not None and not hasattr(v, "make") and not value_fits(compute, v) for v in (xv, yv)):
        with pytest.raises(RuntimeError, match=f"where: value .* cannot be converted to type {compute}"):
            call()
        return
    out = call()
    expected = torch.where(tensor_of(cond), _torch_operand(torch, xv, compute), _torch_operand(torch, yv, compute))
    assert_matches(out, expected, exact=True)
    tx = tensor_of(fx) if hasattr(xv, "make") else xv
    ty = tensor_of(fy) if hasattr(yv, "make") else yv
    assert torch.where(tensor_of(cond), tx, ty).dtype == expected.dtype  # torch's own promotion


def test_where_examples(device):
    c = flow.tensor([True, False], device=device)
    assert flow.where(c, 1, 2.5).dtype == flow.float32 and flow.where(c, 1, 2.5).tolist() == [1.0, 2.5]
    assert flow.where(c, 1, 2).dtype == flow.int64 and flow.where(c, True, False).dtype == flow.bool
    i8 = flow.tensor([1, 2], dtype=flow.int8, device=device)
    assert flow.where(c, i8, 2).dtype == flow.int8 and flow.where(c, i8, 2.5).dtype == flow.float32
    u8 = flow.tensor([1, 2], dtype=flow.uint8, device=device)
    assert flow.where(c, u8, -3).tolist() == [1, 253]  # -3 wraps into uint8, as in torch
    with pytest.raises(RuntimeError, match="where: value 300 cannot be converted to type uint8"):
        flow.where(c, u8, 300)
    assert flow.where(flow.tensor(True, device=device), flow.tensor([1.0, 2.0], device=device), 3).shape == (2,)
    assert flow.where(c[:, None], i8[:1], flow.zeros(3, dtype=flow.int8, device=device)).shape == (2, 3)
    # a condition of another dtype: nonzero means true, as OneFlow's where (torch refuses it)
    assert flow.where(flow.tensor([1, 0], device=device), 1.0, 2.0).tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="where: The size of tensor a"):
        flow.where(c, flow.ones(3, device=device), 0)
    with pytest.raises(TypeError, match=r"where\(\): argument 'condition' must be Tensor, not list"):
        flow.where([True], 1, 2)
    assert flow.where(flow.zeros(0, dtype=flow.bool, device=device), 1.0, 2.0).shape == (0,)


# ---------------------------------------------------------------- lerp

@device_settings
@given(data=st.data(), name=st.sampled_from(FLOATING), scalar_weight=st.booleans())
def test_lerp(device, data, name, scalar_weight):
    torch = pytest.importorskip("torch")
    s0, s1, s2 = _three_shapes(data.draw)
    S = data.draw(tensor_specs(s0, name, lo=-100, hi=100, nan=True), label="start")
    E = data.draw(tensor_specs(s1, name, lo=-100, hi=100, nan=True), label="end")
    if scalar_weight:
        w = data.draw(st.one_of(st.floats(-2, 2, allow_subnormal=False), st.integers(-2, 2)), label="weight")
    else:
        W = data.draw(tensor_specs(s2, name, lo=-2, hi=2), label="weight")
    start, end = S.make(device), E.make(device)
    weight = w if scalar_weight else W.make(device)
    out = flow.lerp(start, end, weight)
    expected = torch.lerp(tensor_of(start), tensor_of(end), weight if scalar_weight else tensor_of(weight))
    # start + w * (end - start) cancels: errors scale with |start| + |end|
    scale = np.abs(to_np(start).astype(np.float64)) + np.abs(to_np(end).astype(np.float64))
    assert_matches(out, expected, scale=np.broadcast_to(scale, tuple(expected.shape)) if scale.size else None)
    assert_matches(start.lerp(end, weight), expected, scale=np.broadcast_to(scale, tuple(expected.shape))
                   if scale.size else None)
    if tuple(expected.shape) == S.shape and S.layout != "expanded":
        r = start.lerp_(end, weight)
        assert r is start
        assert_matches(start, expected, scale=np.broadcast_to(scale, tuple(expected.shape)) if scale.size else None)


def test_lerp_examples_and_errors(device):
    a = flow.tensor([1.0, 2.0], device=device)
    b = flow.tensor([3.0, 4.0], device=device)
    assert flow.lerp(a, b, 0.5).tolist() == [2.0, 3.0]
    assert flow.lerp(a, b, 2).tolist() == [5.0, 6.0] and flow.lerp(a, b, True).tolist() == [3.0, 4.0]
    assert flow.lerp(a, b, flow.tensor([[0.5], [0.25]], device=device)).tolist() == [[2.0, 3.0], [1.5, 2.5]]
    # a 0-dim weight of another dtype is converted, as torch lets a CPU scalar tensor
    assert flow.lerp(a, b, flow.tensor(0.5, dtype=flow.float64, device=device)).tolist() == [2.0, 3.0]
    assert flow.lerp(a, b, 1.0).tolist() == [3.0, 4.0]  # exact at the end points
    with pytest.raises(TypeError, match="lerp: expected a floating-point tensor, got int64"):
        flow.lerp(flow.tensor([1, 2], device=device), flow.tensor([3, 4], device=device), 0.5)
    with pytest.raises(TypeError, match="lerp: expected dtype float32 for `end` but got dtype float64"):
        flow.lerp(a, b.double(), 0.5)
    with pytest.raises(TypeError, match="lerp: expected dtype float32 for `weight` but got dtype float64"):
        flow.lerp(a, b, flow.tensor([0.5], dtype=flow.float64, device=device))
    with pytest.raises(TypeError, match=r"lerp\(\): argument 'end' must be Tensor, not float"):
        flow.lerp(a, 3.0, 0.5)
    with pytest.raises(RuntimeError, match="lerp: The size of tensor a"):
        flow.lerp(a, flow.ones(3, device=device), 0.5)
    with pytest.raises(RuntimeError, match="lerp_: output with shape \\[2\\] doesn't match the broadcast shape"):
        a.lerp_(flow.ones(3, 2, device=device), 0.5)
    x = flow.arange(6.0, device=device)
    with pytest.raises(RuntimeError, match="lerp_: unsupported operation: some elements of the input tensor"):
        x[1:].lerp_(x[:-1], 0.5)


def test_devices_must_agree(device):
    others = [d for d in flow.devices.available() if f"{d}:0" != device]
    if not others:
        pytest.skip("one device type only")
    a = flow.ones(2, device=device)
    b = flow.ones(2, device=others[0])
    c = flow.tensor([True, False], device=device)
    with pytest.raises(RuntimeError, match="clamp: expected all tensors to be on the same device"):
        flow.clamp(a, b)
    with pytest.raises(RuntimeError, match="where: expected all tensors to be on the same device"):
        flow.where(c, a, b)
    with pytest.raises(RuntimeError, match="lerp: expected all tensors to be on the same device"):
        flow.lerp(a, b, 0.5)
