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

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _graph, nn

from graph_fusion_checks import (NO_FUSION, assert_fused_only_what_the_device_can_run, can_fuse, matches_eager,
                                 native_ops, plan_of, plan_ops)
from graph_training import assert_all_equal, classification_data, randn, train

_ACTS = {"relu": F.relu, "gelu": F.gelu, "sigmoid": flow.sigmoid, "tanh": flow.tanh, "none": lambda t: t}


@pytest.mark.parametrize("act", sorted(_ACTS))
def test_linear_bias_activation_is_one_node(device, act):
    def f(x, w, b):
        return _ACTS[act](F.linear(x, w, b))

    args = [(randn(device, 8, 12, seed=k), randn(device, 5, 12, seed=k + 1), randn(device, 5, seed=k + 2))
            for k in range(2)]
    ct = matches_eager(f, args)
    ops, raw_ops = plan_ops(ct), plan_ops(_graph.trace(f, *args[0], passes=NO_FUSION))
    assert_fused_only_what_the_device_can_run(device, ops, raw_ops)
    if not can_fuse(device, "matmul_epilogue", raw_ops):
        # testdev's own add, opencl's own matmul, add and activations: not
        # pulled into the CPU's fused kernel (test_on_the_fallback_device_...)
        assert "matmul_epilogue" not in ops
        if set(raw_ops) <= native_ops(device):  # opencl: the unfused plan, all on the device
            assert ops == raw_ops and "[cpu fallback]" not in ct.describe()
        return
    assert ops == ["matmul_epilogue"]
    assert dict(ct.passes)["fuse_epilogue"] == "fused 1 matmuls and 0 convs with their epilogues"


def test_the_pass_alone_fuses_a_single_elementwise_consumer():
    def f(x, w):
        return (x @ w).relu()

    args = [(randn("cpu", 6, 4, seed=k), randn("cpu", 4, 7, seed=k + 3)) for k in range(2)]
    ct = matches_eager(f, args, passes=["fuse_epilogue"])
    assert ct.passes == [("fuse_epilogue", "fused 1 matmuls and 0 convs with their epilogues")]
    assert plan_ops(ct) == ["matmul_epilogue"]


def test_pre_activation_read_elsewhere_is_still_written():
    def f(x, w, b):
        h = F.linear(x, w, b)
        return h.relu(), h  # the pre-activation is a result too

    args = [(randn("cpu", 4, 6, seed=k), randn("cpu", 3, 6, seed=k + 1), randn("cpu", 3, seed=k + 2))
            for k in range(2)]
    ct = matches_eager(f, args)
    assert plan_ops(ct) == ["matmul_epilogue"]


def test_a_product_with_two_readers_is_not_fused():
    def f(x, w):
        p = x @ w
        return p.relu(), p.sum()

    args = [(randn("cpu", 4, 6, seed=k), randn("cpu", 6, 3, seed=k + 1)) for k in range(2)]
    ct = matches_eager(f, args)
    assert "matmul" in plan_ops(ct) and "matmul_epilogue" not in plan_ops(ct)


def test_batched_and_transposed_operands():
    def f(x, w, b):
        return ((x @ w.t()) + b).tanh()  # x (2, 5, 4): batch dims; w.t(): a transposed view

    args = [(randn("cpu", 2, 5, 4, seed=k), randn("cpu", 3, 4, seed=k + 1), randn("cpu", 3, seed=k + 2))
            for k in range(2)]
    ct = matches_eager(f, args)
    assert plan_ops(ct) == ["matmul_epilogue"]


def test_an_empty_inner_dim_gives_the_epilogue_of_zeros():
    def f(x, w, b):
        return (x @ w + b).sigmoid()

    args = [(randn("cpu", 4, 0), randn("cpu", 0, 3), randn("cpu", 3, seed=k)) for k in range(2)]
    ct = matches_eager(f, args)
    assert plan_ops(ct) == ["matmul_epilogue"]


