"""Constant folding and common-subexpression elimination (core/src/graph/
pass_constfold.cc, pass_cse.cc; docs/graph_runtime.md "Passes"): each fires
on the cases it is for, refuses the ones it must not touch (parameters eager
code updates, random kernels, memory written in between, results the caller
sees), and changes no result: traced functions and training steps match eager
and the plan without passes bit for bit, whatever the slots and threads."""
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import _graph, nn

from graph_training import assert_all_equal, classification_data, randn, train


def _np(t):
    if isinstance(t, (tuple, list)):
        return [_np(v) for v in t]
    return t.detach().numpy().copy()


def _eq(a, b):
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _eq(x, y)
    else:
        np.testing.assert_array_equal(a, b)


def _ops(ct):
    """Op names of the final plan's nodes."""
    lines = ct.describe().splitlines()
    return [ln.split(" = ")[1].split(".")[0].split("(")[0] for ln in lines if ln.strip().startswith("%") and " = " in ln]


def _summary(ct, name):
    return dict(ct.passes)[name]


def _check_runs(f, ct, device, shape, seeds=(1, 2, 3)):
    """ct, the plan without passes and the one with every pass replay f as
    eager mode computes it, bit for bit, one iteration per run and several
    per run, at slots/threads 1 and 2."""
    x0 = randn(device, *shape)
    plans = [ct, _graph.trace(f, x0, passes=None), _graph.trace(f, x0)]
    feeds = [randn(device, *shape, seed=s) for s in seeds]
    want = [_np(f(x)) for x in feeds]
    for p in plans:
        for x, w in zip(feeds, want):
            _eq(_np(p.run(x)), w)
    for slots, threads in [(1, 1), (2, 2), (2, 1)]:
        for p in plans:
            got = p.run_each(feeds, slots=slots, threads=threads)
            for g, w in zip(got, want):
                _eq(_np(g), w)


# ---------------------------------------------------------------- constant folding

def test_causal_mask_built_inside_the_function_is_folded(device):
    def f(scores):
        n = scores.shape[-1]
        mask = flow.triu(flow.ones(n, n, device=scores.device), 1).bool()
        return scores.masked_fill(mask, float("-inf")).softmax(-1)

    x = randn(device, 2, 5, 5)
    ct = _graph.trace(f, x, passes=["constfold"])
    raw = _graph.trace(f, x, passes=None)
    # fill (ones), triu, the cast to bool (a copy), and the -inf value's fill (read by no kernel)
    assert _ops(raw) == ["fill", "triu", "copy", "fill", "masked_fill", "softmax"]
    assert _summary(ct, "constfold") == "folded 4 of 6 nodes into 1 constant (25 B)"
    assert _ops(ct) == ["masked_fill", "softmax"]
    assert ct.memory()["persistent"] == 25  # the mask, one byte per element
    _check_runs(f, ct, device, (2, 5, 5))


def test_arange_position_ids_and_constant_scales_are_folded():
    emb = nn.Embedding(16, 4)
    emb.weight.requires_grad_(False)  # an eval model: nothing saves pos or scale for a backward

    def f(x):
        pos = flow.arange(x.shape[1])
        scale = flow.tensor([0.5, 1.0, 2.0, 4.0]) * 3  # host data inside the trace: a constant, then a kernel
        return x + emb(pos) * scale

    x = randn("cpu", 2, 6, 4)
    ct = _graph.trace(f, x, passes=["constfold"])
    raw = _graph.trace(f, x, passes=None)
    assert "arange" in _ops(raw) and "arange" not in _ops(ct)
    assert "mul_scalar" in _ops(raw) and "mul_scalar" not in _ops(ct)
    assert _summary(ct, "constfold").startswith("folded 2 of")
    _check_runs(f, ct, "cpu", (2, 6, 4))
    # the embedding's weight is a parameter: read at every run, not folded
    with flow.no_grad():
        emb.weight.mul_(2)
    y = randn("cpu", 2, 6, 4, seed=9)
    np.testing.assert_array_equal(_np(ct.run(y)), _np(f(y)))


