"""Whole-graph SBP deduction (Note [Whole-graph SBP deduction] in
_global/whole_graph.py).

Single process: the solver on synthetic decision logs is never costlier than
greedy, deterministic, and finds the brute-force optimum on small random
graphs; the cost model of backward boxing is the transposed steps'.
Two ranks (graph_sbp_worker.py through the launcher): a training graph where
greedy is provably worse (x S(1) into a broadcast Linear: greedy takes the
free row-parallel signature, whose P output then costs a reduce-scatter and
its backward an all-gather of the large activation) re-traces with the
whole-graph signatures, moves exactly the bytes the solver predicted (less
than greedy, which also moves exactly its prediction), and trains like eager
global training (float tolerance: the reduction order differs, a sum of
partial sums against a sum over local rows); a data-parallel graph where
greedy is optimal is not re-traced."""
import itertools
import json
import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
import monoflow.distributed as dist
from monoflow._global import boxing
from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S
from monoflow._global.whole_graph import Call, DecisionLog, Edge, edge_bytes, solve

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_ddp import launch  # noqa: E402

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")

PLACEMENT = flow.placement("cpu", [0, 1])
LAYOUTS = [(B,), (S(0),), (S(1),), (P,)]
SHAPES = [(4, 6), (8, 2), (2, 16)]


# ------------------------------------------------------------------ synthetic logs

def _greedy_pick(calls, edges, candidates):
    """dispatch.choose's rule on forward bytes: (cost, conversions, order)."""
    best = None
    for a, (ins, _) in enumerate(candidates):
        cost = changes = 0
        for e in edges:
            src = e.leaf_nd if e.source is None else calls[e.source[0]].out_nd(calls[e.source[0]].greedy, e.source[1])
            if src != ins[e.index]:
                changes += 1
                cost += boxing.cost(e.shape, e.itemsize, PLACEMENT, src, ins[e.index])
        key = (cost, changes, a)
        best = key if best is None or key < best else best
    return best[2]


@st.composite
def decision_logs(draw, max_calls=6):
    n = draw(st.integers(1, max_calls))
    calls = []
    for k in range(n):
        nin = draw(st.integers(1, 2))
        edges = []
        for i in range(nin):
            from_call = k > 0 and draw(st.booleans())
            shape = draw(st.sampled_from(SHAPES))
            grad = draw(st.booleans())
            if from_call:
                j = draw(st.integers(0, k - 1))
                edges.append(Edge(k, i, (j, 0), None, shape, 4, 4, PLACEMENT, grad))
            else:
                edges.append(Edge(k, i, None, draw(st.sampled_from(LAYOUTS)), shape, 4, 4, PLACEMENT, grad))
        ncand = draw(st.integers(1, 4))
        candidates = tuple((tuple(draw(st.sampled_from(LAYOUTS)) for _ in range(nin)),
                            (draw(st.sampled_from(LAYOUTS)),)) for _ in range(ncand))
        g = _greedy_pick(calls, edges, candidates)
        calls.append(Call(k, f"op{k}", candidates, g, g, edges))
    return DecisionLog(calls, constant=draw(st.integers(0, 100)))


def brute_force(log):
    return min(log.cost(list(x)) for x in itertools.product(*[range(len(c.candidates)) for c in log.calls]))


@settings(max_examples=60, deadline=None)
@given(decision_logs())
def test_solver_is_optimal_on_small_graphs_never_worse_than_greedy_and_deterministic(log):
    sol = solve(log)
    assert sol.greedy_cost == log.cost([c.greedy for c in log.calls])
    assert sol.cost <= sol.greedy_cost
    assert sol.cost == log.cost(sol.choices)
    assert sol.cost == brute_force(log)
    again = solve(log)
    assert again.choices == sol.choices and again.cost == sol.cost
    assert sol.improves == (sol.cost < sol.greedy_cost)


