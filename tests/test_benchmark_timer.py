"""monoflow.utils.benchmark (the "PyTorch Benchmark" recipe): Timer / Measurement / Compare with torch's
arguments, attributes and printed forms."""
import pytest

import monoflow as flow
import monoflow.utils.benchmark as mb

torch = pytest.importorskip("torch")
import torch.utils.benchmark as tb  # noqa: E402


def batched_dot_mul_sum(a, b):
    return a.mul(b).sum(-1)


@pytest.mark.parametrize("bench,lib", [(tb, torch), (mb, flow)], ids=["torch", "monoflow"])
def test_the_recipe_runs_the_same_way(bench, lib):
    x = lib.randn(64, 16)
    t0 = bench.Timer(stmt="batched_dot_mul_sum(x, x)", setup="pass", globals={"x": x, "batched_dot_mul_sum": batched_dot_mul_sum},
                     label="Batched dot", sub_label="[64, 16]", description="mul/sum", num_threads=1)
    m = t0.timeit(20)
    assert m.number_per_run == 20 and len(m.times) == 1 and m.median == m.mean > 0
    text = repr(m)
    assert "1 measurement, 20 runs , 1 thread" in text
    assert text.splitlines()[1:3] == ["Batched dot: [64, 16]", "mul/sum"]
    assert repr(bench.Timer("x + 1", globals={"x": x}).timeit(2)).splitlines()[1] == "x + 1"
    m2 = bench.Timer(stmt="x @ x.T", globals={"x": x}, label="Batched dot", sub_label="[64, 16]",
                     description="matmul").blocked_autorange(min_run_time=0.02)
    assert len(m2.times) >= 1 and sum(m2.raw_times) >= 0.02 and m2.iqr >= 0
    m3 = bench.Timer(stmt="x + 1", globals={"x": x}).adaptive_autorange(min_run_time=0.01, max_run_time=0.2)
    assert m3.median > 0
    compare = bench.Compare([m, m2])
    compare.trim_significant_figures()
    compare.colorize()
    out = str(compare)
    assert "Batched dot" in out and "mul/sum" in out and "matmul" in out and "[64, 16]" in out
    assert "Times are in" in out
    with pytest.raises(NotImplementedError):
        bench.Timer("pass").repeat()


def test_num_threads_is_restored():
    before = flow.get_num_threads()
    mb.Timer("x.sum()", globals={"x": flow.ones(8)}, num_threads=1).timeit(3)
    assert flow.get_num_threads() == before
    with pytest.raises(ValueError, match="num_threads"):
        mb.Timer("pass", num_threads=0)
