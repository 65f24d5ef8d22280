"""torch's private and rarely used names that libraries (torchvision) touch when they are imported: each
against torch where torch has it (hub._get_torch_home, model_zoo.tqdm, _C._log_api_usage_once,
_C._get_tracing_state, _C.DisableTorchFunctionSubclass, fx.wrap, ao.quantization stubs,
onnx.register_custom_op_symbolic, jit.annotations.BroadcastingList2, _dynamo.utils.is_compile_supported,
Dataset/Sampler/DataLoader subscripting)."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("env", [{}, {"TORCH_HOME": "/tmp/th_x"}, {"XDG_CACHE_HOME": "/tmp/xdg_y"}])
def test_get_torch_home_as_torch(monkeypatch, env):
    monkeypatch.delenv("TORCH_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    import torch.hub
    assert flow.hub._get_torch_home() == torch.hub._get_torch_home()
    assert flow.hub.get_dir() == torch.hub.get_dir()


def test_model_zoo_reexports_tqdm():
    from monoflow.utils.model_zoo import tqdm
    assert tqdm is flow.hub.tqdm
    assert list(tqdm([1, 2], disable=True)) == [1, 2]


def test_log_api_usage_and_tracing_state():
    assert flow._C._log_api_usage_once("a.b") is None
    assert torch._C._log_api_usage_once("a.b") is None
    with pytest.raises(TypeError):
        flow._C._log_api_usage_once(3)
    with pytest.raises(TypeError):
        torch._C._log_api_usage_once(3)
    assert flow._C._get_tracing_state() is None and torch._C._get_tracing_state() is None


def test_disable_torch_function_subclass_gives_plain_results():
    class Sub(flow.Tensor):
        pass

    class TSub(torch.Tensor):
        pass

    a = np.array([1.0, 2.0])
    with flow._C.DisableTorchFunctionSubclass(), torch._C.DisableTorchFunctionSubclass():
        m = flow.tensor(a).as_subclass(Sub) + 1
        t = torch.tensor(a).as_subclass(TSub) + 1
    assert type(m) is flow.Tensor and type(t) is torch.Tensor
    np.testing.assert_array_equal(m.numpy(), t.numpy())
    with flow._C.DisableTorchFunction():
        assert (flow.ones(1) + 1).item() == 2.0


def test_fx_wrap_returns_its_argument():
    def f(x):
        return x

    for lib in (torch, flow):
        scope = {"wrap": lib.fx.wrap, "f": f}
        exec("a = wrap(f)\nb = wrap('f')", scope)  # module level, where torch requires it
        assert scope["a"] is f and scope["b"] == "f"
        with pytest.raises(NotImplementedError, match="top level"):
            lib.fx.wrap(f)
    with pytest.raises(TypeError):
        exec("wrap(3)", {"wrap": flow.fx.wrap})


def test_quant_stubs_pass_input_through_as_torch():
    a = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    for name in ("QuantStub", "DeQuantStub"):
        m = getattr(flow.ao.quantization, name)()
        t = getattr(torch.ao.quantization, name)()
        np.testing.assert_array_equal(m(flow.tensor(a)).numpy(), t(torch.tensor(a)).numpy())
        assert isinstance(m, flow.nn.Module) and list(m.parameters()) == []
        assert getattr(flow.ao.quantization, name)(qconfig="q").qconfig == "q"


def test_onnx_custom_op_symbolic_registry():
    from monoflow.onnx import symbolic_helper, symbolic_opset11  # noqa: F401  (importable, as torch's)
    fn = lambda g, x: x  # noqa: E731
    flow.onnx.register_custom_op_symbolic("mf_ns::op", fn, 11)
    from monoflow.onnx import _custom_symbolics
    assert _custom_symbolics._symbolics[("mf_ns::op", 11)] is fn
    flow.onnx.unregister_custom_op_symbolic("mf_ns::op", 11)
    assert ("mf_ns::op", 11) not in _custom_symbolics._symbolics
    for lib in (torch, flow):
        with pytest.raises(lib.onnx.OnnxExporterError, match="domain::name"):
            lib.onnx.register_custom_op_symbolic("noseparator", fn, 11)
    assert symbolic_helper.parse_args("v", "f")(fn) is fn


def test_broadcasting_list_annotations_as_torch():
    import torch.jit.annotations as ta
    from monoflow.jit import annotations as ma
    for n in (1, 2, 3):
        assert getattr(ma, f"BroadcastingList{n}")[int] == getattr(ta, f"BroadcastingList{n}")[int]


def test_is_compile_supported():
    from monoflow._dynamo.utils import is_compile_supported
    assert is_compile_supported("cpu") is True
    with pytest.raises(RuntimeError):
        is_compile_supported("not_a_device")


def test_data_classes_subscript_as_torch():
    from monoflow.utils import data
    for name in ("Dataset", "IterableDataset", "Sampler", "DataLoader"):
        getattr(data, name)[int]
        getattr(torch.utils.data, name)[int]

    class Squares(data.Dataset[int]):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i * i

    assert data.DataLoader(Squares(), batch_size=3).__iter__().__next__().tolist() == [0, 1, 4]


def test_tensor_split_keywords_as_torch():
    a = np.arange(7)
    for kw in ({"sections": 3}, {"indices": [1, 5]}, {"tensor_indices_or_sections": [2, 4]},
               {"tensor_indices_or_sections": 2}):
        tk = {k: (torch.tensor(v) if k == "tensor_indices_or_sections" else v) for k, v in kw.items()}
        mk = {k: (flow.tensor(v) if k == "tensor_indices_or_sections" else v) for k, v in kw.items()}
        want = [t.tolist() for t in torch.tensor_split(torch.tensor(a), **tk)]
        assert [t.tolist() for t in flow.tensor_split(flow.tensor(a), **mk)] == want
        assert [t.tolist() for t in flow.tensor(a).tensor_split(**mk)] == want
    assert [t.tolist() for t in flow.tensor_split(flow.tensor(a), 3)] == [[0, 1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError):
        flow.tensor_split(flow.tensor(a))
    with pytest.raises(TypeError):
        flow.tensor_split(flow.tensor(a), 2, sections=2)


def test_sample_dirichlet_as_torch():
    alpha = np.array([0.5, 2.0, 3.5])
    draws = flow._sample_dirichlet(flow.tensor(np.tile(alpha, (20000, 1))))
    ref = torch._sample_dirichlet(torch.tensor(np.tile(alpha, (20000, 1))))
    assert draws.dtype == flow.float64 and ref.dtype == torch.float64
    np.testing.assert_allclose(draws.sum(-1).numpy(), 1.0, rtol=1e-12)
    # means alpha / sum(alpha) and variances of the Dirichlet, within sampling error of both
    mean = alpha / alpha.sum()
    var = mean * (1 - mean) / (alpha.sum() + 1)
    for d in (draws.numpy(), ref.numpy()):
        np.testing.assert_allclose(d.mean(0), mean, atol=5 * np.sqrt(var / 20000).max())
        np.testing.assert_allclose(d.var(0), var, rtol=0.1)
    assert flow._sample_dirichlet(flow.tensor(3.0)).item() == torch._sample_dirichlet(torch.tensor(3.0)).item()
    g1, g2 = flow.Generator().manual_seed(3), flow.Generator().manual_seed(3)
    assert flow._sample_dirichlet(flow.ones(4), generator=g1).tolist() == \
        flow._sample_dirichlet(flow.ones(4), generator=g2).tolist()
    for lib in (torch, flow):
        with pytest.raises(NotImplementedError):
            lib._sample_dirichlet(lib.tensor([1, 2]))


def test_float_functional_as_torch():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    m, t = flow.nn.quantized.FloatFunctional(), torch.nn.quantized.FloatFunctional()
    assert flow.ao.nn.quantized.FloatFunctional is flow.nn.quantized.FloatFunctional
    ma, mb, ta, tb = flow.tensor(a), flow.tensor(b), torch.tensor(a), torch.tensor(b)
    pairs = [(m.add(ma, mb), t.add(ta, tb)), (m.add_scalar(ma, 2.0), t.add_scalar(ta, 2.0)),
             (m.mul(ma, mb), t.mul(ta, tb)), (m.mul_scalar(ma, 3.0), t.mul_scalar(ta, 3.0)),
             (m.cat([ma, mb], dim=1), t.cat([ta, tb], dim=1)), (m.add_relu(ma, mb), t.add_relu(ta, tb)),
             (m.matmul(ma, mb.T), t.matmul(ta, tb.T))]
    for got, want in pairs:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert type(m.activation_post_process).__name__ == type(t.activation_post_process).__name__ == "Identity"
    for f, x in ((m, ma), (t, ta)):
        with pytest.raises(RuntimeError, match="not intended"):
            f(x)
