"""The core's caching allocator, on the CPU and on the testdev plugin:
caching, block splitting and merging, statistics, empty_cache, and the
out-of-memory path (release the cache, retry once, then OutOfMemoryError).

Every check works on differences of the statistics, so tests that ran
earlier in the process (and left cached blocks behind) do not matter."""
import contextlib
import os
import random

import numpy as np
import pytest

import monoflow as flow

MiB = 1 << 20


def stats(device):
    return flow.memory.memory_stats(device)


def delta(after, before):
    return {k: after[k] - before[k] for k in after}


def empty_all_testdev_caches():
    for d in ("testdev:0", "testdev:1"):
        flow.memory.empty_cache(d)


@contextlib.contextmanager
def limited_testdev_memory(lib, headroom):
    """Lets testdev hold only `headroom` bytes more than it holds now (both
    devices share the limit), with both caches emptied first."""
    empty_all_testdev_caches()
    lib.testdev_set_memory_limit(lib.testdev_live_bytes() + headroom)
    try:
        yield
    finally:
        lib.testdev_set_memory_limit(0)
        lib.testdev_fail_next_allocations(0)


@pytest.mark.parametrize("nbytes", [4000, 3 * MiB + 4096], ids=["small", "large"])
def test_repeated_alloc_free_is_served_from_the_cache(device, nbytes, testdev_lib):
    numel = nbytes // 4
    t = flow.empty(numel, dtype=flow.float32, device=device)  # warm the cache
    del t
    before = stats(device)
    raw_before = testdev_lib.testdev_allocation_count()
    for _ in range(50):
        t = flow.empty(numel, dtype=flow.float32, device=device)
        del t
    d = delta(stats(device), before)
    assert d["num_raw_allocs"] == 0 and d["num_raw_frees"] == 0
    assert d["num_allocs"] == 50 and d["cache_hits"] == 50
    assert d["reserved_bytes"] == 0 and d["allocated_bytes"] == 0 and d["active_blocks"] == 0
    assert testdev_lib.testdev_allocation_count() == raw_before  # the plugin was never asked


def test_small_blocks_are_split_from_one_segment_and_merge_back(device):
    flow.memory.empty_cache(device)
    before = stats(device)
    tensors = [flow.empty(1024, dtype=flow.float32, device=device) for _ in range(100)]  # 4 KiB each
    d = delta(stats(device), before)
    assert d["allocated_bytes"] == 100 * 4096
    assert d["active_blocks"] == 100
    assert d["num_raw_allocs"] <= 1  # 400 KiB fit in one 2 MiB segment
    assert d["reserved_bytes"] <= 2 * MiB
    ptrs = sorted(t.data_ptr() for t in tensors)
    assert len(set(ptrs)) == 100 and all(b - a >= 4096 for a, b in zip(ptrs, ptrs[1:]))
    # freed in any order, the pieces merge into whole segments again, which
    # empty_cache can then return to the device
    random.Random(0).shuffle(tensors)
    del tensors
    flow.memory.empty_cache(device)
    after = stats(device)
    assert after["reserved_bytes"] == before["reserved_bytes"]
    assert after["allocated_bytes"] == before["allocated_bytes"]
    assert after["num_raw_frees"] - before["num_raw_frees"] == d["num_raw_allocs"]


def test_memory_does_not_grow_over_a_loop_of_ops(device, testdev_lib):
    a = flow.ones(128, 256, device=device)
    b = flow.full((128, 256), 2.0, device=device)

    def step():
        x = a * b
        x += a
        y = x - b  # no testdev kernel: the CPU fallback's copies too
        z = (y @ b.T).sum(dim=0)
        return z

    z = step()
    z = step()  # warm: the cache now holds what one more iteration needs
    before = stats(device)
    live = testdev_lib.testdev_live_bytes()
    for _ in range(40):
        z = step()
    np.testing.assert_array_equal(z.numpy(), np.full(128, 2.0 * 256 * 128))
    after = stats(device)
    assert after["allocated_bytes"] == before["allocated_bytes"]
    assert after["reserved_bytes"] == before["reserved_bytes"]
    assert after["num_raw_allocs"] == before["num_raw_allocs"]
    assert after["active_blocks"] == before["active_blocks"]
    assert testdev_lib.testdev_live_bytes() == live


