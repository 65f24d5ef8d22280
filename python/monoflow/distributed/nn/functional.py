"""Collectives as autograd functions (torch.distributed.nn.functional): each returns new tensors and
its backward is the collective that carries the gradients back (all_reduce's is all_reduce,
all_gather's is reduce_scatter, broadcast's is a reduce to the source). Every rank must run the
backward, as every rank ran the forward."""
from monoflow.autograd.function import Function
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributed import collectives as C
from monoflow.distributed.process_group import get_rank, get_world_size
from monoflow.distributed.reduce_op import ReduceOp

__all__ = ["all_gather", "all_reduce", "all_to_all", "broadcast", "reduce_scatter"]


class _AllReduceSum(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        out = tensor.detach().clone()
        C.all_reduce(out, ReduceOp.SUM, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return None, _AllReduceSum.apply(ctx.group, grad)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        tensor = tensor.detach().contiguous()
        outs = [tensor.new_empty(tensor.shape) for _ in range(get_world_size(group))]
        C.all_gather(outs, tensor, group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        return None, _ReduceScatterSum.apply(ctx.group, *grads)


class _ReduceScatterSum(Function):
    @staticmethod
    def forward(ctx, group, *inputs):
        ctx.group = group
        inputs = [t.detach().contiguous() for t in inputs]
        out = inputs[get_rank(group)].new_empty(inputs[get_rank(group)].shape)
        C.reduce_scatter(out, inputs, ReduceOp.SUM, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return (None,) + _AllGather.apply(ctx.group, grad)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        out = tensor.detach().clone()
        C.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        # d(out on every rank)/d(tensor on src): the sum of all ranks' gradients, which only src keeps
        total = grad.detach().clone()
        C.reduce(total, ctx.src, ReduceOp.SUM, group=ctx.group)
        return None, None, total if get_rank() == ctx.src else total.zero_()  # src is a global rank


class _AllToAll(Function):
    @staticmethod
    def forward(ctx, group, *inputs):
        ctx.group = group
        inputs = [t.detach().contiguous() for t in inputs]
        ctx.shapes = [tuple(t.shape) for t in inputs]
        outs = [inputs[0].new_empty(t.shape) for t in inputs]
        C.all_to_all(outs, inputs, group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + _AllToAll.apply(ctx.group, *grads)


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """The sum of ``tensor`` over the ranks of ``group``, as a new tensor; its gradient is the sum of the
    ranks' gradients. Only ``ReduceOp.SUM`` is differentiable here."""
    if op != ReduceOp.SUM:
        raise NotImplementedError(f"distributed.nn.all_reduce: only ReduceOp.SUM is differentiable, got {op}")
    return _AllReduceSum.apply(group, tensor)


def all_gather(tensor, group=None):
    """A tuple of every rank's ``tensor`` (same shape everywhere); gradients are reduce-scattered back."""
    return _AllGather.apply(group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """The sum over ranks of ``input_list[rank]``, returned (``output`` gives the shape and is also
    written, as torch does); gradients are all-gathered back."""
    if op != ReduceOp.SUM:
        raise NotImplementedError(f"distributed.nn.reduce_scatter: only ReduceOp.SUM is differentiable, got {op}")
    out = _ReduceScatterSum.apply(group, *input_list)
    with no_grad():
        output.copy_(out)
    return out


def broadcast(tensor, src, group=None):
    """``tensor`` of rank ``src`` on every rank, as a new tensor; ``src`` receives the summed gradient."""
    return _Broadcast.apply(src, group, tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=None):
    """Rank i's ``input_tensor_list[j]`` becomes rank j's ``i``-th output; returns the outputs (also
    copied into ``output_tensor_list``); gradients travel the reverse way."""
    outs = _AllToAll.apply(group, *input_tensor_list)
    with no_grad():
        for dst, src in zip(output_tensor_list, outs):
            dst.copy_(src)
    return outs
