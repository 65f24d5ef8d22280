"""Tensor basics on every device: dtypes, Size, devices, numpy interop,
Python conversions, in-place rules and the errors bad input raises."""
import math
import operator
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from helpers import DTYPES, FLOATING, FLOW, INTEGRAL, NP, TORCH, device_settings, shapes, tdt, tensor_specs, \
    to_np, values

# ---------------------------------------------------------------- dtypes


def test_dtype_properties():
    sizes = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2, "bfloat16": 2,
             "float32": 4, "float64": 8}
    for name in DTYPES:
        dt = FLOW[name]
        assert isinstance(dt, flow.dtype)
        assert repr(dt) == f"monoflow.{name}" and dt.name == name
        assert dt.itemsize == sizes[name]
        assert dt.is_floating_point == (name in FLOATING)
        assert dt.is_signed == (name not in ("bool", "uint8"))
        assert pickle.loads(pickle.dumps(dt)) is dt
        assert flow.empty(2, dtype=dt).element_size() == sizes[name]
        if TORCH is not None:
            t = tdt(name)
            assert (t.itemsize, t.is_floating_point, t.is_signed) == (dt.itemsize, dt.is_floating_point, dt.is_signed)
    assert len({FLOW[n] for n in DTYPES}) == len(DTYPES)
    assert flow.float is flow.float32 and flow.double is flow.float64 and flow.half is flow.float16
    assert flow.long is flow.int64 and flow.int is flow.int32 and flow.short is flow.int16
    assert flow.bool is FLOW["bool"] and repr(flow.bool) == "monoflow.bool"
    assert flow.float32 != flow.float64 and flow.float32 == flow.float32


def test_default_dtype_drives_creation_and_promotion(device):
    assert flow.get_default_dtype() == flow.float32
    flow.set_default_dtype(flow.float64)
    try:
        assert flow.tensor([1.5], device=device).dtype == flow.float64
        assert flow.zeros(2, device=device).dtype == flow.float64
        assert flow.arange(0.0, 2.0, device=device).dtype == flow.float64
        i = flow.tensor([1, 2], dtype=flow.int32, device=device)
        assert (i + 2.5).dtype == flow.float64 and (i / 2).dtype == flow.float64
        assert (flow.ones(2, dtype=flow.float16, device=device) * 2.5).dtype == flow.float16
    finally:
        flow.set_default_dtype(flow.float32)
    assert flow.tensor([1.5], device=device).dtype == flow.float32
    with pytest.raises(TypeError, match="set_default_dtype: only floating-point dtypes"):
        flow.set_default_dtype(flow.int64)


def test_can_cast_and_promote_types_reject_non_dtypes():
    assert flow.can_cast(flow.int32, flow.float16) and not flow.can_cast(flow.float16, flow.int64)
    assert not flow.can_cast(flow.int8, flow.bool) and flow.can_cast(flow.bool, flow.uint8)
    with pytest.raises(TypeError):
        flow.promote_types(flow.int32, "float32")


# ---------------------------------------------------------------- Size and metadata

@device_settings
@given(shape=shapes(), name=st.sampled_from(DTYPES))
def test_size_and_metadata(device, shape, name):
    t = flow.zeros(*shape, dtype=FLOW[name], device=device) if shape else flow.zeros((), dtype=FLOW[name],
                                                                                       device=device)
    s = t.shape
    assert isinstance(s, flow.Size) and isinstance(s, tuple)
    assert s == shape and t.size() == s and tuple(s) == shape
    assert repr(s) == f"monoflow.Size([{', '.join(map(str, shape))}])"
    assert s.numel() == math.prod(shape) == t.numel()
    assert t.dim() == t.ndim == len(shape)
    for d in range(-len(shape), len(shape)):
        assert t.size(d) == shape[d] and t.stride(d) == t.stride()[d]
    assert t.is_contiguous() and t.storage_offset() == 0
    assert t.dtype == FLOW[name] and t.device == flow.device(device)
    assert t.is_floating_point() == (name in FLOATING)
    if shape:
        assert len(t) == shape[0]
    else:
        with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
            len(t)
    if TORCH is not None:
        tt = TORCH.zeros(shape)
        assert t.stride() == tt.stride()
        assert repr(s) == repr(tt.shape).replace("torch.", "monoflow.")


# ---------------------------------------------------------------- devices

