"""Whole-graph SBP deduction: one nd-SBP signature per global op of a graph's
trace, chosen to minimise the bytes boxing moves over the whole step instead
of op by op.

Note [Whole-graph SBP deduction]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
dispatch.choose() is greedy: each op takes the signature whose input
conversions move the fewest bytes for that op alone. That can be a trap: a
matmul of x S(1) by a broadcast weight takes (S(1), S(0)) -> P for free, and
the next op, which cannot take P, pays a reduce-scatter of the (large)
output, where an all-to-all of the (small) input into (S(0), B) -> S(0)
would have moved less in total.

While nn.Graph traces build, a Recorder (installed with recording()) keeps a
DecisionLog: for every global op call, in trace order, its candidate
signatures (after dispatch's in-place and non-empty filters), the greedy
pick, and for every tensor operand where it came from: an earlier call's
output (linked by object identity, through weak references: an entry goes
when its tensor dies, so an id is never taken for another tensor's, and the
recorder keeps no activation alive past its last use, which would make its
memory Persistent in the plan, Note [Storage classes]) or a leaf with a fixed nd-SBP (a
graph input, a parameter, a tensor made by to_global). solve() then picks
one candidate per call minimising

    sum over input edges of cost(producer's output nd-SBP -> required nd-SBP)

where the cost is boxing.cost's bytes (summed over the placement's ranks,
what every rank can compute alike) plus, when the operand requires a
gradient, the bytes of the transposed steps autograd runs in backward
(boxing's Note: an all-gather's backward is a reduce-scatter). Gradient
hooks of global leaves (P -> B of a broadcast weight) cost the same whatever
the choice; they are counted as a constant so that the figure is the step's.

The solver starts from the greedy assignment, improves it by coordinate
descent (re-pick one call given its neighbours) and pair moves (re-pick a
producer and a consumer together, which escapes the trap above), then runs
a branch and bound over the calls in trace order (producers come before
consumers, so a call's incoming edges are known when it is assigned) with
the best assignment so far as the bound, within a fixed node budget. Every
step only accepts strict improvements, so the result is never costlier than
greedy; all of it is deterministic and depends only on metadata every rank
shares (shapes, dtypes, SBPs, rule order), so every rank picks the same.

The solution is applied by re-tracing with forced decisions: the recorder
answers dispatch's call k with the solver's pick after checking that the op
name and the candidate set are those of the log's call k; at the first
mismatch (the trace took another path) it falls back to greedy for the rest
of the trace and says why in `diverged`. Correctness never depends on the
planner: any candidate is a valid signature, only the bytes differ.

Not modelled: conversions user code makes itself (to_global in build; their
source's layout may depend on the choices) and the write-back of an in-place
op that ran on a converted copy. In-place ops are kept consistent by pinning
the producer of their operand 0 to its greedy pick (their candidate set was
filtered by that operand's layout).
"""
import functools
import itertools
import threading
import weakref
from contextlib import contextmanager

from monoflow import _C
from monoflow._global import boxing
from monoflow._global.sbp import dual

_state = threading.local()


def active():
    """The Recorder of the graph trace in progress on this thread, or None."""
    return getattr(_state, "recorder", None)


@contextmanager
def recording(forced=None):
    """Records the global op calls of the code run inside into a DecisionLog
    (recorder.log); with `forced` (a Solution), answers each call with the
    solution's pick while the trace follows the logged one."""
    rec = Recorder(forced)
    previous = active()
    _state.recorder = rec
    try:
        yield rec
    finally:
        _state.recorder = previous
        rec.release()


# ------------------------------------------------------------------ the log

class Edge:
    """Operand `index` of call `consumer`: from call `source` = (j, m) (output
    m of call j) or from a leaf laid out as `leaf_nd` (source None)."""

    __slots__ = ("consumer", "index", "source", "leaf_nd", "shape", "itemsize", "reduce_itemsize", "placement",
                 "grad")

    def __init__(self, consumer, index, source, leaf_nd, shape, itemsize, reduce_itemsize, placement, grad):
        self.consumer, self.index, self.source, self.leaf_nd = consumer, index, source, leaf_nd
        self.shape, self.itemsize, self.reduce_itemsize = tuple(shape), itemsize, reduce_itemsize
        self.placement, self.grad = placement, grad

    def cost(self, src_nd, dst_nd):
        return edge_bytes(self.shape, self.itemsize, self.reduce_itemsize, self.placement, src_nd, dst_nd, self.grad)


