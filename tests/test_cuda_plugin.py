"""The CUDA device plugin (devices/cuda).

Two halves. Without a GPU (this machine, CI): the library's shape (one
exported symbol, no link dependency on libcuda/libcudart/cuBLAS, the
embedded fatbin), its table read through ctypes (0 devices, every entry
point failing cleanly with a message, the kernels it registers all known
to the core), and monoflow skipping it quietly. With a GPU (tests/gpu/run.sh):
values of every kernel family on "cuda" against the CPU's.

The library is monoflow/lib/libmonoflow_cuda.so when the build found nvcc,
or $MONOFLOW_CUDA_PLUGIN (e.g. a standalone build of devices/cuda).
"""
import ctypes
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import monoflow as flow
from monoflow import _plugins
from monoflow.devices.conformance import abi

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _plugin_path():
    for path in (os.environ.get("MONOFLOW_CUDA_PLUGIN"), os.path.join(_plugins.lib_dir(), "libmonoflow_cuda.so")):
        if path and os.path.exists(path):
            return path
    return None


PLUGIN = _plugin_path()
needs_library = pytest.mark.skipif(PLUGIN is None, reason="the CUDA plugin was not built (no nvcc at build time)")


def _cuda_ready():
    if flow.cuda.is_available():
        return True
    if PLUGIN is None:
        return False
    try:
        flow.devices.load(PLUGIN)
    except RuntimeError:  # no driver or no GPU: "it reports no devices"
        return False
    return flow.cuda.is_available()


HAS_GPU = _cuda_ready()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU (or no CUDA plugin) on this machine")


def _run(code, **env):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, **env})
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


# ---------------------------------------------------------------- without a GPU

@needs_library
def test_exports_only_the_entry_point():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm not installed")
    out = subprocess.run([nm, "-D", "--defined-only", PLUGIN], capture_output=True, text=True, check=True).stdout
    symbols = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert symbols == ["monoflow_device_plugin"]


