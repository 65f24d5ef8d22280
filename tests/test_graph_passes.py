"""Plan passes (core/include/monoflow/graph/pass.h, docs/graph_runtime.md
"Passes"): the pipeline and its debug listing, and dead code elimination,
which must remove known dead kernels and change no result: traced functions
and training steps match eager and the plan without passes bit for bit,
random kernels included, whatever the slots and threads. (Each other pass
has its own test file: test_graph_pass_*.py, test_graph_fuse_*.py.)"""
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _C, _graph, nn

from graph_training import TrainGraph, assert_all_equal, np_of, randn


def _ops(ct):
    """Op names of the final plan's nodes."""
    lines = ct.describe().split("--- final plan ---")[-1].splitlines()
    return [ln.split(" = ")[1].split(".")[0] for ln in lines if ln.strip().startswith("%") and " = " in ln]


# ---------------------------------------------------------------- pipeline

def test_dce_removes_an_unused_intermediate_and_keeps_results(device):
    def f(x):
        unused = (x * 3).exp()  # noqa: F841 - computed, never read
        return (x + 1) * 2

    x = randn(device, 5)
    ct = _graph.trace(f, x, passes=["dce"])
    raw = _graph.trace(f, x, passes=None)
    assert ct.passes == [("dce", "removed 2 of 4 nodes")]
    assert raw.passes == [] and raw.stats()["nodes"] == 4
    assert ct.stats()["nodes"] == 2 and _ops(ct) == ["add_scalar", "mul_scalar"]
    for seed in range(3):
        y = randn(device, 5, seed=seed)
        want = np_of(f(y))
        np.testing.assert_array_equal(np_of(ct.run(y)), want)
        np.testing.assert_array_equal(np_of(raw.run(y)), want)


def test_default_pipeline_runs_every_pass_in_order():
    default = ["constfold", "cse", "dce", "fuse_elementwise", "fuse_epilogue", "memory"]
    ct = _graph.trace(lambda t: (t + 1) * 2, flow.ones(3))
    assert [n for n, _ in ct.passes] == default
    assert [n for n, _ in _graph.trace(lambda t: t + 1, flow.ones(3), passes="default").passes] == default
    line = ct.describe().splitlines()[1]
    assert line.strip().startswith("passes: constfold (") and "; memory (" in line


def test_passes_keyword_and_unknown_names():
    x = flow.ones(3)
    assert _graph.trace(lambda t: t + 1, x, passes=()).passes == []
    assert [n for n, _ in _graph.trace(lambda t: t + 1, x, passes=["dce"]).passes] == ["dce"]
    with pytest.raises(ValueError, match="unknown pass 'fuse_everything'.*dce"):
        _graph.trace(lambda t: t + 1, x, passes=["fuse_everything"])
    with pytest.raises(TypeError, match="pass names must be strings"):
        _graph.trace(lambda t: t + 1, x, passes=[1])
    with pytest.raises(ValueError, match="passes must be"):
        _graph.trace(lambda t: t + 1, x, passes="dce")
    # the failed traces left no recorder behind: eager code still runs
    np.testing.assert_array_equal(np_of(x + 1), np.full(3, 2.0))


def test_debug_lists_each_pass_with_the_plan_before_and_after():
    def f(x):
        (x * 3).exp()
        return x + 1

    ct = _graph.trace(f, flow.ones(3), passes=["dce"], debug=True)
    text = ct.describe(passes=True)
    before, after = text.index("--- before pass dce ---"), text.index("--- after pass dce: removed 2 of 3 nodes ---")
    final = text.index("--- final plan ---")
    assert before < after < final
    assert "exp" in text[before:after] and "exp" not in text[after:]
    assert "passes: dce (removed 2 of 3 nodes)" in text[final:]
    # without debug the summary line is there, the listings are not
    quiet = _graph.trace(f, flow.ones(3), passes=["dce"])
    assert "passes: dce (removed 2 of 3 nodes)" in quiet.describe(passes=True)
    assert "before pass" not in quiet.describe(passes=True)


# ---------------------------------------------------------------- what DCE keeps

def test_writes_to_inputs_parameters_and_stashed_tensors_are_kept(device):
    w = flow.zeros(4, device=device)
    stash = []

    def f(x):
        x.add_(1)            # in-place write into the caller's tensor
        w.add_(x)            # a parameter-like persistent tensor
        stash.append(x * 5)  # reachable from Python after the trace
        (x * 7).neg()        # dead
        return x.sum()

    x = flow.zeros(4, device=device)
    ct = _graph.trace(f, x, passes=["dce"])
    assert ct.passes == [("dce", "removed 2 of 6 nodes")]  # x * 7 and its neg
    assert "neg" not in _ops(ct) and _ops(ct).count("mul_scalar") == 1
    y = flow.zeros(4, device=device)
    out = ct.run(y)
    np.testing.assert_array_equal(np_of(y), np.ones(4))
    np.testing.assert_array_equal(np_of(w), np.full(4, 2.0))
    np.testing.assert_array_equal(np_of(stash[0]), np.full(4, 5.0))
    assert out.item() == 4.0


