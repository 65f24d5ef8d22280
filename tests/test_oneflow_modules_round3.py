"""Fixes from running OneFlow's module tests g..z (python/oneflow/test/modules) against monoflow:
OneFlow's top-level names that monoflow had only as Tensor methods, and linalg.cross's broadcasting."""
import importlib

import numpy as np
import pytest
import torch

import monoflow as flow


def _pair(data, dtype=np.float32):
    a = np.asarray(data, dtype=dtype)
    return flow.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("name, args, kwargs", [
    ("div_", (flow.tensor([2.0, -3.0, 4.0]),), {}),
    ("div_", (flow.tensor([2.0, -3.0, 4.0]),), {"rounding_mode": "floor"}),
    ("erfinv_", (), {}),
    ("gt_", (0.1,), {}),
])
def test_inplace_functions_match_the_torch_methods(name, args, kwargs):
    data = np.array([0.5, -0.25, 0.75], np.float32)
    x, t = _pair(data)
    targs = tuple(torch.tensor(a.numpy()) if isinstance(a, flow.Tensor) else a for a in args)
    out = getattr(flow, name)(x, *args, **kwargs)
    expected = getattr(t, name)(*targs, **kwargs)
    assert out is x  # in place: the input itself comes back
    np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)


def test_masked_fill_and_index_add_in_place():
    x, t = _pair(np.arange(6).reshape(2, 3))
    mask = np.array([True, False, True])
    assert flow.masked_fill_(x, flow.tensor(mask), -1.5) is x
    t.masked_fill_(torch.tensor(mask), -1.5)
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    src = np.array([[1.0, 2.0, 3.0]], np.float32)
    assert flow.index_add_(x, 0, flow.tensor([1]), flow.tensor(src), alpha=2) is x
    t.index_add_(0, torch.tensor([1]), torch.tensor(src), alpha=2)
    np.testing.assert_array_equal(x.numpy(), t.numpy())


def test_as_strided_in_place_and_contiguous():
    x, t = _pair(np.arange(6))
    assert flow.as_strided_(x, (2, 2), (1, 2), 1) is x
    t.as_strided_((2, 2), (1, 2), 1)
    assert tuple(x.shape) == tuple(t.shape) and x.stride() == t.stride()
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    y, u = _pair(np.arange(6).reshape(2, 3))
    c = flow.contiguous(y.t())
    assert c.is_contiguous() and c.stride() == u.t().contiguous().stride()
    np.testing.assert_array_equal(c.numpy(), u.t().contiguous().numpy())
    assert flow.contiguous(y) is y  # already row-major: no copy, as Tensor.contiguous


def test_new_full_takes_the_dtype_and_device_of_its_input():
    x = flow.zeros(2, dtype=flow.int32)
    t = torch.zeros(2, dtype=torch.int32)
    out = flow.new_full(x, (2, 3), 7)
    expected = t.new_full((2, 3), 7)
    assert out.dtype == flow.int32 and out.device == x.device
    np.testing.assert_array_equal(out.numpy(), expected.numpy())
    assert flow.new_full(x, (1,), 0.5, dtype=flow.float64).dtype == flow.float64
    assert flow.new_full(x.float(), (2,), 1.0, requires_grad=True).requires_grad


def test_global_casts_as_functions():
    placement = flow.placement("cpu", ranks=[0])
    local = flow.arange(4.0)
    g = flow.to_global(local, placement, flow.sbp.broadcast)
    assert g.is_global and g.placement == placement and g.sbp == (flow.sbp.broadcast,)
    g2 = flow.global_to_global(g, sbp=flow.sbp.split(0))
    assert g2.sbp == (flow.sbp.split(0),)
    back = flow.to_local(g2)
    assert not back.is_global
    np.testing.assert_array_equal(back.numpy(), local.numpy())
    assert flow.local_to_global(local, placement, flow.sbp.broadcast).is_global


def test_functions_refuse_a_non_tensor_by_name():
    for name, args in [("div_", (2,)), ("contiguous", ()), ("to_local", ()), ("new_full", ((2,), 1))]:
        with pytest.raises(TypeError, match=name):
            getattr(flow, name)([1.0, 2.0], *args)


def test_dtype_helpers():
    all_dtypes = flow.dtypes()
    assert len(all_dtypes) == len(set(all_dtypes))
    for dt in (flow.bool, flow.uint8, flow.int8, flow.int32, flow.int64, flow.float16, flow.float32, flow.float64):
        assert dt in all_dtypes
        assert flow.convert_oneflow_dtype_to_numpy_dtype(dt) is flow.zeros(1, dtype=dt).numpy().dtype.type
    with pytest.raises(NotImplementedError, match="bfloat16"):
        flow.convert_oneflow_dtype_to_numpy_dtype(flow.bfloat16)
    with pytest.raises(TypeError, match="convert_oneflow_dtype_to_numpy_dtype"):
        flow.convert_oneflow_dtype_to_numpy_dtype("float32")