def test_statistics_add_up(device):
    flow.memory.empty_cache(device)  # no cached remnant may serve the 2 MiB request whole
    flow.memory.reset_peak_memory_stats(device)
    s0 = stats(device)
    a = flow.empty(1, dtype=flow.uint8, device=device)  # rounds up to 512 bytes
    b = flow.empty(250, dtype=flow.float32, device=device)  # 1000 -> 1024 bytes
    c = flow.empty(2 * MiB // 8, dtype=flow.float64, device=device)  # 2 MiB, large pool
    s1 = stats(device)
    d = delta(s1, s0)
    assert d["allocated_bytes"] == 512 + 1024 + 2 * MiB
    assert d["active_blocks"] == 3 and d["num_allocs"] == 3
    assert d["num_allocs"] == d["cache_hits"] + d["num_raw_allocs"]
    assert s1["reserved_bytes"] >= s1["allocated_bytes"]
    assert s1["peak_allocated_bytes"] == s1["allocated_bytes"]
    assert s1["peak_reserved_bytes"] >= s1["reserved_bytes"]
    assert flow.memory.memory_allocated(device) == s1["allocated_bytes"]
    assert flow.memory.memory_reserved(device) == s1["reserved_bytes"]
    assert flow.memory.max_memory_allocated(device) == s1["peak_allocated_bytes"]
    del c
    s2 = stats(device)
    assert s1["allocated_bytes"] - s2["allocated_bytes"] == 2 * MiB
    assert s2["peak_allocated_bytes"] == s1["peak_allocated_bytes"]  # the peak stays
    assert s2["reserved_bytes"] == s1["reserved_bytes"]  # freed blocks stay cached
    del a, b
    assert stats(device)["allocated_bytes"] == s0["allocated_bytes"]
    assert stats(device)["active_blocks"] == s0["active_blocks"]
    # a zero-size tensor costs nothing
    z = flow.empty(0, 5, device=device)
    assert stats(device)["num_allocs"] == s2["num_allocs"]
    del z


def test_reset_peak_memory_stats(device):
    base = stats(device)["allocated_bytes"]
    big = flow.empty(8 * MiB // 4, dtype=flow.float32, device=device)
    del big
    s = stats(device)
    assert s["peak_allocated_bytes"] >= base + 8 * MiB
    assert s["allocated_bytes"] == base
    flow.memory.reset_peak_memory_stats(device)
    s = stats(device)
    assert s["peak_allocated_bytes"] == s["allocated_bytes"] == base
    assert s["peak_reserved_bytes"] == s["reserved_bytes"]
    small = flow.empty(1000, dtype=flow.uint8, device=device)
    assert stats(device)["peak_allocated_bytes"] == base + 1024
    del small


def test_empty_cache_returns_cached_segments_to_the_device(device, testdev_lib):
    flow.memory.empty_cache(device)  # `keep` gets a segment of its own
    keep = flow.full((3 * MiB // 4,), 1.5, device=device)  # in use: must survive
    tensors = [flow.empty(5 * MiB // 4, dtype=flow.float32, device=device) for _ in range(3)]
    del tensors
    before = stats(device)
    live_before = testdev_lib.testdev_live_bytes()
    flow.memory.empty_cache(device)
    after = stats(device)
    assert before["reserved_bytes"] - after["reserved_bytes"] >= 3 * 6 * MiB  # 5 MiB rounds to 6 MiB segments
    assert after["num_raw_frees"] - before["num_raw_frees"] >= 3
    assert after["allocated_bytes"] == before["allocated_bytes"]
    if device.startswith("testdev"):
        assert live_before - testdev_lib.testdev_live_bytes() == before["reserved_bytes"] - after["reserved_bytes"]
    assert after["reserved_bytes"] >= after["allocated_bytes"]
    np.testing.assert_array_equal(keep[::1000].numpy(), 1.5)
    # the cache fills again on demand
    raw = stats(device)["num_raw_allocs"]
    t = flow.empty(5 * MiB // 4, dtype=flow.float32, device=device)
    assert stats(device)["num_raw_allocs"] == raw + 1
    del t


def test_oom_releases_the_cache_and_retries(testdev_lib):
    dev = "testdev:0"
    with limited_testdev_memory(testdev_lib, 64 * MiB):
        cached = [flow.empty(8 * MiB // 4, dtype=flow.float32, device=dev) for _ in range(6)]
        del cached  # 48 MiB now sit in the cache as six 8 MiB segments
        s0 = stats(dev)
        assert s0["reserved_bytes"] - s0["allocated_bytes"] >= 48 * MiB
        # 40 MiB: no cached block is big enough, and 48 + 40 MiB exceed the limit,
        # so only releasing the cache lets the retry succeed
        big = flow.full((40 * MiB // 4,), 3.0, device=dev)
        s1 = stats(dev)
        assert s1["num_oom_retries"] == s0["num_oom_retries"] + 1
        assert s1["num_raw_frees"] - s0["num_raw_frees"] >= 6
        assert s1["reserved_bytes"] < s0["reserved_bytes"] + 40 * MiB
        np.testing.assert_array_equal(big[::4096].numpy(), 3.0)
        # an allocation the cache serves needs no retry
        del big
        again = flow.empty(40 * MiB // 4, dtype=flow.float32, device=dev)
        assert stats(dev)["num_oom_retries"] == s1["num_oom_retries"]
        del again


def test_an_allocation_that_can_never_fit_raises_out_of_memory(testdev_lib):
    assert issubclass(flow.OutOfMemoryError, RuntimeError)
    dev = "testdev:1"
    with limited_testdev_memory(testdev_lib, 64 * MiB):
        s0 = stats(dev)
        with pytest.raises(flow.OutOfMemoryError) as info:
            flow.empty(128 * MiB // 4, dtype=flow.float32, device=dev)
        msg = str(info.value)
        assert "testdev:1" in msg and str(128 * MiB) in msg
        s1 = stats(dev)
        assert s1["num_oom_retries"] == s0["num_oom_retries"] + 1
        assert s1["allocated_bytes"] == s0["allocated_bytes"]
        assert s1["active_blocks"] == s0["active_blocks"]
        # the device keeps working below the limit
        t = flow.full((4 * MiB // 4,), 2.0, device=dev)
        np.testing.assert_array_equal((t + t)[::1024].numpy(), 4.0)
        del t
    big = flow.empty(128 * MiB // 4, dtype=flow.float32, device=dev)  # without the limit: fine
    del big
    flow.memory.empty_cache(dev)


# AddressSanitizer aborts the process on an impossible malloc() unless told
# to return NULL like the real allocator does.
_ASAN_ABORTS_ON_HUGE_MALLOC = ("asan" in os.environ.get("LD_PRELOAD", "")
                               and "allocator_may_return_null=1" not in os.environ.get("ASAN_OPTIONS", ""))


@pytest.mark.skipif(_ASAN_ABORTS_ON_HUGE_MALLOC, reason="needs ASAN_OPTIONS=allocator_may_return_null=1 under ASan")
def test_cpu_out_of_memory_is_an_exception():
    nbytes = 1 << 62
    with pytest.raises(flow.OutOfMemoryError) as info:
        flow.empty(nbytes // 4, dtype=flow.float32)
    assert "cpu:0" in str(info.value) and str(nbytes) in str(info.value)
    np.testing.assert_array_equal((flow.ones(3) * 2).numpy(), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("shape", [(2 ** 62,), (2 ** 40, 2 ** 40), (2 ** 31, 2 ** 31, 4)])
def test_byte_size_overflow_is_refused(device, shape):
    # the byte count must not wrap around to a small allocation
    with pytest.raises(RuntimeError, match="2\\^63 bytes"):
        flow.empty(*shape, dtype=flow.float32, device=device)
    assert flow.empty(2 ** 40, 2 ** 40, 0, device=device).numel() == 0


def test_injected_allocation_failures(testdev_lib):
    dev = "testdev:0"
    empty_all_testdev_caches()
    try:
        # one failure: the retry after releasing the cache succeeds
        s0 = stats(dev)
        testdev_lib.testdev_fail_next_allocations(1)
        t = flow.full((6 * MiB // 4,), 1.0, device=dev)
        s1 = stats(dev)
        assert s1["num_oom_retries"] == s0["num_oom_retries"] + 1
        np.testing.assert_array_equal(t[::4096].numpy(), 1.0)
        # two failures: the retry fails too
        testdev_lib.testdev_fail_next_allocations(2)
        with pytest.raises(flow.OutOfMemoryError) as info:
            flow.empty(10 * MiB // 4, dtype=flow.float32, device=dev)
        assert "testdev:0" in str(info.value) and "injected failure" in str(info.value)
        assert stats(dev)["num_oom_retries"] == s1["num_oom_retries"] + 1
        # and then everything works again; the earlier tensor is intact
        u = flow.full((10 * MiB // 4,), 2.0, device=dev)
        np.testing.assert_array_equal((t[:1024] + u[:1024]).numpy(), 3.0)
    finally:
        testdev_lib.testdev_fail_next_allocations(0)


def test_oom_retry_keeps_a_pending_kernel_error_for_the_next_sync(testdev_lib):
    dev = "testdev:0"
    a = flow.ones(4, device=dev)
    b = flow.ones(4, device=dev)
    empty_all_testdev_caches()
    try:
        testdev_lib.testdev_fail_next_kernels(1)
        c = a + b  # fails "while running": reported at the next sync point
        testdev_lib.testdev_fail_next_allocations(1)
        big = flow.empty(6 * MiB // 4, dtype=flow.float32, device=dev)  # OOM retry synchronises the device
        assert big.numel() == 6 * MiB // 4
    finally:
        testdev_lib.testdev_fail_next_kernels(0)
        testdev_lib.testdev_fail_next_allocations(0)
    with pytest.raises(RuntimeError, match="injected kernel failure in 'add'"):
        flow.synchronize(dev)
    flow.synchronize(dev)  # reported once
    np.testing.assert_array_equal((a + b).numpy(), [2.0] * 4)
    del c


def test_empty_cache_keeps_a_pending_kernel_error_for_the_next_sync(testdev_lib):
    dev = "testdev:1"
    a = flow.ones(4, device=dev)
    try:
        testdev_lib.testdev_fail_next_kernels(1)
        a * a
    finally:
        testdev_lib.testdev_fail_next_kernels(0)
    flow.memory.empty_cache(dev)
    with pytest.raises(RuntimeError, match="injected kernel failure in 'mul'"):
        a.numpy()
    np.testing.assert_array_equal(a.numpy(), [1.0] * 4)
