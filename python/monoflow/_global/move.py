"""Moving a global tensor between placements with different rank sets.

The source ranks gather the value to broadcast, the first of them sends it to
every destination rank that does not hold it, and the destination ranks lay
it out in the target SBP. Ranks outside the destination placement keep an
empty shard. Gradients do not flow across a move yet: that is the send/recv
pair pipeline parallelism needs, and it comes with the graph runtime.
"""
from monoflow._global import boxing, groups
from monoflow._global.sbp import broadcast


def move(x, placement, nd):
    import monoflow as flow
    import monoflow.distributed as dist
    from monoflow._global.access import shard_access
    from monoflow._global.tensor import local_view, wrap

    if x.requires_grad and flow.is_grad_enabled():
        raise RuntimeError(f"to_global: moving a tensor that requires grad from {x.placement!r} to {placement!r} "
                           "is not differentiable yet; detach() it first")
    me = groups.rank()
    src_ranks, dst_ranks = x.placement.rank_list(), placement.rank_list()
    shape = x._shape
    full = None
    with shard_access():
        if me in src_ranks:
            full = boxing.convert(local_view(x), shape, x.placement, x.sbp, (broadcast,) * len(x.sbp))
        root = src_ranks[0]
        need = [r for r in dst_ranks if r not in src_ranks]
        if me == root:
            for r in need:
                dist.send(full.contiguous(), r)
        elif me in need:
            full = flow.empty(shape, dtype=x.dtype)
            dist.recv(full, root)
        if me in dst_ranks:
            out = boxing.convert(full, shape, placement, (broadcast,) * len(nd), nd)
        else:
            out = flow.empty((0,), dtype=x.dtype)
    return wrap(out.detach(), placement, nd, shape)
