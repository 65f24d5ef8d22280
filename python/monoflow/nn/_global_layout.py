"""Laying out a model's values on a placement: what Module.to_global,
load_state_dict and the optimizers' load_state_dict share.

Two ways a value arrives:
- a *local* tensor holding the whole logical value. In Module.to_global the
  ranks may disagree about it (each initialised its own model with its own
  random state), so the first rank of the placement broadcasts its value.
  When loading, every rank read the same file, so each rank cuts its shard
  out of its own copy without talking to anyone (B -> S is a local slice);
- a *global* tensor: boxed (or moved) to the target layout.
"""
import hashlib

from monoflow import _C, ops_sparse
from monoflow._tensor import Tensor


def is_global(t):
    return getattr(t, "is_global", False)


def shard(t):
    """The local tensor behind global `t` (this rank's shard, still marked:
    use it under shard_access()). Local tensors are returned as they are."""
    return _C._alias(Tensor, t) if is_global(t) else t


def _wrap(local, placement, nd, shape):
    from monoflow._global.tensor import wrap

    return wrap(local, placement, nd, shape)


def _own(local, full):
    """`local` in memory of its own when it is a piece of `full` (a slice of a
    broadcast value would keep the whole value alive)."""
    return local.clone() if local.numel() < full.numel() else local


def cut(full, placement, nd):
    """This rank's shard under `nd` of the logical value `full` (a local tensor
    that every rank of the placement holds): no communication."""
    from monoflow._creation import empty
    from monoflow._global import boxing, groups
    from monoflow._global.sbp import broadcast

    if placement.coords(groups.rank()) is None:
        return empty((0,), dtype=full.dtype)
    local = boxing.convert(full, tuple(full.shape), placement, (broadcast,) * len(nd), nd)
    return _own(local, full)


def nd_sbp_for(t, placement, sbp, what):
    """`sbp` as an nd-SBP for tensor `t`; a split axis that `t` does not have
    (a 0-d step counter, a 1-D bias under split(1)) becomes broadcast, as
    a model-wide sbp= cannot fit every tensor's rank."""
    from monoflow._global.sbp import as_nd_sbp, broadcast

    nd = as_nd_sbp(sbp, len(placement.hierarchy), what)
    return tuple(broadcast if s.is_split() and s.dim >= t.dim() else s for s in nd)


def local_to_global(t, placement, nd):
    """Global tensor laid out as `nd` whose logical value is the local tensor
    `t` of the placement's first rank (broadcast to the others). A rank
    outside the placement keeps an empty shard."""
    import monoflow.distributed as dist
    from monoflow._creation import empty
    from monoflow._global import groups

    shape = tuple(t.shape)
    ranks = placement.rank_list()
    if placement.coords(groups.rank()) is None:
        return _wrap(empty((0,), dtype=t.dtype), placement, nd, shape)
    full = t.detach().contiguous().clone()
    group = groups.group(ranks)
    if group is not None:
        dist.broadcast(full, src=ranks[0], group=group)
    return _wrap(cut(full, placement, nd), placement, nd, shape)


def to_layout(t, placement, nd):
    """Detached global tensor with `t`'s logical value laid out as (placement,
    nd): boxing for a global `t`, a broadcast from the first rank for a local one."""
    from monoflow.autograd.grad_mode import no_grad

    with no_grad():
        if is_global(t):
            return t.detach().to_global(placement, nd)
        return local_to_global(t, placement, nd)


def relayout_like(value, like):
    """`value` (a logical value: local, read identically on every rank, or
    global in any layout) laid out as the global tensor `like`; detached."""
    from monoflow.autograd.grad_mode import no_grad

    with no_grad():
        if is_global(value):
            return value.detach().to_global(like.placement, like.sbp)
        return _wrap(cut(value.detach(), like.placement, like.sbp), like.placement, like.sbp, tuple(value.shape))


def copy_into(dst, value):
    """dst[...] = value, for a global `dst` (its shard receives the matching
    piece of `value`'s logical value)."""
    from monoflow._global.access import shard_access
    from monoflow.autograd.grad_mode import no_grad

    src = relayout_like(value, dst)
    with no_grad(), shard_access():
        shard(dst).copy_(shard(src))
    return dst


def check_same_everywhere(what, placement, items):
    """Every rank must convert the same tensors (names, shapes, dtypes, SBPs):
    one metadata agreement for the whole model instead of one per tensor."""
    from monoflow._global.tensor import agree

    digest = "model " + hashlib.sha1(repr(items).encode()).hexdigest()[:12]
    agree(what, (), placement, digest)


def logical_value(t):
    """The whole logical value of global `t` as a local tensor, on every rank
    of its placement (an all-gather / all-reduce to broadcast)."""
    from monoflow._global.sbp import broadcast
    from monoflow.autograd.grad_mode import no_grad

    with no_grad():
        b = t.detach().to_global(t.placement, (broadcast,) * len(t.sbp))
        return b.to_local().detach()


def zero_(t):
    """t.zero_() for a local or global tensor (zeros are zeros in every SBP)."""
    from monoflow._global.access import shard_access

    if not is_global(t):
        return t.zero_()
    with shard_access():
        shard(t).zero_()
    return t


def zero_grad_(g):
    """zero_grad(set_to_none=False) on one gradient, local or global."""
    if g.grad_fn is not None:
        g.detach_()
    else:
        g.requires_grad_(False)
    zero_(g)
    ops_sparse.clear_row_gradient(g)
