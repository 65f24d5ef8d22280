"""Runs one case of global_op_cases as a one-op graph and compares it with
eager mode (test_graph_ops.py): trace the op on the case's inputs, replay it
on new inputs of the same shapes and dtypes, and compare with eager on those
inputs - forward and, for differentiable cases, the input gradients of a
traced `out.backward(g)`.

New inputs are the case's arrays with their elements shuffled by another
seed (floats also scaled by 0.9 to 1.1): the same shapes and dtypes, and
values from the domain the generator drew for (log's positive inputs,
in-range indices), while the values the graph sees change.
"""
import re

import numpy as np

import monoflow as flow
from monoflow import _graph

import global_op_cases as cases

# The documented refusals (docs/graph_runtime.md, "Tracing").
REFUSAL = re.compile(r"inside a graph trace: (tensor values are not available while tracing"
                     r"|its output's shape depends on tensor values)")

# Cases the trace refuses, always: each must raise REFUSAL.
REFUSED = {
    "fill: fill_ tensor": "fill_ with a 0-dim tensor value reads the value on the host (item())",
    "__setitem__: mask = 0": "boolean-mask assignment goes through nonzero: value-dependent shape",
    "__setitem__: mask = 1.5": "boolean-mask assignment goes through nonzero: value-dependent shape",
    "composed: gaussian_nll_loss": "its argument check reads var on the host (item())",
    "data-dependent shape: nonzero": "nonzero's output shape depends on the values",
    "data-dependent shape: nonzero as_tuple": "nonzero's output shape depends on the values",
    "data-dependent shape: Tensor.nonzero": "nonzero's output shape depends on the values",
    "data-dependent shape: argwhere": "argwhere is nonzero: its output shape depends on the values",
    "data-dependent shape: where(condition)": "where(condition) is nonzero: its output shape depends on the values",
}

# Random cases: replay must draw fresh numbers each run, the same stream as
# eager steps under flow.manual_seed (compared that way, not with one eager call).
RANDOM = {f"random: {k}" for k in cases.RANDOM} | {"dropout: train p=0.3", "dropout: train p=0.5",
                                                   "dropout: dropout1d train"}
# Random cases whose draws are continuous: two runs must differ.
CONTINUOUS = {"random: normal_", "random: uniform_", "random: rand_like", "random: randn_like"}

# Cases left out everywhere, with why.
EXCLUDED = {}

# Cases left out on devices other than the CPU, with why.
NOT_ON_ACCELERATORS = {
    # a copy between devices is not a kernel launch: the trace refuses copies
    # of device values (test_copies_of_device_values_in_a_graph_are_refused)
    "to('cpu', float64): float input": "a copy of device values, refused inside a trace",
    "to('cpu', float64): int input": "a copy of device values, refused inside a trace",
    "cpu(): float input": "a copy of device values, refused inside a trace",
    "cpu(): int input": "a copy of device values, refused inside a trace",
}


def excluded(label, device):
    """Why the case is left out on `device`, or None."""
    if label in EXCLUDED:
        return EXCLUDED[label]
    return None if device.startswith("cpu") else NOT_ON_ACCELERATORS.get(label)


def outputs(out):
    """fn's result as a flat list (namedtuples such as max(dim)'s too)."""
    return list(out) if isinstance(out, (tuple, list)) else [out]


def host(t):
    t = t.detach()
    return (t.float() if t.dtype == flow.bfloat16 else t).numpy()


def same(got, want, what):
    """Exact equality (same kernels on the same values), NaNs included;
    returns a problem or None."""
    if isinstance(want, flow.Tensor) != isinstance(got, flow.Tensor):
        return f"{what}: {type(got).__name__} where eager gave {type(want).__name__}"
    if not isinstance(want, flow.Tensor):
        return None if got == want else f"{what}: {got!r} != eager {want!r}"
    if got.dtype != want.dtype or tuple(got.shape) != tuple(want.shape):
        return f"{what}: {got.dtype}{tuple(got.shape)} != eager {want.dtype}{tuple(want.shape)}"
    g, w = host(got), host(want)
    if not np.array_equal(g, w, equal_nan=g.dtype.kind in "fc"):
        return f"{what}: replay {g.ravel()[:6].tolist()} != eager {w.ravel()[:6].tolist()}"
    return None


def shuffled(arrays, rng):
    """New inputs: elements permuted; floats also scaled by 0.9 to 1.1 each
    (one-element inputs, common here, would not change otherwise); a
    one-element bool flipped. Integers keep their values: indices stay in range."""
    new = []
    for a in arrays:
        b = rng.permutation(a.reshape(-1)).reshape(a.shape) if a.size > 1 else a.copy()
        if b.dtype.kind == "f":
            b = (b * rng.uniform(0.9, 1.1, b.shape)).astype(b.dtype)
        elif b.dtype.kind == "b" and b.size == 1:
            b = ~b
        new.append(b)
    return new


def tensors(arrays, device, grads=None):
    return [flow.tensor(a, device=device, requires_grad=bool(grads and grads[i])) for i, a in enumerate(arrays)]