def test_mock_torch_is_reachable_from_the_package():
    # OneFlow programs write `import oneflow as flow; flow.mock_torch.enable()`
    assert flow.mock_torch is importlib.import_module("monoflow.mock_torch")
    assert callable(flow.mock_torch.enable) and callable(flow.mock_torch.disable)


def test_linalg_cross_broadcasts_different_numbers_of_dims():
    # OneFlow's test_linalg_cross_with_random_data_broadcast_different_num_axes: (4,5,3,5) x (3,5)-like other
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 5, 3, 5)), rng.standard_normal((1, 3, 5))
    xa, xb = flow.tensor(a, requires_grad=True), flow.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out = flow.linalg.cross(xa, xb, dim=2)
    expected = torch.linalg.cross(ta, tb.expand(4, 5, 3, 5), dim=2)  # torch wants equal ranks
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(xb.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
    # flow.cross takes the same rule and finds the dim of size 3 itself
    np.testing.assert_allclose(flow.cross(flow.tensor(a), flow.tensor(b)).numpy(), expected.detach().numpy(),
                               rtol=1e-12)
    with pytest.raises(RuntimeError, match="cross"):
        flow.linalg.cross(flow.ones(2, 3), flow.ones(4, 3))


def test_to_dlpack_shares_memory_with_torch_and_back():
    from monoflow.utils.dlpack import from_dlpack, to_dlpack  # torch.utils.dlpack's import line

    x = flow.arange(4.0)
    t = torch.utils.dlpack.from_dlpack(flow.to_dlpack(x))
    t[1] = 9.0  # the capsule views x's memory
    np.testing.assert_array_equal(x.numpy(), [0.0, 9.0, 2.0, 3.0])
    back = from_dlpack(to_dlpack(x))
    back[0] = -1.0
    assert x[0].item() == -1.0 and back.dtype == x.dtype
    u = torch.arange(3.0)
    np.testing.assert_array_equal(from_dlpack(torch.utils.dlpack.to_dlpack(u)).numpy(), u.numpy())
    with pytest.raises(TypeError, match="to_dlpack"):
        flow.to_dlpack(np.zeros(2))


@pytest.mark.parametrize("hidden, skip_final", [([16, 4], False), ([6], True), ([], False)])
def test_fused_mlp_matches_linear_relu_stack_in_torch(hidden, skip_final):
    flow.manual_seed(3)
    m = flow.nn.FusedMLP(8, hidden, 3, skip_final_activation=skip_final)
    names = [n for n, _ in m.named_parameters()]
    assert names == [f"{k}_{i}" for i in range(len(hidden) + 1) for k in ("weight", "bias")]  # OneFlow's names
    sizes = [8, *hidden, 3]
    assert [tuple(w.shape) for w in m.weights()] == [(sizes[i + 1], sizes[i]) for i in range(len(sizes) - 1)]
    for w in m.weights():  # Linear's default bound 1/sqrt(fan_in)
        assert float(w.abs().max()) <= 1 / np.sqrt(w.shape[1]) + 1e-7
    data = np.random.default_rng(1).standard_normal((5, 8)).astype(np.float32)
    x = flow.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    tws = [torch.tensor(w.detach().numpy(), requires_grad=True) for w in m.weights()]
    tbs = [torch.tensor(b.detach().numpy(), requires_grad=True) for b in m.biases()]
    t = tx
    for i, (w, b) in enumerate(zip(tws, tbs)):
        t = torch.nn.functional.linear(t, w, b)
        if i < len(tws) - 1 or not skip_final:
            t = t.relu()
    y = m(x)
    np.testing.assert_allclose(y.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)
    y.pow(2).sum().backward()
    t.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    for w, tw in zip(m.weights(), tws):
        np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)
    for b, tb in zip(m.biases(), tbs):
        np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="fused_mlp"):
        m(flow.randn(5, 7))  # wrong input width, named by the op


def test_boxing_nccl_settings_are_checked_and_recorded():
    nccl = flow.boxing.nccl
    assert importlib.import_module("monoflow.boxing.nccl") is nccl
    nccl.set_fusion_threshold_mbytes(16)
    nccl.set_fusion_max_ops_num(24)
    nccl.enable_use_compute_stream(True)
    nccl.allow_fuse_all_reduce(False)
    got = nccl.settings()
    assert got["set_fusion_threshold_mbytes"] == 16 and got["set_fusion_max_ops_num"] == 24
    assert got["enable_use_compute_stream"] is True and got["allow_fuse_all_reduce"] is False
    with pytest.raises(TypeError, match="set_stream_num"):
        nccl.set_stream_num(True)  # OneFlow asserts type(val) is int
    with pytest.raises(TypeError, match="allow_fuse_broadcast"):
        nccl.allow_fuse_broadcast(1)
    with pytest.raises(ValueError, match="set_fusion_threshold_mbytes"):
        nccl.set_fusion_threshold_mbytes(-1)
    got["set_stream_num"] = 99  # a copy: the recorded settings stay
    assert "set_stream_num" not in nccl.settings() or nccl.settings()["set_stream_num"] != 99


