"""The OpenCL device plugin (devices/opencl) on whatever OpenCL platform is
installed (PoCL in CI): its address resolution, asynchronous errors, events
across streams at the ABI, and the main job's workflows on "opencl" against
the CPU. Skipped when the plugin is not loaded (not built, or no platform)."""
import ctypes
import io

import numpy as np
import pytest

import monoflow as flow

pytestmark = pytest.mark.skipif("opencl" not in flow.devices.available(),
                                reason="the opencl plugin is not loaded (not built, or no OpenCL platform)")

MF_OK, MF_ERR_INVALID_ARGUMENT = 0, 3
FN = ctypes.CFUNCTYPE


class Plugin(ctypes.Structure):
    """MFDevicePlugin of core/include/monoflow/plugin.h, as far as the tests call it."""
    _fields_ = [
        ("struct_size", ctypes.c_size_t), ("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32),
        ("device_type", ctypes.c_char_p), ("flags", ctypes.c_uint32),
        ("last_error", FN(ctypes.c_char_p)),
        ("device_count", FN(ctypes.c_int32)),
        ("get_properties", ctypes.c_void_p),
        ("allocate", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p))),
        ("deallocate", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p)),
        ("memcpy_h2d", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)),
        ("memcpy_d2h", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)),
        ("memcpy_d2d", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)),
        ("memset", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t)),
        ("stream_create", FN(ctypes.c_int, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))),
        ("stream_destroy", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p)),
        ("stream_synchronize", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p)),
        ("stream_query", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p)),
        ("event_create", FN(ctypes.c_int, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))),
        ("event_destroy", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p)),
        ("event_record", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)),
        ("stream_wait_event", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)),
        ("event_query", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p)),
        ("event_synchronize", FN(ctypes.c_int, ctypes.c_int32, ctypes.c_void_p)),
    ]


@pytest.fixture(scope="module")
def abi():
    # The very library the core loaded (dlopen returns the same handle, so the
    # same live allocations).
    lib = ctypes.CDLL(flow.devices.info("opencl")["path"])
    lib.monoflow_device_plugin.restype = ctypes.POINTER(Plugin)
    return lib.monoflow_device_plugin().contents


def new(abi, kind):
    out = ctypes.c_void_p()
    assert getattr(abi, f"{kind}_create")(0, ctypes.byref(out)) == MF_OK
    return out


def alloc(abi, n):
    out = ctypes.c_void_p()
    assert abi.allocate(0, n, ctypes.byref(out)) == MF_OK, abi.last_error()
    return out


def test_memory_is_not_host_memory():
    assert not flow.devices.info("opencl")["host_memory"]


def test_an_opencl_device_on_the_host_processor_is_no_accelerator():
    # PoCL runs OpenCL on this machine's CPU: usable as device="opencl", but torch.accelerator-style code
    # (current_accelerator(), Generator(device="auto")) must not move a CPU program onto it
    import shutil
    import subprocess

    flags = [d["runs_on_host_cpu"] for d in flow._C.device_info("opencl")["devices"]]
    if shutil.which("clinfo"):  # the flag is OpenCL's own device type
        types = [line.split()[-1] for line in subprocess.run(["clinfo"], capture_output=True, text=True).stdout
                 .splitlines() if line.strip().startswith("Device Type")]
        assert sorted(flags) == sorted(t == "CPU" for t in types)
    if all(flags):
        assert flow.accelerator.current_accelerator() is None or flow.accelerator.current_accelerator().type != "opencl"
        assert flow.Generator(device="auto").device.type != "opencl"
    assert flow.ones(2, device="opencl").device.type == "opencl"  # still a device to use by name


def test_views_and_offsets_resolve_inside_their_allocation():
    base = np.arange(60, dtype=np.float32).reshape(6, 10)
    x = flow.tensor(base, device="opencl")
    # views start at offsets into one cl_mem: slices, steps, transposes, expands
    np.testing.assert_array_equal(x[2:5, 3:7].numpy(), base[2:5, 3:7])
    np.testing.assert_array_equal(x[1::2, ::3].numpy(), base[1::2, ::3])
    np.testing.assert_array_equal((x.t()[4:, 1:] * 2).numpy(), base.T[4:, 1:] * 2)
    np.testing.assert_array_equal((x[3:4] + x[:, 9:]).numpy(), base[3:4] + base[:, 9:])
    y = x[2:4]
    y += 1  # in place through an offset view
    base[2:4] += 1
    np.testing.assert_array_equal(x.numpy(), base)
    np.testing.assert_array_equal(x[5, 2:].cpu().numpy(), base[5, 2:])


