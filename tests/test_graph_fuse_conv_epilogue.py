"""Conv epilogue fusion (core/src/graph/pass_fuse_epilogue.cc, Note [Conv
epilogue fusion]; kernel conv_epilogue in devices/cpu/kernels_graph_fused.cpp
over kernels_conv.cpp's own loop): conv2d (bias inside the conv kernel)
followed by an activation or a fused elementwise chain becomes one
conv_epilogue node, and so does conv_transpose2d (the layer, or backward's
input gradient followed by ReLU's mask); results match eager and the plan
without fusion bit for bit, over random geometries, in eval and training
graphs, at several slot and thread counts, and on the CPU-fallback device."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _graph, nn

from graph_fusion_checks import (NO_FUSION, assert_fused_only_what_the_device_can_run, can_fuse, matches_eager,
                                 native_ops, np_widened, plan_of, plan_ops)
from graph_training import assert_all_equal, classification_data, randn, train

_ACTS = {"relu": F.relu, "gelu": F.gelu, "sigmoid": flow.sigmoid, "tanh": flow.tanh,
         "chain": lambda t: (t * 0.5 + 1.0).relu()}


@pytest.mark.parametrize("act", sorted(_ACTS))
def test_conv_bias_activation_is_one_node(device, act):
    def f(x, w, b):
        return _ACTS[act](F.conv2d(x, w, b, padding=1))

    args = [(randn(device, 2, 3, 6, 6, seed=k), randn(device, 4, 3, 3, 3, seed=k + 1), randn(device, 4, seed=k + 2))
            for k in range(2)]
    ct = matches_eager(f, args)
    ops, raw_ops = plan_ops(ct), plan_ops(_graph.trace(f, *args[0], passes=NO_FUSION))
    assert_fused_only_what_the_device_can_run(device, ops, raw_ops)
    if not can_fuse(device, "conv_epilogue", raw_ops):
        # opencl: its own conv2d and activations, no fused kernel: the
        # unfused plan, all on the device
        assert set(raw_ops) <= native_ops(device) and ops == raw_ops
        assert "[cpu fallback]" not in ct.describe()
        assert dict(ct.passes)["fuse_epilogue"] == "fused 0 matmuls and 0 convs with their epilogues"
        return
    assert ops == ["conv_epilogue"]
    assert dict(ct.passes)["fuse_epilogue"] == "fused 0 matmuls and 1 convs with their epilogues"


def _convs_fusible(device):
    """Whether `device` may fuse a conv with its epilogue at all: it has the
    fused kernel, or its convolutions run on the CPU anyway (testdev)."""
    return can_fuse(device, "conv_epilogue", ["conv2d", "conv_transpose2d"])


def test_without_an_epilogue_the_conv_stays():
    def f(x, w, b):
        return F.conv2d(x, w, b)

    args = [(randn("cpu", 1, 2, 5, 5, seed=k), randn("cpu", 3, 2, 3, 3, seed=k + 1), randn("cpu", 3)) for k in range(2)]
    ct = matches_eager(f, args)
    assert plan_ops(ct) == ["conv2d"]
    assert dict(ct.passes)["fuse_epilogue"] == "fused 0 matmuls and 0 convs with their epilogues"


def test_the_pass_alone_fuses_a_conv_without_bias():
    def f(x, w):
        return F.conv2d(x, w, stride=2).tanh()

    args = [(randn("cpu", 3, 2, 7, 7, seed=k), randn("cpu", 4, 2, 3, 3, seed=k + 1)) for k in range(2)]
    ct = matches_eager(f, args, passes=["fuse_epilogue"])
    assert ct.passes == [("fuse_epilogue", "fused 0 matmuls and 1 convs with their epilogues")]
    assert plan_ops(ct) == ["conv_epilogue"]


def test_conv1d_reads_the_conv_through_its_squeezed_view():
    def f(x, w, b):
        return F.gelu(F.conv1d(x, w, b, padding=2))

    args = [(randn("cpu", 3, 4, 11, seed=k), randn("cpu", 5, 4, 3, seed=k + 1), randn("cpu", 5, seed=k + 2))
            for k in range(2)]
    ct = matches_eager(f, args)
    assert plan_ops(ct) == ["conv_epilogue"]


def test_pre_activation_read_later_stays_an_output():
    def f(x, w, b):
        h = F.conv2d(x, w, b)
        return F.gelu(h), h * 3.0  # h read again after the activation (as gelu's backward does)

    args = [(randn("cpu", 2, 2, 5, 5, seed=k), randn("cpu", 3, 2, 2, 2, seed=k + 1), randn("cpu", 3, seed=k + 2))
            for k in range(2)]
    ct = matches_eager(f, args, passes=["fuse_epilogue"])
    assert plan_ops(ct).count("conv_epilogue") == 1 and "conv2d" not in plan_ops(ct)

    def g(x, w, b):
        h = F.conv2d(x, w, b)
        return h.relu(), h  # the pre-activation is a result of the graph

    ct = matches_eager(g, args)
    assert plan_ops(ct) == ["conv_epilogue"]


def test_a_conv_read_before_its_epilogue_is_not_fused():
    def f(x, w):
        h = F.conv2d(x, w)
        s = h.sum()  # traced before the relu: the fused node could not move there
        return s, h.relu()

    args = [(randn("cpu", 1, 2, 5, 5, seed=k), randn("cpu", 3, 2, 3, 3, seed=k + 1)) for k in range(2)]
    ct = matches_eager(f, args, passes=["fuse_epilogue"])
    assert "conv2d" in plan_ops(ct) and "conv_epilogue" not in plan_ops(ct)


def test_on_the_fallback_device_the_fused_node_runs_on_the_cpu():
    if "testdev" not in flow.devices.available():
        pytest.skip("no testdev")

    def f(x, w, b):
        return F.conv2d(x, w, b, padding=1).relu() * 2

    args = [(randn("testdev:0", 2, 2, 5, 5, seed=k), randn("testdev:0", 3, 2, 3, 3, seed=k + 1),
             randn("testdev:0", 3)) for k in range(2)]
    ct = matches_eager(f, args)
    text = ct.describe()
    assert "conv_epilogue" in text and "[cpu fallback]" in text


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from([flow.float32, flow.float64]), n=st.integers(1, 3), groups=st.sampled_from([1, 2]),
       cg=st.integers(1, 3), og=st.integers(1, 3), h=st.integers(1, 9), w=st.integers(1, 9),
       k=st.tuples(st.integers(1, 3), st.integers(1, 3)), stride=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       padding=st.tuples(st.integers(0, 2), st.integers(0, 2)),
       dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)), bias=st.booleans(),
       act=st.sampled_from(sorted(_ACTS)), seed=st.integers(0, 3))
def test_random_convolutions_match_eager_bit_for_bit(dtype, n, groups, cg, og, h, w, k, stride, padding, dilation,
                                                     bias, act, seed):
    assume(h + 2 * padding[0] >= dilation[0] * (k[0] - 1) + 1 and w + 2 * padding[1] >= dilation[1] * (k[1] - 1) + 1)

    def f(x, wt, b):
        return _ACTS[act](F.conv2d(x, wt, b if bias else None, stride, padding, dilation, groups))

    args = [(randn("cpu", n, groups * cg, h, w, seed=seed + j, dtype=dtype),
             randn("cpu", groups * og, cg, *k, seed=seed + 7, dtype=dtype),
             randn("cpu", groups * og, seed=seed + 8, dtype=dtype)) for j in range(2)]
    ct = matches_eager(f, args, slots_threads=((2, 2),))
    assert "conv_epilogue" in plan_ops(ct)


def test_conv_transpose_bias_activation_is_one_node():
    def f(x, w, b):
        return F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1).sigmoid()

    args = [(randn("cpu", 2, 4, 5, 5, seed=k), randn("cpu", 4, 3, 3, 3, seed=k + 1), randn("cpu", 3, seed=k + 2))
            for k in range(2)]
    ct = matches_eager(f, args)
    assert plan_ops(ct) == ["conv_epilogue"]


def test_an_input_gradient_fuses_with_the_relu_mask():
    def f(g, w, y):  # backward of conv(relu(.)): conv_transpose2d, then relu's mask
        return flow.where(y > 0, F.conv_transpose2d(g, w, padding=1), 0.0)

    args = [(randn("cpu", 2, 4, 6, 6, seed=k), randn("cpu", 4, 3, 3, 3, seed=k + 1),
             randn("cpu", 2, 3, 6, 6, seed=k + 2)) for k in range(2)]
    ct = matches_eager(f, args)
    assert plan_ops(ct) == ["conv_epilogue"]


@settings(max_examples=20, deadline=None)
@given(dtype=st.sampled_from([flow.float32, flow.float64]), n=st.integers(1, 3), groups=st.sampled_from([1, 2]),
       cg=st.integers(1, 3), og=st.integers(1, 3), h=st.integers(1, 6), w=st.integers(1, 6),
       k=st.tuples(st.integers(1, 3), st.integers(1, 3)), stride=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       padding=st.tuples(st.integers(0, 1), st.integers(0, 1)), extra=st.tuples(st.integers(0, 1), st.integers(0, 1)),
       dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)), bias=st.booleans(),
       act=st.sampled_from(sorted(_ACTS)), seed=st.integers(0, 3))
def test_random_transposed_convolutions_match_eager_bit_for_bit(dtype, n, groups, cg, og, h, w, k, stride, padding,
                                                                extra, dilation, bias, act, seed):
    # output_padding must stay below stride or dilation
    out_pad = tuple(e if e < max(s, d) else 0 for e, s, d in zip(extra, stride, dilation))
    out_hw = [(i - 1) * s - 2 * p + d * (kk - 1) + op + 1
              for i, s, p, d, kk, op in zip((h, w), stride, padding, dilation, k, out_pad)]
    assume(min(out_hw) >= 1)

    def f(x, wt, b):
        y = F.conv_transpose2d(x, wt, b if bias else None, stride, padding, out_pad, groups, dilation)
        return _ACTS[act](y)

    args = [(randn("cpu", n, groups * og, h, w, seed=seed + j, dtype=dtype),
             randn("cpu", groups * og, cg, *k, seed=seed + 7, dtype=dtype),
             randn("cpu", groups * cg, seed=seed + 8, dtype=dtype)) for j in range(2)]
    ct = matches_eager(f, args, slots_threads=((2, 2),))
    assert "conv_epilogue" in plan_ops(ct)


def test_threaded_conv_chunks_match_bit_for_bit(tmp_path):
    # with several kernel threads the conv's chunks of images run on the
    # OpenMP team, each getting its epilogue at once; one big image instead
    # splits its GEMM over the team and gets the epilogue after. CI's
    # default team has 1 thread.
    script = tmp_path / "threaded.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, monoflow as flow, monoflow.nn.functional as F
        from monoflow import _C, _graph
        no_fusion = [p for p in _C._graph_default_passes() if p not in ("fuse_elementwise", "fuse_epilogue")]
        rng = np.random.default_rng(0)
        for shape in [(16, 3, 12, 12), (1, 3, 64, 64), (6, 4, 40, 40)]:
            x = flow.tensor(rng.standard_normal(shape).astype(np.float32))
            w = flow.tensor(rng.standard_normal((8, shape[1], 3, 3)).astype(np.float32))
            b = flow.tensor(rng.standard_normal(8).astype(np.float32))
            f = lambda x, w, b: F.gelu(F.conv2d(x, w, b, padding=1))
            ct = _graph.trace(f, x, w, b)
            assert "conv_epilogue" in ct.describe()
            raw = _graph.trace(f, x, w, b, passes=no_fusion)
            np.testing.assert_array_equal(ct.run(x, w, b).numpy(), raw.run(x, w, b).numpy())
            np.testing.assert_array_equal(ct.run(x, w, b).numpy(), f(x, w, b).numpy())
            g = lambda x, w, b: F.conv_transpose2d(F.conv2d(x, w, b, padding=1).relu(), w, padding=1).relu()
            ct = _graph.trace(g, x, w, b)
            assert ct.describe().count("conv_epilogue") == 2
            np.testing.assert_array_equal(ct.run(x, w, b).numpy(), g(x, w, b).numpy())
        print("ok")
    """))
    env = dict(os.environ, MONOFLOW_NUM_THREADS="2")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