def _autocast_trace(lib):
    """The observable autocast state through a sequence of torch's setters, for torch or monoflow."""
    x = lib.ones(2, 2)
    out = [lib.is_autocast_enabled("cpu")]
    lib.set_autocast_enabled("cpu", True)
    out += [lib.is_autocast_enabled("cpu"), str((x @ x).dtype), str(lib.nn.functional.linear(x, x).dtype),
            str((x + x).dtype)]
    with lib.autocast("cpu", enabled=False):
        out += [lib.is_autocast_enabled("cpu"), str((x @ x).dtype)]
        lib.set_autocast_enabled("cpu", True)  # changes the region only
        out += [lib.is_autocast_enabled("cpu")]
    out += [lib.is_autocast_enabled("cpu")]
    lib.set_autocast_dtype("cpu", lib.float16)
    out += [str(lib.get_autocast_dtype("cpu")), str((x @ x).dtype)]
    lib.set_autocast_enabled("cpu", False)
    out += [str((x @ x).dtype), str(lib.get_autocast_dtype("cpu"))]
    lib.set_autocast_cache_enabled(False)
    out += [lib.is_autocast_cache_enabled()]
    with lib.autocast("cpu"):  # a region without dtype/cache_enabled takes the settings
        out += [str(lib.get_autocast_dtype("cpu")), lib.is_autocast_cache_enabled(), str((x @ x).dtype)]
    lib.set_autocast_cache_enabled(True)
    lib.set_autocast_dtype("cpu", lib.bfloat16)
    lib.set_autocast_enabled(True)  # torch's one-argument form: cuda
    out += [lib.is_autocast_enabled(), lib.is_autocast_enabled("cpu")]
    lib.set_autocast_enabled(False)
    return [o.replace("torch.", "").replace("monoflow.", "") if isinstance(o, str) else o for o in out]


def test_autocast_setters_follow_torch():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = _autocast_trace(torch)
            got = _autocast_trace(flow)
        finally:
            for lib in (torch, flow):
                lib.set_autocast_enabled("cpu", False)
                lib.set_autocast_dtype("cpu", lib.bfloat16)
                lib.set_autocast_cache_enabled(True)
    assert got == expected
    assert not flow.is_autocast_enabled("cpu") and (flow.ones(2, 2) @ flow.ones(2, 2)).dtype == flow.float32
    flow.set_autocast_cpu_dtype(flow.float16)
    assert flow.get_autocast_cpu_dtype() == flow.float16
    flow.set_autocast_cpu_dtype(flow.bfloat16)
    flow.set_autocast_gpu_dtype(flow.bfloat16)
    assert flow.get_autocast_gpu_dtype() == flow.bfloat16
    flow.set_autocast_gpu_dtype(flow.float16)
    flow.set_autocast_cpu_enabled(True)
    assert flow.is_autocast_cpu_enabled()
    flow.set_autocast_cpu_enabled(False)
    with pytest.raises(TypeError, match="set_autocast_enabled"):
        flow.set_autocast_enabled("cpu", 1)
    with pytest.raises(TypeError, match="set_autocast_dtype"):
        flow.set_autocast_dtype("cpu", "float16")
    with pytest.raises(TypeError, match="set_autocast_enabled"):
        flow.set_autocast_enabled(0, True)


def test_graph_to_graph_runs_a_function_as_a_graph():
    # OneFlow's test_slice: @flow.nn.Graph.to_graph over a function that assigns into a closure tensor
    expected = np.zeros((2, 3, 4, 5, 6))
    expected[0, ::1, ..., 2:3] = 1
    captured = flow.tensor(np.zeros((2, 3, 4, 5, 6)), dtype=flow.float32)

    @flow.nn.Graph.to_graph
    def assign():
        captured[0, ::1, ..., 2:3] = 1
        return captured

    np.testing.assert_array_equal(assign().numpy(), expected)
    np.testing.assert_array_equal(captured.numpy(), expected)  # the eager tensor sees the update

    @flow.nn.Graph.to_graph
    def affine(x, y):
        return x * 2 + y

    assert isinstance(affine.graph, flow.nn.Graph)
    for a in (1.0, 3.0):  # the second call replays the plan with new inputs
        x, y = np.full(3, a, np.float32), np.arange(3, dtype=np.float32)
        np.testing.assert_allclose(affine(flow.tensor(x), flow.tensor(y)).numpy(),
                                   (torch.tensor(x) * 2 + torch.tensor(y)).numpy())