def test_foreign_addresses_are_refused_with_a_message(abi):
    stream = new(abi, "stream")
    host = (ctypes.c_char * 64)()
    dev = alloc(abi, 64)
    try:
        # a host pointer as device memory, either side
        assert abi.memcpy_h2d(0, stream, ctypes.addressof(host), ctypes.addressof(host), 64) == MF_ERR_INVALID_ARGUMENT
        assert b"not opencl device memory" in abi.last_error()
        assert abi.memcpy_d2h(0, stream, ctypes.addressof(host), ctypes.addressof(host), 16) == MF_ERR_INVALID_ARGUMENT
        # past the end of a live allocation
        assert abi.memset(0, stream, dev.value + 32, 0, 64) == MF_ERR_INVALID_ARGUMENT
        assert b"not inside a live opencl allocation" in abi.last_error()
        # freeing something that is not an allocation's start
        assert abi.deallocate(0, dev.value + 8) == MF_ERR_INVALID_ARGUMENT
        assert abi.stream_synchronize(0, stream) == MF_OK
    finally:
        assert abi.deallocate(0, dev) == MF_OK
        assert abi.stream_destroy(0, stream) == MF_OK
    # and after the free the address is foreign too
    assert abi.memset(0, new(abi, "stream"), dev, 0, 8) == MF_ERR_INVALID_ARGUMENT


def test_events_order_work_across_streams(abi):
    n = 1 << 22  # 16 MiB: the first stream is still busy when the second one is told to wait
    s1, s2, ev = new(abi, "stream"), new(abi, "stream"), new(abi, "event")
    a, b = alloc(abi, n), alloc(abi, n)
    src = np.random.default_rng(0).integers(0, 255, n, dtype=np.uint8)
    out = np.zeros(n, np.uint8)
    try:
        assert abi.memset(0, s2, b, 0, n) == MF_OK
        assert abi.memcpy_h2d(0, s1, a, src.ctypes.data, n) == MF_OK
        assert abi.event_record(0, ev, s1) == MF_OK
        assert abi.stream_wait_event(0, s2, ev) == MF_OK
        assert abi.memcpy_d2d(0, s2, b, a, n) == MF_OK
        assert abi.memcpy_d2h(0, s2, out.ctypes.data, b, n) == MF_OK
        assert abi.stream_synchronize(0, s2) == MF_OK
        assert abi.event_query(0, ev) == MF_OK
        np.testing.assert_array_equal(out, src)
        # overlapping copy inside one allocation (OpenCL itself refuses these)
        assert abi.memcpy_d2d(0, s1, ctypes.c_void_p(a.value + 1), a, n - 1) == MF_OK
        assert abi.memcpy_d2h(0, s1, out.ctypes.data, a, n) == MF_OK
        assert abi.stream_synchronize(0, s1) == MF_OK
        np.testing.assert_array_equal(out[1:], src[:-1])
    finally:
        for p in (a, b):
            abi.deallocate(0, p)
        abi.event_destroy(0, ev)
        abi.stream_destroy(0, s1)
        abi.stream_destroy(0, s2)