def test_device_objects():
    cpu = flow.device("cpu")
    assert cpu.type == "cpu" and cpu.index == 0
    assert str(cpu) == "cpu:0" and repr(cpu) == "device(type='cpu', index=0)"
    assert cpu == flow.device("cpu:0") and cpu == "cpu" and cpu == "cpu:0"
    assert flow.device(cpu) == cpu and hash(cpu) == hash(flow.device("cpu:0"))
    assert pickle.loads(pickle.dumps(cpu)) == cpu
    td = flow.device("testdev", 1)
    assert (td.type, td.index, str(td)) == ("testdev", 1, "testdev:1")
    assert td != flow.device("testdev:0") and td != "cpu"
    assert flow.zeros(2, device=td).device == td
    assert flow.zeros(2).device == cpu
    assert cpu != 3
    with pytest.raises(RuntimeError, match="Unknown device type 'nodev'"):
        flow.device("nodev")
    with pytest.raises(RuntimeError, match="Unknown device type 'nodev'"):
        flow.zeros(2, device="nodev:0")
    with pytest.raises(RuntimeError, match="Invalid device 'testdev:7'"):
        flow.zeros(2, device="testdev:7")
    with pytest.raises(RuntimeError, match="Invalid device string"):
        flow.device("cpu:x")
    with pytest.raises(ValueError, match="device"):
        flow.device("cpu:0", 0)
    with pytest.raises(TypeError, match="device"):
        flow.device(0)
    with pytest.raises(TypeError, match="device"):
        flow.zeros(2, device=1)


# ---------------------------------------------------------------- numpy interop

@device_settings
@given(data=st.data(), name=st.sampled_from([n for n in DTYPES if n != "bfloat16"]))
def test_numpy_shares_memory_on_cpu_copies_elsewhere(device, data, name):
    X = data.draw(tensor_specs(dtype=name, layouts=("contiguous", "permuted", "strided")))
    x = X.make(device)
    a = x.numpy()
    assert a.dtype == NP[name] and a.shape == X.shape
    np.testing.assert_array_equal(a, X.values)
    if x.numel() == 0:
        return
    v = NP[name].type(1 if name != "bool" else not X.values.flat[0])
    on_host = flow.device(device).type == "cpu"
    a.flat[0] = v
    first = (0,) * x.dim()
    if on_host:
        assert to_np(x)[first] == v  # shares memory, whatever the strides
        assert a.strides == tuple(s * x.element_size() for s in x.stride())
    else:
        np.testing.assert_array_equal(to_np(x), X.values)  # a copy
    x.fill_(0)
    if on_host:
        assert not a.any()  # writes through the tensor show in the array
    else:
        assert a.flat[0] == v


def test_numpy_of_bfloat16_gives_float32_as_oneflow(device):
    # numpy has no bfloat16: OneFlow's numpy() gives the float32 values (torch refuses); the
    # values are bfloat16's rounding of the data, as torch's .float().numpy() (OneFlow's
    # test_tensor_indexing2 compares bfloat16 results through numpy())
    data = [1.5, -2.25, 3.1415926, 1e-3, 65504.0, -0.0]
    x = flow.tensor(data, dtype=flow.bfloat16, device=device)
    a = x.numpy()
    assert a.dtype == np.float32 and a.shape == (6,)
    if TORCH is not None:
        np.testing.assert_array_equal(a, TORCH.tensor(data, dtype=TORCH.bfloat16).float().numpy())
    np.testing.assert_array_equal(np.asarray(x), a)
    np.testing.assert_array_equal(x[::2].numpy(), a[::2])  # a strided view
    w = flow.tensor(data, dtype=flow.bfloat16, device=device, requires_grad=True)
    assert w.numpy().dtype == np.float32 and w.numpy().tolist() == a.tolist()