@settings(max_examples=30, deadline=None)
@given(decision_logs(max_calls=8))
def test_local_search_alone_is_never_worse_than_greedy(log):
    sol = solve(log, budget=0)  # no branch and bound: coordinate descent and pair moves only
    assert sol.cost <= sol.greedy_cost
    assert sol.cost == log.cost(sol.choices)


def _trap_log():
    """matmul(x S(1), W B) then relu: greedy takes (S1, S0) -> P for free,
    relu then reduce-scatters the large output; (S0, B) -> S0 all-to-alls
    the small input instead."""
    x = Edge(0, 0, None, (S(1),), (8, 4), 4, 4, PLACEMENT, False)
    w = Edge(0, 1, None, (B,), (4, 16), 4, 4, PLACEMENT, True)
    mm = Call(0, "matmul", ((((S(0),), (B,)), ((S(0),),)), (((S(1),), (S(0),)), ((P,),)),
                            (((B,), (B,)), ((B,),))), 1, 1, [x, w])
    h = Edge(1, 0, (0, 0), None, (8, 16), 4, 4, PLACEMENT, True)
    relu = Call(1, "relu", ((((S(0),),), ((S(0),),)), (((S(1),),), ((S(1),),)), (((B,),), ((B,),))), 0, 0, [h])
    return DecisionLog([mm, relu])


def test_the_greedy_trap_is_escaped_and_pinning_holds():
    log = _trap_log()
    sol = solve(log)
    # greedy: reduce-scatter of (8, 16) forward and its all-gather backward; whole-graph: all-to-all of x
    rs = boxing.cost((8, 16), 4, PLACEMENT, (P,), (S(0),))
    assert sol.greedy_cost == rs + boxing.cost((8, 16), 4, PLACEMENT, (S(0),), (B,)) == 1024
    assert sol.choices == [0, 0] and sol.cost == boxing.cost((8, 4), 4, PLACEMENT, (S(1),), (S(0),)) == 64
    assert sol.changes() == [(0, "matmul", "(S(1), S(0)) -> (P)", "(S(0), B) -> (S(0))")]
    assert "greedy 1024 bytes -> whole-graph 64 bytes per step" in sol.summary()
    log.calls[0].pinned = True  # an in-place op's operand: its producer keeps the greedy pick
    pinned = solve(log)
    assert pinned.choices[0] == 1 and pinned.cost <= pinned.greedy_cost


def test_backward_bytes_are_the_transposed_steps():
    shape = (8, 16)
    # S0 -> B forward all-gathers; its backward P -> S0 reduce-scatters
    fwd = boxing.cost(shape, 4, PLACEMENT, (S(0),), (B,))
    assert edge_bytes(shape, 4, 4, PLACEMENT, (S(0),), (B,), True) == fwd + boxing.cost(shape, 4, PLACEMENT, (P,),
                                                                                          (S(0),))
    # P -> B all-reduces both ways; B -> S0 slices forward and pads with zeros backward
    ar = boxing.cost(shape, 4, PLACEMENT, (P,), (B,))
    assert edge_bytes(shape, 4, 4, PLACEMENT, (P,), (B,), True) == 2 * ar
    assert edge_bytes(shape, 4, 4, PLACEMENT, (B,), (S(0),), True) == 0
    assert edge_bytes(shape, 4, 4, PLACEMENT, (S(0),), (S(0),), True) == 0


class _Stub:
    """What Recorder.decide reads of a global tensor."""

    def __init__(self, nd, shape=(8, 4), requires_grad=False):
        self.sbp, self._shape, self.placement = nd, shape, PLACEMENT
        self.dtype, self.requires_grad, self.is_leaf, self.is_global = flow.float32, requires_grad, True, True


def _replay(recorder, ops):
    """Runs `ops` [(name, [signatures])] through `recorder` as dispatch
    would, each op taking the previous op's output; the picks."""
    picks, prev = [], _Stub((S(1),))
    for name, sigs in ops:
        combos = [(s,) for s in sigs]
        a = recorder.decide(name, [prev], combos, 0, False)
        out = _Stub((sigs[a].outputs[0],))
        recorder.produced([prev], [out])
        picks.append(a)
        prev = out
    return picks


