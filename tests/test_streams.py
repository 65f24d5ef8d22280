"""Streams: kernels run asynchronously but in order; the host waits only at
sync points (flow.synchronize(), .numpy(), .item(), device transfers); a
kernel's error reaches Python at the next sync point, once; memory stays
valid for queued work.

The CPU device really is asynchronous (a worker thread per stream); a slow
op queued first (a big matmul) keeps later work pending while the host goes
on, which is what makes the races below observable."""
import gc
import weakref

import numpy as np
import pytest

import monoflow as flow

MiB = 1 << 20


def slow_op(n=768):
    """Queues a few tens of milliseconds of work on the CPU stream; returns its result."""
    a = flow.full((n, n), 1.0)
    return a @ a


# ---------------------------------------------------------------- ordering


@pytest.mark.parametrize("dtype", [flow.float32, flow.float64, flow.int64])
def test_a_long_chain_of_in_place_ops_runs_in_order(dtype):
    n = 1 << 20
    x = flow.zeros(n, dtype=dtype)
    v = 0
    for k in range(1, 301):  # 600 ops: more than a stream's queue holds
        x += k
        x *= -1
        v = -(v + k)  # add and negate do not commute: any reordering shows
    got = x.numpy()
    assert (got == v).all(), (np.unique(got)[:5], v)
    x2 = flow.zeros(n, dtype=dtype)
    x2[::2] += 3
    x2[1::2] -= 5
    x2[::3] *= 2
    ref = np.zeros(n)
    ref[::2] += 3
    ref[1::2] -= 5
    ref[::3] *= 2
    np.testing.assert_array_equal(x2.numpy(), ref)


def test_interleaved_ops_on_two_tensors():
    n = 1 << 18
    a = flow.arange(n, dtype=flow.float64)
    b = flow.ones(n, dtype=flow.float64)
    ra, rb = np.arange(n, dtype=np.float64), np.ones(n)
    for k in range(60):
        a += b
        b *= 2 if k % 3 else -1
        a -= b
        b += a
        ra += rb
        rb *= 2 if k % 3 else -1
        ra -= rb
        rb += ra
    np.testing.assert_array_equal(a.numpy(), ra)
    np.testing.assert_array_equal(b.numpy(), rb)


def test_sync_points_wait_for_pending_work():
    n = 512
    # leave a cached block full of -7 behind: reading the result before the
    # matmul has run would show it
    junk = flow.full((n, n), -7.0)
    junk.numpy()
    del junk
    a = flow.full((n, n), 1.0)
    b = flow.full((n, n), 2.0)
    c = a @ b
    np.testing.assert_array_equal(c.numpy(), np.full((n, n), 2.0 * n))  # .numpy() right away
    d = a @ b
    assert d[n - 1, n - 1].item() == 2.0 * n  # .item() right away
    e = a @ b
    assert e.sum().item() == 2.0 * n * n * n
    f = a @ b
    flow.synchronize()
    assert float(f.numpy()[-1, -1]) == 2.0 * n
    g = a @ b
    flow.synchronize("cpu")
    assert float(g.numpy()[0, 0]) == 2.0 * n
    h = (a @ b).to("testdev")  # a transfer waits for the source
    np.testing.assert_array_equal(h[::64, ::64].numpy(), 2.0 * n)
    assert "1024" in repr(a @ b) and "-7" not in repr(a @ b)  # printing waits too


def test_synchronize_with_nothing_pending_is_harmless():
    flow.synchronize()
    flow.synchronize()
    flow.synchronize("cpu")
    flow.synchronize("testdev:1")


# ---------------------------------------------------------------- errors