@given(data=st.data(), name=st.sampled_from([n for n in DTYPES if n != "bfloat16"]))
def test_from_numpy_shares_memory(data, name):
    shape = data.draw(shapes(min_dims=1, max_side=4))
    arr = data.draw(values(name, shape))
    kind = data.draw(st.sampled_from(["contiguous", "transposed", "sliced", "broadcast"]))
    if kind == "transposed":
        arr = arr.T
    elif kind == "sliced":
        arr = arr[(slice(None, None, 2),) * arr.ndim]
    elif kind == "broadcast" and arr.shape[-1]:
        arr = np.broadcast_to(arr[..., :1], arr.shape[:-1] + (3,))
    t = flow.from_numpy(arr)
    assert t.dtype == FLOW[name] and t.device == flow.device("cpu")
    assert t.shape == arr.shape
    assert t.stride() == tuple(s // arr.itemsize for s in arr.strides)
    np.testing.assert_array_equal(t.numpy(), arr)
    if arr.size and arr.flags.writeable:
        new = NP[name].type(not arr.flat[0] if name == "bool" else 7)
        arr[(0,) * arr.ndim] = new
        assert to_np(t)[(0,) * arr.ndim] == new  # the tensor sees the array's writes
        t.fill_(0)
        flow.synchronize("cpu")
        assert not arr.any()  # and the other way round
    if arr.size:
        assert t.data_ptr() == arr.__array_interface__["data"][0]


def test_shared_numpy_memory_sees_inplace_ops_without_sync():
    # Note [Host-visible memory]: memory shared with numpy is kept coherent eagerly.
    stale = 0
    for _ in range(50):
        arr = np.zeros(4096)
        t = flow.from_numpy(arr)
        t += 1
        view = flow.zeros(4096).numpy()  # noqa: F841 (another op in the queue)
        x = flow.zeros(4096)
        a = x.numpy()
        x.fill_(1)
        stale += int(arr[-1] != 1) + int(a[-1] != 1)
    assert stale == 0


def test_from_numpy_keeps_array_alive_and_rejects_bad_input():
    arr = np.arange(6.0).reshape(2, 3)
    t = flow.from_numpy(arr)
    del arr
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="from_numpy: arrays with negative strides"):
        flow.from_numpy(np.arange(4)[::-1])
    with pytest.raises(TypeError, match="uint16"):
        flow.from_numpy(np.zeros(2, dtype=np.uint16))
    with pytest.raises(TypeError, match="from_numpy: expected np.ndarray"):
        flow.from_numpy([1, 2])
    a = flow.as_tensor(np.ones(3))
    assert a.dtype == flow.float64


# ---------------------------------------------------------------- Python conversions

@device_settings
@given(data=st.data(), name=st.sampled_from(DTYPES))
def test_item_tolist_and_python_conversions(device, data, name):
    X = data.draw(tensor_specs(dtype=name, layouts=("contiguous", "permuted", "strided", "expanded")))
    x = X.make(device)
    expected = X.values.astype(np.float64 if name in FLOATING else X.values.dtype).tolist()
    assert x.tolist() == expected
    kind = bool if name == "bool" else float if name in FLOATING else int
    flat = X.values.ravel().tolist()
    if x.numel() == 1:
        item = x.item()
        assert type(item) is kind and item == flat[0]
        assert bool(x) == bool(flat[0])
        assert int(x) == int(flat[0]) and float(x) == float(flat[0])
        if name in INTEGRAL:
            assert operator.index(x) == flat[0]
    else:
        with pytest.raises(RuntimeError, match=f"item: a Tensor with {x.numel()} elements cannot be converted"):
            x.item()
        with pytest.raises(RuntimeError, match="Boolean value of Tensor with .* elements is ambiguous"):
            bool(x)
    if x.dim():
        rows = list(x)
        assert len(rows) == x.shape[0]
        for r, e in zip(rows, expected):
            assert r.tolist() == e
    else:
        with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
            iter(x)


def test_index_and_format_conversions(device):
    i = flow.tensor(3, device=device)
    assert [10, 11, 12, 13][i] == 13 and list(range(10))[i:] == [3, 4, 5, 6, 7, 8, 9]
    assert f"{flow.tensor(2.5, device=device):.2f}" == "2.50"
    with pytest.raises(TypeError, match="only integer tensors of a single element can be converted to an index"):
        [1, 2][flow.tensor(1.0, device=device)]
    with pytest.raises(TypeError, match="only integer tensors"):
        [1, 2][flow.tensor([0, 1], device=device)]
    assert int(flow.tensor(-2.7, device=device)) == -2 and float(flow.tensor(3, device=device)) == 3.0


# ---------------------------------------------------------------- in-place rules

def test_version_counter(device):
    x = flow.zeros(3, device=device)
    v = x._version
    x.add_(1)
    x += 1
    x.mul_(2)
    x[0] = 5
    x.fill_(1)
    x.copy_(flow.ones(3, device=device))
    x.zero_()
    x.sub_(flow.ones(3, device=device)).div_(2)
    assert x._version == v + 9
    y = x + 1  # out-of-place ops leave the version alone
    x.clone()
    x.to(flow.float64)
    assert x._version == v + 9
    assert not y._is_view_of(x)
    view = x[1:]
    view += 1
    assert x._version == view._version == v + 10


