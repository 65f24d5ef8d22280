"""The meta device: tensors with metadata and no data (Note [The meta device]).
Every op's result on meta must have the shape, dtype and strides the same op
gives on the CPU; reading values must raise, never crash."""
import io

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

import monoflow as flow
import monoflow.nn as nn
import monoflow.nn.functional as F

OPS = {  # name: f(x, y) on two (3, 4)-broadcastable float tensors
    "add": lambda x, y: x + y, "matmul": lambda x, y: x @ y.mT, "relu_sum": lambda x, y: F.relu(x).sum(0),
    "softmax": lambda x, y: x.softmax(-1), "cat": lambda x, y: flow.cat([x, y], 1),
    "stack": lambda x, y: flow.stack([x, y]),
    "t_contig": lambda x, y: x.t().contiguous(), "view": lambda x, y: x.reshape(-1), "select": lambda x, y: x[1:, ::2],
    "to_half": lambda x, y: x.to(flow.float16), "compare": lambda x, y: x > y, "argmax": lambda x, y: x.argmax(1),
    "max_dim": lambda x, y: x.max(0)[1], "layer_norm": lambda x, y: F.layer_norm(x, x.shape[-1:]),
    "where": lambda x, y: flow.where(x > 0, x, y), "mean_keep": lambda x, y: x.mean(-1, keepdim=True),
    "expand": lambda x, y: x[:, :1].expand(-1, 5), "permute": lambda x, y: x.unsqueeze(0).permute(2, 0, 1),
    "cumsum": lambda x, y: x.cumsum(0), "sort": lambda x, y: x.sort(1)[1], "topk": lambda x, y: x.topk(1)[0],
}


def meta_of(a):
    return flow.empty(a.shape, dtype=flow.float32, device="meta")


@pytest.mark.parametrize("name", sorted(OPS))
@given(shape=hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=5))
def test_results_have_the_cpus_metadata(name, shape):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    cpu = OPS[name](flow.tensor(a), flow.tensor(a[::-1].copy()))
    meta = OPS[name](meta_of(a), meta_of(a))
    assert meta.is_meta and meta.device.type == "meta"
    assert (meta.shape, meta.dtype, meta.stride()) == (cpu.shape, cpu.dtype, cpu.stride())


@given(st.integers(1, 4), st.integers(1, 4))
def test_backward_makes_meta_gradients(n, m):
    w = flow.empty(n, m, device="meta", requires_grad=True)
    (w @ w.t()).tanh().sum().backward()
    assert w.grad.is_meta and w.grad.shape == (n, m)


def test_a_model_built_on_meta_then_materialised():
    with flow.device("meta"):
        model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 36, 2))
    assert all(p.is_meta for p in model.parameters())
    assert model(flow.empty(2, 3, 8, 8, device="meta")).shape == (2, 2)
    model.to_empty(device="cpu")
    assert all(p.device.type == "cpu" and not p.is_meta for p in model.parameters())
    for m in model.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    out = model(flow.randn(2, 3, 8, 8))
    assert out.shape == (2, 2) and np.isfinite(out.detach().numpy()).all()


def test_load_state_dict_assign_onto_meta_takes_the_tensors():
    with flow.device("meta"):
        shell = nn.Linear(4, 3)
    real = nn.Linear(4, 3)
    shell.load_state_dict(real.state_dict(), assign=True)
    assert not shell.weight.is_meta and isinstance(shell.weight, nn.Parameter)
    np.testing.assert_array_equal(shell.weight.detach().numpy(), real.weight.detach().numpy())


def test_inits_and_random_fills_run_without_data():
    x = flow.empty(4, 4, device="meta")
    for fill in (nn.init.kaiming_uniform_, nn.init.xavier_normal_, nn.init.trunc_normal_, nn.init.orthogonal_,
                 nn.init.zeros_, lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.add_(1)):
        assert fill(x) is x and x.is_meta


def test_moving_to_meta_and_loading_onto_it():
    assert flow.randn(3).to("meta").is_meta
    buf = io.BytesIO()
    flow.save({"w": flow.randn(2, 3)}, buf)
    buf.seek(0)
    w = flow.load(buf, map_location="meta")["w"]
    assert w.is_meta and w.shape == (2, 3)
    assert flow.empty_like(w, device="cpu").device.type == "cpu" and flow.zeros_like(w).is_meta


@pytest.mark.parametrize("read", ["numpy", "item", "cpu", "tolist", "nonzero", "bool", "save"])
def test_reading_values_raises_not_implemented(read):
    x = flow.empty(1, device="meta")
    calls = {"numpy": x.numpy, "item": x.item, "cpu": x.cpu, "tolist": x.tolist, "nonzero": x.nonzero,
             "bool": lambda: bool(x), "save": lambda: flow.save(x, io.BytesIO())}
    with pytest.raises(NotImplementedError, match="meta"):
        calls[read]()


def test_repr_and_registry():
    x = flow.empty(2, 3, device="meta", dtype=flow.float64)
    assert repr(x) == "tensor(..., device='meta:0', size=(2, 3), dtype=monoflow.float64)"
    assert x.device == flow.device("meta") and str(x.device.type) == "meta"
    # not an accelerator, nor a device the cross-backend suite runs on
    assert "meta" not in flow.devices.available()
    assert flow.accelerator.current_accelerator() is None or flow.accelerator.current_accelerator().type != "meta"


def test_global_tensors_on_a_meta_placement_have_meta_shards():
    """OneFlow's ``placement("meta", ...)``: shapes, dtypes and SBP without data; the shard is a meta
    tensor, and ops and clone keep the placement."""
    P = flow.placement("meta", ranks=[0])
    for x in (flow.tensor([3, 2], placement=P, sbp=flow.sbp.broadcast),
              flow.Tensor(3, 2, placement=P, sbp=flow.sbp.broadcast),
              flow.ones(4, 2, placement=P, sbp=flow.sbp.split(0)),
              flow.zeros(3).to_global(P, flow.sbp.broadcast)):
        assert x.placement.type == "meta" and x.to_local().device.type == "meta"
        y = (x + 1).clone()
        assert y.placement == P and y.sbp == x.sbp and y.shape == x.shape and y.to_local().is_meta
    cpu = flow.tensor([3, 2], placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)
    assert cpu.to_local().device.type == "cpu"
