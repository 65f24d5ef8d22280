"""monoflow.cuda / backends / accelerator / amp and the default device: the
answers come from the device registry. This machine has no CUDA plugin, so
flow.cuda must answer like torch.cuda on a CPU-only machine; the test plugin
('testdev') stands in for an accelerator that is loaded."""
import warnings

import numpy as np
import pytest

import monoflow as flow
from monoflow._device_face import face
from helpers import TORCH as torch

pytestmark = pytest.mark.skipif("cuda" in flow.devices.available(), reason="these tests expect no CUDA plugin")


def test_cuda_queries_answer_like_torch_without_cuda():
    assert flow.cuda.is_available() is False
    assert flow.cuda.device_count() == 0
    assert flow.cuda.is_bf16_supported() is False
    assert flow.cuda.memory_allocated() == 0 and flow.cuda.max_memory_allocated() == 0
    assert flow.cuda.memory_reserved() == 0 and flow.cuda.max_memory_reserved() == 0
    assert flow.cuda.memory_stats() == {}
    flow.cuda.empty_cache()
    flow.cuda.reset_peak_memory_stats()
    assert flow.cuda.get_rng_state_all() == []
    if torch is not None and not torch.cuda.is_available():
        assert flow.cuda.is_available() == torch.cuda.is_available()
        assert flow.cuda.device_count() == torch.cuda.device_count()
        assert flow.cuda.memory_allocated() == torch.cuda.memory_allocated()


def test_cuda_seeding_is_a_silent_noop_without_cuda():
    flow.manual_seed(3)
    expected = flow.rand(4)
    flow.manual_seed(3)
    flow.cuda.manual_seed_all(123)  # must neither raise nor touch the CPU generator
    flow.cuda.manual_seed(123)
    flow.cuda.seed_all()
    np.testing.assert_array_equal(flow.rand(4).numpy(), expected.numpy())


@pytest.mark.parametrize("use", [
    lambda: flow.cuda.set_device(0),
    lambda: flow.cuda.current_device(),
    lambda: flow.cuda.synchronize(),
    lambda: flow.cuda.get_device_name(0),
    lambda: flow.cuda.get_device_properties(0),
    lambda: flow.cuda.get_rng_state(),
    lambda: flow.cuda.Stream(),
    lambda: flow.ones(2).cuda(),
    lambda: flow.nn.Linear(2, 2).cuda(),
    lambda: flow.cuda.device(0).__enter__(),
])
def test_using_cuda_without_it_says_what_is_missing(use):
    with pytest.raises(RuntimeError, match=r"'cuda'.*plugin.*monoflow\.devices\.load"):
        use()


@pytest.mark.parametrize("make", [lambda: flow.zeros(2, device="cuda"), lambda: flow.ones(2).to("cuda"),
                                  lambda: flow.randn(2, device="cuda:0")])
def test_creating_on_cuda_without_it_raises_naming_the_device(make):
    with pytest.raises(RuntimeError, match=r"Unknown device type 'cuda'.*monoflow\.devices\.load"):
        make()


def test_is_cuda_and_the_script_idiom():
    device = "cuda" if flow.cuda.is_available() else "cpu"
    x = flow.ones(3, device=device)
    assert x.is_cuda is False and x.device.type == "cpu"
    assert flow.cuda.device(None).__enter__() is None  # torch: device(None) is a no-op


def test_device_face_reports_a_loaded_plugin():
    """What flow.cuda does with a CUDA plugin, shown on the test plugin."""
    f = face("testdev")
    assert f.is_available() and f.device_count() == flow.devices.count("testdev")
    f.set_device(0)
    assert f.require("x") == "testdev:0"
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        f.set_device(f.device_count())
    props = f.properties(0)
    assert props.name == flow.devices.info("testdev")["devices"][0]["name"]
    f.reset_peak_memory_stats(0)
    before = f.stat("allocated_bytes", 0)
    x = flow.empty(1 << 16, dtype=flow.uint8, device="testdev:0")
    f.synchronize(0)
    assert f.stat("allocated_bytes", 0) >= before + (1 << 16)
    assert f.stat("peak_allocated_bytes", 0) >= before + (1 << 16)
    del x
    g = f.generator(0)
    g.manual_seed(5)
    state = g.get_state()
    a = flow.rand(5, device="testdev:0")
    g.set_state(state)
    np.testing.assert_array_equal(flow.rand(5, device="testdev:0").numpy(), a.numpy())