def test_inplace_output_shape_mismatch(device):
    x = flow.zeros(3, device=device)
    with pytest.raises(RuntimeError, match=r"add_: output with shape \[3\] doesn't match the broadcast shape "
                                           r"\[2, 3\]"):
        x.add_(flow.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match=r"mul_: output with shape \[\] doesn't match the broadcast shape \[1\]"):
        flow.tensor(1.0, device=device).mul_(flow.ones(1, device=device))
    with pytest.raises(RuntimeError, match=r"add: The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 0: "
                                           r"shapes \[3\] and \[4\] cannot be broadcast"):
        x += flow.ones(4, device=device)
    assert x.tolist() == [0.0, 0.0, 0.0] and x._version >= 0


def test_inplace_result_type_cannot_be_cast(device):
    i = flow.tensor([1, 2], device=device)
    with pytest.raises(RuntimeError, match="^add_: result type Float can't be cast to the desired output "
                                           "type Long"):
        i += 1.5
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.add_(flow.ones(2, device=device))
    with pytest.raises(RuntimeError, match="^div_: result type Float can't be cast to the desired output "
                                           "type Long"):
        i /= 2
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        b = flow.tensor([True], device=device)
        b += 1
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Int"):
        flow.tensor([4], dtype=flow.int32, device=device).floor_divide_(1.5)
    assert i.tolist() == [1, 2]
    # widening the other way is fine: the result is cast to self's dtype
    f = flow.tensor([1.5], dtype=flow.float16, device=device)
    f += flow.tensor([1], dtype=flow.int64, device=device)
    assert f.dtype == flow.float16 and f.tolist() == [2.5]
    s = flow.tensor([100], dtype=flow.int8, device=device)
    s += flow.tensor([100], dtype=flow.int64, device=device)  # computed in int64, wraps into int8
    assert s.tolist() == [-56]


def test_writing_to_expanded_tensor_raises(device):
    e = flow.ones(1, 3, device=device).expand(4, 3)
    with pytest.raises(RuntimeError, match="add(_scalar)?_: unsupported operation: more than one element of the "
                                           "written-to tensor refers to a single memory location"):
        e.add_(1)
    with pytest.raises(RuntimeError, match="mul_: unsupported operation: more than one element"):
        e *= flow.ones(4, 3, device=device)
    with pytest.raises(RuntimeError, match="fill_: unsupported operation"):
        e.fill_(2)
    with pytest.raises(RuntimeError, match="copy_: unsupported operation"):
        e.copy_(flow.zeros(4, 3, device=device))
    assert e.tolist() == [[1.0] * 3] * 4


def test_partially_overlapping_inplace_raises(device):
    x = flow.arange(6.0, device=device)
    with pytest.raises(RuntimeError, match="add_: unsupported operation: some elements of the input tensor and the "
                                           "written-to tensor refer to a single memory location"):
        x[1:].add_(x[:-1])
    with pytest.raises(RuntimeError, match="copy_: unsupported operation: some elements"):
        x[1:].copy_(x[:-1])
    m = flow.arange(4.0, device=device).reshape(2, 2)
    with pytest.raises(RuntimeError, match="add_: unsupported operation: some elements"):
        m += m.t()
    assert x.tolist() == [0, 1, 2, 3, 4, 5]
    # the same elements in the same order, or no common element: fine
    x += x
    assert x.tolist() == [0, 2, 4, 6, 8, 10]
    x[::2] += x[1::2]
    assert x.tolist() == [2, 2, 10, 6, 18, 10]
    y = flow.arange(10.0, device=device)
    y[2::2] += y[0:8:2]  # non-dense, overlapping: read from a copy
    assert y.tolist() == [0, 1, 2, 3, 6, 5, 10, 7, 14, 9]


# ---------------------------------------------------------------- bad input

