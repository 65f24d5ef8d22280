"""Regression tests for issue 14 (items 1, 2, 5, 10): overflow-checked view
arithmetic, tensors that always have a handle (the legacy constructors),
writes through overlapping views, and asynchronous kernel errors that name
the op that failed."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from helpers import TORCH

HUGE = 2**62 + 2**61

# ---------------------------------------------------------------- item 1: overflow


@pytest.mark.parametrize("stride", [HUGE, 2**62, 2**63 - 1])
def test_as_strided_with_overflowing_extent_is_refused(stride):
    x = flow.zeros(6)
    with pytest.raises(RuntimeError, match="as_strided"):
        x.as_strided((3,), (stride,))
    with pytest.raises(RuntimeError, match="as_strided"):
        x.as_strided((2, 2), (1, 2**63 - 1), 1)
    assert x.tolist() == [0.0] * 6


@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=3), data=st.data())
def test_as_strided_bounds_match_numpy(shape, data):
    strides = data.draw(st.lists(st.integers(0, 5), min_size=len(shape), max_size=len(shape)))
    offset = data.draw(st.integers(0, 8))
    base = np.arange(12, dtype=np.float32)
    empty = 0 in shape
    last = offset + sum((n - 1) * s for n, s in zip(shape, strides)) if not empty else -1
    x = flow.tensor(base)
    if last >= base.size:
        with pytest.raises(RuntimeError, match="as_strided"):
            x.as_strided(tuple(shape), tuple(strides), offset)
        return
    got = x.as_strided(tuple(shape), tuple(strides), offset)
    want = np.lib.stride_tricks.as_strided(base[offset:] if not empty else base, shape=shape,
                                           strides=[s * 4 for s in strides])
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("call", [
    lambda: flow.zeros(1).expand(2**40, 2**40),
    lambda: flow.zeros(2).expand(2**62, 4, 2),
    lambda: flow.zeros(6).view(2**62, 4, 0),
    lambda: flow.zeros(6).reshape(2**62, 4, -1),
    lambda: flow.zeros(6).repeat(2**62, 4),
    lambda: flow.empty(2**40, 2**40),
    lambda: flow.zeros(2**62, 2**62),
    lambda: flow.Tensor(2**40, 2**40),
])
def test_shapes_whose_size_overflows_raise(call):
    with pytest.raises(RuntimeError):
        call()


def test_huge_but_representable_allocation_is_out_of_memory():
    with pytest.raises(RuntimeError) as info:
        flow.empty(2**20, 2**21)  # 8 TiB of float32
    assert isinstance(info.value, flow.OutOfMemoryError) or "memory" in str(info.value).lower()


def test_narrow_length_overflow_is_refused():
    with pytest.raises(RuntimeError, match="exceeds dimension size"):
        flow.zeros(6).narrow(0, 1, 2**63 - 1)


def test_steps_past_the_end_keep_one_element():
    x = flow.arange(6.0)
    assert x[::2**62].tolist() == [0.0]
    assert x[1::HUGE].tolist() == [1.0]
    u = x.unfold(0, 2, 2**62)
    assert u.shape == (1, 2) and u.tolist() == [[0.0, 1.0]]
    if TORCH is not None:
        assert tuple(u.shape) == tuple(TORCH.arange(6.0).unfold(0, 2, 2**62).shape)


# ---------------------------------------------------------------- item 5: overlapping writes

OVERLAP = "more than one element of the written-to tensor refers to a single memory location"


@pytest.mark.parametrize("make", [
    lambda: flow.zeros(1).expand(4),
    lambda: flow.zeros(2, 1).expand(2, 3),
    lambda: flow.arange(5.0).unfold(0, 2, 1),  # windows that share elements
    lambda: flow.zeros(6).as_strided((2, 2), (1, 1)),
    lambda: flow.zeros(6).as_strided((2, 3), (2, 1)),
])
@pytest.mark.parametrize("write", [
    lambda t: t.add_(1), lambda t: t.mul_(2), lambda t: t.fill_(7.0), lambda t: t.zero_(),
    lambda t: t.copy_(flow.ones(tuple(t.shape))), lambda t: t.clamp_(0, 1),
])
def test_writes_through_overlapping_views_are_refused(make, write):
    t = make()
    with pytest.raises(RuntimeError, match=OVERLAP):
        write(t)


@pytest.mark.parametrize("shape,strides", [
    ((2, 3), (3, 1)),
    ((3, 2), (1, 3)),  # transposed
    ((2, 2), (3, 2)),  # interleaved, no shared element
    ((3, 2), (2, 1)),  # unfold(0, 2, 2)
    ((2, 2), (8, 2)),  # x.view(4, 4)[::2, 1::2]
])
def test_writes_through_non_overlapping_views_work(shape, strides):
    base = flow.zeros(16)
    base.as_strided(shape, strides).fill_(3.0)
    # distinct elements: exactly numel of them were written
    assert int((base.numpy() == 3.0).sum()) == int(np.prod(shape))


@pytest.mark.parametrize("make", [lambda: flow.from_numpy(np.zeros((0, 3))),  # numpy's zero strides
                                  lambda: flow.zeros(1, 0).expand(3, 0), lambda: flow.zeros(0, 1).expand(0, 3)])
def test_in_place_writes_to_empty_tensors_are_no_ops(make):
    # (as torch: an empty tensor has no element to write twice, whatever its strides)
    t = make()
    assert t.add_(1) is t and t.mul_(2).numel() == 0 and t.fill_(3.0).shape == make().shape


def test_overlap_rule_agrees_with_torch_on_broadcasts():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=OVERLAP):
        torch.zeros(1).expand(4).add_(1)
    with pytest.raises(RuntimeError, match=OVERLAP):
        flow.zeros(1).expand(4).add_(1)


@pytest.mark.parametrize("shape", [(2, 40, 5, 5), (1, 40, 5, 5), (1, 40), (40, 1), (1, 1, 40, 1)])
def test_writing_a_view_into_itself_through_size_one_dims(shape):
    """x[:, :k] += y and x[:, :k] = x[:, :k] alias the written view exactly; a size-1 dim's stride
    (which two routes to the same view may set differently) does not make them overlap partially."""
    for lib in filter(None, (flow, TORCH)):
        out = lib.zeros(*shape)
        index = (slice(None), slice(0, 32)) if shape[1] == 40 else (slice(0, 32),)
        part = lib.ones(*out[index].shape)
        out[index] += part
        out[index] = out[index]
        out[index] = out[index] * 2
        assert float(out.sum()) == 2 * part.numel(), lib
    a = flow.arange(6.0).reshape(1, 6)
    with pytest.raises(RuntimeError, match="single memory location"):  # a true partial overlap stays refused
        a[:, 1:].copy_(a[:, :5])


# ---------------------------------------------------------------- item 2: constructors, handles


def _same_as_torch(expr):
    torch = pytest.importorskip("torch")
    want = eval(expr.replace("flow.", "torch."), {"torch": torch, "np": np})
    got = eval(expr, {"flow": flow, "np": np})
    assert tuple(got.shape) == tuple(want.shape), expr
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], expr
    return got, want


@pytest.mark.parametrize("expr", [
    "flow.Tensor()", "flow.Tensor(2, 3)", "flow.Tensor(0)", "flow.Tensor(flow.Size([2, 3]))",
    "flow.Tensor([1., 2.])", "flow.Tensor((2, 3))", "flow.Tensor([[1, 2], [3, 4]])", "flow.Tensor([])",
    "flow.Tensor(np.ones((2, 2)))", "flow.Tensor(2, device='cpu')", "flow.LongTensor([1.5, 2.7])",
    "flow.LongTensor(2, 3)", "flow.IntTensor([1, 2])", "flow.DoubleTensor(3)", "flow.BoolTensor([1, 0])",
    "flow.ByteTensor([1, 2])", "flow.FloatTensor([[1], [2]])", "flow.HalfTensor(2)", "flow.CharTensor([1])",
    "flow.ShortTensor([1])", "flow.BFloat16Tensor(2)",
])
def test_legacy_constructors_follow_torch(expr):
    got, want = _same_as_torch(expr)
    from_data = "Size" not in expr and any(k in expr for k in ("([", "(np.", "(("))
    if from_data:  # the values too (the others are uninitialised)
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


@pytest.mark.parametrize("expr,exc", [
    ("flow.Tensor(3.5)", TypeError), ("flow.Tensor(None)", TypeError), ("flow.Tensor('abc')", TypeError),
    ("flow.Tensor(True)", TypeError), ("flow.Tensor(2, 3.0)", TypeError), ("flow.Tensor(2, [3])", TypeError),
    ("flow.Tensor(-1)", RuntimeError), ("flow.Tensor(2, dtype='int64')", TypeError),
    ("flow.LongTensor(flow.ones(2))", TypeError),
])
def test_legacy_constructors_refuse_like_torch(expr, exc):
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        eval(expr.replace("flow.", "torch."), {"torch": torch})
    with pytest.raises(exc):
        eval(expr, {"flow": flow})


def test_tensor_of_a_tensor_shares_memory():
    t = flow.arange(3)
    a = flow.Tensor(t)
    assert a.dtype == flow.int64 and a.data_ptr() == t.data_ptr()
    b = flow.FloatTensor(flow.ones(2))
    b.add_(1)
    assert b.tolist() == [2.0, 2.0]


def test_legacy_types_are_dtype_checks():
    assert isinstance(flow.ones(2), flow.FloatTensor)
    assert not isinstance(flow.ones(2), flow.LongTensor)
    assert isinstance(flow.arange(2), flow.LongTensor)
    assert isinstance(flow.LongTensor(2), flow.Tensor)


def test_reported_empty_handle_crashes():
    s = flow.Tensor(2, 3).sum()
    assert s.shape == ()
    assert "tensor([]" in repr(flow.Tensor())
    assert flow.Tensor([1.0, 2.0]).tolist() == [1.0, 2.0]


class _NoInit(flow.Tensor):
    def __init__(self):  # never calls super().__init__
        pass


@pytest.mark.parametrize("make", [lambda: flow.Tensor.__new__(flow.Tensor), _NoInit,
                                  lambda: flow._C.TensorBase.__new__(flow.Tensor)])
def test_objects_made_without_init_are_empty_tensors(make):
    t = make()
    assert t.shape == (0,) and t.dtype == flow.get_default_dtype()
    assert t.sum().item() == 0.0 and t.tolist() == [] and "tensor(" in repr(t)
    assert (t + 1).shape == (0,)


def test_every_method_is_safe_on_an_uninitialised_object():
    # Each call either works or raises a Python exception; a crash fails the suite.
    for name in dir(flow.Tensor):
        if name.startswith("__") and name not in ("__repr__", "__len__", "__bool__", "__iter__", "__neg__"):
            continue
        t = flow.Tensor.__new__(flow.Tensor)
        try:
            attr = getattr(t, name)
            if callable(attr):
                attr()
        except Exception:  # noqa: BLE001 - a clean exception is all this asks for
            pass


def test_make_subclass_refuses_a_foreign_class():
    with pytest.raises(TypeError):
        flow._C._make_subclass(int, flow.ones(1), False)


# ---------------------------------------------------------------- item 10: asynchronous errors


def _run(code, **env):
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)
    return proc.returncode, proc.stderr


# A kernel that fails while running, reported by a later synchronization: the testdev plugin's
# injected failure (an integer division by zero, the CPU's one such error, waits for its kernel).
def _async_repro(body):
    from conftest import PLUGINS

    return f"""