def test_accelerator_is_the_first_loaded_non_cpu_device():
    # (a device type that is the host's own processor, OpenCL on PoCL, is no accelerator)
    others = [t for t in flow.devices.available() if t != "cpu" and flow.devices.count(t) > 0
              and not all(d["runs_on_host_cpu"] for d in flow._C.device_info(t)["devices"])]
    assert flow.accelerator.is_available() == bool(others)
    if others:
        assert flow.accelerator.current_accelerator() == flow.device(others[0])
        assert flow.accelerator.device_count() == flow.devices.count(others[0])
        assert flow.accelerator.current_device_index() == 0
        flow.accelerator.synchronize()
        assert isinstance(flow.accelerator.memory_allocated(0), int)
    else:
        assert flow.accelerator.current_accelerator() is None and flow.accelerator.device_count() == 0


def test_backends_switches_are_settable_and_truthful():
    b = flow.backends
    prev = (b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32, b.cuda.matmul.allow_tf32)
    try:
        b.cudnn.benchmark = True
        b.cudnn.deterministic = True
        b.cudnn.allow_tf32 = False
        b.cuda.matmul.allow_tf32 = True
        assert b.cudnn.benchmark and b.cudnn.deterministic and not b.cudnn.allow_tf32 and b.cuda.matmul.allow_tf32
    finally:
        b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32, b.cuda.matmul.allow_tf32 = prev
    assert b.cudnn.enabled is True
    assert b.cudnn.is_available() is False and b.cuda.is_built() is False
    assert b.mps.is_available() is False and b.mps.is_built() is False
    assert b.mkldnn.is_available() is False
    assert isinstance(b.openmp.is_available(), bool)
    if torch is not None:  # torch's defaults
        assert b.cudnn.benchmark == torch.backends.cudnn.benchmark
        assert b.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32
        assert b.cuda.flash_sdp_enabled() == torch.backends.cuda.flash_sdp_enabled()
    b.cuda.enable_flash_sdp(False)
    try:
        assert b.cuda.flash_sdp_enabled() is False
    finally:
        b.cuda.enable_flash_sdp(True)


def test_default_device_is_used_by_creation_functions():
    assert flow.get_default_device() == flow.device("cpu")
    flow.set_default_device("testdev:0")
    try:
        assert flow.get_default_device() == flow.device("testdev:0")
        made = [flow.zeros(2), flow.ones(2), flow.empty(2), flow.full((2,), 3.0), flow.arange(3), flow.tensor([1.0]),
                flow.randn(2), flow.rand(2), flow.randint(0, 3, (2,)), flow.linspace(0, 1, 3), flow.eye(2)]
        assert all(t.device.type == "testdev" for t in made)
        assert flow.zeros(2, device="cpu").device.type == "cpu"  # an explicit device wins
    finally:
        flow.set_default_device(None)
    assert flow.zeros(2).device == flow.device("cpu")
    with pytest.raises(RuntimeError, match="Unknown device type 'cuda'"):
        flow.set_default_device("cuda")


def test_a_device_is_a_context_manager_for_the_default_device():
    # torch 2's `with torch.device(d):` idiom: modules and tensors built in the block land on d
    with flow.device("testdev:0") as d:
        assert d == flow.device("testdev:0") and flow.get_default_device() == d
        model = flow.nn.Linear(3, 2)
        with flow.device("cpu"):
            inner = flow.zeros(2)
        after_inner = flow.randn(2)
    assert model.weight.device.type == "testdev" and model.bias.device.type == "testdev"
    assert inner.device.type == "cpu" and after_inner.device.type == "testdev"
    assert flow.get_default_device() == flow.device("cpu") and flow.zeros(1).device.type == "cpu"
    with pytest.raises(ValueError):  # the default comes back when the block raises
        with flow.device("testdev:0"):
            raise ValueError
    assert flow.get_default_device() == flow.device("cpu")
    with pytest.raises(RuntimeError, match="'cuda'"):  # a device without a plugin is refused on entry
        with flow.device("cuda"):
            pass
    assert flow.get_default_device() == flow.device("cpu")


def test_set_default_tensor_type():
    try:
        flow.set_default_tensor_type("torch.DoubleTensor")
        assert flow.get_default_dtype() == flow.float64 and flow.zeros(1).dtype == flow.float64
        flow.set_default_tensor_type("monoflow.FloatTensor")
        assert flow.get_default_dtype() == flow.float32
        with pytest.raises(TypeError, match="floating-point"):
            flow.set_default_tensor_type("torch.LongTensor")
        with pytest.raises(RuntimeError, match="'cuda'"):
            flow.set_default_tensor_type("torch.cuda.FloatTensor")
    finally:
        flow.set_default_dtype(flow.float32)


# ---------------------------------------------------------------- amp