@needs_library
def test_links_no_cuda_library():
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("readelf not installed")
    out = subprocess.run([readelf, "-d", PLUGIN], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", out)
    assert needed, out
    assert not [n for n in needed if re.match(r"lib(cuda|cudart|cublas|cublasLt|nvrtc|nccl)\b", n)], needed


@needs_library
def test_embeds_a_fatbin():
    data = open(PLUGIN, "rb").read()
    assert b"\x50\xed\x55\xba" in data  # the fatbin header's magic (0xBA55ED50, little-endian)


def _table():
    lib = ctypes.CDLL(PLUGIN)
    entry = getattr(lib, abi.ENTRY_SYMBOL)
    entry.restype = ctypes.POINTER(abi.MFDevicePlugin)
    return lib, entry().contents


def _last_error(table):
    return ctypes.string_at(table.last_error()).decode()


@needs_library
def test_table_without_a_gpu():
    if HAS_GPU:
        pytest.skip("this machine has a GPU: the GPU tests below cover the table")
    lib, t = _table()
    assert t.struct_size == ctypes.sizeof(abi.MFDevicePlugin)
    assert (t.abi_major, t.device_type, t.flags) == (1, b"cuda", 0)
    assert t.device_count() == 0
    props = abi.MFDeviceProperties(struct_size=ctypes.sizeof(abi.MFDeviceProperties))
    assert t.get_properties(0, ctypes.byref(props)) == abi.ERR_INVALID_ARGUMENT
    assert "no such device 0" in _last_error(t)
    p = ctypes.c_void_p()
    assert t.allocate(0, 16, ctypes.byref(p)) == abi.ERR_INVALID_ARGUMENT
    s = abi.MFStream()
    assert t.stream_create(0, ctypes.byref(s)) == abi.ERR_INVALID_ARGUMENT
    assert t.memcpy_h2d(-1, None, None, None, 4) == abi.ERR_INVALID_ARGUMENT
    assert _last_error(t).startswith("cuda: ")


def _ops_declared():
    names = set()
    for fn in os.listdir(os.path.join(ROOT, "core", "include", "monoflow", "ops")):
        if fn.endswith(".def"):
            names |= set(re.findall(r"MF_OP\((\w+)", open(os.path.join(ROOT, "core", "include", "monoflow", "ops", fn)).read()))
    return names


@needs_library
def test_registers_only_known_ops():
    # register_kernels needs no GPU: record what it registers.
    lib, t = _table()
    seen = []

    @abi.RegisterKernelFn
    def register(registry, op, in_dtype, out_dtype, fn):
        seen.append((op.decode(), in_dtype, out_dtype, bool(fn)))
        return abi.OK

    host = abi.MFHostApi(struct_size=ctypes.sizeof(abi.MFHostApi), abi_major=1, abi_minor=2, registry=None,
                         register_kernel=register)
    assert t.register_kernels(ctypes.byref(host)) == abi.OK, _last_error(t)
    ops = {op for op, *_ in seen}
    assert all(fn for *_, fn in seen)
    assert {"fill", "copy", "add", "matmul", "sum", "softmax", "index", "index_put", "where"} <= ops
    assert ops <= _ops_declared(), ops - _ops_declared()
    # copy is registered per output dtype, so complex outputs fall back to the CPU
    assert not [s for s in seen if s[0] == "copy" and s[2] in (abi.DTYPE_ANY, 10, 11)]


@needs_library
def test_registration_failure_is_reported():
    lib, t = _table()

    @abi.RegisterKernelFn
    def refuse(registry, op, in_dtype, out_dtype, fn):
        return abi.ERR_INVALID_ARGUMENT

    host = abi.MFHostApi(struct_size=ctypes.sizeof(abi.MFHostApi), abi_major=1, abi_minor=2, registry=None,
                         register_kernel=refuse)
    assert t.register_kernels(ctypes.byref(host)) == abi.ERR_INVALID_ARGUMENT
    assert "registering kernel" in _last_error(t)


@needs_library
def test_monoflow_skips_it_quietly_without_devices():
    # MONOFLOW_CUDA_DISABLE makes the plugin see no driver even on a GPU machine.
    out = _run(
        "import warnings; warnings.simplefilter('error')\n"
        "import monoflow as flow\n"
        f"try:\n    flow.devices.load({PLUGIN!r})\nexcept RuntimeError as e:\n    print('refused:', e)\n"
        "print(flow.cuda.is_available(), flow.cuda.device_count(), 'cuda' in flow.devices.available())\n",
        MONOFLOW_CUDA_DISABLE="1")
    assert "it reports no devices" in out
    assert out.strip().endswith("False 0 False")


def test_cuda_queries_without_the_plugin_on_a_cpu_machine():
    if HAS_GPU:
        pytest.skip("this machine has a GPU")
    assert flow.cuda.is_available() is False
    assert flow.cuda.device_count() == 0


# ---------------------------------------------------------------- with a GPU

def _both(fn, *arrays):
    """fn on CPU tensors and on CUDA tensors built from the same arrays."""
    cpu = fn(*[flow.tensor(a) for a in arrays])
    gpu = fn(*[flow.tensor(a).to("cuda") for a in arrays])
    return cpu, gpu


def _numpy(t):
    t = t.cpu()
    if t.dtype in (flow.float16, flow.bfloat16):
        t = t.float()
    return t.numpy()


def _close(cpu, gpu, rtol=1e-5, atol=1e-6):
    if isinstance(cpu, (tuple, list)):
        for c, g in zip(cpu, gpu):
            _close(c, g, rtol, atol)
        return
    assert gpu.device.type == "cuda"
    assert gpu.dtype == cpu.dtype and tuple(gpu.shape) == tuple(cpu.shape)
    np.testing.assert_allclose(_numpy(gpu), _numpy(cpu), rtol=rtol, atol=atol, equal_nan=True)


RNG = np.random.default_rng(7)
FLOATS = [np.float32, np.float64]


def _rand(shape, dtype=np.float32, lo=-3, hi=3):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(lo, hi, size=shape).astype(dtype)
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


@needs_gpu
def test_properties_and_memory():
    assert flow.cuda.device_count() >= 1
    assert flow.cuda.get_device_name(0)
    x = flow.empty(1 << 20, device="cuda")
    assert flow.cuda.memory_allocated() >= 4 << 20
    del x


@needs_gpu
@pytest.mark.parametrize("n", [0, 1, 3, 1000, 65537])
def test_round_trip(n):
    a = _rand((n,))
    assert np.array_equal(flow.tensor(a).to("cuda").cpu().numpy(), a)
    assert np.array_equal(flow.tensor(a).to("cuda", non_blocking=True).numpy(), a)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.bool_])