import ctypes
import monoflow as flow
flow.devices.load({PLUGINS["testdev"]!r})
fail_next_kernels = ctypes.CDLL({PLUGINS["testdev"]!r}).testdev_fail_next_kernels
a = flow.ones(2, device="testdev:0")
flow.synchronize("testdev")
""" + textwrap.dedent(body)


ASYNC_BODY = """
fail_next_kernels(ctypes.c_int(1))
x = a + a
flow.synchronize("testdev")
"""


def test_asynchronous_error_names_the_failed_op():
    rc, err = _run(_async_repro(ASYNC_BODY))
    assert rc != 0 and "injected kernel failure in 'add'" in err
    assert "asynchronously" in err and "oldest first: add." in err
    assert "MONOFLOW_LAUNCH_BLOCKING=1" in err


def test_launch_blocking_raises_at_the_op_that_failed():
    rc, err = _run(_async_repro(ASYNC_BODY), MONOFLOW_LAUNCH_BLOCKING="1")
    assert rc != 0 and "injected kernel failure in 'add'" in err
    assert 'line 10, in <module>' in err and "line 11, in <module>" not in err  # x = a + a
    assert "asynchronously" not in err  # raised by the op itself


def test_a_completed_op_is_not_blamed():
    # a multiplication ran (and succeeded) before the last sync; the failing one is the add after it
    rc, err = _run(_async_repro("""
    ok = a * a
    ok.tolist()
    fail_next_kernels(ctypes.c_int(1))
    bad = a + a
    flow.synchronize("testdev")
    """))
    assert rc != 0 and "injected kernel failure in 'add'" in err
    assert "oldest first: add." in err and "mul" not in err.split("asynchronously")[1]


@pytest.mark.parametrize("sections", [2 ** 31, 2 ** 62 + 2 ** 61, 2 ** 70])
def test_tensor_split_refuses_millions_of_empty_sections(sections):
    # past the dimension's size every part is an empty view: the fuzzer's hang
    with pytest.raises(ValueError, match="tensor_split"):
        flow.tensor_split(flow.zeros(3), sections)
    assert [t.numel() for t in flow.zeros(3).tensor_split(5)] == [1, 1, 1, 0, 0]


def test_copy_to_host_takes_a_checked_array_not_an_address():
    # it took a raw address: t._copy_to_host(other_tensor) wrote through the tensor's value (a segfault)
    for bad in (flow.randn(3, 4), 123, np.empty(3, np.float32), np.empty((4, 3), np.float32).T):
        with pytest.raises(TypeError, match="_copy_to_host"):
            flow.randn(3, 4)._copy_to_host(bad)
    out = np.empty((3, 4), np.float32)
    t = flow.arange(12.0).reshape(3, 4)
    t._copy_to_host(out)
    np.testing.assert_array_equal(out, np.arange(12.0).reshape(3, 4))


@pytest.mark.parametrize("value", [2**63, 2**64 - 1])
def test_python_int_past_int64_is_a_float_operand_like_torch(value):
    # torch reads ints in [2**63, 2**64) as uint64 and computes with a float tensor in floats
    x = np.array([1.5, -2.0], dtype=np.float32)
    np.testing.assert_allclose((flow.tensor(x) * value).numpy(), x * np.float32(value), rtol=1e-6)
    np.testing.assert_allclose(flow.tensor(x).add(value).numpy(), x + np.float32(value), rtol=1e-6)
    if TORCH is not None:
        np.testing.assert_allclose((flow.tensor(x) * value).numpy(), (TORCH.tensor(x) * value).numpy(), rtol=1e-6)


@pytest.mark.parametrize("value", [2**64, -2**63 - 1, 2**100])
def test_python_int_past_uint64_is_refused_naming_the_op(value):
    with pytest.raises(OverflowError, match="mul"):
        flow.ones(2) * value
