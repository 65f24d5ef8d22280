"""Gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_, and
its two halves get_total_norm / clip_grads_with_norm_)."""
import math
import warnings

from monoflow import _C
from monoflow._global.access import shard_access
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn import _global_layout as _gl

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _grads(parameters):
    if isinstance(parameters, _C.TensorBase):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint norm (as if they were one vector) is at most
    ``max_norm``.

    Works for global (distributed) tensors too: the norm is then taken over every shard.

    Args:
        parameters (Tensor or iterable of Tensor): the parameters whose ``.grad`` is used (those without
            a gradient are skipped).
        max_norm (float): the largest norm allowed.
        norm_type (float): the p of the norm; ``float('inf')`` for the max norm. Default: ``2.0``.
        error_if_nonfinite (bool): raise ``RuntimeError`` when the total norm is nan or inf. Default:
            ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has a single
            implementation. Default: ``None``.

    Returns:
        Tensor: the total norm before clipping.

    Example::

        >>> m = nn.Linear(4, 2)
        >>> m(flow.ones(3, 4)).sum().backward()
        >>> total = nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0)
        >>> total > 1.0
        tensor(True)
        >>> bool(nn.utils.get_total_norm([p.grad for p in m.parameters()]) <= 1.0)
        True
    """
    from monoflow._creation import tensor as _tensor

    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not grads:
        return _tensor(0.0)
    if any(_gl.is_global(g) for g in grads):
        return _clip_global(grads, max_norm, norm_type, error_if_nonfinite)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    _scale_(grads, max_norm, total)
    return total


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the given tensors taken together as one vector: the p-norm of their per-tensor norms.

    Args:
        tensors (Tensor or iterable of Tensor): the tensors (usually gradients).
        norm_type (float): the p of the norm; ``float('inf')`` for the max norm. Default: ``2.0``.
        error_if_nonfinite (bool): raise ``RuntimeError`` when the total norm is nan or inf. Default:
            ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has a single
            implementation. Default: ``None``.

    Returns:
        Tensor: a scalar.

    Example::

        >>> nn.utils.get_total_norm([flow.tensor([3.0]), flow.tensor([4.0])])
        tensor(5.)
    """
    from monoflow._creation import tensor as _tensor
    from monoflow.ops_shape import stack

    tensors = [tensors] if isinstance(tensors, _C.TensorBase) else [t for t in tensors if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return _tensor(0.0)
    with no_grad():
        # (under no_grad nothing is recorded: no detach; a cast only where the dtype differs)
        if norm_type == math.inf:
            norms = [t.abs().amax() for t in tensors]
            total = norms[0] if len(norms) == 1 else stack(_same_dtype(norms)).amax()
        else:
            norms = [t.norm(norm_type) for t in tensors]
            total = stack(_same_dtype(norms)).norm(norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise _nonfinite(norm_type)
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients in place by ``max_norm / (total_norm + 1e-6)`` when that is below 1 (the second
    half of :func:`clip_grad_norm_`, given the norm from :func:`get_total_norm`).

    Args:
        parameters (Tensor or iterable of Tensor): the parameters whose ``.grad`` is used (those without
            a gradient are skipped).
        max_norm (float): the largest norm allowed.
        total_norm (Tensor): the total norm of the gradients.
        foreach (bool, optional): accepted for torch compatibility; monoflow has a single
            implementation. Default: ``None``.

    Example::

        >>> m = nn.Linear(4, 2)
        >>> m(flow.ones(3, 4)).sum().backward()
        >>> total = nn.utils.get_total_norm([p.grad for p in m.parameters()])
        >>> nn.utils.clip_grads_with_norm_(m.parameters(), 0.5, total)
        >>> bool(nn.utils.get_total_norm([p.grad for p in m.parameters()]) <= 0.5)
        True
    """
    grads = _grads(parameters)
    if grads:
        _scale_(grads, float(max_norm), total_norm)


def _scale_(grads, max_norm, total):
    with no_grad():
        # clamp instead of a Python branch: no host sync on the norm
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        by_dtype = {coef.dtype: coef}
        for g in grads:
            c = by_dtype.get(g.dtype)
            if c is None:
                c = by_dtype[g.dtype] = coef.to(dtype=g.dtype)
            g.mul_(c)


def _same_dtype(norms):
    dtype = norms[0].dtype
    return [n if n.dtype == dtype else n.to(dtype=dtype) for n in norms]


def _nonfinite(norm_type):
    return RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                        "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                        "anyway, set `error_if_nonfinite=False`")


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of :func:`clip_grad_norm_` (warns with ``FutureWarning``); same arguments and
    result.

    Args:
        parameters (Tensor or iterable of Tensor): the parameters whose ``.grad`` is used (those without
            a gradient are skipped).
        max_norm (float): the largest norm allowed.
        norm_type (float): the p of the norm; ``float('inf')`` for the max norm. Default: ``2.0``.
        error_if_nonfinite (bool): raise ``RuntimeError`` when the total norm is nan or inf. Default:
            ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has a single
            implementation. Default: ``None``.

    Example::

        >>> m = nn.Linear(4, 2)
        >>> m(flow.ones(3, 4)).sum().backward()
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     nn.utils.clip_grad_norm(m.parameters(), 1.0) > 0
        tensor(True)
    """
    warnings.warn("`nn.utils.clip_grad_norm` is now deprecated in favor of `nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element into ``[-clip_value, clip_value]``, in place.

    Args:
        parameters (Tensor or iterable of Tensor): the parameters whose ``.grad`` is used (those without
            a gradient are skipped).
        clip_value (float): the bound.
        foreach (bool, optional): accepted for torch compatibility; monoflow has a single
            implementation. Default: ``None``.

    Example::

        >>> m = nn.Linear(4, 2)
        >>> m(flow.ones(3, 4)).sum().backward()
        >>> nn.utils.clip_grad_value_(m.parameters(), 0.5)
        >>> m.bias.grad
        tensor([0.5000, 0.5000])
    """
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            if _gl.is_global(g):
                if any(s.is_partial_sum() for s in g.sbp):
                    raise RuntimeError(f"clip_grad_value_: a gradient laid out as {g.sbp!r} holds partial sums, "
                                       "which cannot be clamped piece by piece; use broadcast or split SBP")
                with shard_access():
                    _gl.shard(g).clamp_(-clip_value, clip_value)
            else:
                g.clamp_(-clip_value, clip_value)


# ---------------------------------------------------------------- global gradients
# Note [The norm of global gradients]
#     The norm is one number for the whole model, the same on every rank.
#     Each rank reduces its own shards to one partial result (a sum of
#     |g|^p, or a max): for a split axis every rank's piece counts, for a
#     broadcast axis only the first rank's copy, so that each element counts
#     once (a partial-sum axis is made broadcast first: |a + b|^p is not
#     |a|^p + |b|^p). One all-reduce of that scalar over the job then gives
#     the total, whatever placements and SBPs the gradients have. The scaling
#     that follows is linear, so it is right on the shards of any SBP.

def _clip_global(grads, max_norm, norm_type, error_if_nonfinite):
    import monoflow.distributed as dist
    from monoflow._global import groups
    from monoflow._global.sbp import broadcast
    from monoflow._global.tensor import wrap

    if not all(_gl.is_global(g) for g in grads):
        raise RuntimeError("clip_grad_norm_: got both global and local gradients; their norms cannot be combined "
                           "(make every parameter global, or none)")
    rank = groups.rank()
    dtype = grads[0].dtype
    parts = []
    with no_grad():
        for g in grads:
            if any(s.is_partial_sum() for s in g.sbp):
                g = g.detach().to_global(g.placement, tuple(broadcast if s.is_partial_sum() else s for s in g.sbp))
            coords = g.placement.coords(rank)
            if coords is None or any(c != 0 for s, c in zip(g.sbp, coords) if s.is_broadcast()):
                continue  # not here, or a copy the first rank of its axis counts
            with shard_access():
                local = _gl.shard(g).detach()
                if local.numel() == 0:
                    continue
                if norm_type in (math.inf, -math.inf):  # (the extremes: a copy counted twice changes nothing)
                    parts.append((local.abs().amax() if norm_type > 0 else local.abs().amin()).to(dtype=dtype))
                elif norm_type == 0:
                    parts.append((local != 0).sum().to(dtype=dtype))
                else:
                    parts.append(local.abs().pow(norm_type).sum().to(dtype=dtype))
        from monoflow._creation import tensor as _tensor
        from monoflow.ops_shape import stack

        op = {math.inf: dist.ReduceOp.MAX, -math.inf: dist.ReduceOp.MIN}.get(norm_type, dist.ReduceOp.SUM)
        if parts:
            mine = {dist.ReduceOp.MAX: stack(parts).amax, dist.ReduceOp.MIN: stack(parts).amin}.get(
                op, stack(parts).sum)()
        else:  # no element here: the identity of the reduction
            mine = _tensor(math.inf if op == dist.ReduceOp.MIN else 0.0, dtype=dtype)
        mine = mine.contiguous().clone()
        world = groups.world_group()
        if world is not None:
            dist.all_reduce(mine, op=op, group=world)
        total = mine if norm_type in (0, math.inf, -math.inf) else mine.pow(1.0 / norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise _nonfinite(norm_type)
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            if g.placement.coords(rank) is None:
                continue
            with shard_access():
                local = _gl.shard(g)
                local.mul_(coef.to(dtype=local.dtype))
    placement = grads[0].placement
    if all(g.placement == placement for g in grads) and placement.coords(rank) is not None:
        return wrap(total, placement, (broadcast,) * len(placement.hierarchy), ())
    return total