def test_fill_and_casts(dtype):
    for target in (flow.float32, flow.float64, flow.float16, flow.bfloat16, flow.int64, flow.int32, flow.uint8, flow.bool):
        a = _rand((5, 7), np.float64, -100, 100).astype(dtype) if dtype is not np.bool_ else RNG.random((5, 7)) > 0.5
        _close(*_both(lambda x: x.to(target), a))
        _close(*_both(lambda x: x.t().to(target), a))  # strided source
    _close(flow.full((3, 4), 2.5), flow.full((3, 4), 2.5, device="cuda"))
    _close(flow.arange(3, 50, 3), flow.arange(3, 50, 3, device="cuda"))
    _close(flow.arange(0.5, 9.0, 0.7), flow.arange(0.5, 9.0, 0.7, device="cuda"), rtol=0, atol=0)
    _close(*_both(lambda x: (x.tril(), x.triu(1), x.t().tril(-2)), _rand((6, 5))))
    _close(flow.zeros(3, 4, dtype=flow.float16), flow.zeros(3, 4, dtype=flow.float16, device="cuda"))


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_binary_broadcast_strided(dtype):
    a, b = _rand((3, 1, 5), dtype), _rand((4, 5), dtype)
    b = np.where(b == 0, 1, b).astype(dtype)
    ops = [flow.add, flow.sub, flow.mul, flow.maximum, flow.minimum, flow.floor_divide, flow.remainder, flow.fmod,
           flow.eq, flow.lt, flow.ge, flow.logical_and]
    if np.issubdtype(dtype, np.floating):
        ops += [flow.div, flow.atan2, lambda x, y: flow.pow(x.abs(), y)]
    for op in ops:
        _close(*_both(op, a, b))
        _close(*_both(lambda x, y: op(x.transpose(0, 2), y.t()), a, b))
    _close(*_both(lambda x: (x + 2, 3 - x, x * 4), a))
    if np.issubdtype(dtype, np.floating):
        _close(*_both(lambda x: (x / 3, 2 / x), a), rtol=1e-6)


@needs_gpu
def test_half_types():
    a, b = _rand((64, 33)), _rand((64, 33))
    for dt in (flow.float16, flow.bfloat16):
        _close(*_both(lambda x, y: (x.to(dt) + y.to(dt), (x.to(dt) * y.to(dt)).exp(), x.to(dt).sum(1)), a, b),
               rtol=2e-2, atol=2e-2)


@needs_gpu
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary(dtype):
    a = _rand((17, 9), dtype)
    fns = [flow.exp, flow.tanh, flow.sigmoid, flow.relu, flow.abs, flow.neg, flow.erf, flow.floor, flow.round,
           flow.sin, flow.nn.functional.gelu, flow.nn.functional.silu, lambda x: flow.log(x.abs() + 1),
           lambda x: flow.sqrt(x.abs()), lambda x: flow.nn.functional.gelu(x, approximate="tanh"),
           flow.isnan, flow.sign, lambda x: x.clamp(-1, 1)]
    for fn in fns:
        _close(*_both(fn, a), rtol=1e-5, atol=1e-6)


@needs_gpu
def test_where_masked_fill():
    a, b = _rand((6, 5)), _rand((6, 5))
    _close(*_both(lambda x, y: flow.where(x > 0, x, y), a, b))
    _close(*_both(lambda x, y: (flow.lerp(x, y, 0.3), flow.lerp(x, y, 0.8)), a, b))
    _close(*_both(lambda x: x.masked_fill(x < 0, -7.0), a))


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_reductions(dtype):
    a = _rand((7, 130, 5), dtype)
    _close(*_both(lambda x: (x.sum(), x.sum(1), x.sum((0, 2), keepdim=True), x.amax(1), x.amin(0)), a), rtol=1e-5)
    _close(*_both(lambda x: x.transpose(0, 1).sum(0), a), rtol=1e-5)
    cpu, gpu = _both(lambda x: x.max(1), a)
    _close(tuple(cpu), tuple(gpu))
    _close(*_both(lambda x: x.argmax(2), a))
    _close(*_both(lambda x: ((x > 0).all(1), (x > 2).any(0), x.any()), a))
    if np.issubdtype(dtype, np.floating):
        _close(*_both(lambda x: (x.mean(1), x.var(1), x.std(0), x.var(1, unbiased=False)), a), rtol=1e-5)


@needs_gpu
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax(dtype):
    a = _rand((9, 300), dtype, -20, 20)
    F = flow.nn.functional
    _close(*_both(lambda x: (F.softmax(x, -1), F.log_softmax(x, -1), F.softmax(x, 0), F.log_softmax(x, 0)), a),
           rtol=1e-5, atol=1e-6)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_matmul(dtype):
    a, b = _rand((2, 1, 5, 7), dtype), _rand((3, 7, 4), dtype)
    _close(*_both(flow.matmul, a, b), rtol=1e-5, atol=1e-5)
    c, d = _rand((33, 65), dtype), _rand((65, 17), dtype)
    _close(*_both(lambda x, y: (x @ y, y.t() @ x.t(), x.t().t() @ y), c, d), rtol=1e-5, atol=1e-5)
    _close(*_both(lambda x, y: x[:, :0] @ y[:0], c, d))  # k == 0: zeros
    _close(*_both(lambda x, y: x[::2] @ y[:, ::3], c, d), rtol=1e-5, atol=1e-5)  # strides cuBLAS cannot take


