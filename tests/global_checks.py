"""Suites of global_worker.py besides 'ops': the SBPs chosen for ops whose
layout matters (checks), bad input (errors) and boxing (every conversion,
its gradient and the bytes it moves). Each suite records its findings in
`results` under its name; the pytest side asserts on them."""
import itertools
import traceback

import numpy as np

import monoflow as flow
import monoflow.distributed as dist
import monoflow.nn.functional as F
from global_worker import check_layout, make_global, same, sbp_str, shard_of
from monoflow._global import boxing, groups
from monoflow._global.access import shard_access
from monoflow._global.sbp import dual
from monoflow._global.tensor import local_view, wrap

S, B, P = flow.sbp.split, flow.sbp.broadcast, flow.sbp.partial_sum


def _nd(placement, s):
    return (s,) * len(placement.hierarchy) if not isinstance(s, tuple) else s


# ------------------------------------------------------------ checks

def suite_checks(placement, seeds, results):
    """{check: 'ok' | message}: the SBP an op picks, where a valid but wrong
    choice would still give right values but defeats the layout (or where
    the choice is what makes the values right)."""
    out = {}
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    w = rng.uniform(-1, 1, (4, 3)).astype(np.float32)

    def g(arr, s, grad=False):
        return make_global(arr, _nd(placement, s), placement, 11, grad)

    def expect(name, fn, want_sbp=None, not_sbp=None, value=None, floor=(0, 0)):
        try:
            t = fn()
            got = t.sbp
            if want_sbp is not None and got != _nd(placement, want_sbp):
                out[name] = f"SBP {sbp_str(got)}, expected {sbp_str(_nd(placement, want_sbp))}"
                return
            if not_sbp is not None and got == _nd(placement, not_sbp):
                out[name] = f"SBP {sbp_str(got)} must not be chosen"
                return
            if value is not None:
                msg = check_layout(t, placement, name) or \
                    same(t.detach().numpy(), np.asarray(value), name, floor=floor)
                if msg:
                    out[name] = msg
                    return
            out[name] = "ok"
        except Exception as e:
            out[name] = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"

    xp = g(a, P)
    expect("x*2 keeps P", lambda: xp * 2, P, value=a * 2)
    expect("2*x keeps P", lambda: 2 * xp, P, value=a * 2)
    expect("x/2 keeps P", lambda: xp / 2, P, value=a / 2)
    expect("-x keeps P", lambda: -xp, P, value=-a)
    expect("x.double() keeps P", lambda: xp.double(), P, value=a.astype(np.float64), floor=(1e-6, 1e-6))
    expect("x+2 is not P", lambda: xp + 2, not_sbp=P, value=a + 2)
    expect("x-2 is not P", lambda: xp - 2, not_sbp=P, value=a - 2)
    expect("x + np.float32(2) is not P", lambda: xp + np.float32(2), not_sbp=P, value=a + 2)
    expect("x.masked_fill(m, np.float32(1)) is not P", lambda: xp.masked_fill(xp > 0, np.float32(1)), not_sbp=P,
           value=np.where(a > 0, 1, a))
    expect("2/x is not P", lambda: 2 / xp, not_sbp=P, value=2 / a)
    expect("x.int() is not P", lambda: (xp * 10).int(), not_sbp=P, value=(a * 10).astype(np.int32))
    expect("relu(x) is not P", lambda: xp.relu(), not_sbp=P, value=np.maximum(a, 0))
    expect("x+y of P is P", lambda: xp + g(a, P), P, value=2 * a)
    expect("P + B is P (no communication)", lambda: xp + g(a, B), P, value=2 * a)
    xs0 = g(a, S(0))
    expect("sum over a split dim is P", lambda: xs0.sum(0), P, value=a.sum(0))
    expect("sum() of a split is P", lambda: xs0.sum(), P, value=a.sum())
    expect("sum over another dim keeps the split", lambda: xs0.sum(1), S(0), value=a.sum(1))
    expect("mean over a split dim is P", lambda: xs0.mean(0), P, value=a.mean(0))
    for name, fn, ref in [("amax", lambda t: t.amax(0), a.max(0)), ("max", lambda t: t.max(0).values, a.max(0)),
                          ("var", lambda t: t.var(0), a.var(0, ddof=1)), ("std", lambda t: t.std(0), a.std(0, ddof=1)),
                          ("prod", lambda t: t.prod(0), a.prod(0)), ("norm", lambda t: t.norm(2, 0),
                                                                         np.sqrt((a * a).sum(0))),
                          ("logsumexp", lambda t: t.logsumexp(0), np.log(np.exp(a).sum(0))),
                          ("argmax", lambda t: t.argmax(0), a.argmax(0))]:
        expect(f"{name} over a split dim is not P", lambda fn=fn: fn(xs0), not_sbp=P, value=ref)
    xs1 = g(a, S(1))
    sm = np.exp(a) / np.exp(a).sum(1, keepdims=True)
    expect("softmax over a split dim does not keep it", lambda: xs1.softmax(1), not_sbp=S(1), value=sm)
    expect("softmax over another dim keeps the split", lambda: xs1.softmax(0), S(1),
           value=np.exp(a) / np.exp(a).sum(0, keepdims=True))
    mu, var = a.mean(1, keepdims=True), a.var(1, keepdims=True)
    expect("layer_norm over a split dim does not keep it", lambda: F.layer_norm(xs1, (4,)), not_sbp=S(1),
           value=(a - mu) / np.sqrt(var + 1e-5))
    expect("S(1) @ S(0) is P", lambda: xs1 @ g(w, S(0)), P, value=a @ w)
    expect("S(0) @ B is S(0)", lambda: xs0 @ g(w, B), S(0), value=a @ w)
    expect("B @ S(1) is S(1)", lambda: g(a, B) @ g(w, S(1)), S(1), value=a @ w)
    wt, bias = w.T.copy(), rng.uniform(-1, 1, 3).astype(np.float32)
    expect("linear column parallel", lambda: F.linear(g(a, B), g(wt, S(0)), g(bias, S(0))), S(1), value=a @ w + bias)
    expect("linear row parallel", lambda: F.linear(xs1, g(wt, S(1)), g(bias, B)), P, value=a @ w + bias)
    idx = rng.integers(0, 5, (3, 2))
    expect("embedding with a split table", lambda: F.embedding(g(idx, B), g(a, S(1))), S(2), value=a[idx])
    expect("reshape keeps the split", lambda: xs0.reshape(5, 2, 2), S(0), value=a.reshape(5, 2, 2))
    tgt = rng.integers(0, 4, 5)
    logits = a - np.log(np.exp(a).sum(1, keepdims=True))
    expect("cross_entropy mean of a split batch is P", lambda: F.cross_entropy(xs0, g(tgt, S(0))), P,
           value=-logits[np.arange(5), tgt].mean())

    def inplace(s, op, value):
        def run():
            y = g(a, s).clone()
            z = op(y)
            if z is not y:
                raise AssertionError("the in-place op returned another object")
            if y.sbp != _nd(placement, s):
                raise AssertionError(f"the in-place op changed the SBP to {sbp_str(y.sbp)}")
            return y
        expect(f"in place keeps object and SBP: {sbp_str(_nd(placement, s))} {value[0]}", run, s, value=value[1])

    inplace(S(0), lambda y: y.add_(1), ("add_(1)", a + 1))
    inplace(P, lambda y: y.add_(1), ("add_(1)", a + 1))
    inplace(P, lambda y: y.__iadd__(1), ("+= 1", a + 1))
    inplace(P, lambda y: y.relu_(), ("relu_()", np.maximum(a, 0)))
    inplace(B, lambda y: y.__iadd__(g(a, P)), ("+= P", 2 * a))
    inplace(S(1), lambda y: y.mul_(g(a, S(0))), ("*= S(0)", a * a))
    inplace(P, lambda y: F.relu(y, inplace=True), ("F.relu(inplace)", np.maximum(a, 0)))
    inplace(P, lambda y: F.relu(y, True), ("F.relu(x, True)", np.maximum(a, 0)))
    inplace(P, lambda y: y.clamp_(max=0.2), ("clamp_", np.minimum(a, 0.2)))
    inplace(B, lambda y: (y.normal_(), y.fill_(1.0))[1], ("normal_ then fill_", np.ones_like(a)))

    def write_whole_of_copy(nd):
        # x[:] = v over a converted copy (no signature keeps (B, P)): the
        # old value gets no gradient
        def run():
            t = g(a, nd, grad=True)
            y = t.clone()
            y[:, :] = 0.5
            y.sum().backward()
            grad = t.grad.detach().numpy()
            if np.any(grad != 0):
                raise AssertionError(f"the overwritten value got gradient {grad.tolist()}")
            return y
        return run
    for nd in ([(B, P), (P, B), (S(0), P)] if len(placement.hierarchy) == 2 else [(P,), (S(1),)]):
        expect(f"setitem over a converted copy: {sbp_str(nd)}", write_whole_of_copy(nd), nd, value=np.full_like(a, 0.5))

    def dropout_b():
        y = F.dropout(g(a, B), 0.5)
        if not all(s.is_split() for s in y.sbp):
            raise AssertionError(f"dropout of a broadcast input gave {sbp_str(y.sbp)}")
        return y
    expect("dropout of B is split", dropout_b)
    results["checks"] = out