def test_kernel_errors_arrive_at_the_next_synchronization_and_clear():
    a = flow.tensor([7, 8, 9], device="opencl")
    b = flow.tensor([2, 0, 3], device="opencl")
    with pytest.raises(Exception, match="floor_divide: integer division by zero"):
        (a // b).numpy()
    # reported once: the device works on
    assert (a // flow.tensor([2, 4, 3], device="opencl")).numpy().tolist() == [3, 2, 3]


def test_common_ops_run_natively():
    before = dict(flow.devices.fallback_counts())
    x = flow.randn(4, 3, 8, 8, device="opencl", requires_grad=True)
    w = flow.randn(5, 3, 3, 3, device="opencl", requires_grad=True)
    y = flow.nn.functional.conv2d(x, w, padding=1).relu()
    y = flow.nn.functional.max_pool2d(y, 2).flatten(1)
    loss = flow.nn.functional.cross_entropy(y @ flow.randn(80, 10, device="opencl"), flow.tensor([1, 2, 3, 4], device="opencl"))
    loss.backward()
    after = flow.devices.fallback_counts()
    new_fallbacks = {k: v for k, v in after.items() if k[0] == "opencl" and v != before.get(k, 0)}
    assert not {op for _, op in new_fallbacks} & {"conv2d", "conv_transpose2d", "conv2d_weight_grad", "max_pool2d",
                                                  "max_pool2d_backward", "matmul", "log_softmax", "copy", "add"}


def test_updates_round_as_written_like_the_cpu():
    # Note [No contraction] in devices/opencl/operands.cpp: p + a * g is two
    # roundings, not one fma, so the fused optimizer updates give the CPU's
    # bits, and those of the plain kernels an nn.Graph replays them with.
    from monoflow import _C

    rng = np.random.default_rng(3)
    p, g, b, d = (rng.standard_normal(4096).astype(np.float32) for _ in range(4))
    d = np.abs(d) + 0.5

    def run(device):
        t = [flow.tensor(a, device=device) for a in (p, g, b, d)]
        outs = [_C.add_alpha(t[0], t[1], -0.1), _C.addcmul(t[0], t[1], t[2], 0.3), _C.addcdiv(t[0], t[1], t[3], 0.3)]
        _C.sgd_momentum_(t[0], t[2], t[1], 0.9, 1.0, 0.1)
        return [o.numpy() for o in outs + t[:1] + t[2:3]]

    for got, want in zip(run("opencl"), run("cpu")):
        np.testing.assert_array_equal(got, want)
    # and the chain a graph replays for add_alpha: the product, then the sum
    x, y = flow.tensor(p, device="opencl"), flow.tensor(g, device="opencl")
    np.testing.assert_array_equal(_C.add_alpha(x, y, -0.1).numpy(), (x + y * -0.1).numpy())


class SmallCNN(flow.nn.Module):
    """The main job's layer kinds (examples/train_digits.py): conv, batch norm, pool, dropout, linear."""

    def __init__(self):
        super().__init__()
        nn = flow.nn
        self.net = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Dropout(0.2), nn.Linear(8 * 4 * 4, 10))

    def forward(self, x):
        return self.net(x)


def _train(device, steps=4):
    flow.manual_seed(0)
    model = SmallCNN()
    model.to(device)
    opt = flow.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
    rng = np.random.default_rng(1)
    data = flow.utils.data.TensorDataset(flow.tensor(rng.standard_normal((64, 1, 8, 8)).astype(np.float32)),
                                         flow.tensor(rng.integers(0, 10, 64)))
    loader = flow.utils.data.DataLoader(data, batch_size=16, shuffle=False)
    losses = []
    for step, (x, y) in zip(range(steps), loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        # The dropout masks: both devices draw the CPU's Philox stream, from a
        # seed set after the loader has drawn its own numbers (from the CPU's generator).
        flow.manual_seed(2 + step)
        assert x.device.type == device
        loss = flow.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, losses


def test_training_the_cnn_matches_the_cpu():
    cpu_model, cpu_losses = _train("cpu")
    ocl_model, ocl_losses = _train("opencl")
    np.testing.assert_allclose(ocl_losses, cpu_losses, rtol=1e-4, atol=1e-5)
    for (name, a), (_, b) in zip(cpu_model.state_dict().items(), ocl_model.state_dict().items()):
        assert b.device.type == "opencl", name
        if name in ("net.0.bias", "net.1.running_mean"):
            # The conv's bias is followed by batch norm: its gradient is rounding
            # noise, which AdamW scales to full steps (and the running mean sees it).
            continue
        np.testing.assert_allclose(b.cpu().numpy(), a.numpy(), rtol=1e-3, atol=1e-4, err_msg=name)


def test_checkpoint_saved_from_and_loaded_to_opencl():
    model, _ = _train("opencl", steps=1)
    buf = io.BytesIO()
    flow.save(model.state_dict(), buf)
    buf.seek(0)
    state = flow.load(buf, map_location="opencl")
    for name, v in model.state_dict().items():
        assert state[name].device.type == "opencl"
        np.testing.assert_array_equal(state[name].numpy(), v.numpy(), err_msg=name)
    buf.seek(0)
    on_cpu = flow.load(buf, map_location="cpu")
    fresh = SmallCNN().to("opencl")
    fresh.load_state_dict(on_cpu)
    x = flow.randn(2, 1, 8, 8)
    model.eval(), fresh.eval()
    np.testing.assert_allclose(fresh(x.to("opencl")).numpy(), model(x.to("opencl")).numpy(), rtol=1e-6)


def test_graph_runs_on_opencl():
    flow.manual_seed(0)
    model = flow.nn.Sequential(flow.nn.Linear(6, 5), flow.nn.GELU(), flow.nn.Linear(5, 3)).to("opencl")

    class Step(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = model

        def build(self, x):
            return self.m(x).softmax(-1)

    x = flow.randn(4, 6).to("opencl")
    out = Step()(x)
    assert out.device.type == "opencl"
    np.testing.assert_allclose(out.numpy(), model(x).softmax(-1).numpy(), rtol=1e-5, atol=1e-6)