# ---------------------------------------------------------------- nn.Graph

def _lenet(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 6, 3), nn.GELU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(6 * 2 * 2, 16), nn.ReLU(), nn.Linear(16, 4)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


class _EvalGraph(nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x):
        return self.model(x)


def _data(device, batch=4, steps=4):
    return classification_data(device, steps, (batch, 1, 12, 12), classes=4)


def _convs_fused(graph):
    summary = [ln for ln in repr(graph).splitlines() if "fuse_epilogue (fused" in ln]
    assert summary, repr(graph)
    return int(summary[0].split(" matmuls and ")[1].split(" convs")[0])


@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
def test_eval_graph_matches_eager(device, slots, threads):
    model, _ = _lenet(device)
    model.eval()
    data = _data(device)
    graph = _EvalGraph(model)
    graph.config.slots, graph.config.threads = slots, threads
    for x, _ in data:
        np.testing.assert_array_equal(np_widened(graph(x)), np_widened(model(x)))
    raw = _EvalGraph(model)
    raw.config.passes = NO_FUSION
    raw(data[0][0])
    assert_fused_only_what_the_device_can_run(device, plan_ops(plan_of(graph)), plan_ops(plan_of(raw)))
    assert _convs_fused(graph) == (2 if _convs_fusible(device) else 0)


def _stacked(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.Tanh(),
                          nn.Flatten(), nn.Linear(4 * 12 * 12, 4)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@pytest.mark.parametrize("make,convs", [(_lenet, 2), (_stacked, 3)], ids=["lenet", "stacked"])
@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
def test_cnn_training_matches_eager_bit_for_bit(device, make, convs, slots, threads):
    data = _data(device)
    _, eager_losses, eager_params = train(make, device, data, "eager")
    graph, losses, params = train(make, device, data, "default", slots, threads)
    raw, raw_losses, raw_params = train(make, device, data, NO_FUSION, slots, threads)
    # lenet: conv1 + relu (relu's backward reads its output); conv2 + gelu
    # (its backward reads the conv's output, which stays an output of the
    # node). stacked: both forward convs, and conv2's input gradient with
    # relu's mask (no pooling in between). None on a device with convolutions
    # of its own and no fused kernel (opencl).
    assert_fused_only_what_the_device_can_run(device, plan_ops(plan_of(graph)), plan_ops(plan_of(raw)))
    assert _convs_fused(graph) == (convs if _convs_fusible(device) else 0)
    assert_all_equal(losses, raw_losses, eager_losses)
    assert_all_equal(params, raw_params, eager_params)