# ------------------------------------------------------------ errors

def suite_errors(placement, seeds, results):
    """{case: {'type', 'message'}} of the exception each bad call raised on
    this rank ('type': None when it raised nothing)."""
    out = {}
    me = dist.get_rank()
    world = dist.get_world_size()
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    gx = make_global(a, _nd(placement, S(0)), placement, 1)
    gb = make_global(a, _nd(placement, B), placement, 1)
    loc = flow.tensor(a)

    def attempt(name, fn):
        try:
            fn()
            out[name] = {"type": None, "message": ""}
        except Exception as e:
            out[name] = {"type": type(e).__name__, "message": str(e)}

    attempt("split axis out of range (creation)", lambda: flow.tensor(a, placement=placement,
                                                                      sbp=_nd(placement, S(2))))
    attempt("split axis out of range (to_global of a local)", lambda: loc.to_global(placement, _nd(placement, S(5))))
    attempt("split axis out of range (to_global of a global)", lambda: gx.to_global(sbp=_nd(placement, S(2))))
    attempt("too many SBPs for the hierarchy", lambda: gx.to_global(sbp=(B,) * (len(placement.hierarchy) + 1)))
    attempt("placement names missing ranks", lambda: loc.to_global(flow.placement("cpu", [0, world + 3]), B))
    attempt("placement names missing ranks (creation)",
            lambda: flow.zeros(3, placement=flow.placement("cpu", [world, world + 1]), sbp=B))
    # ranks that disagree: every rank must raise (no hang: the worker's
    # process group has a timeout, and pytest one more)
    attempt("ranks pass different SBPs", lambda: loc.to_global(placement, _nd(placement, S(0) if me == 0 else B)))
    ranks = placement.rank_list()
    other = flow.placement("cpu", ranks[::-1] if me == 0 else ranks)
    attempt("ranks pass different placements", lambda: loc.to_global(other, B))
    attempt("ranks of the placement pass different dtypes",
            lambda: (loc if me == 0 else loc.double()).to_global(placement, _nd(placement, B)))
    attempt("ranks pass different SBPs (global to_global)",
            lambda: gx.to_global(sbp=_nd(placement, S(1) if me == 0 else B)))
    attempt("mixing: global + local", lambda: gx + loc)
    attempt("mixing: local + global", lambda: loc + gx)
    attempt("mixing: flow.add(local, global)", lambda: flow.add(loc, gx))
    attempt("mixing: F.linear(local, global)", lambda: F.linear(loc, gb))
    attempt("mixing: cat([global, local])", lambda: flow.cat([gx, loc]))
    attempt("mixing: where(local, global, global)", lambda: flow.where(loc > 0, gx, gx))
    attempt("to_local of a local tensor", lambda: loc.to_local())
    attempt("op without a rule: masked_select", lambda: gx.masked_select(gx > 3))
    attempt("op without a rule: scatter_add", lambda: gx.scatter_add(0, flow.zeros((1, 4), dtype=flow.int64)
                                                                      .to_global(placement, _nd(placement, B)), gx))
    attempt("op without a rule: flow.scatter_add", lambda: flow.scatter_add(
        gx, 0, flow.zeros((1, 4), dtype=flow.int64).to_global(placement, _nd(placement, B)), gx))
    attempt("as_strided of a global tensor", lambda: gx.as_strided((2, 2), (1, 1)))
    attempt("random op on an unsplittable tensor", lambda: flow.rand_like(make_global(np.ones((1,), np.float32),
                                                                                      _nd(placement, B), placement, 1)))
    attempt("boolean mask indexing", lambda: gx[gx > 3])
    attempt("dropout of an unsplittable broadcast input",
            lambda: F.dropout(make_global(np.ones((1,), np.float32), _nd(placement, B), placement, 1), 0.5))
    attempt("different placements in one op", lambda: gx + make_global(a, (B,), flow.placement("cpu", ranks[::-1])
                                                                         if len(placement.hierarchy) == 1 else
                                                                         flow.placement("cpu", [ranks[0]]), 1))
    attempt("shapes that do not broadcast", lambda: gx + make_global(np.ones(5, np.float32), _nd(placement, B),
                                                                      placement, 1))
    attempt("dim out of range", lambda: gx.sum(5))
    results["errors"] = out