class Call:
    """One global op call of a trace. candidates[a] = (inputs, outputs): the
    nd-SBP of each tensor operand and of each output under candidate a."""

    __slots__ = ("index", "name", "candidates", "greedy", "choice", "edges", "pinned")

    def __init__(self, index, name, candidates, greedy, choice, edges):
        self.index, self.name, self.candidates = index, name, candidates
        self.greedy, self.choice, self.edges, self.pinned = greedy, choice, edges, False

    def out_nd(self, a, m):
        outs = self.candidates[a][1]
        return outs[min(m, len(outs) - 1)]

    def describe(self, a):
        ins, outs = self.candidates[a]
        return f"({', '.join(_nd(s) for s in ins)}) -> ({', '.join(_nd(s) for s in outs)})"


def _nd(nd):
    return nd[0].short() if len(nd) == 1 else "(" + ", ".join(s.short() for s in nd) + ")"


class DecisionLog:
    """The calls of one trace, in order, and the bytes that cost the same
    whatever they choose (gradient hooks of global leaves)."""

    def __init__(self, calls=None, constant=0):
        self.calls = list(calls or [])
        self.constant = constant

    def __len__(self):
        return len(self.calls)

    def cost(self, choices=None):
        """Bytes per step under `choices` (default: what the trace took)."""
        choices = [c.choice for c in self.calls] if choices is None else choices
        return self.constant + sum(_incoming(self.calls, k, choices[k], choices) for k in range(len(self.calls)))


# ------------------------------------------------------------------ cost model

def _replace(nd, k, s):
    return tuple(s if i == k else x for i, x in enumerate(nd))


@functools.lru_cache(maxsize=8192)
def edge_bytes(shape, itemsize, reduce_itemsize, placement, src, dst, grad):
    """Bytes (all ranks) boxing moves converting an operand from `src` to
    `dst`, plus with `grad` those of the transposed steps in backward
    (boxing._box_step_class: each step's backward converts the gradient from
    the dual of its target to the dual of its source)."""
    src, dst = tuple(src), tuple(dst)
    if src == dst:
        return 0
    total = boxing.cost(shape, itemsize, placement, src, dst, reduce_itemsize=reduce_itemsize)
    if grad:
        for coords in [placement.coords(r) for r in placement.rank_list()]:
            cur = src
            for axis, s, d in boxing.plan(src, dst):
                if placement.hierarchy[axis] > 1:
                    before = _replace(cur, axis, dual(d))
                    total += boxing.step_bytes(shape, itemsize, placement, before, axis, dual(s), coords,
                                               reduce_itemsize)
                cur = _replace(cur, axis, d)
    return total


def leaf_grad_bytes(t):
    """Bytes of a global leaf's gradient hook (tensor.install_grad_hook)."""
    nd = t.sbp
    if all(s.is_split() for s in nd):
        return 0
    size, reduce_size = boxing.itemsizes(t.dtype)
    return boxing.cost(tuple(t._shape), size, t.placement, tuple(dual(s) for s in nd), tuple(nd),
                       reduce_itemsize=reduce_size)


def _src_nd(calls, edge, choices):
    if edge.source is None:
        return edge.leaf_nd
    j, m = edge.source
    return calls[j].out_nd(choices[j], m)


def _incoming(calls, k, a, choices):
    """Bytes of call k's input edges under candidate a, producers as in `choices`."""
    ins = calls[k].candidates[a][0]
    return sum(e.cost(_src_nd(calls, e, choices), ins[e.index]) for e in calls[k].edges)


# ------------------------------------------------------------------ recording

