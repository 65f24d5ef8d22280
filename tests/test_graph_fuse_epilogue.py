"""Epilogue fusion (core/src/graph/pass_fuse_epilogue.cc, kernel in
devices/cpu/kernels_graph_fused.cpp; docs/graph_runtime.md "Passes"): a
matmul whose product only a bias add / activation (or a fused chain of them)
reads becomes one matmul_epilogue node; results match eager and the plan
without fusion bit for bit (the same GEMM calls), in every floating dtype,
for batched, transposed and empty-inner-dim products, and in training."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _C, _graph, nn

FUSION = ("fuse_elementwise", "fuse_epilogue")
NO_FUSION = [p for p in _C._graph_default_passes() if p not in FUSION]
DEFAULT = list(_C._graph_default_passes())


def _np(t):
    t = t.detach()
    if t.dtype in (flow.float16, flow.bfloat16):
        t = t.float()
    return t.numpy().copy()


def _randn(device, *shape, seed=0, dtype=flow.float32):
    rng = np.random.default_rng(seed)
    return flow.tensor(rng.standard_normal(shape).astype(np.float32), device=device).to(dtype)


def _ops(ct):
    lines = ct.describe().splitlines()
    return [ln.split(" = ")[1].split(".")[0].split("(")[0] for ln in lines if ln.strip().startswith("%") and " = " in ln]


def _flat(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _check(f, args_list, passes=DEFAULT, slots_threads=((1, 1), (2, 2))):
    ct = _graph.trace(f, *args_list[0], passes=passes)
    raw = _graph.trace(f, *args_list[0], passes=NO_FUSION)
    want = [f(*args) for args in args_list]
    for args, w in zip(args_list, want):
        for got in (ct.run(*args), raw.run(*args)):
            for g, e in zip(_flat(got), _flat(w)):
                np.testing.assert_array_equal(_np(g), _np(e))
    for slots, threads in slots_threads:
        for g, w in zip(ct.run_each(args_list, slots=slots, threads=threads), want):
            for a, b in zip(_flat(g), _flat(w)):
                np.testing.assert_array_equal(_np(a), _np(b))
    return ct


_ACTS = {"relu": F.relu, "gelu": F.gelu, "sigmoid": flow.sigmoid, "tanh": flow.tanh, "none": lambda t: t}


@pytest.mark.parametrize("act", sorted(_ACTS))
def test_linear_bias_activation_is_one_node(device, act):
    def f(x, w, b):
        return _ACTS[act](F.linear(x, w, b))

    args = [(_randn(device, 8, 12, seed=k), _randn(device, 5, 12, seed=k + 1), _randn(device, 5, seed=k + 2))
            for k in range(2)]
    ct = _check(f, args)
    assert _ops(ct) == ["matmul_epilogue"]
    assert dict(ct.passes)["fuse_epilogue"] == "fused 1 matmuls and 0 convs with their epilogues"


def test_the_pass_alone_fuses_a_single_elementwise_consumer():
    def f(x, w):
        return (x @ w).relu()

    args = [(_randn("cpu", 6, 4, seed=k), _randn("cpu", 4, 7, seed=k + 3)) for k in range(2)]
    ct = _check(f, args, passes=["fuse_epilogue"])
    assert ct.passes == [("fuse_epilogue", "fused 1 matmuls and 0 convs with their epilogues")]
    assert _ops(ct) == ["matmul_epilogue"]


def test_pre_activation_read_elsewhere_is_still_written():
    def f(x, w, b):
        h = F.linear(x, w, b)
        return h.relu(), h  # the pre-activation is a result too

    args = [(_randn("cpu", 4, 6, seed=k), _randn("cpu", 3, 6, seed=k + 1), _randn("cpu", 3, seed=k + 2))
            for k in range(2)]
    ct = _check(f, args)
    assert _ops(ct) == ["matmul_epilogue"]


def test_a_product_with_two_readers_is_not_fused():
    def f(x, w):
        p = x @ w
        return p.relu(), p.sum()

    args = [(_randn("cpu", 4, 6, seed=k), _randn("cpu", 6, 3, seed=k + 1)) for k in range(2)]
    ct = _check(f, args)
    assert "matmul" in _ops(ct) and "matmul_epilogue" not in _ops(ct)


def test_batched_and_transposed_operands():
    def f(x, w, b):
        return ((x @ w.t()) + b).tanh()  # x (2, 5, 4): batch dims; w.t(): a transposed view

    args = [(_randn("cpu", 2, 5, 4, seed=k), _randn("cpu", 3, 4, seed=k + 1), _randn("cpu", 3, seed=k + 2))
            for k in range(2)]
    ct = _check(f, args)
    assert _ops(ct) == ["matmul_epilogue"]


def test_an_empty_inner_dim_gives_the_epilogue_of_zeros():
    def f(x, w, b):
        return (x @ w + b).sigmoid()

    args = [(_randn("cpu", 4, 0), _randn("cpu", 0, 3), _randn("cpu", 3, seed=k)) for k in range(2)]
    ct = _check(f, args)
    assert _ops(ct) == ["matmul_epilogue"]


def test_relu_backward_fuses_into_the_gradient_matmul():
    def f(g, w, y):
        return flow.where(y > 0, g @ w, 0.0)

    args = [(_randn("cpu", 8, 5, seed=k), _randn("cpu", 5, 6, seed=k + 1), _randn("cpu", 8, 6, seed=k + 2))
            for k in range(2)]
    ct = _check(f, args)
    assert _ops(ct) == ["matmul_epilogue"]


def test_on_the_fallback_device_the_fused_node_runs_on_the_cpu():
    if "testdev" not in flow.devices.available():
        pytest.skip("no testdev")

    def f(x, w, b):
        return F.linear(x, w, b).relu() * 2

    args = [(_randn("testdev:0", 3, 4, seed=k), _randn("testdev:0", 2, 4, seed=k + 1), _randn("testdev:0", 2))
            for k in range(2)]
    ct = _check(f, args)
    text = ct.describe()
    assert "matmul_epilogue" in text and "[cpu fallback]" in text


@settings(max_examples=20, deadline=None)
@given(dtype=st.sampled_from([flow.float32, flow.float64, flow.float16, flow.bfloat16]),
       m=st.integers(1, 20), k=st.integers(0, 20), n=st.integers(1, 20), batch=st.sampled_from([(), (2,), (1, 3)]),
       act=st.sampled_from(sorted(_ACTS)), bias=st.booleans(), seed=st.integers(0, 3))
def test_random_products_match_eager_bit_for_bit(dtype, m, k, n, batch, act, bias, seed):
    def f(x, w, b):
        p = x @ w
        return _ACTS[act](p + b if bias else p * 1.5)

    args = [(_randn("cpu", *batch, m, k, seed=seed + j, dtype=dtype), _randn("cpu", k, n, seed=seed + 7, dtype=dtype),
             _randn("cpu", n, seed=seed + 8, dtype=dtype)) for j in range(2)]
    ct = _check(f, args, slots_threads=((2, 2),))
    assert "matmul_epilogue" in _ops(ct)


def test_threaded_gemm_slices_match_bit_for_bit(tmp_path):
    # with several kernel threads a large GEMM is split over the OpenMP team
    # and each slice gets its epilogue at once; CI's default team has 1 thread
    script = tmp_path / "threaded.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, monoflow as flow, monoflow.nn.functional as F
        from monoflow import _C, _graph
        no_fusion = [p for p in _C._graph_default_passes() if p not in ("fuse_elementwise", "fuse_epilogue")]
        rng = np.random.default_rng(0)
        for m, n in [(256, 96), (96, 256)]:
            x = flow.tensor(rng.standard_normal((m, 128)).astype(np.float32))
            w = flow.tensor(rng.standard_normal((n, 128)).astype(np.float32))
            b = flow.tensor(rng.standard_normal(n).astype(np.float32))
            f = lambda x, w, b: F.gelu(F.linear(x, w, b))
            ct = _graph.trace(f, x, w, b)
            assert "matmul_epilogue" in ct.describe()
            raw = _graph.trace(f, x, w, b, passes=no_fusion)
            np.testing.assert_array_equal(ct.run(x, w, b).numpy(), raw.run(x, w, b).numpy())
            np.testing.assert_array_equal(ct.run(x, w, b).numpy(), f(x, w, b).numpy())
        print("ok")
    """))
    env = dict(os.environ, MONOFLOW_NUM_THREADS="2")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