def test_a_dead_random_kernel_is_kept_so_live_ones_draw_eagers_numbers(device):
    def f(x):
        F.dropout(x, 0.5, training=True)  # dead, but it draws numbers in eager mode too
        return F.dropout(x * 2, 0.5, training=True)

    x = flow.ones(64, device=device)
    flow.manual_seed(3)
    eager = [np_of(f(x)) for _ in range(3)]
    flow.manual_seed(3)
    ct = _graph.trace(f, x)  # every default pass keeps random kernels
    assert ct.stats()["random_nodes"] == 2
    runs = [np_of(ct.example_outputs), np_of(ct.run(x)), np_of(ct.run(x))]
    for g, e in zip(runs, eager):
        np.testing.assert_array_equal(g, e)


# ---------------------------------------------------------------- training steps

class _Net(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.3 if dropout else 0.0), nn.Linear(16, 3))

    def forward(self, x):
        return self.body(x)


def _setup(device, dropout):
    flow.manual_seed(0)
    model = _Net(dropout).to(device)
    opt = flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return model, opt


def _data(device, steps):
    rng = np.random.default_rng(1)
    return [(flow.tensor(rng.standard_normal((8, 6)).astype(np.float32), device=device),
             flow.tensor(rng.integers(0, 3, 8), device=device)) for _ in range(steps)]


def _train_eager(device, dropout, data):
    model, opt = _setup(device, dropout)
    flow.manual_seed(7)
    losses = []
    for x, y in data:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(np_of(loss))
    return losses, [np_of(p) for p in model.parameters()]


def _train_traced(device, dropout, data, passes, slots, threads):
    model, opt = _setup(device, dropout)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    # the first step eagerly (creates the momentum buffers), then trace step 2 and replay the rest
    flow.manual_seed(7)
    losses = [np_of(step(*data[0]))]
    ct = _graph.trace(step, *data[1], passes=passes)
    losses.append(np_of(ct.example_outputs))
    losses += [np_of(l) for l in ct.run_each(data[2:], slots=slots, threads=threads)]
    return ct, losses, [np_of(p) for p in model.parameters()]


@pytest.mark.parametrize("dropout", [False, True])
@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
@pytest.mark.parametrize("passes", [["dce"], "default"])
def test_training_with_dce_matches_eager_and_no_passes_bit_for_bit(device, dropout, slots, threads, passes):
    data = _data(device, 6)
    eager_losses, eager_params = _train_eager(device, dropout, data)
    ct, losses, params = _train_traced(device, dropout, data, passes, slots, threads)
    raw, raw_losses, raw_params = _train_traced(device, dropout, data, None, slots, threads)
    # cross_entropy's class-range check (fill, lt, fill, ge, logical_or, logical_and, any) was read on
    # the host while tracing; no kernel reads it
    removed = raw.stats()["nodes"] - ct.stats()["nodes"]
    assert removed >= 7 and "any" in _ops(raw) and "any" not in _ops(ct)
    if passes == ["dce"]:
        assert ct.passes == [("dce", f"removed {removed} of {raw.stats()['nodes']} nodes")]
    assert ct.stats()["random_nodes"] == raw.stats()["random_nodes"] == (1 if dropout else 0)
    assert_all_equal(losses, raw_losses, eager_losses)
    assert_all_equal(params, raw_params, eager_params)


def test_nn_graph_runs_dce_and_its_debug_prints_the_passes(capsys):
    data = _data("cpu", 4)
    model, opt = _setup("cpu", False)
    graph = TrainGraph(model, opt).debug()
    losses = [np_of(graph(x, y)) for x, y in data]
    out = capsys.readouterr().out
    for name in _C._graph_default_passes():
        assert f"--- before pass {name} ---" in out and f"--- after pass {name}: " in out
    assert "dce (removed" in repr(graph)

    model2, opt2 = _setup("cpu", False)
    plain = TrainGraph(model2, opt2)
    plain.config.passes = None
    plain_losses = [np_of(plain(x, y)) for x, y in data]
    assert "passes: none" in repr(plain)
    for a, b in zip(losses, plain_losses):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(model.parameters(), model2.parameters()):
        np.testing.assert_array_equal(np_of(a), np_of(b))