# ------------------------------------------------------------ boxing

def _all_sbps(ndim):
    return [S(d) for d in range(ndim)] + [B, P]


def _groups_of(placement):
    """The process groups this rank's boxing steps run in (one per axis)."""
    coords = placement.coords(dist.get_rank())
    out = []
    for axis in range(len(placement.hierarchy)):
        g = groups.group(groups.axis_ranks(placement, coords, axis))
        if g is not None and all(g is not h for h in out):
            out.append(g)
    return out


def _comm_stats():
    """(get, reset) of the communicator's traffic counters, or None before they exist."""
    from monoflow.distributed import collectives

    get = getattr(dist, "get_comm_stats", None) or getattr(collectives, "get_comm_stats", None)
    reset = getattr(dist, "reset_comm_stats", None) or getattr(collectives, "reset_comm_stats", None)
    return (get, reset) if get and reset else None


def _received(gs):
    return sum(_comm_stats()[0](g)["bytes"] for g in gs)


def box_case(placement, shape, dtype, src, dst, seed):
    """Problems with converting src -> dst: value, layout, round trip, the
    backward (the transposed conversion) and the bytes received."""
    problems = []
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        a = rng.uniform(-1, 1, shape).astype(dtype)
    else:
        a = rng.integers(-9, 10, shape).astype(dtype)
    grad = np.dtype(dtype).kind == "f"
    x = make_global(a, src, placement, seed, grad)
    y = x.to_global(sbp=dst)
    if tuple(y.sbp) != tuple(dst):
        problems.append(f"to_global gave {sbp_str(y.sbp)}")
    msg = check_layout(y, placement, "converted") or same(y.detach().numpy(), a, "converted")
    if msg:
        problems.append(msg)
    z = y.to_global(sbp=src)
    msg = check_layout(z, placement, "round trip") or same(z.detach().numpy(), a, "round trip")
    if msg:
        problems.append(msg)
    coords = placement.coords(dist.get_rank())
    if grad:
        # the backward of src -> dst is dual(dst) -> dual(src): a gradient laid
        # out as dual(dst) arrives laid out as dual(src), with the same value
        wv = rng.uniform(-1, 1, shape).astype(dtype)
        gdst = tuple(dual(s) for s in dst)
        gsrc = tuple(dual(s) for s in src)
        seed_shard = flow.tensor(shard_of(wv, gdst, placement, coords, seed + 5))
        with shard_access():
            xl = local_view(x)
            yl = boxing.convert(xl, tuple(shape), placement, tuple(src), tuple(dst))
            if yl is xl:
                gl = seed_shard
            else:
                gl, = flow.autograd.grad([yl], [xl], [seed_shard])
        back = wrap(gl.detach(), placement, gsrc, tuple(shape))
        msg = check_layout(back, placement, "backward") or \
            same(back.detach().numpy(), wv, "backward (transposed conversion)")
        if msg:
            problems.append(msg)
        # and end to end through a loss: x.grad equals the local run's
        choices = _all_sbps(len(shape))
        wg = make_global(wv, tuple(choices[rng.integers(len(choices))] for _ in placement.hierarchy), placement,
                         seed + 9)
        (x.to_global(sbp=dst) * wg).sum().backward()
        msg = same(x.grad.detach().numpy(), wv, "x.grad through a loss")
        if not msg and tuple(x.grad.sbp) != tuple(src):
            msg = f"x.grad has SBP {sbp_str(x.grad.sbp)}"
        if msg:
            problems.append(msg)
    return problems


