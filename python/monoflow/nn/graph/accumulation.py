"""Gradient accumulation in a training graph (OneFlow's
``graph.config.set_gradient_accumulation_steps(n)``).

Note [Gradient accumulation semantics]
    A call's batch is split into n micro-batches along dim 0: every tensor
    argument (nested in tuples, lists and dicts too) is cut into n equal
    slices (views, no copies); non-tensor arguments go to every micro-batch
    unchanged. build runs once per micro-batch - the trace unrolls the
    loop, so the plan holds n forward/backward passes - and each
    ``loss.backward()`` accumulates into the parameters' grads. Then, as
    OneFlow does (its autograd pass scales the model gradients by the
    number of loss instances, which accumulation multiplies by n), the
    accumulated gradients are scaled by 1/n: the update sees the mean of
    the micro-batches' gradients, i.e. the gradient of the full batch's
    mean loss when the loss is a mean over equal micro-batches. Clipping
    and the optimizer step run once, after that.

    Outputs come back as OneFlow's graph returns them (its "pack" of the
    outputs): every tensor output is the concatenation of the n
    micro-batches' outputs along dim 0, and a 0-d output (a loss) becomes
    a 1-D tensor of its n values. Non-tensor outputs must be the same for
    every micro-batch and are returned once.

    The eager equivalent is the loop written by hand:
        for xb, yb in zip(x.chunk(n), y.chunk(n)):
            loss_fn(model(xb), yb).backward()
        for p in params: p.grad.mul_(1 / n)
        opt.clip_grad(); opt.step(); opt.zero_grad()
"""
from monoflow import _C
from monoflow.autograd import no_grad
from monoflow.nn.graph.signature import Keywords

__all__ = ["split_micro_batches", "merge_micro_batch_outputs", "average_accumulated_grads"]


def _collect_tensors(obj, found):
    if isinstance(obj, _C.TensorBase):
        found.append(obj)
    elif isinstance(obj, (tuple, list)):
        for v in obj:
            _collect_tensors(v, found)
    elif isinstance(obj, dict):
        for v in obj.values():
            _collect_tensors(v, found)


def split_micro_batches(where, args, n):
    """The n micro-batches of a call's arguments (a list of argument tuples).
    Raises ValueError naming `where` when a tensor argument cannot be split."""
    tensors = []
    _collect_tensors(args, tensors)
    if not tensors:
        raise ValueError(f"{where}: gradient accumulation over {n} micro-batches needs tensor arguments to split "
                         f"along dim 0, but the call has none")
    for t in tensors:
        if t.dim() == 0:
            raise ValueError(f"{where}: gradient accumulation over {n} micro-batches splits every tensor argument "
                             f"along dim 0, but one is 0-d")
        if t.shape[0] % n != 0:
            raise ValueError(f"{where}: gradient accumulation over {n} micro-batches splits every tensor argument "
                             f"along dim 0, but one has shape {list(t.shape)} (dim 0 of size {t.shape[0]} is not "
                             f"divisible by {n})")
    return [tuple(_slice_nested(a, i, n) for a in args) for i in range(n)]


def _slice_nested(obj, i, n):
    if isinstance(obj, _C.TensorBase):
        size = obj.shape[0] // n
        return obj.narrow(0, i * size, size)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_slice_nested(v, i, n) for v in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_slice_nested(v, i, n) for v in obj)
    if isinstance(obj, dict):
        return (Keywords if type(obj) is Keywords else dict)((k, _slice_nested(v, i, n)) for k, v in obj.items())
    return obj


def merge_micro_batch_outputs(where, outs):
    """One output structure from the micro-batches' ones (see the Note)."""
    first = outs[0]
    if isinstance(first, _C.TensorBase):
        if not all(isinstance(o, _C.TensorBase) for o in outs):
            raise TypeError(f"{where}: build returned a tensor for some micro-batches and not for others")
        from monoflow.ops_shape import cat, stack

        return stack(list(outs)) if first.dim() == 0 else cat(list(outs), 0)
    if isinstance(first, (tuple, list)):
        if any(type(o) is not type(first) or len(o) != len(first) for o in outs):
            raise TypeError(f"{where}: build returned differently structured outputs for different micro-batches")
        items = [merge_micro_batch_outputs(where, [o[k] for o in outs]) for k in range(len(first))]
        if hasattr(first, "_fields"):
            return type(first)(*items)
        return type(first)(items)
    if isinstance(first, dict):
        if any(not isinstance(o, dict) or list(o) != list(first) for o in outs):
            raise TypeError(f"{where}: build returned differently structured outputs for different micro-batches")
        return {k: merge_micro_batch_outputs(where, [o[k] for o in outs]) for k in first}
    if any(not _equal(o, first) for o in outs[1:]):
        raise ValueError(f"{where}: build returned the non-tensor output {first!r} for one micro-batch and "
                         f"something else for another; non-tensor outputs must not depend on the micro-batch")
    return first


def _equal(a, b):
    try:
        return bool(a == b)
    except Exception:
        return a is b


def average_accumulated_grads(params, n):
    """grad *= 1/n for every parameter that has one (OneFlow's scaling)."""
    scale = 1.0 / n
    with no_grad():
        for p in params:
            if p.grad is not None:
                p.grad.mul_(scale)
