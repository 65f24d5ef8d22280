"""Names user programs call that monoflow lacked (issue 13): finfo/iinfo, thread
counts, pinned memory and get_device, top-level t/expand/repeat, dtype
construction, the profiler's record_function ranges. torch is the oracle."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
from monoflow.autograd import profiler

torch = pytest.importorskip("torch")

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")


# ------------------------------------------------------------ finfo / iinfo

@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_torch(name):
    ours, ref = flow.finfo(getattr(flow, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(ref, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(ref, attr)), attr
    assert repr(ours) == repr(ref)


@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_finfo_of_complex_is_its_parts_as_torch(name):
    if not hasattr(flow, name):
        pytest.skip(f"this build has no {name}")
    ours, ref = flow.finfo(getattr(flow, name)), torch.finfo(getattr(torch, name))
    assert repr(ours) == repr(ref) and ours.bits == ref.bits
    with pytest.raises(TypeError, match="requires an integer input type"):
        flow.iinfo(getattr(flow, name))


def test_finfo_default_follows_default_dtype():
    assert flow.finfo().dtype == "float32"
    flow.set_default_dtype(flow.float64)
    try:
        assert flow.finfo() == flow.finfo(flow.float64)
    finally:
        flow.set_default_dtype(flow.float32)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_torch(name):
    ours, ref = flow.iinfo(getattr(flow, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(ours, attr) == getattr(ref, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(ref, attr)), attr
    assert repr(ours) == repr(ref)


def test_info_limits_are_the_dtypes_own():
    # The limits round-trip through tensors of the dtype: max is representable, 2*max is not.
    for name in ("float16", "float32", "float64"):
        info = flow.finfo(getattr(flow, name))
        t = flow.tensor([info.max, info.tiny, 1 + info.eps], dtype=getattr(flow, name))
        assert t.tolist() == [info.max, info.tiny, 1 + info.eps]
        assert math.isinf(flow.tensor([info.max], dtype=getattr(flow, name)).mul(2).item())
    for name in INTS:
        info = flow.iinfo(getattr(flow, name))
        assert flow.tensor([info.min, info.max], dtype=getattr(flow, name)).tolist() == [info.min, info.max]


def test_info_errors_match_torch():
    with pytest.raises(TypeError, match="requires a floating point input type"):
        flow.finfo(flow.int32)
    with pytest.raises(TypeError, match="requires a floating point input type"):
        flow.finfo(flow.bool)
    with pytest.raises(TypeError, match="requires an integer input type"):
        flow.iinfo(flow.float32)
    with pytest.raises(TypeError, match="bool is not supported by monoflow.iinfo"):
        flow.iinfo(flow.bool)
    with pytest.raises(TypeError, match=r"finfo\(\): argument 'type' \(position 1\) must be monoflow.dtype, not str"):
        flow.finfo("float32")
    with pytest.raises(TypeError):
        flow.iinfo()
    with pytest.raises(TypeError):
        hash(flow.finfo(flow.float32))


# ------------------------------------------------------------ dtype objects

def test_dtype_objects_cannot_be_constructed():
    for args in (("int64",), (), (6,)):
        with pytest.raises(TypeError, match="cannot create 'monoflow.dtype' instances"):
            type(flow.float32)(*args)
    with pytest.raises(TypeError, match="cannot create 'monoflow.dtype' instances"):
        type(flow.float32).__new__(type(flow.float32))
    import pickle
    assert pickle.loads(pickle.dumps(flow.bfloat16)) is flow.bfloat16


# ------------------------------------------------------------ threads

def test_set_num_threads_round_trip_and_still_computes():
    before = flow.get_num_threads()
    assert before >= 1
    a = np.random.default_rng(0).standard_normal((300, 300)).astype(np.float32)
    ref = a @ a
    try:
        for n in (1, 3, 2):
            flow.set_num_threads(n)
            assert flow.get_num_threads() == n
            x = flow.tensor(a)
            np.testing.assert_allclose((x @ x).numpy(), ref, rtol=1e-4, atol=1e-3)
    finally:
        flow.set_num_threads(before)
    assert flow.get_num_threads() == before


@pytest.mark.parametrize("bad, message", [(0, "expects a positive integer"), (-2, "expects a positive integer"),
                                          (1.5, "expects an int, but got float"), ("2", "expects an int, but got str"),
                                          (True, "expects an int, but got bool")])
def test_set_num_threads_errors_match_torch(bad, message):
    with pytest.raises(RuntimeError, match=message):
        flow.set_num_threads(bad)
    with pytest.raises(RuntimeError, match=message):
        torch.set_num_threads(bad)


def test_set_num_threads_refuses_huge_counts():
    # torch 2.13 accepts 10**6 and segfaults at the next kernel; monoflow refuses it up front.
    from monoflow._threads import _MAX_THREADS
    code = ("import monoflow as flow\n"
            "before = flow.get_num_threads()\n"
            "for f in (flow.set_num_threads, flow.set_num_interop_threads):\n"
            "    for n in (10**6, %d):\n"
            "        try:\n            f(n)\n        except ValueError as e:\n            print('E', e)\n"
            "assert flow.get_num_threads() == before and flow.get_num_interop_threads() == 1\n"
            "a = flow.ones(200, 200)\nprint((a @ a).sum().item())\n") % (_MAX_THREADS + 1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 5 and lines[-1] == "8000000.0"
    assert all(line.startswith("E set_num_threads: ") for line in lines[:2])
    assert all(line.startswith("E set_num_interop_threads: ") for line in lines[2:4])
    assert f"at most {_MAX_THREADS}" in lines[0]


def test_huge_thread_count_in_the_environment_is_capped():
    # An environment cannot be refused with an error: the team is capped where set_num_threads refuses
    # (libgomp ended the process at 10**5 threads before).
    from monoflow._threads import _MAX_THREADS
    code = ("import monoflow as flow; a = flow.ones(200, 200); "
            "print(flow.get_num_threads(), (a @ a).sum().item())")
    env = {**os.environ, "MONOFLOW_NUM_THREADS": "100000"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(_MAX_THREADS), "8000000.0"]


def test_thread_count_reaches_the_kernel_team():
    # The environment sizes the team in a fresh process; set_num_threads then overrides it.
    code = ("import monoflow as flow; a = flow.get_num_threads(); flow.set_num_threads(1); "
            "x = flow.ones(512, 512); (x @ x).sum().item(); print(a, flow.get_num_threads())")
    env = {**os.environ, "MONOFLOW_NUM_THREADS": "3"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "1"]


def test_interop_threads_set_once_as_torch():
    code = ("import monoflow as flow\n"
            "assert flow.get_num_interop_threads() == 1\n"
            "try:\n    flow.set_num_interop_threads(0)\nexcept RuntimeError as e:\n    print('E1', e)\n"
            "flow.set_num_interop_threads(4)\nprint(flow.get_num_interop_threads())\n"
            "try:\n    flow.set_num_interop_threads(2)\nexcept RuntimeError as e:\n    print('E2', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "E1 set_num_interop_threads expects a positive integer"
    assert lines[1] == "4"
    assert lines[2].startswith("E2 Error: cannot set number of interop threads")


def test_launcher_gives_each_rank_its_share_of_the_cores(monkeypatch):
    from monoflow.distributed import launch

    monkeypatch.delenv("MONOFLOW_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    args = launch.parse_args(["--nproc-per-node", "4", "train.py"])
    assert launch.rank_env(args, 0)["MONOFLOW_NUM_THREADS"] == "4"
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    args = launch.parse_args(["--nproc-per-node", "2", "train.py"])
    assert launch.rank_env(args, 1)["MONOFLOW_NUM_THREADS"] == "1"
    args = launch.parse_args(["--nproc-per-node", "4", "train.py"])
    assert launch.rank_env(args, 1)["MONOFLOW_NUM_THREADS"] == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    assert "MONOFLOW_NUM_THREADS" not in launch.rank_env(args, 0)


# ------------------------------------------------------------ pinned memory, get_device

def test_pin_memory_is_a_copy_and_get_device():
    x = flow.arange(6, dtype=flow.float32).reshape(2, 3).t()
    ref = torch.arange(6, dtype=torch.float32).reshape(2, 3).t()
    y = x.pin_memory()
    assert y is not x and y.tolist() == x.tolist() and y.dtype == x.dtype
    x.add_(1)
    assert y.tolist() == ref.tolist()  # not a view of x
    assert x.is_pinned() is False and y.is_pinned() is False  # no page-locked memory in monoflow
    assert x.get_device() == ref.get_device() == -1
    w = flow.ones(3, requires_grad=True)
    w.pin_memory().sum().backward()
    assert w.grad.tolist() == [1.0, 1.0, 1.0]


# ------------------------------------------------------------ t / expand / repeat

@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=2))
def test_t_matches_torch(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = flow.tensor(a, requires_grad=True)
    r = torch.tensor(a, requires_grad=True)
    out, ref = flow.t(x), torch.t(r)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    g = np.random.default_rng(1).standard_normal(ref.shape).astype(np.float32)
    out.backward(flow.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy())


def test_t_rejects_3d_like_torch():
    with pytest.raises(RuntimeError, match="expects a tensor with <= 2 dimensions"):
        flow.t(flow.ones(2, 2, 2))
    with pytest.raises(RuntimeError):
        torch.t(torch.ones(2, 2, 2))
    with pytest.raises(TypeError, match="t"):
        flow.t([1, 2])


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=3),
       lead=st.lists(st.integers(1, 3), max_size=2), data=st.data())
def test_expand_and_repeat_match_torch(shape, lead, data):
    a = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    target = lead + [data.draw(st.sampled_from([-1, 3])) if s == 1 else data.draw(st.sampled_from([-1, s]))
                     for s in shape]
    reps = lead + data.draw(st.lists(st.integers(1, 3), min_size=len(shape), max_size=len(shape)))
    x, r = flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    e, er = flow.expand(x, *target), r.expand(*target)
    np.testing.assert_array_equal(e.detach().numpy(), er.detach().numpy())
    p, pr = flow.repeat(x, reps), r.repeat(reps)
    np.testing.assert_array_equal(p.detach().numpy(), pr.detach().numpy())
    (e.sum() + (p * p).sum()).backward()
    (er.sum() + (pr * pr).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy(), rtol=1e-5)


def test_expand_repeat_errors():
    with pytest.raises(RuntimeError):
        flow.expand(flow.ones(2, 3), 4, 3)
    with pytest.raises(RuntimeError):
        flow.repeat(flow.ones(2, 3), (2,))
    with pytest.raises(TypeError, match="expand"):
        flow.expand("x", 2)


# ------------------------------------------------------------ autograd.profiler

def test_profiler_records_nested_ranges():
    with profiler.profile() as prof:
        for _ in range(3):
            with profiler.record_function("step"):
                with profiler.record_function("inner"):
                    x = flow.ones(64, 64)
                    (x @ x).sum().item()
    averages = {e.key: e for e in prof.key_averages()}
    assert {"step", "inner", "matmul"} <= set(averages)  # the ranges and the ops launched inside them
    assert averages["step"].count == 3 and averages["inner"].count == 3 and averages["matmul"].count == 3
    step, inner = averages["step"], averages["inner"]
    assert step.cpu_time_total >= inner.cpu_time_total > 0
    assert step.self_cpu_time_total == pytest.approx(step.cpu_time_total - inner.cpu_time_total)
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    lines = table.splitlines()
    assert "Self CPU %" in lines[1] and "# of Calls" in lines[1]
    assert lines[3].split()[0] == "step" and lines[3].split()[-1] == "3"


def test_profiler_outside_a_profile_records_nothing_and_decorates(tmp_path):
    @profiler.record_function("fn")
    def fn(v):
        return v + 1

    assert fn(1) == 2  # no profile active: a plain call
    with profiler.profile() as prof:
        fn(2)
    with profiler.profile(enabled=False) as off:
        fn(3)
    assert [e.key for e in prof.key_averages()] == ["fn"]
    assert list(off.key_averages()) == []
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    assert [(e["name"], e["cat"]) for e in trace if e["ph"] == "X"] == [("fn", "user_annotation")]


def test_profiler_errors():
    with pytest.raises(TypeError, match="record_function"):
        profiler.record_function(3)
    with profiler.profile() as prof:
        with pytest.raises(RuntimeError, match="still recording"):
            prof.key_averages()
    with pytest.raises(ValueError, match="sort_by"):
        prof.key_averages().table(sort_by="nope")


# ------------------------------------------------------------ set_printoptions

PRINT_CASES = [
    (dict(precision=2), [[1.23456, 2.5], [3.0, -0.001]]),
    (dict(sci_mode=False), [1e-5, 1.0, 12345.0]),
    (dict(sci_mode=True, precision=3), [1.5, 2.0]),
    (dict(sci_mode=True), [1.0, 2.0]),
    (dict(threshold=5, edgeitems=1), list(range(10))),
    (dict(profile="short"), [[0.123456] * 8] * 8),
    (dict(profile="full"), [0.5] * 1200),
    (dict(linewidth=30), [0.25] * 20),
    (dict(profile="nonsense"), [1.0]),
]


@pytest.mark.parametrize("options, values", PRINT_CASES)
def test_set_printoptions_matches_torch(options, values):
    try:
        flow.set_printoptions(**options)
        torch.set_printoptions(**options)
        a = np.asarray(values, dtype=np.float32)
        assert repr(flow.tensor(a)) == repr(torch.tensor(a))
    finally:
        flow.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert repr(flow.tensor([1e-5, 1.0])) == repr(torch.tensor([1e-5, 1.0]))  # sci_mode back to automatic


def test_set_printoptions_rejects_bad_types():
    with pytest.raises(TypeError, match="'precision' must be int"):
        flow.set_printoptions(precision="a")
    with pytest.raises(TypeError, match="'sci_mode' must be bool"):
        flow.set_printoptions(sci_mode="yes")
    flow.set_printoptions(profile="default")


# ------------------------------------------------------------ top-level in-place and nn names

from monoflow import ops_inplace  # noqa: E402

UNARY_DOMAIN = {"acosh_": (1.5, 3.0), "arccosh_": (1.5, 3.0), "log_": (0.5, 2.0), "log10_": (0.5, 2.0),
                "log2_": (0.5, 2.0), "log1p_": (0.0, 1.0), "sqrt_": (0.5, 2.0), "rsqrt_": (0.5, 2.0),
                "reciprocal_": (0.5, 2.0), "logit_": (0.2, 0.8)}
EXTRA_ARGS = {"clamp_": (-0.3, 0.3), "clip_": (-0.3, 0.3), "clamp_max_": (0.1,), "clamp_min_": (0.1,),
              "fill_": (2.5,), "lerp_": ("other", 0.25), "xlogy_": ("other",), "ldexp_": ("int_other",),
              "gcd_": ("int_other",), "lcm_": ("int_other",), "addmv_": None, "index_put_": None}


@pytest.mark.parametrize("name", ops_inplace._METHODS)
def test_top_level_inplace_matches_torch(name):
    assert hasattr(flow.Tensor, name)
    # torch exports them all at the top level but lerp_, a OneFlow name; its Tensor method is the oracle then
    assert hasattr(torch, name) or name == "lerp_"
    ref_fn = getattr(torch, name, None) or (lambda t, *a: getattr(t, name)(*a))
    if EXTRA_ARGS.get(name, ()) is None:
        pytest.skip(f"{name} takes tensors of other shapes; its Tensor method is tested with the op")
    lo, hi = UNARY_DOMAIN.get(name, (-0.9, 0.9))
    rng = np.random.default_rng(3)
    integer = name in ("gcd_", "lcm_")
    a = rng.integers(1, 20, (3, 4)) if integer else rng.uniform(lo, hi, (3, 4)).astype(np.float32)
    b = rng.integers(1, 20, (3, 4)) if integer else rng.uniform(0.5, 1.0, (3, 4)).astype(np.float32)
    ints = rng.integers(-2, 3, (3, 4))

    def args(lib, tensor):
        out = []
        for v in EXTRA_ARGS.get(name, ()):
            out.append(tensor(b) if v == "other" else tensor(ints) if v == "int_other" else v)
        return out

    x, r = flow.tensor(a), torch.tensor(a)
    got = getattr(flow, name)(x, *args(flow, flow.tensor))
    want = ref_fn(r, *args(torch, torch.tensor))
    assert got is x  # in place, returns its input
    np.testing.assert_allclose(x.numpy(), r.numpy(), rtol=1e-5, atol=1e-6)
    assert str(x.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]


def test_top_level_detach_and_fill():
    x = flow.ones(2, requires_grad=True)
    d = flow.detach(x)
    assert not d.requires_grad and d.tolist() == [1.0, 1.0]
    y = flow.fill(x, 3.0)
    assert y.tolist() == [3.0, 3.0] and x.tolist() == [1.0, 1.0]
    y.sum().backward()
    r = torch.ones(2, requires_grad=True)
    torch.fill(r, 3.0).sum().backward()
    assert x.grad.tolist() == r.grad.tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="exp_"):
        flow.exp_([1.0])


def _pair(shape, seed=4):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


NN_CASES = [
    ("conv2d", (2, 3, 6, 6), lambda lib, x: getattr(lib, "conv2d")(x, lib.ones(4, 3, 3, 3) * 0.1, None, 1, 1)),
    ("conv1d", (2, 3, 8), lambda lib, x: lib.conv1d(x, lib.ones(2, 3, 3) * 0.2, stride=2)),
    ("conv_transpose2d", (1, 2, 4, 4), lambda lib, x: lib.conv_transpose2d(x, lib.ones(2, 3, 2, 2), stride=2)),
    ("max_pool2d", (2, 3, 6, 6), lambda lib, x: lib.max_pool2d(x, 2)),
    ("max_pool2d_stride", (2, 3, 7, 7), lambda lib, x: lib.max_pool2d(x, 3, 2, 1)),
    ("max_pool1d", (2, 3, 9), lambda lib, x: lib.max_pool1d(x, 3)),
    ("max_pool3d", (1, 2, 4, 4, 4), lambda lib, x: lib.max_pool3d(x, 2)),
    ("avg_pool1d", (2, 3, 9), lambda lib, x: lib.avg_pool1d(x, 3, 2)),
    ("adaptive_avg_pool1d", (2, 3, 9), lambda lib, x: lib.adaptive_avg_pool1d(x, 4)),
    ("adaptive_max_pool1d", (2, 3, 9), lambda lib, x: lib.adaptive_max_pool1d(x, 4)[0]),
    ("layer_norm", (2, 3, 4), lambda lib, x: lib.layer_norm(x, [4])),
    ("group_norm", (2, 4, 3), lambda lib, x: lib.group_norm(x, 2)),
    ("dropout_eval", (3, 4), lambda lib, x: lib.dropout(x, 0.5, False)),
    ("threshold", (3, 4), lambda lib, x: lib.threshold(x, 0.1, -1.0)),
    ("pixel_shuffle", (1, 4, 2, 2), lambda lib, x: lib.pixel_shuffle(x, 2)),
    ("pixel_unshuffle", (1, 1, 4, 4), lambda lib, x: lib.pixel_unshuffle(x, 2)),
    ("cosine_similarity", (3, 4), lambda lib, x: lib.cosine_similarity(x, x * 2 + 1)),
    ("pairwise_distance", (3, 4), lambda lib, x: lib.pairwise_distance(x, x * 0.5)),
    ("pdist", (4, 3), lambda lib, x: lib.pdist(x)),
    ("hardshrink", (3, 4), lambda lib, x: lib.hardshrink(x, 0.3)),
    ("prelu", (2, 3, 4), lambda lib, x: lib.prelu(x, lib.ones(3) * 0.2)),
    ("channel_shuffle", (1, 4, 2, 2), lambda lib, x: lib.channel_shuffle(x, 2)),
    ("rrelu_eval", (3, 4), lambda lib, x: lib.rrelu(x)),
]


@pytest.mark.parametrize("name, shape, fn", NN_CASES, ids=[c[0] for c in NN_CASES])
def test_top_level_nn_names_match_torch(name, shape, fn):
    x, r = _pair(shape)
    out, ref = fn(flow, x), fn(torch, r)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_adaptive_pools_oneflow_names_and_max_pool_indices():
    x, _ = _pair((1, 2, 6, 6))
    assert flow.adaptive_avg_pool2d(x, 3).shape == (1, 2, 3, 3)
    assert flow.adaptive_avg_pool3d(flow.ones(1, 1, 4, 4, 4), 2).shape == (1, 1, 2, 2, 2)
    v, i = flow.adaptive_max_pool1d(flow.tensor([[[1.0, 5.0, 2.0, 0.0]]]), 2)
    vr, ir = torch.adaptive_max_pool1d(torch.tensor([[[1.0, 5.0, 2.0, 0.0]]]), 2)
    assert v.tolist() == vr.tolist() and i.tolist() == ir.tolist()


# ------------------------------------------------------------ small names

def test_old_tensor_names_match_torch():
    x, r = flow.ones(2, 3, 4), torch.ones(2, 3, 4)
    assert x.ndimension() == r.ndimension() == 3
    assert x.nelement() == r.nelement() == 24
    assert x.is_same_size(flow.zeros(2, 3, 4)) and not x.is_same_size(flow.zeros(3, 2, 4))
    assert r.is_same_size(torch.zeros(2, 3, 4)) and not r.is_same_size(torch.zeros(3, 2, 4))
    with pytest.raises(TypeError, match="is_same_size"):
        x.is_same_size([2, 3, 4])


def test_float32_matmul_precision_round_trip_as_torch():
    assert flow.get_float32_matmul_precision() == "highest"
    a = np.random.default_rng(5).standard_normal((32, 32)).astype(np.float32)
    full = (flow.tensor(a) @ flow.tensor(a)).numpy()
    try:
        for p in ("high", "medium"):
            flow.set_float32_matmul_precision(p)
            assert flow.get_float32_matmul_precision() == p
            # monoflow keeps float32 precision under every setting
            np.testing.assert_array_equal((flow.tensor(a) @ flow.tensor(a)).numpy(), full)
        with pytest.warns(UserWarning, match="has no effect"):
            flow.set_float32_matmul_precision("bad")
        assert flow.get_float32_matmul_precision() == "medium"
    finally:
        flow.set_float32_matmul_precision("highest")


# ------------------------------------------------------------ windows

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(WINDOWS), n=st.integers(0, 40), periodic=st.booleans(),
       dtype=st.sampled_from(["float32", "float64"]))
def test_windows_match_torch(name, n, periodic, dtype):
    ours = getattr(flow, name)(n, periodic, dtype=getattr(flow, dtype))
    ref = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
    assert ours.dtype == getattr(flow, dtype) and tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6 if dtype == "float32" else 1e-12)


def test_window_arguments_and_errors():
    np.testing.assert_allclose(flow.hamming_window(8, False, 0.5, 0.5).numpy(),
                               torch.hamming_window(8, False, 0.5, 0.5).numpy(), atol=1e-6)
    np.testing.assert_allclose(flow.kaiser_window(9, beta=3.0).numpy(), torch.kaiser_window(9, True, 3.0).numpy(),
                               rtol=1e-5)
    assert flow.hann_window(3, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        flow.hann_window(-1)
    with pytest.raises(RuntimeError, match="expects floating point dtypes"):
        flow.blackman_window(3, dtype=flow.int64)
    with pytest.raises(TypeError, match="window_length"):
        flow.hann_window(2.5)


# ------------------------------------------------------------ special functions under torch's names

SPECIAL = [("erfinv", (-0.9, 0.9), ()), ("lgamma", (0.2, 5.0), ()), ("digamma", (0.3, 5.0), ()),
           ("i0", (-3.0, 3.0), ()), ("polygamma", (0.5, 4.0), (1,)), ("mvlgamma", (2.0, 5.0), (2,))]


@pytest.mark.parametrize("name, domain, extra", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_names_match_torch(name, domain, extra):
    a = np.random.default_rng(6).uniform(*domain, (3, 4)).astype(np.float64)
    x, r = flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    if name == "polygamma":
        top, ref = flow.polygamma(extra[0], x), torch.polygamma(extra[0], r)
    else:
        top, ref = getattr(flow, name)(x, *extra), getattr(torch, name)(r, *extra)
    method = getattr(x, name)(*extra)
    np.testing.assert_allclose(top.detach().numpy(), ref.detach().numpy(), rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(method.detach().numpy(), ref.detach().numpy(), rtol=1e-7, atol=1e-10)
    top.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy(), rtol=1e-6, atol=1e-9)
    y, ry = flow.tensor(a), torch.tensor(a)
    assert getattr(y, name + "_")(*extra) is y
    getattr(ry, name + "_")(*extra)
    np.testing.assert_allclose(y.numpy(), ry.numpy(), rtol=1e-7, atol=1e-10)


def test_special_in_place_refuses_integers_as_torch():
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        flow.tensor([1, 2]).lgamma_()
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        torch.tensor([1, 2]).lgamma_()
    assert flow.lgamma(flow.tensor([1, 2])).dtype == flow.float32


# ------------------------------------------------------------ OneFlow's other names for existing ops

@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), seed=st.integers(0, 100))
def test_argwhere_and_gather_nd_match_torch(shape, seed):
    a = np.random.default_rng(seed).integers(-1, 2, shape)
    np.testing.assert_array_equal(flow.argwhere(flow.tensor(a)).numpy(), torch.argwhere(torch.tensor(a)).numpy())
    np.testing.assert_array_equal(flow.tensor(a).argwhere().numpy(), torch.tensor(a).argwhere().numpy())
    p = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    k = len(shape) if seed % 2 else 1
    idx = np.stack([np.random.default_rng(seed + i).integers(0, shape[i], 5) for i in range(k)], -1)
    x, r = flow.tensor(p, requires_grad=True), torch.tensor(p, requires_grad=True)
    out = flow.gather_nd(x, flow.tensor(idx))
    ref = r[tuple(torch.tensor(idx[..., i]) for i in range(k))]  # gather_nd's definition, in torch
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy())


def test_gather_nd_errors():
    with pytest.raises(IndexError, match="exceeds params.dim"):
        flow.gather_nd(flow.ones(2), flow.tensor([[0, 0]]))
    with pytest.raises(TypeError, match="integer tensor"):
        flow.gather_nd(flow.ones(2), flow.tensor([[0.0]]))


def test_as_strided_cast_new_ones_in_top_k():
    x, r = _pair((6,))
    out, ref = flow.as_strided(x, (2, 2), (1, 2), 1), torch.as_strided(r, (2, 2), (1, 2), 1)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), r.grad.numpy())
    c = flow.cast(flow.tensor([1.7, -1.2]), flow.int32)
    assert c.dtype == flow.int32 and c.tolist() == torch.tensor([1.7, -1.2]).to(torch.int32).tolist()
    with pytest.raises(TypeError, match="'dtype' must be monoflow.dtype"):
        flow.cast(flow.ones(1), "int32")
    z = flow.arange(6.0).reshape(2, 3)[:, 1:]  # (a strided view: written in place)
    assert z.zeros_() is z and z.tolist() == [[0.0, 0.0]] * 2
    n = flow.new_ones(flow.zeros(2, dtype=flow.int32), (2, 3))
    assert n.dtype == flow.int32 and n.tolist() == [[1, 1, 1]] * 2
    scores = np.random.default_rng(7).standard_normal((6, 5)).astype(np.float32)
    targets = np.array([0, 1, 2, 3, 4, 0])
    for k in (1, 2, 5, 9):
        top = torch.tensor(scores).topk(min(k, 5), dim=1).indices
        want = (top == torch.tensor(targets).reshape(-1, 1)).any(1)
        assert flow.in_top_k(flow.tensor(targets), flow.tensor(scores), k).tolist() == want.tolist()
    with pytest.raises(ValueError, match="in_top_k"):
        flow.in_top_k(flow.tensor([0]), flow.ones(2, 3), 1)


@pytest.mark.parametrize("name", ["mish", "softsign", "selu", "silu", "softplus", "quick_gelu"])
def test_activation_names_match_torch(name):
    x, r = _pair((3, 4))
    if name == "quick_gelu":  # OneFlow's definition, written out in torch
        ours, ref = flow.quick_gelu(x), r * torch.sigmoid(1.702 * r)
    else:
        ref = getattr(torch.nn.functional, name)(r)
        ours = getattr(x, name)()
        if hasattr(flow, name):
            np.testing.assert_allclose(getattr(flow, name)(x).detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                                       atol=1e-6)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    ours.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy(), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------ result_type, unravel_index, combinations, vander, ...

RESULT_OPERANDS = [("t", "int8", (2,)), ("t", "int64", ()), ("t", "uint8", (2,)), ("t", "float16", (2,)),
                   ("t", "float64", ()), ("t", "bool", (2,)), ("t", "int32", ()), ("n", 3, None),
                   ("n", 2.5, None), ("n", True, None)]


def _operand(lib, spec):
    kind, v, shape = spec
    if kind == "n":
        return v
    return lib.zeros(shape, dtype=getattr(lib, v))


@pytest.mark.parametrize("a", RESULT_OPERANDS, ids=str)
@pytest.mark.parametrize("b", RESULT_OPERANDS, ids=str)
def test_result_type_matches_torch(a, b):
    got = flow.result_type(_operand(flow, a), _operand(flow, b))
    want = torch.result_type(_operand(torch, a), _operand(torch, b))
    assert got.name == str(want).split(".")[-1]


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), data=st.data())
def test_unravel_index_matches_torch(shape, data):
    numel = int(np.prod(shape))
    idx = data.draw(st.lists(st.integers(-numel, numel - 1), min_size=0, max_size=6))
    got = flow.unravel_index(flow.tensor(idx, dtype=flow.int64), shape)
    want = torch.unravel_index(torch.tensor(idx, dtype=torch.int64), shape)
    assert [g.tolist() for g in got] == [w.tolist() for w in want]


def test_unravel_index_errors():
    with pytest.raises(ValueError, match="must be in range"):
        flow.unravel_index(flow.tensor([8]), (2, 4))
    with pytest.raises(TypeError, match="integer tensor"):
        flow.unravel_index(flow.tensor([1.0]), (2, 4))


@pytest.mark.parametrize("n, r, repl", [(4, 2, False), (4, 3, True), (3, 0, False), (2, 3, False), (1, 1, True)])
def test_combinations_match_torch(n, r, repl):
    a = np.arange(1, n + 1, dtype=np.float32)
    x, t = flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    out, ref = flow.combinations(x, r, repl), torch.combinations(t, r, repl)
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    if ref.numel():
        (out * out).sum().backward()
        (ref * ref).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("dtype, n, increasing", [("float32", None, False), ("float64", 4, True),
                                                   ("int32", 3, False), ("int64", 0, False)])
def test_vander_matches_torch(dtype, n, increasing):
    a = np.array([1, 2, 3], dtype=dtype)
    out, ref = flow.vander(flow.tensor(a), n, increasing), torch.vander(torch.tensor(a), n, increasing)
    assert out.dtype.name == str(ref.dtype).split(".")[-1] and tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    # torch's own vander backward fails (an in-place op in its formula), so the
    # gradient oracle is d/dx sum_j x**j = sum_j j * x**(j - 1)
    x, _ = _pair((3,))
    flow.vander(x, 4).sum().backward()
    v = x.detach().numpy().astype(np.float64)
    np.testing.assert_allclose(x.grad.numpy(), 1 + 2 * v + 3 * v ** 2, rtol=1e-5)


def test_scalar_tensor_empty_strided_sum_to_size():
    for v, kw in ((3, {}), (2.5, {}), (3, {"dtype": "int64"})):
        ours = flow.scalar_tensor(v, **{k: getattr(flow, d) for k, d in kw.items()})
        ref = torch.scalar_tensor(v, **{k: getattr(torch, d) for k, d in kw.items()})
        assert ours.dim() == 0 and ours.item() == ref.item() and ours.dtype.name == str(ref.dtype).split(".")[-1]
    e = flow.empty_strided((2, 3), (1, 2), dtype=flow.float64)
    assert e.stride() == torch.empty_strided((2, 3), (1, 2)).stride() and e.dtype == flow.float64
    with pytest.raises(RuntimeError, match="mismatch in length"):
        flow.empty_strided((2, 3), (1,))
    x, r = _pair((2, 3, 4))
    for size in ((3, 1), (1, 3, 4), (4,), (2, 1, 1)):
        out, ref = x.sum_to_size(*size), r.sum_to_size(*size)
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5)
    with pytest.raises(RuntimeError, match="is not expandable"):
        x.sum_to_size(5)
    with pytest.raises(RuntimeError):
        r.sum_to_size(5)


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), seed=st.integers(0, 100))
def test_scatter_nd_and_update_match_torch_index_put(shape, seed):
    rng = np.random.default_rng(seed)
    k = 1 + seed % len(shape)
    # distinct index tuples: with repeats the written value is unspecified (as in OneFlow and torch)
    flat = rng.permutation(int(np.prod(shape[:k])))[:3]
    idx = np.stack(np.unravel_index(flat, shape[:k]), -1)
    upd = rng.standard_normal((len(flat),) + tuple(shape[k:])).astype(np.float32)
    base = rng.standard_normal(shape).astype(np.float32)
    x, r = flow.tensor(base, requires_grad=True), torch.tensor(base, requires_grad=True)
    u, ru = flow.tensor(upd, requires_grad=True), torch.tensor(upd, requires_grad=True)
    out = flow.tensor_scatter_nd_update(x, flow.tensor(idx), u)
    ref = r.index_put(tuple(torch.tensor(idx[:, i]) for i in range(k)), ru)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    (out * out).sum().backward()
    (ref * ref).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy())
    np.testing.assert_allclose(u.grad.numpy(), ru.grad.numpy())
    z = flow.scatter_nd(flow.tensor(idx), flow.tensor(upd), shape)
    zr = torch.zeros(shape).index_put(tuple(torch.tensor(idx[:, i]) for i in range(k)), torch.tensor(upd))
    np.testing.assert_array_equal(z.numpy(), zr.numpy())


def test_slice_and_tensor_in_top_k():
    a = np.arange(60).reshape(3, 4, 5)
    got = flow.slice(flow.tensor(a), [[0, 3, 2], [None, None, None], [1, -1, 2]])
    np.testing.assert_array_equal(got.numpy(), a[0:3:2, :, 1:-1:2])
    with pytest.raises(ValueError, match="start, stop, step"):
        flow.slice(flow.tensor(a), [[0, 1]])
    with pytest.raises(IndexError, match="slices for a tensor of 3 dims"):
        flow.slice(flow.tensor(a), [[0, 1, 1]] * 4)
    scores = flow.tensor([[0.1, 0.9, 0.0], [0.5, 0.2, 0.3]])
    assert flow.tensor([1, 2]).in_top_k(scores, 2).tolist() == flow.in_top_k(flow.tensor([1, 2]), scores, 2).tolist()
    assert flow.tensor([1, 2]).in_top_k(scores, 1).tolist() == [True, False]


def test_combinations_and_vander_refuse_huge_results():
    with pytest.raises(RuntimeError, match="too many to build"):
        flow.combinations(flow.arange(1000), 10)
    with pytest.raises(RuntimeError, match="too large to build"):
        flow.vander(flow.arange(1000), 10 ** 6)
    assert flow.combinations(flow.arange(3), 5).shape == (0, 5)  # r > n: none, at once


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through Linux's /proc")
def test_set_num_threads_sizes_the_openmp_team():
    # A fixed team of n threads is the worker plus n - 1 OpenMP threads that
    # libgomp starts for the first parallel kernel: the process grows by 4.
    code = ("import os, monoflow as flow\n"
            "count = lambda: len(os.listdir('/proc/self/task'))\n"
            "flow.set_num_threads(1)  # before any kernel: no OpenMP thread exists yet\n"
            "x = flow.randn(512, 512); (x @ x).sum().item(); a = count()\n"
            "flow.set_num_threads(5); (x @ x).sum().item(); b = count()\n"
            "print(b - a)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k not in ("MONOFLOW_NUM_THREADS", "OMP_NUM_THREADS")})
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == 4