class Recorder:
    def __init__(self, forced=None):
        self.log = DecisionLog()
        self.forced = forced
        self.diverged = None  # why forced decisions stopped, when they did
        self._producers = {}  # id(tensor) -> (weak reference, call, output index)
        self._leaves = {}  # id(leaf) -> leaf, whose gradient hook cost is counted once

    def _forget(self, key, _ref):
        self._producers.pop(key, None)

    def release(self):
        self._producers.clear()
        self._leaves.clear()

    def decide(self, name, tensors, combos, greedy, inplace):
        """Logs call k (dispatch's candidates `combos`, its greedy pick) and
        returns the index of the candidate to run."""
        k = len(self.log.calls)
        n = len(tensors)
        candidates = tuple((tuple(tuple(s.inputs[i] for s in combo) for i in range(n)),
                            tuple(tuple(s.outputs[m] for s in combo) for m in range(len(combo[0].outputs))))
                           for combo in combos)
        grad_on = _C.is_grad_enabled()
        edges = []
        for i, t in enumerate(tensors):
            size, reduce_size = boxing.itemsizes(t.dtype)
            found = self._producers.get(id(t))
            if found is not None and found[0]() is not t:
                found = None
            grad = bool(grad_on and t.requires_grad)
            if found is not None:
                edges.append(Edge(k, i, (found[1], found[2]), None, t._shape, size, reduce_size, t.placement, grad))
            else:
                edges.append(Edge(k, i, None, tuple(t.sbp), t._shape, size, reduce_size, t.placement, grad))
                if grad and t.is_leaf and id(t) not in self._leaves:
                    self._leaves[id(t)] = t
                    self.log.constant += leaf_grad_bytes(t)
        choice = greedy
        if self.forced is not None and self.diverged is None:
            want = self.forced.calls[k] if k < len(self.forced.calls) else None
            if want is None or want.name != name or want.candidates != candidates:
                self.diverged = (f"call {k} ({name}) differs from the logged trace's "
                                 f"({want.name if want else 'no such call'}); greedy from there on")
            else:
                choice = self.forced.choices[k]
        call = Call(k, name, candidates, greedy, choice, edges)
        if inplace and edges and edges[0].source is not None:
            self.log.calls[edges[0].source[0]].pinned = True
        self.log.calls.append(call)
        return choice

    def produced(self, inputs, outputs):
        """The tensors the last logged call returned."""
        k = len(self.log.calls) - 1
        seen = {id(t) for t in inputs}
        for m, o in enumerate(outputs):
            if hasattr(o, "sbp") and getattr(o, "is_global", False) and id(o) not in seen \
                    and id(o) not in self._producers:
                self._producers[id(o)] = (weakref.ref(o, functools.partial(self._forget, id(o))), k, m)


# ------------------------------------------------------------------ solving

class Solution:
    """One candidate index per call of `log`, and the bytes per step of the
    greedy picks and of these."""

    def __init__(self, log, choices, greedy_cost, cost):
        self.calls, self.choices = log.calls, list(choices)
        self.greedy_cost, self.cost = greedy_cost, cost

    @property
    def improves(self):
        return self.cost < self.greedy_cost

    def changes(self):
        """[(k, name, greedy signature, chosen signature)] where they differ."""
        return [(c.index, c.name, c.describe(c.greedy), c.describe(a))
                for c, a in zip(self.calls, self.choices) if a != c.greedy]

    def summary(self):
        return f"sbp: greedy {self.greedy_cost} bytes -> whole-graph {self.cost} bytes per step"


def _domains(calls):
    return [[c.greedy] if c.pinned else list(range(len(c.candidates))) for c in calls]


def _consumers(calls):
    out = [[] for _ in calls]
    for c in calls:
        for e in c.edges:
            if e.source is not None:
                out[e.source[0]].append(e)
    return out


def _edge_cost(calls, e, choices):
    return e.cost(_src_nd(calls, e, choices), calls[e.consumer].candidates[choices[e.consumer]][0][e.index])


