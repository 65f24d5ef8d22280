"""Boxing: converting a global tensor's shards from one nd-SBP to another
with collectives, and the bytes that costs.

A conversion is planned as 1-D steps, each along one hierarchy axis and run
in that axis's group (the ranks that differ only in that coordinate):

    S(i)->B  all-gather        P->B  all-reduce     P->S(i)  reduce-scatter
    S(i)->S(j)  all-to-all     B->S(i)  local slice B->P  zeros off the first rank
    S(i)->P  the shard placed in zeros (local)

Axes are converted from the last to the first, each directly when no inner
axis splits a dimension the step touches; otherwise the plan gathers every
axis to broadcast (last to first) and then lays out the target (first to
last), which is always correct if not always cheapest.

Each step is differentiable; its backward is the transposed step, which is
the conversion between the gradients' SBPs (sbp.dual): the backward of an
all-gather is a reduce-scatter, of an all-reduce an all-reduce, of a slice a
placement in zeros.

Costs follow the communicator's traffic counters: the bytes a rank receives
from its peers (all-gather: output minus own input; reduce-scatter: input
minus own output; all-reduce: 2 (n-1) N / n; all-to-all: what arrives from
the others). The planner serves both the executor and the cost model, so
what the communicator measures is what the model predicts.
"""
import functools

from monoflow import _creation, ops_shape
from monoflow._global import groups, layout
from monoflow._global.sbp import broadcast, dual
from monoflow.autograd import Function


# ----------------------------------------------------------------- planning

def plan(nd_src, nd_dst):
    """[(axis, from_sbp, to_sbp)] turning `nd_src` into `nd_dst`."""
    cur, steps = list(nd_src), []
    last = len(cur) - 1
    for k in range(last, -1, -1):
        if cur[k] == nd_dst[k]:
            continue
        touched = {s.dim for s in (cur[k], nd_dst[k]) if s.is_split()}
        if any(cur[m].is_split() and cur[m].dim in touched for m in range(k + 1, last + 1)):
            return steps + _via_broadcast(cur, nd_dst)
        steps.append((k, cur[k], nd_dst[k]))
        cur[k] = nd_dst[k]
    return steps


def _via_broadcast(cur, nd_dst):
    steps = []
    for k in range(len(cur) - 1, -1, -1):
        if not cur[k].is_broadcast():
            steps.append((k, cur[k], broadcast))
    for k in range(len(cur)):
        if not nd_dst[k].is_broadcast():
            steps.append((k, broadcast, nd_dst[k]))
    return steps


def _replace(nd, k, s):
    return tuple(s if i == k else x for i, x in enumerate(nd))


def _numel(box):
    n = 1
    for lo, hi in box:
        n *= max(hi - lo, 0)
    return n


def _overlap(a, b):
    return _numel([(max(x[0], y[0]), min(x[1], y[1])) for x, y in zip(a, b)])


def itemsizes(dtype):
    """(bytes per element, bytes per element in reductions) of a monoflow dtype:
    the communicator reduces float16 and bfloat16 in float32."""
    size = dtype.itemsize
    return size, (4 if dtype.is_floating_point and size == 2 else size)


def step_bytes(shape, itemsize, placement, nd_before, axis, dst, coords, reduce_itemsize=None):
    """Bytes the rank at `coords` receives in one step."""
    src = nd_before[axis]
    if src.is_partial_sum():
        itemsize = reduce_itemsize or itemsize
    nd_after = _replace(nd_before, axis, dst)
    h = placement.hierarchy
    n = h[axis]
    mine_before = layout.shard_box(shape, nd_before, h, coords)
    mine_after = layout.shard_box(shape, nd_after, h, coords)
    if src.is_partial_sum() and dst.is_broadcast():
        return 2 * (n - 1) * _numel(mine_before) * itemsize // n
    if src.is_partial_sum() and dst.is_split():
        return (_numel(mine_before) - _numel(mine_after)) * itemsize
    if src.is_split() and not dst.is_partial_sum():  # all-gather or all-to-all
        total = 0
        for c in range(n):
            if c == coords[axis]:
                continue
            peer = tuple(c if i == axis else x for i, x in enumerate(coords))
            total += _overlap(layout.shard_box(shape, nd_before, h, peer), mine_after)
        return total * itemsize
    return 0  # local: B->S, B->P, S->P, or nothing to do


@functools.lru_cache(maxsize=4096)  # dispatch asks for the same conversions every step
def cost(shape, itemsize, placement, nd_src, nd_dst, rank=None, reduce_itemsize=None):
    """Bytes received by `rank` (every rank of the placement when None, summed)
    to convert nd_src into nd_dst. `reduce_itemsize`: bytes per element in
    reductions when they differ from itemsize (see itemsizes())."""
    steps = plan(nd_src, nd_dst)
    if not steps:
        return 0
    all_coords = [placement.coords(rank)] if rank is not None else \
        [placement.coords(r) for r in placement.rank_list()]
    total = 0
    for coords in all_coords:
        cur = tuple(nd_src)
        for axis, _, dst in steps:
            total += step_bytes(shape, itemsize, placement, cur, axis, dst, coords, reduce_itemsize)
            cur = _replace(cur, axis, dst)
    return total


# ---------------------------------------------------------------- executing