def run_case(label, case, device, rng, replays=2):
    """Returns (outcome, problems); outcome is 'ran', 'error' (eager raises on
    the case's inputs: the trace must raise the same), 'refused' or 'random'."""
    arrays = [a.array for a in case.inputs]
    xs = tensors(arrays, device)
    try:
        case.fn(*xs)
    except Exception as e:  # an error case (or a draw eager refuses): so must the trace
        try:
            _graph.trace(case.fn, *tensors(arrays, device))
        except Exception as t:
            ok = type(t) is type(e) or (isinstance(t, RuntimeError) and REFUSAL.search(str(t)))
            return "error", [] if ok else [f"eager raised {e!r}, the trace {t!r}"]
        return "error", [f"eager raised {e!r}, the trace did not"]

    fn = case.fn
    try:
        ct = _graph.trace(fn, *xs)
    except RuntimeError as e:
        if REFUSAL.search(str(e)):
            return "refused", []
        return "ran", [f"trace raised {e!r}"]
    except Exception as e:
        return "ran", [f"trace raised {e!r}"]
    if label in REFUSED:
        return "ran", ["the trace did not refuse it"]
    if label in RANDOM:
        return "random", check_random(label, fn, ct, xs)

    problems = []
    for r in range(replays):
        new = shuffled(arrays, rng)
        want = outputs(fn(*tensors(new, device)))
        got = outputs(ct.run(*tensors(new, device)))
        if len(got) != len(want):
            return "ran", [f"replay {r}: {len(got)} outputs, eager {len(want)}"]
        problems += [p for k, (g, w) in enumerate(zip(got, want)) if (p := same(g, w, f"replay {r} output {k}"))]
    if not problems and case.backward:
        problems += check_grads(fn, arrays, case, device, rng, replays)
    return "ran", problems


def check_random(label, fn, ct, xs, steps=3):
    """Replays draw what eager steps draw from the same seed, and not the
    traced numbers again."""
    flow.manual_seed(1234)
    eager = [[host(o) for o in outputs(fn(*xs))] for _ in range(steps)]
    flow.manual_seed(1234)
    replay = [[host(o) for o in outputs(ct.run(*xs))] for _ in range(steps)]
    problems = [f"step {s}: replay draws {g.ravel()[:6].tolist()}, eager {w.ravel()[:6].tolist()}"
                for s in range(steps) for g, w in zip(replay[s], eager[s]) if not np.array_equal(g, w)]
    if label in CONTINUOUS and all(np.array_equal(replay[0][0], r[0]) for r in replay[1:]):
        problems.append("replays draw the same numbers every run (frozen at the trace)")
    return problems


def check_grads(fn, arrays, case, device, rng, replays):
    """Trace fn(xs) -> outs; outs.backward(gs); return the xs' grads. Replay
    on new xs and gs, compare with eager backward on them."""
    grads = [a.grad and a.array.dtype.kind == "f" for a in case.inputs]
    if not any(grads):
        return []
    probe = outputs(fn(*tensors(arrays, device, grads)))
    diff = [k for k, o in enumerate(probe) if isinstance(o, flow.Tensor) and o.requires_grad
            and o.dtype.is_floating_point]
    if not diff:
        return []
    # the output gradients in the outputs' dtypes (bfloat16: drawn as float32)
    g_arrays = [rng.uniform(-1, 1, tuple(probe[k].shape)).astype(np.float32) for k in diff]
    g_dtypes = [probe[k].dtype for k in diff]
    g_devices = [probe[k].device for k in diff]
    n = len(arrays)
    needs = [i for i in range(n) if grads[i]]

    def step(*args):
        xs, gs = args[:n], args[n:]
        outs = outputs(fn(*xs))
        flow.autograd.backward([outs[k] for k in diff], list(gs))
        return tuple(xs[i].grad for i in needs)

    def feed(xa, ga, with_grad):
        xs = tensors(xa, device, grads if with_grad else None)
        gs = [flow.tensor(g, device=v).to(d) for g, d, v in zip(ga, g_dtypes, g_devices)]
        return xs, gs

    try:  # a backward eager refuses (e.g. an in-place op on a saved tensor): so must the trace
        xs, gs = feed(arrays, g_arrays, True)
        step(*xs, *gs)
    except Exception as e:
        xs, gs = feed(arrays, g_arrays, True)
        try:
            _graph.trace(step, *xs, *gs)
        except Exception as t:
            return [] if type(t) is type(e) else [f"eager backward raised {e!r}, the trace {t!r}"]
        return [f"eager backward raised {e!r}, the trace did not"]
    xs, gs = feed(arrays, g_arrays, True)
    try:
        ct = _graph.trace(step, *xs, *gs)
    except Exception as e:
        return [f"tracing the backward raised {e!r}"]
    problems = []
    for r in range(replays):
        xa, ga = shuffled(arrays, rng), shuffled(g_arrays, rng)
        xs, gs = feed(xa, ga, True)
        want = step(*xs, *gs)
        xs, gs = feed(xa, ga, False)  # the graph's inputs need no autograd
        got = outputs(ct.run(*xs, *gs))
        for j, (g, w) in enumerate(zip(got, want)):
            if w is None:
                if g is not None:
                    problems.append(f"replay {r} grad of input {needs[j]}: set, eager None")
            elif g is None:
                problems.append(f"replay {r} grad of input {needs[j]}: None, eager set")
            elif p := same(g, w, f"replay {r} grad of input {needs[j]}"):
                problems.append(p)
    return problems