def test_parameters_an_eval_graph_only_reads_are_not_constants(device):
    w = randn(device, 4, seed=5)

    def f(x):
        return x + (w * 2).exp()  # w * 2 reads only w, but eager code may change w

    x = randn(device, 4)
    ct = _graph.trace(f, x)
    assert _summary(ct, "constfold").startswith("folded 0 of")
    w.add_(1)
    y = randn(device, 4, seed=3)
    np.testing.assert_array_equal(_np(ct.run(y)), _np(f(y)))


def test_random_kernels_and_lazy_traces_are_not_folded(device):
    def f(x):
        return x + flow.rand(4, device=x.device) * 2

    x = randn(device, 4)
    flow.manual_seed(1)
    eager = [_np(f(x)) for _ in range(3)]
    flow.manual_seed(1)
    ct = _graph.trace(f, x)
    assert _summary(ct, "constfold").startswith("folded 0 of") and ct.stats()["random_nodes"] == 1
    got = [_np(ct.example_outputs), _np(ct.run(x)), _np(ct.run(x))]
    for g, e in zip(got, eager):
        np.testing.assert_array_equal(g, e)
    # a lazy trace computed no values to keep: the default pipeline skips constfold, asking for it is an error
    lazy = _graph.trace(lambda t: t + flow.ones(4, device=t.device), x, execute=False)
    assert "constfold" not in dict(lazy.passes)
    np.testing.assert_array_equal(_np(lazy.run(x)), _np(x + 1))
    with pytest.raises(ValueError, match="constfold.*lazy trace"):
        _graph.trace(lambda t: t + 1, x, execute=False, passes=["constfold"])


def test_a_constant_read_before_its_last_write_is_not_folded(device):
    def f(x):
        m = flow.ones(4, device=x.device)
        y = x * m      # sees the ones
        m.mul_(3)      # constant inputs, but y must not see the final value
        return y + m

    x = randn(device, 4)
    ct = _graph.trace(f, x)
    assert _summary(ct, "constfold").startswith("folded 0 of")
    _check_runs(f, ct, device, (4,))


def test_a_folded_value_that_is_a_result_is_not_folded(device):
    # the graph's outputs are fresh memory of each run, never a plan constant
    def f(x):
        return x * 2, flow.arange(4, device=x.device, dtype=flow.float32)

    x = randn(device, 4)
    ct = _graph.trace(f, x)
    assert _summary(ct, "constfold").startswith("folded 0 of")
    a = ct.run(x)[1]
    b = ct.run(x)[1]
    a.add_(1)  # the caller owns each run's results
    np.testing.assert_array_equal(_np(b), np.arange(4.0))


def test_from_numpy_memory_is_not_a_constant():
    arr = np.ones(3, dtype=np.float32)

    def f(x):
        return x + flow.from_numpy(arr) * 2

    x = flow.zeros(3)
    ct = _graph.trace(f, x)
    assert _summary(ct, "constfold").startswith("folded 0 of")
    arr[:] = 5.0
    np.testing.assert_array_equal(_np(ct.run(x)), np.full(3, 10.0))


# ---------------------------------------------------------------- common subexpressions

def test_cse_merges_a_repeated_call(device):
    def f(x):
        a = x.exp()
        b = x.exp()
        return a * b

    x = randn(device, 3, 4)
    ct = _graph.trace(f, x, passes=["cse"])
    raw = _graph.trace(f, x, passes=None)
    assert _summary(ct, "cse") == "merged 1 of 3 nodes into earlier identical ones"
    assert _ops(ct) == ["exp", "mul"] and _ops(raw) == ["exp", "exp", "mul"]
    _check_runs(f, ct, device, (3, 4))


