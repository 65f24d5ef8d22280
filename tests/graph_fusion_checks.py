"""What the fusion pass tests (test_graph_fuse_*.py) share: the pass lists
with and without fusion, exact numpy copies, the op names of
a plan, and the check that a traced function replays bit for bit as eager
with and without fusion. (A helper module, not a test file.)"""
import numpy as np

import monoflow as flow
from monoflow import _C, _graph

FUSION = ("fuse_elementwise", "fuse_epilogue")
NO_FUSION = [p for p in _C._graph_default_passes() if p not in FUSION]
DEFAULT = list(_C._graph_default_passes())


def np_widened(t):
    """A numpy copy of t; float16/bfloat16 widened to float32 (exact)."""
    t = t.detach()
    if t.dtype in (flow.float16, flow.bfloat16):
        t = t.float()  # exact widening
    return t.numpy().copy()


def plan_ops(ct):
    """Op names of the final plan's nodes."""
    lines = ct.describe().splitlines()
    return [ln.split(" = ")[1].split(".")[0].split("(")[0] for ln in lines if ln.strip().startswith("%") and " = " in ln]


def _flat(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def matches_eager(f, args_list, passes=DEFAULT, slots_threads=((1, 1), (2, 2))):
    """Traces f on args_list[0] with `passes` and without fusion; both replay
    every args of the list bit for bit as eager, one iteration per run and
    several per run. Returns the trace with `passes`."""
    ct = _graph.trace(f, *args_list[0], passes=passes)
    raw = _graph.trace(f, *args_list[0], passes=NO_FUSION)
    want = [f(*args) for args in args_list]
    for args, w in zip(args_list, want):
        for got in (ct.run(*args), raw.run(*args)):
            for g, e in zip(_flat(got), _flat(w)):
                np.testing.assert_array_equal(np_widened(g), np_widened(e))
    for slots, threads in slots_threads:
        for g, w in zip(ct.run_each(args_list, slots=slots, threads=threads), want):
            for a, b in zip(_flat(g), _flat(w)):
                np.testing.assert_array_equal(np_widened(a), np_widened(b))
    return ct
