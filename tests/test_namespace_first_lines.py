"""Names scripts touch in their first lines, before any math (issue 13): torch.cuda's older memory
calls, memory_summary, nvtx ranges and the memory/random submodules; torch.backends.cpu/mkl/nnpack/
opt_einsum; dist.group.WORLD, the distributed error classes and debug levels. On a machine without
CUDA, queries answer like torch's CPU build and uses raise a clear RuntimeError."""
import warnings

import pytest

import monoflow as flow
import monoflow.distributed as dist

torch = pytest.importorskip("torch")
NO_CUDA = not flow.cuda.is_available()


def test_cuda_older_memory_names_answer_and_warn_like_torch():
    for name in ("memory_cached", "max_memory_cached", "reset_max_memory_allocated", "reset_max_memory_cached"):
        with pytest.warns(FutureWarning):
            got = getattr(flow.cuda, name)()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = getattr(torch.cuda, name)()
            except AttributeError:  # torch's CPU build has no allocator to reset
                want = None
        assert got == want, name
    assert flow.cuda.memory.memory_allocated() == flow.cuda.memory_allocated() == 0 or not NO_CUDA
    assert flow.cuda.random.manual_seed is flow.cuda.manual_seed
    assert flow.cuda.get_arch_list() == torch.cuda.get_arch_list() == [] or not NO_CUDA
    assert flow.cuda.is_tf32_supported() == torch.cuda.is_tf32_supported() or not NO_CUDA
    assert flow.cuda.has_half is True and flow.cuda.has_magma is False


@pytest.mark.skipif(not NO_CUDA, reason="answers of a machine without CUDA")
def test_cuda_uses_without_a_device_raise_runtime_errors():
    for call in (flow.cuda.mem_get_info, flow.cuda.ipc_collect):
        with pytest.raises(RuntimeError, match=r"cuda\.(mem_get_info|ipc_collect): no 'cuda' device"):
            call()
    summary = flow.cuda.memory_summary()
    assert summary.splitlines()[0] == "|=== monoflow CUDA memory summary, device 0 ===|"
    assert "no CUDA device" in summary


def test_memory_summary_lists_the_allocator_statistics():
    from monoflow import _device_face

    stats = {"allocated_bytes": 1024, "peak_allocated_bytes": 4096, "reserved_bytes": 2 << 20,
             "peak_reserved_bytes": 2 << 20, "active_blocks": 1, "num_allocs": 3, "cache_hits": 2,
             "num_raw_allocs": 1, "num_raw_frees": 0, "num_oom_retries": 0}
    face = _device_face.face("cuda")
    original = face.stats
    face.stats = lambda device=None: stats
    try:
        lines = flow.cuda.memory_summary().splitlines()
    finally:
        face.stats = original
    assert any(line.split()[-2] == "4096" and "peak allocated bytes" in line for line in lines)
    assert len(lines) == 1 + len(stats)


def test_nvtx_ranges_nest_and_reach_the_profiler():
    assert flow.cuda.nvtx.range_pop() == -1
    assert flow.cuda.nvtx.range_push("outer") == 0
    assert flow.cuda.nvtx.range_push("inner") == 1
    assert flow.cuda.nvtx.range_pop() == 1 and flow.cuda.nvtx.range_pop() == 0
    with flow.autograd.profiler.profile() as prof:
        with flow.cuda.nvtx.range("step {}", 7):
            flow.ones(3).add(1)
        flow.cuda.nvtx.mark("here")
    names = {e.name for e in prof.function_events} if hasattr(prof, "function_events") else str(prof.table())
    assert "step 7" in names and "here" in names


def test_backends_report_what_monoflow_uses():
    from monoflow import _plugins

    cap = flow.backends.cpu.get_cpu_capability()
    assert cap in ("AVX512", "AVX2", "DEFAULT")
    assert _plugins.cpu_plugin_path().endswith({"AVX512": "_avx512.so", "AVX2": "_avx2.so", "DEFAULT": "cpu.so"}[cap])
    assert flow.backends.mkl.is_available() is False and flow.backends.nnpack.is_available() is False
    assert flow.backends.opt_einsum.is_available() is False and flow.backends.opt_einsum.enabled is False
    assert flow.backends.opt_einsum.get_opt_einsum() is None


def test_distributed_group_errors_and_debug_levels_match_torch():
    import torch.distributed as tdist

    assert dist.group.WORLD is None is tdist.group.WORLD  # before init_process_group
    for name in ("DistBackendError", "DistNetworkError", "QueueEmptyError", "DistStoreError"):
        ours, theirs = getattr(dist, name), getattr(tdist, name)
        assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__], name
    assert [m for m in dist.DebugLevel.__members__] == list(tdist.DebugLevel.__members__)
    assert dist.DebugLevel(2) is dist.DebugLevel.DETAIL
    assert dist.get_debug_level() == dist.DebugLevel.OFF
    try:
        dist.set_debug_level(dist.DebugLevel.DETAIL)
        assert dist.get_debug_level() is dist.DebugLevel.DETAIL
        with pytest.raises(TypeError, match="DebugLevel"):
            dist.set_debug_level(2)
    finally:
        dist.set_debug_level(dist.DebugLevel.OFF)


def test_debug_level_from_env(monkeypatch):
    monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "info")
    try:
        dist.set_debug_level_from_env()
        assert dist.get_debug_level() is dist.DebugLevel.INFO
        monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "LOUD")
        with pytest.raises(ValueError, match="OFF, INFO, or DETAIL"):
            dist.set_debug_level_from_env()
    finally:
        dist.set_debug_level(dist.DebugLevel.OFF)