# ---------------------------------------------------------------- training

class _TrainGraph(nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def _mlp(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 24), nn.ReLU(), nn.Linear(24, 24), nn.GELU(), nn.Linear(24, 4)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _cnn(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(4 * 4 * 4, 16), nn.ReLU(), nn.Linear(16, 4)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _train(make, device, data, passes, slots=1, threads=1):
    model, opt = make(device)
    if passes == "eager":
        losses = []
        for x, y in data:
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(_np(loss))
        return None, losses, [_np(p) for p in model.parameters()]
    graph = _TrainGraph(model, opt)
    graph.config.passes = passes
    graph.config.slots, graph.config.threads = slots, threads
    losses = [_np(graph(x, y)) for x, y in data]
    return graph, losses, [_np(p) for p in model.parameters()]


@pytest.mark.parametrize("make,shape", [(_mlp, (8, 10)), (_cnn, (4, 1, 8, 8))], ids=["mlp", "cnn"])
@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
def test_training_with_epilogues_matches_eager_bit_for_bit(device, make, shape, slots, threads):
    rng = np.random.default_rng(1)
    data = [(flow.tensor(rng.standard_normal(shape).astype(np.float32), device=device),
             flow.tensor(rng.integers(0, 4, shape[0]), device=device)) for _ in range(5)]
    _, eager_losses, eager_params = _train(make, device, data, "eager")
    graph, losses, params = _train(make, device, data, "default", slots, threads)
    _, raw_losses, raw_params = _train(make, device, data, NO_FUSION, slots, threads)
    assert "fuse_epilogue (fused" in repr(graph) and "fused 0 matmuls" not in repr(graph)
    for a, b, c in zip(losses, raw_losses, eager_losses):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    for a, b, c in zip(params, raw_params, eager_params):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
