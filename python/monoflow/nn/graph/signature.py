"""The cache key of a compiled plan: the call's nested structure with each
tensor replaced by its shape, dtype and device, or placement and SBP for a
global tensor (values do not matter)."""
from monoflow import _C

__all__ = ["Keywords", "signature", "describe_signature"]


class Keywords(dict):
    """A graph call's keyword arguments, carried to build as one last positional
    input (a dict of its own type: ``g(x, y=t)`` and ``g(x, {"y": t})`` are
    different signatures)."""


def signature(obj, tensors=None):
    """The key of obj; appends its tensors to `tensors` in the order the
    foundation's trace flattens them (depth first, dict values in order).
    (On every graph call: written for speed, e.g. the shape is the tensor's
    own Size, a tuple.)"""
    if isinstance(obj, _C.TensorBase):
        if tensors is not None:
            tensors.append(obj)
        if getattr(obj, "is_global", False):  # same shape, another layout: another plan (its shards differ)
            return ("global", obj.shape, obj.dtype, obj.placement, tuple(obj.sbp))
        return ("tensor", obj.shape, obj.dtype, obj.device)
    kind = type(obj)
    if kind is tuple or kind is list or isinstance(obj, (tuple, list)):
        return (kind.__name__, tuple([signature(v, tensors) for v in obj]))
    if isinstance(obj, dict):
        return ("keywords" if kind is Keywords else "dict", tuple([(k, signature(v, tensors)) for k, v in obj.items()]))
    try:
        hash(obj)
    except TypeError:
        raise TypeError(f"nn.Graph: a non-tensor argument of type {type(obj).__name__} is not hashable, so it "
                        f"cannot be part of a graph's input signature") from None
    return ("const", type(obj), obj)


def describe_signature(sig):
    kind = sig[0]
    if kind == "tensor":
        return f"Tensor({list(sig[1])}, {sig[2]}, {sig[3]})"
    if kind == "global":
        return f"Tensor({list(sig[1])}, {sig[2]}, {sig[3]}, sbp={sig[4]})"
    if kind in ("tuple", "list"):
        inner = ", ".join(describe_signature(s) for s in sig[1])
        return f"({inner})" if kind == "tuple" else f"[{inner}]"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {describe_signature(s)}" for k, s in sig[1]) + "}"
    if kind == "keywords":
        return ", ".join(f"{k}={describe_signature(s)}" for k, s in sig[1])
    return repr(sig[2])