def convert(x, shape, placement, nd_src, nd_dst):
    """This rank's shard of the conversion of `x` (this rank's shard under
    nd_src of a tensor of logical `shape`) to nd_dst. Differentiable."""
    coords = placement.coords(groups.rank())
    if coords is None:
        return x  # outside the placement: an empty shard stays one
    cur = tuple(nd_src)
    for axis, src, dst in plan(nd_src, nd_dst):
        ctx = _StepContext(shape, placement, cur, axis, coords)
        x = _BoxingStep.apply(x, ctx, src, dst)
        cur = _replace(cur, axis, dst)
    return x


class _StepContext:
    """What a step needs besides its tensor: the logical shape, the nd-SBP
    before the step, the axis, its group and this rank's position in it."""

    def __init__(self, shape, placement, nd_before, axis, coords):
        self.shape = tuple(shape)
        self.placement = placement
        self.nd_before = nd_before
        self.axis = axis
        self.coords = coords
        self.index = coords[axis]
        self.size = placement.hierarchy[axis]
        self._ranks = groups.axis_ranks(placement, coords, axis)

    @property
    def group(self):
        return groups.group(self._ranks)

    def lengths(self, nd, dim):
        """Per member of the axis group: its length along `dim` under `nd`."""
        out = []
        for c in range(self.size):
            peer = tuple(c if i == self.axis else x for i, x in enumerate(self.coords))
            lo, hi = layout.shard_box(self.shape, nd, self.placement.hierarchy, peer)[dim]
            out.append(hi - lo)
        return out

    def nd_with(self, s):
        return _replace(self.nd_before, self.axis, s)


def _run(x, ctx, src, dst):
    """One step, forward only, on local tensors."""
    import monoflow.distributed as dist

    if src == dst or ctx.size == 1:
        return x  # one rank along this axis holds the whole value either way
    if src.is_split() and dst.is_broadcast():
        lengths = ctx.lengths(ctx.nd_with(src), src.dim)
        return _all_gather(x, src.dim, lengths, ctx.group)
    if src.is_partial_sum() and dst.is_broadcast():
        out = x.contiguous().clone() if x.is_contiguous() else x.contiguous()
        dist.all_reduce(out, group=ctx.group)
        return out
    if src.is_partial_sum() and dst.is_split():
        lengths = ctx.lengths(ctx.nd_with(dst), dst.dim)
        parts = [p.contiguous() for p in x.split(lengths, dim=dst.dim)]
        out = _creation.empty_like(parts[ctx.index])
        dist.reduce_scatter(out, parts, group=ctx.group)
        return out
    if src.is_split() and dst.is_split():
        send = [p.contiguous() for p in x.split(ctx.lengths(ctx.nd_with(dst), dst.dim), dim=dst.dim)]
        src_lengths = ctx.lengths(ctx.nd_with(src), src.dim)
        recv = []
        for c in range(ctx.size):
            shape = list(send[ctx.index].shape)
            shape[src.dim] = src_lengths[c]
            recv.append(_creation.empty(shape, dtype=x.dtype))
        dist.all_to_all(recv, send, group=ctx.group)
        return ops_shape.cat(recv, dim=src.dim)
    if src.is_broadcast() and dst.is_split():
        lengths = ctx.lengths(ctx.nd_with(dst), dst.dim)
        start = sum(lengths[:ctx.index])
        return x.narrow(dst.dim, start, lengths[ctx.index]).contiguous()
    if src.is_broadcast() and dst.is_partial_sum():
        return x.clone() if ctx.index == 0 else _creation.zeros_like(x)
    if src.is_split() and dst.is_partial_sum():
        lengths = ctx.lengths(ctx.nd_with(src), src.dim)
        full = list(x.shape)
        full[src.dim] = sum(lengths)
        out = _creation.zeros(full, dtype=x.dtype)
        out.narrow(src.dim, sum(lengths[:ctx.index]), lengths[ctx.index]).copy_(x)
        return out
    raise AssertionError(f"no boxing step from {src!r} to {dst!r}")


def _all_gather(x, dim, lengths, group):
    import monoflow.distributed as dist

    parts = []
    for n in lengths:
        shape = list(x.shape)
        shape[dim] = n
        parts.append(_creation.empty(shape, dtype=x.dtype))
    dist.all_gather(parts, x.contiguous(), group=group)
    return ops_shape.cat(parts, dim=dim)


def _box_step_class():
    class BoxingStep(Function):
        @staticmethod
        def forward(ctx, x, step, src, dst):
            ctx.step, ctx.src, ctx.dst = step, src, dst
            return _run(x, step, src, dst)

        @staticmethod
        def backward(ctx, grad):
            # the transposed step: between the gradients' SBPs, on the layout
            # after this step's output
            step = ctx.step
            back = _StepContext(step.shape, step.placement, step.nd_with(dual(ctx.dst)), step.axis, step.coords)
            return _run(grad, back, dual(ctx.dst), dual(ctx.src)), None, None, None

    return BoxingStep


class _LazyStep:
    _cls = None

    def apply(self, *args):
        if _LazyStep._cls is None:
            _LazyStep._cls = _box_step_class()
        return _LazyStep._cls.apply(*args)


_BoxingStep = _LazyStep()