def _zero_division_at(where):
    x = flow.tensor([7, 8, 9])
    if where == "synchronize":
        with pytest.raises(ZeroDivisionError):
            y = x // 0
            flow.synchronize()
    elif where == "numpy":
        with pytest.raises(ZeroDivisionError):
            (x // flow.zeros(3, dtype=flow.int64)).numpy()
    elif where == "item":
        with pytest.raises(ZeroDivisionError):
            (x[1] // 0).item()


@pytest.mark.parametrize("where", ["synchronize", "numpy", "item"])
def test_cpu_integer_division_by_zero_raises_and_the_stream_recovers(where):
    _zero_division_at(where)
    flow.synchronize()  # reported once, then cleared
    # the stream keeps working
    x = flow.tensor([7, -8, 9])
    np.testing.assert_array_equal((x // 2).numpy(), [3, -4, 4])
    assert (x[0] // 7).item() == 1


def test_integer_division_by_zero_is_raised_by_the_dividing_call_as_torch():
    # the launch waits for an integer division's kernel: the error belongs to that call (not to the
    # next, unrelated op), and it is torch's RuntimeError as well as Python's ZeroDivisionError
    x = flow.tensor([7, 8, 9])
    for call, name in ((lambda: x // flow.tensor([1, 0, 1]), "floor_divide"), (lambda: x % 0, "remainder"),
                       (lambda: flow.fmod(x, flow.zeros(3, dtype=flow.int64)), "fmod")):
        with pytest.raises(RuntimeError, match=f"{name}: integer division by zero") as info:
            call()
        assert isinstance(info.value, ZeroDivisionError) and "asynchronously" not in str(info.value)
        assert (x + 1).tolist() == [8, 9, 10]  # the next op is unaffected
    assert (x.double() // 0).isinf().all()  # a float division by zero is inf, no error


def test_a_kernel_error_on_numpy_shared_memory_is_raised_by_the_op():
    # Note [Host-visible memory]: ops on memory shared with numpy complete
    # eagerly, so their kernel errors surface at the op, not later.
    arr = np.array([1, 2, 3], dtype=np.int64)
    t = flow.from_numpy(arr)
    with pytest.raises(ZeroDivisionError, match="floor_divide"):
        t // 0
    del t, arr
    gc.collect()
    flow.synchronize()  # nothing left pending
    assert (flow.from_numpy(np.array([4, 6])) // 2).tolist() == [2, 3]


def test_injected_testdev_kernel_failure_is_raised_at_the_next_sync(testdev_lib):
    a = flow.full((4,), 1.5, device="testdev:0")
    b = flow.full((4,), 2.0, device="testdev:0")
    other = flow.full((4,), 1.0, device="testdev:1")
    try:
        testdev_lib.testdev_fail_next_kernels(1)
        c = a + b  # the launch itself succeeds
    finally:
        testdev_lib.testdev_fail_next_kernels(0)
    flow.synchronize("testdev:1")  # another device's stream knows nothing of it
    np.testing.assert_array_equal((other + other).numpy(), [2.0] * 4)
    with pytest.raises(RuntimeError) as info:
        flow.synchronize()
    assert "injected kernel failure in 'add'" in str(info.value)
    assert "testdev" in str(info.value)
    flow.synchronize()  # reported once
    np.testing.assert_array_equal((a + b).numpy(), [3.5] * 4)
    del c
    # the same through .numpy() and .item()
    for read in (lambda t: t.numpy(), lambda t: t[0].item()):
        try:
            testdev_lib.testdev_fail_next_kernels(1)
            d = a * b
        finally:
            testdev_lib.testdev_fail_next_kernels(0)
        with pytest.raises(RuntimeError, match="injected kernel failure in 'mul'"):
            read(d)
        assert (a * b)[0].item() == 3.0


# ---------------------------------------------------------------- memory lifetime


def test_from_numpy_memory_stays_valid_while_a_kernel_is_queued_on_it():
    n = 4 * MiB  # 16 MiB of float32: numpy returns it to the OS when freed
    arr = np.arange(n, dtype=np.float32)
    alive = weakref.ref(arr)
    t = flow.from_numpy(arr)
    ys = []
    r = slow_op()  # keeps the kernels below queued
    for k in range(3):
        ys.append(t * float(k + 1))
    del arr
    assert alive() is not None  # the tensor keeps the array alive
    del t  # the last view: waits for the queued kernels, then lets the array go
    gc.collect()
    assert alive() is None
    expected = np.arange(n, dtype=np.float32)
    for k, y in enumerate(ys):
        np.testing.assert_array_equal(y.numpy(), expected * (k + 1))
    del r


def test_a_block_freed_with_work_pending_is_reused_in_stream_order():
    n = 1 << 20
    flow.memory.empty_cache("cpu")  # no other cached block of a's size
    r = slow_op()
    a = flow.full((n,), 1.0)
    out = a * 3.0  # queued behind the matmul, reads `a`
    a_ptr = a.data_ptr()
    del a  # back to the cache at once: its next user is ordered on the same stream
    b = flow.full((n,), 5.0)
    assert b.data_ptr() == a_ptr  # reused without waiting
    np.testing.assert_array_equal(out.numpy(), 3.0)
    np.testing.assert_array_equal(b.numpy(), 5.0)
    del r


def test_cpu_fallback_does_not_write_host_blocks_still_used_by_queued_kernels():
    # The CPU fallback of a testdev op copies device memory into CPU blocks
    # from outside the CPU stream; a block freed with CPU work still queued
    # on it must not be overwritten under that work.
    rows, cols = 550, 1000  # 4.4 MB, the same bytes as `dev` below
    dev = flow.full((rows, cols), 7, dtype=flow.int64).to("testdev")
    for _ in range(3):
        flow.memory.empty_cache("cpu")
        r = slow_op()
        a = flow.full((rows, 2 * cols), 1.0)  # float32: same bytes as `dev`
        out = a + 0.0  # queued behind the matmul, reads `a`
        del a
        e = dev + 1  # int64: no testdev kernel, runs on the CPU via host copies
        np.testing.assert_array_equal(out[::50, ::50].numpy(), 1.0)
        np.testing.assert_array_equal(e[::50, ::50].numpy(), 8)
        del r