def _scaler_run(lib, scaler, steps, poison_step=None):
    lib.manual_seed(0)
    w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    x = lib.tensor([[1.0, 2.0], [3.0, -1.0]])
    scales = []
    for i in range(steps):
        opt.zero_grad()
        loss = (x @ w).pow(2).sum()
        if i == poison_step:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    return w.detach().numpy(), scales


@pytest.mark.skipif(torch is None, reason="torch is the oracle")
@pytest.mark.parametrize("fused", [False, True])
def test_cuda_grad_scaler_takes_oneflows_fused(fused):
    # OneFlow's flow.cuda.amp.GradScaler(..., fused=) (its test_amp_scaler passes it): accepted and
    # kept; without CUDA the scaler is disabled and runs like torch's either way
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = flow.cuda.amp.GradScaler(init_scale=128.0, growth_interval=1, fused=fused)
        ts = torch.amp.GradScaler("cuda", init_scale=128.0, growth_interval=1)
        assert s.fused is fused and s.is_enabled() is False
        ours, theirs = _scaler_run(flow, s, 3), _scaler_run(torch, ts, 3)
        np.testing.assert_allclose(ours[0], theirs[0].astype(np.float32), rtol=1e-6)
        assert ours[1] == theirs[1] == [1.0, 1.0, 1.0]
        with pytest.raises(TypeError, match="GradScaler\\(\\): argument 'fused' must be bool, not int"):
            flow.cuda.amp.GradScaler(fused=1)


@pytest.mark.skipif(torch is None, reason="torch is the oracle")
def test_grad_scaler_disabled_without_cuda_like_torch():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        s = flow.cuda.amp.GradScaler()
    assert any("not available" in str(w.message) for w in seen)
    assert s.is_enabled() is False and s.get_scale() == 1.0 and s.state_dict() == {}
    t = flow.ones(2)
    assert s.scale(t) is t
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = torch.amp.GradScaler("cuda")
    ours, theirs = _scaler_run(flow, s, 3), _scaler_run(torch, ts, 3)
    np.testing.assert_allclose(ours[0], theirs[0].astype(np.float32), rtol=1e-6)
    assert ours[1] == theirs[1] == [1.0, 1.0, 1.0]
    assert flow.amp.GradScaler("cpu", enabled=False).is_enabled() is False


@pytest.mark.skipif(torch is None, reason="torch is the oracle")
def test_grad_scaler_on_cpu_matches_torch_including_a_skipped_step():
    kw = dict(init_scale=2.0 ** 10, growth_interval=2)
    ours = _scaler_run(flow, flow.amp.GradScaler("cpu", **kw), 6, poison_step=3)
    theirs = _scaler_run(torch, torch.amp.GradScaler("cpu", **kw), 6, poison_step=3)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    assert ours[1] == theirs[1]
    s = flow.amp.GradScaler("cpu", **kw)
    _scaler_run(flow, s, 3)
    s2 = flow.amp.GradScaler("cpu")
    s2.load_state_dict(s.state_dict())
    assert s2.state_dict() == s.state_dict()


def test_autocast_faces():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with flow.cuda.amp.autocast():
            y = flow.ones(2) * 2
        with flow.autocast(device_type="cuda", dtype=flow.float16):
            pass
    assert y.dtype == flow.float32
    assert any("not available" in str(w.message) for w in seen)
    with flow.autocast("cpu", enabled=False):
        pass

    @flow.autocast("cpu", enabled=False)
    def f(a):
        return a + 1

    assert f(flow.ones(1)).item() == 2.0


def _cuda_style_script(torch, steps=30):
    """The opening lines and loop of a GPT-style training script written for CUDA."""
    import contextlib

    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.manual_seed(1337)
    torch.cuda.manual_seed_all(1337)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    device_type = "cuda" if "cuda" in device else "cpu"
    ctx = contextlib.nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type, torch.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaler = torch.cuda.amp.GradScaler(enabled=False)
    x = torch.tensor(np.linspace(-1, 1, 64, dtype=np.float32).reshape(16, 4)).to(device)
    y = x.sum(1, keepdim=True) * 0.5
    model = torch.nn.Linear(4, 1).to(device)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.1, -0.2, 0.3, -0.4]]))
        model.bias.zero_()
    opt = torch.optim.AdamW(model.parameters(), lr=0.05)
    for _ in range(steps):
        with ctx:
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
    return loss.item()


@pytest.mark.skipif(torch is None, reason="torch is the oracle")
def test_a_script_written_for_cuda_trains_on_cpu_like_torch():
    ours, theirs = _cuda_style_script(flow), _cuda_style_script(torch)
    assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-7)
    assert ours < 0.01
