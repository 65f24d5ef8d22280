"""Functions OneFlow exposes only in its functional namespace ``oneflow._C`` (its C++ functional
API), under their OneFlow signatures. ``monoflow._C`` answers these names from here (see
``_oneflow_internal.functional_fallback``); they are compositions of monoflow ops."""
from monoflow import _C

__all__ = ["reduce_sum_like"]


def reduce_sum_like(input, like, axis):
    """``oneflow._C.reduce_sum_like``: sums ``input`` over ``axis`` and gives the result ``like``'s shape
    (the reverse of ``broadcast_like``; its gradient broadcasts back).

    Args:
        input (Tensor): the tensor to sum.
        like (Tensor): the tensor whose shape the result takes (its values are not read).
        axis (sequence of int): the dims of ``input`` summed over.

    Example::

        >>> import monoflow as flow
        >>> flow._C.reduce_sum_like(flow.ones(2, 3, 4), flow.zeros(3, 1), axis=(0, 2))
        tensor([[8.],
                [8.],
                [8.]])
    """
    input = _C.check_tensor(input, "reduce_sum_like", "input", 1)
    like = _C.check_tensor(like, "reduce_sum_like", "like", 2)
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    out = input.sum(dim=axis) if axis else input
    if out.numel() != like.numel():
        raise RuntimeError(f"reduce_sum_like(): input of shape {list(input.shape)} summed over {axis} has "
                           f"{out.numel()} elements, like (shape {list(like.shape)}) has {like.numel()}")
    return out.reshape(tuple(like.shape))