def test_relu_backward_fuses_into_the_gradient_matmul():
    def f(g, w, y):
        return flow.where(y > 0, g @ w, 0.0)

    args = [(randn("cpu", 8, 5, seed=k), randn("cpu", 5, 6, seed=k + 1), randn("cpu", 8, 6, seed=k + 2))
            for k in range(2)]
    ct = matches_eager(f, args)
    assert plan_ops(ct) == ["matmul_epilogue"]


def test_on_the_fallback_device_the_fused_node_runs_on_the_cpu():
    if "testdev" not in flow.devices.available():
        pytest.skip("no testdev")

    # testdev has no matmul, relu or mul_scalar kernel: they ran on the CPU
    # anyway, so their fused node does too, with their bits
    def f(x, w):
        return (x @ w.t()).relu() * 2

    args = [(randn("testdev:0", 3, 4, seed=k), randn("testdev:0", 2, 4, seed=k + 1)) for k in range(2)]
    ct = matches_eager(f, args)
    text = ct.describe()
    assert "matmul_epilogue" in text and "[cpu fallback]" in text
    # ... but its add is its own kernel: a bias add is not pulled into a CPU
    # kernel (Note [Fusing on a device without fused kernels] in graph/fusion.h)
    ct = matches_eager(lambda x, w, b: F.linear(x, w, b).relu() * 2,
                       [a + (randn("testdev:0", 2, seed=9),) for a in args])
    assert "matmul_epilogue" not in plan_ops(ct) and "add" in plan_ops(ct)


@settings(max_examples=20, deadline=None)
@given(dtype=st.sampled_from([flow.float32, flow.float64, flow.float16, flow.bfloat16]),
       m=st.integers(1, 20), k=st.integers(0, 20), n=st.integers(1, 20), batch=st.sampled_from([(), (2,), (1, 3)]),
       act=st.sampled_from(sorted(_ACTS)), bias=st.booleans(), seed=st.integers(0, 3))
def test_random_products_match_eager_bit_for_bit(dtype, m, k, n, batch, act, bias, seed):
    def f(x, w, b):
        p = x @ w
        return _ACTS[act](p + b if bias else p * 1.5)

    args = [(randn("cpu", *batch, m, k, seed=seed + j, dtype=dtype), randn("cpu", k, n, seed=seed + 7, dtype=dtype),
             randn("cpu", n, seed=seed + 8, dtype=dtype)) for j in range(2)]
    ct = matches_eager(f, args, slots_threads=((2, 2),))
    assert "matmul_epilogue" in plan_ops(ct)


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

def _mlp(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 24), nn.ReLU(), nn.Linear(24, 24), nn.GELU(), nn.Linear(24, 4)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _cnn(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(4 * 4 * 4, 16), nn.ReLU(), nn.Linear(16, 4)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@pytest.mark.parametrize("make,shape", [(_mlp, (8, 10)), (_cnn, (4, 1, 8, 8))], ids=["mlp", "cnn"])
@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
def test_training_with_epilogues_matches_eager_bit_for_bit(device, make, shape, slots, threads):
    data = classification_data(device, 5, shape, classes=4)
    _, eager_losses, eager_params = train(make, device, data, "eager")
    graph, losses, params = train(make, device, data, "default", slots, threads)
    raw, raw_losses, raw_params = train(make, device, data, NO_FUSION, slots, threads)
    ops, raw_ops = plan_ops(plan_of(graph)), plan_ops(plan_of(raw))
    assert_fused_only_what_the_device_can_run(device, ops, raw_ops)
    if can_fuse(device, "matmul_epilogue", ["matmul"]):
        assert "fuse_epilogue (fused" in repr(graph) and "fused 0 matmuls" not in repr(graph)
    else:  # opencl: its own matmul and no fused kernel
        assert "fused 0 matmuls and 0 convs" in repr(graph) and "matmul_epilogue" not in ops
    assert_all_equal(losses, raw_losses, eager_losses)
    assert_all_equal(params, raw_params, eager_params)