def test_cse_merges_repeated_chains_one_node_at_a_time(device):
    def f(x):
        a = (x.exp() * 2).sum(1)
        b = (x.exp() * 2).sum(1)
        c = (x.exp() * 3).sum(0)  # other scalar, other dim: not the same
        return a + b, c

    x = randn(device, 3, 4)
    ct = _graph.trace(f, x, passes=["cse"])
    raw = _graph.trace(f, x, passes=None)
    assert _summary(ct, "cse").startswith(f"merged 4 of {raw.stats()['nodes']} nodes")  # exp, mul, sum; exp
    assert _ops(ct).count("exp") == 1 and _ops(ct).count("mul_scalar") == 2
    _check_runs(f, ct, device, (3, 4))


def test_cse_keeps_calls_whose_inputs_change_in_between(device):
    def f(x):
        h = x * 1.5
        a = h.exp()
        h.add_(1)
        b = h.exp()
        return a - b

    x = randn(device, 5)
    ct = _graph.trace(f, x)
    assert _summary(ct, "cse").startswith("merged 0 of")
    _check_runs(f, ct, device, (5,))


def test_cse_keeps_random_kernels_results_and_other_attributes(device):
    def f(x):
        d1 = F.dropout(x, 0.5, training=True)
        d2 = F.dropout(x, 0.5, training=True)  # two draws, two different masks
        return d1 - d2, x.exp(), x.exp()       # results: each run's own memory

    x = flow.ones(64, device=device)
    flow.manual_seed(4)
    eager = [[_np(t) for t in f(x)] for _ in range(2)]
    flow.manual_seed(4)
    ct = _graph.trace(f, x)
    assert _summary(ct, "cse").startswith("merged 0 of") and ct.stats()["random_nodes"] == 2
    assert np.any(eager[0][0] != 0)
    for got, want in zip([ct.example_outputs, ct.run(x)], eager):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(_np(g), w)
    r = ct.run(x)
    assert r[1].data_ptr() != r[2].data_ptr()


def test_cse_in_a_backward_that_recomputes(device):
    # d(h * h) = g * h + g * h: the two products are one
    lin = nn.Linear(4, 3).to(device)

    def f(x):
        h = lin(x)
        loss = (h * h).sum()
        grads = flow.autograd.grad(loss, [lin.weight])
        return grads[0]

    x = randn(device, 2, 4)
    ct = _graph.trace(f, x, passes=["cse"])
    raw = _graph.trace(f, x, passes=None)
    assert raw.stats()["nodes"] - ct.stats()["nodes"] >= 1
    assert not _summary(ct, "cse").startswith("merged 0 of")
    _check_runs(f, ct, device, (2, 4))


# ---------------------------------------------------------------- training

class _Square(nn.Module):
    def forward(self, x):
        return x * x  # its backward computes grad * x twice


def _mlp(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), _Square(), nn.Linear(16, 3)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _cnn(device):
    flow.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 6, 3),
                          _Square(), nn.Flatten(), nn.Linear(6 * 2 * 2, 3)).to(device)
    return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@pytest.mark.parametrize("make,shape", [(_mlp, (8, 6)), (_cnn, (4, 1, 8, 8))], ids=["mlp", "cnn"])
@pytest.mark.parametrize("slots,threads", [(1, 1), (2, 2)])
def test_training_with_constfold_and_cse_matches_eager_bit_for_bit(device, make, shape, slots, threads):
    data = classification_data(device, 5, shape)
    _, eager_losses, eager_params = train(make, device, data, "eager")
    graph, losses, params = train(make, device, data, ["constfold", "cse"], slots, threads)
    _, raw_losses, raw_params = train(make, device, data, None, slots, threads)
    text = repr(graph)
    assert "constfold (folded 0 of" not in text  # the backward's seed (ones) at least
    assert "cse (merged 0 of" not in text          # the square's backward
    assert_all_equal(losses, raw_losses, eager_losses)
    assert_all_equal(params, raw_params, eager_params)