def test_shape_and_broadcast_errors(device):
    a, b = flow.ones(2, 3, device=device), flow.ones(4, device=device)
    for op, name in ((lambda: a + b, "add"), (lambda: a - b, "sub"), (lambda: a * b, "mul"), (lambda: a / b, "div"),
                     (lambda: a // b, "floor_divide"), (lambda: a < b, "lt"), (lambda: a == b, "eq"),
                     (lambda: flow.maximum(a, b), "maximum")):
        with pytest.raises(RuntimeError, match=rf"{name}: The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                                                  rf"non-singleton dimension 1: shapes \[2, 3\] and \[4\] cannot be broadcast together"):
            op()
    with pytest.raises(RuntimeError, match="broadcast_shapes: The size of tensor a"):
        flow.broadcast_shapes((2, 3), (3, 2))
    assert flow.broadcast_shapes((2, 1), (1, 3), ()) == (2, 3)
    with pytest.raises(RuntimeError, match=r"matmul: shapes cannot be multiplied \(\[2, 3\] and \[4\]\)"):
        a @ b
    with pytest.raises(RuntimeError, match="empty: negative dimension -1"):
        flow.zeros(2, -1, device=device)
    with pytest.raises(TypeError, match="zeros: expected a shape"):
        flow.zeros(2.5, device=device)


def test_dtype_errors(device):
    b = flow.tensor([True, False], device=device)
    with pytest.raises(RuntimeError, match="sub: subtraction, the `-` operator, with two bool tensors"):
        b - b
    with pytest.raises(RuntimeError, match="sub.*with a bool tensor is not supported"):
        b - 1
    with pytest.raises(RuntimeError, match="rsub: subtraction.*with a bool tensor"):
        1 - b
    with pytest.raises(RuntimeError, match="neg: negation, the `-` operator, on a bool tensor"):
        -b
    with pytest.raises(RuntimeError, match="matmul: expected both operands to have the same dtype"):
        flow.ones(2, 2, device=device) @ flow.ones(2, 2, dtype=flow.int64, device=device)
    with pytest.raises(TypeError, match=r"full\(\): argument 'fill_value' \(position 2\) must be Number"):
        flow.full((2,), "x", device=device)
    with pytest.raises(TypeError, match="fill_: expected a number"):
        flow.zeros(2, device=device).fill_("x")
    with pytest.raises(TypeError, match=r"sum\(\): argument 'dtype' must be monoflow.dtype, not type"):
        flow.zeros(2, device=device).sum(dtype=np.float32)
    with pytest.raises(TypeError):
        flow.zeros(2, dtype="float32", device=device)
    with pytest.raises(TypeError, match="tensor: could not infer a dtype"):
        flow.tensor(["a", "b"], device=device)
    with pytest.raises(TypeError, match="unsupported operand"):
        flow.ones(2, device=device) + "a"
    with pytest.raises(OverflowError):
        flow.tensor([2 ** 63], device=device)
    with pytest.raises(OverflowError):
        flow.tensor(2 ** 70, device=device)
    with pytest.raises(OverflowError):
        flow.ones(2, device=device) + 2 ** 64
    assert flow.tensor([2 ** 63], dtype=flow.float64, device=device).item() == 2.0 ** 63
    assert flow.tensor([2 ** 70, 0.5], device=device).dtype == flow.float32
    with pytest.raises(ValueError, match="tensor: cannot build a tensor"):
        flow.tensor([[1, 2], [3]], device=device)
    for value, dt in ((300, flow.int8), (-256, flow.uint8), (1e30, flow.int64), (float("nan"), flow.int32),
                      (-0.5, flow.uint8), (1e300, flow.float32)):
        with pytest.raises(RuntimeError, match=f"fill_: value .* cannot be converted to type {dt.name} without "
                                               "overflow"):
            flow.full((2,), value, dtype=dt, device=device)
        with pytest.raises(RuntimeError, match="without overflow"):
            flow.zeros(2, dtype=dt, device=device)[0] = value
    assert flow.full((1,), -1, dtype=flow.uint8, device=device).tolist() == [255]  # wraps, as in torch
    assert flow.full((1,), 1e300, dtype=flow.float16, device=device).tolist() == [math.inf]


def test_index_and_dim_errors(device):
    x = flow.zeros(2, 3, device=device)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 1 with size 3"):
        x[0, 5]
    with pytest.raises(IndexError, match="Too many indices"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="sum: Dimension out of range"):
        x.sum(2)
    with pytest.raises(IndexError, match="transpose: Dimension out of range"):
        x.transpose(0, -3)
    with pytest.raises(IndexError, match="unsqueeze: Dimension out of range"):
        x.unsqueeze(-4)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(5)


def test_mixing_devices_raises(device):
    others = [f"{t}:0" for t in flow.devices.available() if f"{t}:0" != device]
    typ = device.split(":")[0]
    if flow.devices.count(typ) > 1:
        others.append(f"{typ}:1")
    a = flow.ones(2, 2, device=device)
    for other in others:
        b = flow.ones(2, 2, device=other)
        pattern = "expected all tensors to be on the same device, but found at least two devices"
        for op, name in ((lambda: a + b, "add"), (lambda: a * b, "mul"), (lambda: a < b, "lt"),
                         (lambda: a // b, "floor_divide"), (lambda: flow.maximum(a, b), "maximum"),
                         (lambda: a @ b, "matmul"), (lambda: a.add_(b), "add")):
            with pytest.raises(RuntimeError, match=rf"{name}: {pattern}, {device} and {other}"):
                op()
        # copies between devices are explicit and allowed
        a.copy_(b)
        assert a.device == flow.device(device)
