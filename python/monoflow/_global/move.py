"""Moving a global tensor between placements with different rank sets.

Three differentiable stages: the source ranks convert the value to broadcast
(boxing), the transfer hands the whole value from the source placement's
first rank to every destination rank that does not hold it (send/recv), and
the destination ranks lay it out in the target SBP (boxing, local). Ranks
outside a placement hold an empty shard there and take part only in the
transfer.

The transfer's backward is its transpose: the gradient of a broadcast value
arrives as partial sums on the destination ranks, and partial sums on the
source ranks are what the source's broadcast value needs; so destination-only
ranks send theirs to the first source rank, which adds them to its own.
"""
from monoflow import _creation
from monoflow._global import boxing, groups
from monoflow._global.sbp import broadcast
from monoflow.autograd import Function


def _transfer_class():
    import monoflow.distributed as dist

    class Transfer(Function):
        @staticmethod
        def forward(ctx, full, shape, dtype, src_ranks, dst_ranks):
            me = groups.rank()
            root = src_ranks[0]
            need = [r for r in dst_ranks if r not in src_ranks]
            ctx.meta = (shape, dtype, src_ranks, dst_ranks, root, need, tuple(full.shape))
            if me == root:
                for r in need:
                    dist.send(full.contiguous(), r)
            if me in need:
                out = _creation.empty(shape, dtype=dtype)
                dist.recv(out, root)
                return out
            if me in dst_ranks:
                return full.clone()
            return _creation.empty((0,), dtype=dtype)

        @staticmethod
        def backward(ctx, grad):
            shape, dtype, src_ranks, dst_ranks, root, need, in_shape = ctx.meta
            me = groups.rank()
            if me in need:
                dist.send(grad.contiguous(), root)
                return _creation.zeros(in_shape, dtype=dtype), None, None, None, None
            if me not in src_ranks:
                return _creation.zeros(in_shape, dtype=dtype), None, None, None, None
            acc = grad.clone() if me in dst_ranks else _creation.zeros(shape, dtype=dtype)
            if me == root:
                part = _creation.empty(shape, dtype=dtype)
                for r in need:
                    dist.recv(part, r)
                    acc += part
            return acc, None, None, None, None

    return Transfer


_Transfer = None


def move(x, placement, nd):
    global _Transfer
    from monoflow._global.access import shard_access
    from monoflow._global.tensor import local_view, wrap

    if _Transfer is None:
        _Transfer = _transfer_class()
    me = groups.rank()
    src_ranks, dst_ranks = x.placement.rank_list(), placement.rank_list()
    shape = x._shape
    everywhere = (broadcast,) * len(x.sbp)
    with shard_access():
        if me in src_ranks:
            full = boxing.convert(local_view(x), shape, x.placement, x.sbp, everywhere)
        else:
            full = local_view(x)  # an empty shard, still connected to x's history
        # Every rank goes through the transfer, those outside both placements too (an empty
        # shard for them): their later shards stay connected to this history, so a backward
        # started from a later stage's loss reaches the transfers this rank takes part in
        # further back (a pipeline's stage 1 receives stage 2's gradient and sends its own).
        out = _Transfer.apply(full, shape, x.dtype, src_ranks, dst_ranks)
        if me in dst_ranks:
            out = boxing.convert(out, shape, placement, (broadcast,) * len(nd), nd)
    return wrap(out, placement, nd, shape)
