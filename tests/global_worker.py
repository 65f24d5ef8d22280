"""The multi-process side of the global-tensor tests: started on every rank
by `python -m monoflow.distributed.launch`, it runs the suites named on its
command line and writes what it found to OUT/rank<R>.json, which the pytest
side (test_global_ops.py, test_global_boxing.py) asserts on.

    global_worker.py OUT SUITE[,SUITE...] [SEED...] [--stride=K] [--only=LABEL [--case-seed=N]]

Every rank draws the same cases from the seeds (numpy's generator seeded by
(seed, case index)), so the ranks make the same global calls in the same
order. A case that fails is recorded with everything needed to rerun it: its
seeds, op, logical shapes, dtypes and input SBPs.

Suites: ops (global ops against the local run: values and gradients),
checks (the SBPs chosen for a few ops), errors (bad input), boxing (every
conversion round trip, its gradient and its bytes).
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import monoflow as flow  # noqa: E402
import monoflow.distributed as dist  # noqa: E402
from monoflow._global import layout  # noqa: E402

TIMEOUT_S = float(os.environ.get("GLOBAL_WORKER_TIMEOUT", "60"))


# ------------------------------------------------------------ set-up

def setup():
    # our own timeout: a desynchronised collective fails instead of hanging
    if not dist.is_initialized():
        dist.init_process_group("gloo", timeout=TIMEOUT_S)
    world = dist.get_world_size()
    if world == 4:
        return flow.placement("cpu", [[0, 1], [2, 3]])
    return flow.placement("cpu", list(range(world)))


def sbp_str(nd):
    return "(" + ", ".join(s.short() for s in nd) + ")"


def random_nd(rng, ndim, naxes, allow_partial=True, allow_split=True):
    choices = ([flow.sbp.split(d) for d in range(ndim)] if allow_split else []) + [flow.sbp.broadcast]
    if allow_partial:
        choices.append(flow.sbp.partial_sum)
    return tuple(choices[rng.integers(len(choices))] for _ in range(naxes))


def shard_of(array, nd, placement, coords, seed):
    """This rank's shard of the logical `array` laid out as `nd`: splits cut
    pieces, partial sums cut the value into random addends (the same on every
    rank that shares the previous axes' coordinates, so the addends add up)."""
    piece = np.asarray(array)
    h = placement.hierarchy
    for axis, s in enumerate(nd):
        if s.is_split():
            start, n = layout.balanced(piece.shape[s.dim], h[axis])[coords[axis]]
            piece = np.take(piece, range(start, start + n), axis=s.dim)
        elif s.is_partial_sum():
            rng = np.random.default_rng([seed, axis, *coords[:axis], 7])
            n = h[axis]
            if piece.dtype.kind == "f":
                parts = [rng.uniform(-1, 1, piece.shape).astype(piece.dtype) for _ in range(n - 1)]
            elif piece.dtype.kind == "b":
                raise ValueError("a bool tensor cannot be a partial sum")
            else:
                parts = [rng.integers(-3, 4, piece.shape).astype(piece.dtype) for _ in range(n - 1)]
            last = piece - sum(parts) if parts else piece
            parts.append(last.astype(piece.dtype))
            piece = parts[coords[axis]]
    return np.array(piece, order="C")  # (np.ascontiguousarray makes a 0-d array 1-d)


def make_global(array, nd, placement, seed, requires_grad=False, check=True):
    """A global tensor of logical value `array` laid out as `nd`, made from
    this rank's shard with to_global (which checks that the ranks agree:
    a collective); `check=False` wraps the shard directly, for the many
    inputs of the op cases, which every rank draws alike."""
    from monoflow._global.tensor import wrap

    coords = placement.coords(dist.get_rank())
    local = flow.tensor(shard_of(array, nd, placement, coords, seed))
    g = local.to_global(placement, nd) if check else wrap(local, placement, nd, np.shape(array))
    if requires_grad:
        g.requires_grad_(True)
    return g


def values(t, placement):
    """(this rank's piece of the value of global `t`, the box it covers):
    the shard itself when no axis holds partial sums, else the whole value
    (partial sums are only a value once added up: a collective)."""
    from monoflow._global.tensor import local_view

    t = t.detach()
    if t.dtype == flow.bfloat16:  # numpy has no bfloat16
        t = t.float()
    if any(s.is_partial_sum() for s in t.sbp):
        return t.numpy(), tuple(slice(None) for _ in t.shape)
    box = layout.shard_box(tuple(t.shape), t.sbp, placement.hierarchy, placement.coords(dist.get_rank()))
    return local_view(t).numpy(), tuple(slice(lo, hi) for lo, hi in box)


def tol(dtype, bf16=False):
    name = "bfloat16" if bf16 else np.dtype(dtype).name
    return {"float16": (2e-2, 2e-2), "bfloat16": (5e-2, 5e-2), "float32": (2e-4, 2e-4),
            "float64": (1e-9, 1e-9)}.get(name, (0, 0))


def same(got, want, what, bf16=False, floor=(0, 0)):
    """None when equal (within the dtype's tolerance, or `floor` when looser:
    a result is no more precise than its least precise input), else a message."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"{what}: shape {got.shape} != {want.shape}"
    if got.dtype != want.dtype:
        return f"{what}: dtype {got.dtype} != {want.dtype}"
    rtol, atol = (max(x, y) for x, y in zip(tol(want.dtype, bf16), floor))
    if want.dtype.kind == "f":
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        scale = max(1.0, float(np.nanmax(np.abs(w64)))) if w64.size and np.isfinite(w64).any() else 1.0
        ok = np.allclose(g64, w64, rtol=rtol, atol=atol * scale, equal_nan=True)
    else:
        ok = np.array_equal(got, want)
    if not ok:
        return f"{what}: values differ\n got {got.tolist()}\nwant {want.tolist()}"
    return None


def check_layout(t, placement, what):
    """A global result's shard must be its SBP's piece of its logical shape."""
    coords = placement.coords(dist.get_rank())
    from monoflow._global.tensor import local_view

    expect = layout.local_shape(tuple(t.shape), t.sbp, placement.hierarchy, coords)
    got = tuple(local_view(t).shape)
    if got != expect:
        return f"{what}: shard shape {list(got)} but {sbp_str(t.sbp)} of {list(t.shape)} gives {list(expect)}"
    return None


def record_dispatch():
    """Wraps dispatch.call to note the names of the ops that went through it."""
    from monoflow._global import dispatch

    seen = set()
    original = dispatch.call

    def call(name, *args, **kwargs):
        seen.add(name)
        return original(name, *args, **kwargs)

    dispatch.call = call
    return seen


# ------------------------------------------------------------ suites

def flatten_outputs(out):
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def run_case(case, placement, seed):
    """Runs one op case on global and local inputs; returns a list of problems."""
    problems = []
    rng = np.random.default_rng([seed, 99])
    naxes = len(placement.hierarchy)
    nds = []
    for a in case.inputs:
        if a.sbps is not None:
            nds.append(a.sbps[rng.integers(len(a.sbps))] if isinstance(a.sbps, list) else a.sbps)
        else:
            nds.append(random_nd(rng, a.array.ndim, naxes, allow_partial=a.partial and a.array.dtype.kind != "b",
                                 allow_split=a.split))
    case.nds = nds
    grads = [a.grad and a.array.dtype.kind == "f" for a in case.inputs]
    locs = [flow.tensor(a.array, requires_grad=g) for a, g in zip(case.inputs, grads)]
    globs = [make_global(a.array, nd, placement, seed * 31 + i, g, check=False)
             for i, (a, nd, g) in enumerate(zip(case.inputs, nds, grads))]

    local_err = global_err = None
    try:
        want = case.fn(*locs)
    except Exception as e:  # the global call must refuse too
        local_err = e
    try:
        got = case.fn(*globs)
    except Exception as e:
        global_err = e
        if local_err is None:
            problems.append(f"global call raised, local did not: {type(e).__name__}: {e}\n"
                            + "".join(traceback.format_exception(e)[-6:]))
    if local_err is not None:
        if global_err is None:
            problems.append(f"local call raised {type(local_err).__name__}: {local_err}, global did not")
        elif type(global_err) is not type(local_err) and not case.any_error:
            problems.append(f"local raised {type(local_err).__name__}: {local_err}; global raised "
                            f"{type(global_err).__name__}: {global_err}")
        return problems
    if global_err is not None:
        return problems

    floats_in = [a.array.dtype for a in case.inputs if a.array.dtype.kind == "f"]
    floor = max((tol(d) for d in floats_in), default=(0, 0))
    gouts, louts = flatten_outputs(got), flatten_outputs(want)
    if len(gouts) != len(louts):
        return [f"{len(gouts)} outputs, local has {len(louts)}"]
    weighted = []
    for k, (g, w) in enumerate(zip(gouts, louts)):
        if not isinstance(w, flow.Tensor):
            if g != w:
                problems.append(f"output {k}: {g!r} != {w!r}")
            continue
        if not getattr(g, "is_global", False):
            problems.append(f"output {k} is not a global tensor ({type(g).__name__})")
            continue
        # (no branch on this rank's findings before a collective: the ranks
        # must keep making the same calls)
        layout_msg = check_layout(g, placement, f"output {k}")
        if g.dtype != w.dtype:
            msg = f"output {k}: dtype {g.dtype} != {w.dtype}"
        elif case.check_values:
            bf16 = w.dtype == flow.bfloat16  # no numpy bfloat16: compare in float32 with bfloat16's tolerance
            piece, box = values(g, placement)
            want_all = (w.detach().float() if bf16 else w.detach()).numpy()
            msg = layout_msg or same(piece, want_all[box], f"output {k}", bf16, floor)
        else:
            msg = layout_msg or (case.check(g, w, locs, globs) if case.check else None)
        if msg:
            problems.append(msg)
        if w.requires_grad and w.dtype.is_floating_point and g.requires_grad:
            weighted.append((k, g, w))
        elif w.requires_grad != g.requires_grad:
            problems.append(f"output {k}: requires_grad {g.requires_grad} but local {w.requires_grad}")
    if not weighted or not case.backward:
        return problems

    # gradients: d/dx sum_k <out_k, W_k>, with W_k random (and randomly laid out)
    lloss = gloss = None
    for k, g, w in weighted:
        wt = rng.uniform(-1, 1, tuple(w.shape)).astype(np.dtype(w.dtype.name) if w.dtype.name != "bfloat16"
                                                       else np.float32)
        wnd = random_nd(rng, wt.ndim, naxes)
        lw = flow.tensor(wt).to(w.dtype)
        gw = make_global(wt, wnd, placement, seed * 17 + k, check=False).to(w.dtype)
        lterm, gterm = (w * lw).sum(), (g * gw).sum()
        lloss = lterm if lloss is None else lloss + lterm
        gloss = gterm if gloss is None else gloss + gterm
    # a gradient through a narrower output (half()) is only as precise
    for _, _, w in weighted:
        floor = max(floor, tol(None, True) if w.dtype == flow.bfloat16 else tol(np.dtype(w.dtype.name)))
    lerr = gerr = None
    try:
        lloss.backward()
    except Exception as e:
        lerr = e
    try:
        gloss.backward()
    except Exception as e:
        gerr = e
        if lerr is None:
            problems.append(f"global backward raised: {type(e).__name__}: {e}\n"
                            + "".join(traceback.format_exception(e)[-6:]))
    if (lerr is None) != (gerr is None):
        if lerr is not None:
            problems.append(f"local backward raised {type(lerr).__name__}: {lerr}, global did not")
        return problems
    if lerr is not None:
        return problems
    for i, (lx, gx) in enumerate(zip(locs, globs)):
        if not lx.requires_grad:
            continue
        lg, gg = lx.grad, gx.grad
        if (lg is None) != (gg is None):  # (the same on every rank: no collective is skipped)
            problems.append(f"grad of input {i}: {'None' if gg is None else 'set'} but local "
                            f"{'None' if lg is None else 'set'}")
            continue
        if lg is None:
            continue
        if tuple(gg.sbp) != tuple(gx.sbp):
            problems.append(f"grad of input {i} has SBP {sbp_str(gg.sbp)}, the input {sbp_str(gx.sbp)}")
        piece, box = values(gg, placement)
        msg = check_layout(gg, placement, f"grad of input {i}") or \
            same(piece, lg.numpy()[box], f"grad of input {i}", floor=floor)
        if msg:
            problems.append(msg)
    return problems


def suite_ops(placement, seeds, results, stride=1, only=None, case_seed=None):
    """Every case of global_op_cases once per seed (with `stride` k, the
    cases whose index is congruent to the seed modulo k)."""
    import global_op_cases as cases

    seen = record_dispatch()
    forced = None if case_seed is None else int(case_seed)  # rerun one recorded case
    tiny = len(placement.rank_list()) > 2
    failures, count, covered = [], 0, {}
    for seed in seeds:
        seen.clear()
        for idx, (label, gen) in enumerate(cases.CASES):
            if (idx - seed) % stride or (only and only not in label):
                continue
            case_seed = int(np.random.default_rng([seed, idx]).integers(2 ** 31)) if forced is None else forced
            rng = np.random.default_rng(case_seed)
            try:
                case = gen(rng, tiny)
            except Exception as e:  # a broken generator is a test bug: report it
                failures.append({"case": label, "seed": seed, "case_seed": case_seed,
                                 "problems": [f"generator raised {type(e).__name__}: {e}"]})
                continue
            count += 1
            results["ops_running"] = f"{label} (seed {seed}, case seed {case_seed})"
            # (a rank whose call raised while the others went on would leave
            # them waiting in a collective: the process group's timeout ends
            # that, and the crash report names the running case)
            try:
                problems = run_case(case, placement, case_seed)
            except Exception as e:
                problems = [f"harness raised {type(e).__name__}: {e}\n{traceback.format_exc()}"]
            if problems:
                failures.append({"case": label, "seed": seed, "case_seed": case_seed, "note": case.note,
                                 "shapes": [list(a.array.shape) for a in case.inputs],
                                 "dtypes": [a.array.dtype.name for a in case.inputs],
                                 "sbps": [sbp_str(nd) for nd in getattr(case, "nds", [])], "problems": problems})
        covered[str(seed)] = sorted(seen)
    results["ops"] = {"cases": count, "failures": failures, "covered": covered}


def main():
    out_dir, suites = sys.argv[1], sys.argv[2].split(",")
    options = dict(a[2:].split("=") for a in sys.argv[3:] if a.startswith("--"))
    seeds = [int(s) for s in sys.argv[3:] if not s.startswith("--")] or [0]
    placement = setup()
    results = {}
    for name in suites:
        try:
            if name == "ops":
                suite_ops(placement, seeds, results, int(options.get("stride", 1)), options.get("only"),
                          options.get("case-seed"))
            else:
                import global_checks

                getattr(global_checks, "suite_" + name)(placement, seeds, results)
        except Exception as e:
            where = f" while running {results['ops_running']}" if name == "ops" and "ops_running" in results else ""
            results.setdefault("crashed", []).append(f"{name}{where}: {type(e).__name__}: {e}\n"
                                                     f"{traceback.format_exc()}")
    with open(os.path.join(out_dir, f"rank{dist.get_rank()}.json"), "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    if os.environ.get("GLOBAL_WORKER_PROFILE") and os.environ.get("RANK") == "0":
        import cProfile

        cProfile.run("main()", os.environ["GLOBAL_WORKER_PROFILE"])
    else:
        main()