def box_bytes(placement, shape, dtype, src, dst, seed):
    """A problem when the bytes this rank received converting src -> dst differ
    from boxing.cost's prediction for it (None when they agree)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, shape).astype(dtype) if np.dtype(dtype).kind == "f" else \
        rng.integers(-9, 10, shape).astype(dtype)
    x = make_global(a, src, placement, seed)
    gs = _groups_of(placement)
    if gs:
        with flow.no_grad(), shard_access():
            xl = local_view(x)
            for g in gs:
                _comm_stats()[1](g)
            boxing.convert(xl, tuple(shape), placement, tuple(src), tuple(dst))
            got = _received(gs)
        size, reduce_size = boxing.itemsizes(x.dtype)
        want = boxing.cost(tuple(shape), size, placement, tuple(src), tuple(dst), rank=dist.get_rank(),
                           reduce_itemsize=reduce_size)
        if got != want:
            return f"received {got} bytes, boxing.cost says {want}"
    return None


def suite_boxing(placement, seeds, results):
    stats = _comm_stats() is not None
    failures, byte_failures, count = [], [], 0
    naxes = len(placement.hierarchy)
    n = len(placement.rank_list())
    if naxes == 1:
        shape = (5, 1, 4) if n == 2 else (5, 2, 3)
        pairs = [((s,), (t,)) for s, t in itertools.product(_all_sbps(3), repeat=2)]
        dtypes = [np.float32]
        extra = [((P,), (B,), np.float64), ((S(0),), (S(2),), np.float64), ((P,), (S(0),), np.int64),
                 ((S(1),), (B,), np.int64), ((P,), (B,), np.float16), ((P,), (S(2),), np.float16)]
    else:
        shape = (5, 3, 2)
        pairs = [((S(0), S(0)), (B, B)), ((B, B), (S(0), S(0))), ((S(0), S(1)), (S(1), S(0))),
                 ((S(1), S(0)), (S(0), S(1))), ((P, S(0)), (B, B)), ((S(0), P), (S(1), B)), ((P, P), (B, B)),
                 ((P, P), (S(0), S(1))), ((B, P), (S(2), S(2))), ((S(1), S(1)), (P, B))]
        rng = np.random.default_rng(seeds[0])
        nds = list(itertools.product(_all_sbps(3), repeat=2))
        for _ in range(8):
            pairs.append((nds[rng.integers(len(nds))], nds[rng.integers(len(nds))]))
        dtypes = [np.float32]
        extra = [((P, S(1)), (S(1), B), np.float64), ((S(0), S(0)), (P, S(2)), np.int64)]
    cases = [(s, t, dt) for s, t in pairs for dt in dtypes] + extra
    for k, (src, dst, dt) in enumerate(cases):
        count += 1
        try:
            problems = box_case(placement, shape, dt, src, dst, 1000 + k)
        except Exception as e:
            problems = [f"{type(e).__name__}: {e}\n{traceback.format_exc()}"]
        if problems:
            failures.append({"src": sbp_str(src), "dst": sbp_str(dst), "dtype": np.dtype(dt).name,
                             "shape": list(shape), "problems": problems})
        if stats:
            try:
                problem = box_bytes(placement, shape, dt, src, dst, 2000 + k)
            except Exception as e:
                problem = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
            if problem:
                byte_failures.append({"src": sbp_str(src), "dst": sbp_str(dst), "dtype": np.dtype(dt).name,
                                      "shape": list(shape), "problems": [problem]})
    results["boxing"] = {"cases": count, "failures": failures, "stats": stats, "byte_failures": byte_failures}


# ------------------------------------------------------------ moves

def suite_moves(placement, seeds, results):
    """{case: 'ok' | message}: moves between placements with different rank
    sets, forward and backward, on every rank (those outside a placement
    hold empty shards and still take part in the backward)."""
    out = {}
    n = dist.get_world_size()
    me = dist.get_rank()
    first, last = flow.placement("cpu", [0]), flow.placement("cpu", [n - 1])
    everyone = flow.placement("cpu", list(range(n)))
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    w = rng.uniform(-1, 1, (4, 3)).astype(np.float32)

    def case(name, fn):
        try:
            msg = fn()
            out[name] = msg or "ok"
        except Exception as e:
            out[name] = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"

    def two_stages():
        # stage 0 on the first rank, stage 1 on the last: grads cross back
        x = flow.tensor(a, placement=first, sbp=B)
        w0 = flow.tensor(np.full((5, 4), 0.5, np.float32), placement=first, sbp=B, requires_grad=True)
        w1 = flow.tensor(w, placement=last, sbp=B, requires_grad=True)
        h = (x * w0).tanh().to_global(placement=last, sbp=B)
        loss = (h @ w1).sum()
        loss.backward()
        th = np.tanh(a * 0.5)
        if me == 0:
            want = a * (1 - th ** 2) * w.sum(1)[None, :]
            return same(w0.grad.numpy(), want, "w0.grad")
        if me == n - 1:
            return same(loss.detach().numpy(), (th @ w).sum(), "loss") or \
                same(w1.grad.numpy(), th.sum(0)[:, None].repeat(3, 1), "w1.grad")
        assert w0.to_local().numel() == 0 and loss.to_local().numel() == 0
        return None

    def split_to_one():
        # split over every rank, gathered onto the last one
        y = flow.tensor(a, placement=everyone, sbp=S(0), requires_grad=True)
        z = y.to_global(placement=last, sbp=B)
        (z * z).sum().backward()
        return same(y.grad.numpy(), 2 * a, "y.grad")

    def one_to_split():
        y = flow.tensor(a, placement=first, sbp=B, requires_grad=True)
        z = y.to_global(placement=everyone, sbp=S(1))
        check = check_layout(z, everyone, "z")
        (z * 3).sum().backward()
        if me == 0:
            return check or same(y.grad.numpy(), np.full_like(a, 3), "y.grad")
        return check

    def stage_per_rank():
        # a chain through every rank (a pipeline of n stages): the loss on the last rank;
        # each earlier stage's gradient arrives only if every rank, those outside a move's
        # two placements included, keeps the chain connected through it
        stages = [flow.placement("cpu", [r]) for r in range(n)]
        ws = [flow.tensor(np.full((5, 4), 0.5 + 0.25 * r, np.float32), placement=stages[r], sbp=B,
                          requires_grad=True) for r in range(n)]
        h = flow.tensor(a, placement=stages[0], sbp=B)
        for r in range(n):
            h = (h.to_global(placement=stages[r], sbp=B) * ws[r]).tanh()
        h.sum().backward()
        # the reference: the same chain in numpy, gradients by the chain rule backwards
        acts, v = [], a
        for r in range(n):
            acts.append(v)
            v = np.tanh(v * (0.5 + 0.25 * r))
        g = np.ones_like(a)
        grads = [None] * n
        for r in reversed(range(n)):
            k = 0.5 + 0.25 * r
            d = g * (1 - np.tanh(acts[r] * k) ** 2)
            grads[r], g = d * acts[r], d * k
        return same(ws[me].grad.numpy(), grads[me], f"w{me}.grad")

    case("two_stages", two_stages)
    case("split_to_one", split_to_one)
    case("one_to_split", one_to_split)
    case("stage_per_rank", stage_per_rank)
    results["moves"] = out