def test_forced_decisions_follow_the_solution_until_the_trace_diverges():
    from monoflow._global.signatures.base import Signature
    from monoflow._global.whole_graph import recording

    sigs = [Signature([S(0)], [S(0)]), Signature([S(1)], [P]), Signature([B], [B])]
    relu = [Signature([S(0)], [S(0)]), Signature([B], [B])]
    with recording() as rec:
        _replay(rec, [("mm", sigs), ("relu", relu), ("relu", relu)])
    log = rec.log
    assert [c.name for c in log.calls] == ["mm", "relu", "relu"]
    assert [e.source for c in log.calls for e in c.edges] == [None, (0, 0), (1, 0)]
    forced = solve(log)
    forced.choices = [1, 1, 0]  # any valid picks: the recorder must hand them back
    with recording(forced) as rec2:
        assert _replay(rec2, [("mm", sigs), ("relu", relu), ("relu", relu)]) == [1, 1, 0]
    assert rec2.diverged is None
    with recording(forced) as rec3:  # another op at call 1: greedy (0) from there on
        assert _replay(rec3, [("mm", sigs), ("gelu", relu), ("relu", relu)]) == [1, 0, 0]
    assert "call 1 (gelu)" in rec3.diverged
    with recording(forced) as rec4:  # same op, other candidates
        assert _replay(rec4, [("mm", sigs), ("relu", relu[:1]), ("relu", relu)]) == [1, 0, 0]
    assert "call 1 (relu)" in rec4.diverged


def test_config_switch():
    g = flow.nn.Graph()
    assert g.config.whole_graph_sbp is True
    g.config.enable_whole_graph_sbp(False)
    assert g.config.whole_graph_sbp is False
    with pytest.raises(TypeError, match="enable_whole_graph_sbp"):
        g.config.enable_whole_graph_sbp("yes")


# ------------------------------------------------------------------ two ranks

def run_suite(tmp_path, suite, timeout=240):
    r = launch(2, [os.path.join(HERE, "graph_sbp_worker.py"), str(tmp_path), suite], tmp_path, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = []
    for k in range(2):
        path = tmp_path / f"rank{k}.json"
        assert path.exists(), f"rank {k} wrote nothing:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        out.append(json.loads(path.read_text()))
    for k, res in enumerate(out):
        assert "crashed" not in res, f"rank {k} crashed:\n{res['crashed']}"
    return out


@needs_gloo
def test_whole_graph_sbp_on_two_ranks(tmp_path):
    res = run_suite(tmp_path, "all")
    for k, r in enumerate(res):
        for name in ("trap_matches_eager", "residual", "eval_graph", "greedy_optimal_not_retraced"):
            assert r.get(name) == "ok", f"rank {k}, {name}:\n{r.get(name, 'missing')}"
    # bytes per replayed step, summed over the ranks, against the cost model
    greedy = sum(r["greedy_measured"] for r in res)
    whole = sum(r["whole_measured"] for r in res)
    assert res[0]["greedy_model"] == res[1]["greedy_model"] and res[0]["whole_model"] == res[1]["whole_model"]
    assert greedy == res[0]["greedy_model"], res
    assert whole == res[0]["whole_model"], res
    assert whole < greedy, res
    # a residual connection (the linear's output feeds relu and the add): the same, and the solver gains more
    greedy = sum(r["res_greedy_measured"] for r in res)
    whole = sum(r["res_whole_measured"] for r in res)
    assert (greedy, whole) == (res[0]["res_greedy_model"], res[0]["res_whole_model"]), res
    assert whole < greedy, res
    # an eval graph: forward boxing only (greedy: a reduce-scatter of the (8, 16) output; whole-graph: an
    # all-to-all of the (8, 4) input)
    assert (res[0]["eval_greedy_model"], res[0]["eval_model"]) == (512, 64), res
    assert sum(r["eval_measured"] for r in res) == 64, res
    dp = sum(r["dp_measured"] for r in res)
    assert dp == res[0]["dp_model"], res
