"""Running an op on global tensors: deduce an SBP signature, box the inputs,
run the local op on every rank's shard, wrap the results.

The signature is the one that moves the fewest bytes (boxing.cost over all
the placement's ranks, so that every rank picks the same one); ties go to the
signature needing the fewest conversions, then to the rule's order. On an
n-D hierarchy each axis picks one of the op's 1-D signatures.
"""
import itertools

from monoflow import _C
from monoflow._global import boxing, groups
from monoflow._global.access import shard_access
from monoflow._global.signatures import RULES
from monoflow._global.tensor import GlobalTensor, local_view, wrap
from monoflow._tensor import Tensor


def _find_tensors(args, kwargs):
    """[(container, key)] of every tensor operand, in order: positional
    arguments, tensors inside list/tuple arguments, then keyword arguments."""
    found = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            found.append((None, i))
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            found.extend(((i, j) for j in range(len(a))))
    for k, v in kwargs.items():
        if isinstance(v, Tensor):
            found.append(("kw", k))
    return found


def _get(args, kwargs, where):
    c, k = where
    if c is None:
        return args[k]
    if c == "kw":
        return kwargs[k]
    return args[c][k]


def _put(args, kwargs, where, value):
    c, k = where
    if c is None:
        args[k] = value
    elif c == "kw":
        kwargs[k] = value
    else:
        seq = list(args[c])
        seq[k] = value
        args[c] = seq


def choose(name, tensors, sigs):
    """The nd-signature (one 1-D signature per hierarchy axis) moving the
    fewest bytes."""
    placement = tensors[0].placement
    naxes = len(placement.hierarchy)
    best, best_key = None, None
    for order, combo in enumerate(itertools.product(sigs, repeat=naxes)):
        cost, changes = 0, 0
        for i, t in enumerate(tensors):
            want = tuple(c.inputs[i] for c in combo)
            if want != t.sbp:
                changes += 1
                cost += boxing.cost(t._shape, t.element_size(), placement, t.sbp, want)
        key = (cost, changes, order)
        if best_key is None or key < best_key:
            best, best_key = combo, key
    return best


def call(name, fn, args, kwargs):
    """Runs `fn` (the local op) on global operands."""
    where = _find_tensors(args, kwargs)
    tensors = [_get(args, kwargs, w) for w in where]
    locals_ = [t for t in tensors if not isinstance(t, GlobalTensor)]
    if locals_:
        raise RuntimeError(f"{name}: got both global and local tensors; mixing them is not allowed. Make the local "
                           "one global with .to_global(placement, sbp), or the global one local with .to_local()")
    placement = tensors[0].placement
    for t in tensors[1:]:
        if t.placement != placement:
            raise RuntimeError(f"{name}: global operands are on different placements ({placement!r} and "
                               f"{t.placement!r}); move one with .to_global(placement=...)")
    me = groups.rank()
    coords = placement.coords(me)
    if coords is None:
        raise RuntimeError(f"{name}: this rank ({me}) is not in {placement!r}; ops on global tensors run on the "
                           "ranks of their placement (move the tensor with .to_global(placement=...))")
    composite = COMPOSITES.get(name)
    if composite is not None:
        out = composite(fn, args, kwargs)
        if out is not NotImplemented:
            return out
    rule = RULES.get(name)
    if rule is None:
        raise RuntimeError(f"{name}: no SBP rule for global tensors")
    sigs, out_shapes = rule(name, [t._shape for t in tensors], args, kwargs)
    combo = choose(name, tensors, sigs)
    args, kwargs = list(args), dict(kwargs)
    with shard_access():
        for i, (w, t) in enumerate(zip(where, tensors)):
            want = tuple(c.inputs[i] for c in combo)
            local = _C._alias(Tensor, t) if want == t.sbp else \
                boxing.convert(local_view(t), t._shape, placement, t.sbp, want)
            _put(args, kwargs, w, local)
        out = fn(*args, **kwargs)
    outs = out if isinstance(out, tuple) else (out,)
    wrapped = []
    for k, o in enumerate(outs):
        if not isinstance(o, Tensor):
            wrapped.append(o)
            continue
        nd = tuple(c.outputs[min(k, len(c.outputs) - 1)] for c in combo)
        shape = out_shapes[min(k, len(out_shapes) - 1)]
        if o is args[0] or (where and o is _get(args, kwargs, where[0])):
            target = tensors[0]  # in place: same object, maybe a new layout
            target._nd_sbp, target._shape = nd, tuple(shape)
            wrapped.append(target)
        else:
            wrapped.append(wrap(o, placement, nd, shape))
    if isinstance(out, tuple):
        return type(out)(wrapped) if type(out) is tuple else type(out)(*wrapped)
    return wrapped[0]


# ------------------------------------------------------- composite ops
# Ops whose global form is a composition of global ops, because their local
# result on a piece is not a piece (or partial sum) of the whole result.

def _mean(fn, args, kwargs):
    from monoflow._global.signatures import _dim_arg, _keepdim, _reduced_dims

    x = args[0]
    if kwargs.get("dtype") is not None:
        return NotImplemented
    dim = _dim_arg(args, kwargs)
    dims = _reduced_dims(x.dim(), dim)
    count = 1
    for d in dims:
        count *= x._shape[d]
    sum_kwargs = {"keepdim": _keepdim(args, kwargs)}
    if dim is not None:
        sum_kwargs["dim"] = dim
    return call("sum", Tensor.sum, [x], sum_kwargs) / count


def _loss_mean(fn, args, kwargs):
    if kwargs.get("reduction", "mean") != "mean":
        return NotImplemented
    x, target = args[0], args[1]
    kw = dict(kwargs, reduction="sum")
    name = getattr(fn, "__name__", "loss")
    if name in ("cross_entropy", "nll_loss"):
        if kw.get("weight") is not None or target.is_floating_point() or len(args) > 2:
            return NotImplemented
        total = call(name, fn, list(args), kw)
        ignore = kw.get("ignore_index", -100)
        count = call("ne", Tensor.ne, [target, ignore], {}).sum()
        from monoflow._global.sbp import broadcast

        nb = (broadcast,) * len(total.sbp)
        return total.to_global(sbp=nb) / count.to_global(sbp=nb).to(total.dtype)
    total = call(name, fn, list(args), kw)
    return total / max(x.numel(), target.numel())


COMPOSITES = {"mean": _mean}
for _n in ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits"):
    COMPOSITES[_n] = _loss_mean