@needs_gpu
def test_matmul_half():
    a, b = _rand((64, 48)), _rand((48, 32))
    for dt in (flow.float16, flow.bfloat16):
        _close(*_both(lambda x, y: x.to(dt) @ y.to(dt), a, b), rtol=3e-2, atol=1e-1)


@needs_gpu
def test_gather_scatter():
    F = flow.nn.functional
    w = _rand((10, 4))
    idx = np.array([[1, 2, 9], [0, 0, 5]], dtype=np.int64)
    _close(*_both(F.embedding, idx, w))
    _close(*_both(lambda x, i: x.index_select(0, i[0]), w, idx))
    _close(*_both(lambda x, i: flow.gather(x, 0, i[:, :2].t().repeat(1, 2)), w, idx))
    src = _rand((2, 3))
    _close(*_both(lambda s, i: flow.zeros(10, dtype=flow.float32, device=s.device).scatter_add(0, i.flatten(), s.flatten()),
                  src, idx))
    _close(*_both(lambda s, i: flow.zeros(10, dtype=flow.float32, device=s.device).index_put_((i.flatten(),), s.flatten(),
                                                                                              accumulate=True), src, idx))


@needs_gpu
def test_zero_division_reported_at_sync():
    a = flow.tensor([4, 5], device="cuda")
    b = flow.tensor([1, 0], device="cuda")
    with pytest.raises(ZeroDivisionError):
        (a // b).cpu()
    assert (a // flow.tensor([2, 5], device="cuda")).tolist() == [2, 1]  # cleared


@needs_gpu
def test_training_step_matches_cpu():
    xs = _rand((16, 20), lo=-1, hi=1)

    def run(device):
        flow.manual_seed(0)
        model = flow.nn.Sequential(flow.nn.Linear(20, 32), flow.nn.ReLU(), flow.nn.Linear(32, 5)).to(device)
        opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = flow.tensor(xs).to(device)
        y = flow.tensor(np.arange(16) % 5).to(device)
        losses = []
        for _ in range(3):
            loss = flow.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return np.array(losses), [p.detach().cpu().numpy() for p in model.parameters()]

    (lc, pc), (lg, pg) = run("cpu"), run("cuda")
    np.testing.assert_allclose(lg, lc, rtol=1e-4)
    for a, b in zip(pg, pc):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@needs_gpu
@pytest.mark.parametrize("groups,stride,padding,dilation", [(1, 1, 0, 1), (2, 2, 1, 1), (1, 1, 2, 2)])
def test_conv2d_forward_backward(groups, stride, padding, dilation):
    F = flow.nn.functional
    x, w, b = _rand((3, 4, 9, 8)), _rand((6, 4 // groups, 3, 3)), _rand((6,))

    def run(x, w, b):
        x.requires_grad_(True)
        w.requires_grad_(True)
        y = F.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)
        (y * y).sum().backward()
        return y, x.grad, w.grad

    _close(*_both(run, x, w, b), rtol=1e-4, atol=1e-4)


@needs_gpu
def test_random_streams_match_cpu():
    # the same Philox stream as the CPU: same seed, same numbers
    def draw(device):
        flow.manual_seed(123)
        return (flow.rand(1000, device=device), flow.randint(0, 7, (1000,), device=device),
                flow.bernoulli(flow.full((1000,), 0.3, device=device)), flow.randn(1000, device=device))

    cpu, gpu = draw("cpu"), draw("cuda")
    for c, g in zip(cpu[:3], gpu[:3]):
        assert np.array_equal(g.cpu().numpy(), c.numpy())
    np.testing.assert_allclose(gpu[3].cpu().numpy(), cpu[3].numpy(), rtol=1e-6, atol=1e-6)


@needs_gpu
def test_adam_step_matches_cpu():
    w0, g0 = _rand((40, 7)), _rand((40, 7))

    def run(device):
        p = flow.nn.Parameter(flow.tensor(w0).to(device))
        opt = flow.optim.Adam([p], lr=0.01)
        for _ in range(3):
            p.grad = flow.tensor(g0).to(device)
            opt.step()
        return p.detach()

    _close(run("cpu"), run("cuda"), rtol=1e-6, atol=1e-7)


@needs_gpu
def test_pooling_forward_backward():
    F = flow.nn.functional
    x = _rand((2, 3, 11, 10))
    fns = [lambda t: F.max_pool2d(t, 3, 2, 1), lambda t: F.avg_pool2d(t, 3, 2, 1),
           lambda t: F.avg_pool2d(t, 2, count_include_pad=False), lambda t: F.adaptive_avg_pool2d(t, (4, 3)),
           lambda t: F.adaptive_max_pool2d(t, 5)]
    for fn in fns:
        def run(t):
            t.requires_grad_(True)
            y = fn(t)
            (y * y).sum().backward()
            return y, t.grad

        _close(*_both(run, x), rtol=1e-6, atol=1e-6)