def _touching(calls, consumers, nodes, choices):
    """Bytes of the edges with an end in `nodes` (each edge once)."""
    total, seen = 0, set()
    for k in nodes:
        for e in itertools.chain(calls[k].edges, consumers[k]):
            if id(e) not in seen:
                seen.add(id(e))
                total += _edge_cost(calls, e, choices)
    return total


def _coordinate_descent(calls, consumers, domains, x, max_sweeps=50):
    for _ in range(max_sweeps):
        changed = False
        for k in range(len(calls)):
            if len(domains[k]) < 2:
                continue
            current = x[k]
            best, best_cost = current, _touching(calls, consumers, (k,), x)
            for a in domains[k]:
                if a == current:
                    continue
                x[k] = a
                c = _touching(calls, consumers, (k,), x)
                if c < best_cost:
                    best, best_cost = a, c
            x[k] = best
            changed |= best != current
        if not changed:
            return


def _pair_moves(calls, consumers, domains, x):
    """Re-picks each (producer, consumer) pair jointly; True when one improved."""
    improved = False
    pairs = sorted({(e.source[0], e.consumer) for c in calls for e in c.edges if e.source is not None})
    for j, k in pairs:
        if len(domains[j]) < 2 and len(domains[k]) < 2:
            continue
        cur = (x[j], x[k])
        best, best_cost = cur, _touching(calls, consumers, (j, k), x)
        for a in domains[j]:
            for b in domains[k]:
                if (a, b) == cur:
                    continue
                x[j], x[k] = a, b
                c = _touching(calls, consumers, (j, k), x)
                if c < best_cost:
                    best, best_cost = (a, b), c
        x[j], x[k] = best
        improved |= best != cur
    return improved


def _branch_and_bound(calls, domains, best, best_cost, budget):
    """Exact search over calls in trace order (a call's producers come
    first, so its incoming bytes are known when it is assigned), pruned by
    the best total so far; stops after `budget` nodes with the best found."""
    n = len(calls)
    # a lower bound on what calls k.. add: each one's cheapest edges from leaves
    floor = [0] * (n + 1)
    for k in range(n - 1, -1, -1):
        leaf = [e for e in calls[k].edges if e.source is None]
        floor[k] = floor[k + 1] + min(sum(e.cost(e.leaf_nd, calls[k].candidates[a][0][e.index]) for e in leaf)
                                      for a in domains[k])
    x = list(best)
    state = {"best": list(best), "cost": best_cost, "nodes": 0}

    def visit(k, partial):
        if k == n:
            if partial < state["cost"]:
                state["best"], state["cost"] = list(x), partial
            return
        options = []
        for a in domains[k]:
            x[k] = a
            options.append((_incoming(calls, k, a, x), a))
        options.sort()
        for inc, a in options:
            state["nodes"] += 1
            if state["nodes"] > budget:
                return
            if partial + inc + floor[k + 1] >= state["cost"]:
                continue
            x[k] = a
            visit(k + 1, partial + inc)

    visit(0, 0)
    return state["best"], state["cost"]


def solve(log, budget=20_000):
    """The Solution for `log`: never costlier than its greedy picks;
    deterministic (Note [Whole-graph SBP deduction])."""
    calls = log.calls
    greedy = [c.greedy for c in calls]
    greedy_cost = log.cost(greedy)
    if not calls:
        return Solution(log, greedy, greedy_cost, greedy_cost)
    domains = _domains(calls)
    consumers = _consumers(calls)
    x = list(greedy)
    for _ in range(20):
        _coordinate_descent(calls, consumers, domains, x)
        if not _pair_moves(calls, consumers, domains, x):
            break
    cost = log.cost(x)
    if cost > greedy_cost:  # cannot happen (strict improvements only); kept as the guarantee
        x, cost = list(greedy), greedy_cost
    if log.constant < cost and len(calls) <= 500:  # the search recurses once per call
        exact, exact_cost = _branch_and_bound(calls, domains, x, cost - log.constant, budget)
        if exact_cost + log.constant < cost:
            x, cost = exact, exact_cost + log.constant
    return Solution(log, x, greedy_cost, cost)
