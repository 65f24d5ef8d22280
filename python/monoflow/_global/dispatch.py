"""Running an op on global tensors: deduce an SBP signature, box the inputs,
run the local op on every rank's shard, wrap the results.

The signature is the one that moves the fewest bytes (boxing.cost over all
the placement's ranks, so that every rank picks the same one); ties go to the
signature needing the fewest conversions, then to the rule's order. On an
n-D hierarchy each axis picks one of the op's 1-D signatures. While an
nn.Graph traces build, each choice is logged and may be replaced by the
whole-graph solution's (Note [Whole-graph SBP deduction] in whole_graph.py).

In-place ops keep their tensor object and its layout: the signatures that
leave self's SBP as it is are preferred; when none exists (x of SBP P in
x.add_(1)), the op runs on a converted copy, which is written back,
converted to self's SBP, through a recorded copy_. An op that hands its
input back (contiguous(), +x) returns the same global object.

Rules whose local kernels refuse empty inputs (pooling, convolutions) set
Op.nonempty: the choice then avoids splits that leave a rank an empty piece
(a rank raising alone would leave the others waiting in a collective).
"""
import itertools

from monoflow import _C, _creation, ops_random
from monoflow._global import boxing, groups, layout, whole_graph
from monoflow._global.access import shard_access
from monoflow._global.mode import suspended
from monoflow._global.signatures import RULES, Op, is_inplace
from monoflow._global.tensor import GlobalTensor, local_view, outside, wrap
from monoflow._tensor import Tensor
from monoflow.autograd.grad_mode import no_grad


# ------------------------------------------------------- operands

def _find_tensors(args, kwargs):
    """[(where, key, index)] of every tensor operand, in order: positional
    arguments (and the tensors inside list/tuple arguments), then keyword
    arguments (likewise)."""
    found = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            found.append(("a", i, None))
        elif isinstance(a, (list, tuple)):
            found.extend(("a", i, j) for j, v in enumerate(a) if isinstance(v, Tensor))
    for k, v in kwargs.items():
        if isinstance(v, Tensor):
            found.append(("k", k, None))
        elif isinstance(v, (list, tuple)):
            found.extend(("k", k, j) for j, x in enumerate(v) if isinstance(x, Tensor))
    return found


def _get(args, kwargs, where):
    kind, key, index = where
    v = args[key] if kind == "a" else kwargs[key]
    return v if index is None else v[index]


def _put(args, kwargs, where, value):
    kind, key, index = where
    box = args if kind == "a" else kwargs
    if index is None:
        box[key] = value
    else:
        seq = list(box[key])
        seq[index] = value
        box[key] = type(box[key])(seq) if type(box[key]) in (list, tuple) else seq


# ------------------------------------------------------- deduction

def _leaves_empty(t, nd, placement):
    """Whether laying out non-empty `t` as `nd` leaves some rank an empty piece."""
    if 0 in t._shape:
        return False
    h = placement.hierarchy
    return any(0 in layout.local_shape(t._shape, nd, h, placement.coords(r)) for r in placement.rank_list())


def choose(name, tensors, sigs, keep=None, nonempty=False):
    """The nd-signature (one 1-D signature per hierarchy axis) moving the
    fewest bytes. With `keep` (an in-place op's nd-SBP), only signatures that
    take and give operand 0 in that layout, when there are any; with
    `nonempty`, only those leaving every rank a non-empty piece of every
    operand, when there are any."""
    placement = tensors[0].placement
    naxes = len(placement.hierarchy)
    for s in sigs:
        if len(s.inputs) != len(tensors):  # a rule's bug, not the caller's
            raise RuntimeError(f"{name}: internal error: the SBP rule gave {s!r} for {len(tensors)} tensor operand(s)")
    if not sigs:
        raise RuntimeError(f"{name}: no SBP signature fits these operands")
    combos = list(itertools.product(sigs, repeat=naxes))
    if keep is not None:
        kept = [c for c in combos if all(s.inputs[0] == keep[a] and s.outputs[0] == keep[a] for a, s in enumerate(c))]
        combos = kept or combos
    if nonempty:
        full = [c for c in combos if not any(_leaves_empty(t, tuple(s.inputs[i] for s in c), placement)
                                             for i, t in enumerate(tensors))]
        combos = full or combos
    best, best_key, best_order = None, None, None
    for order, combo in enumerate(combos):
        cost, changes = 0, 0
        for i, t in enumerate(tensors):
            want = tuple(c.inputs[i] for c in combo)
            if want != t.sbp:
                changes += 1
                size, reduce_size = boxing.itemsizes(t.dtype)
                cost += boxing.cost(t._shape, size, placement, t.sbp, want, reduce_itemsize=reduce_size)
        key = (cost, changes, order)
        if best_key is None or key < best_key:
            best, best_key, best_order = combo, key, order
    recorder = whole_graph.active()
    if recorder is not None:  # a graph trace: log the decision, maybe forced (Note [Whole-graph SBP deduction])
        best = combos[recorder.decide(name, tensors, combos, best_order, keep is not None)]
    return best


def _check_operands(name, tensors):
    if any(not isinstance(t, GlobalTensor) for t in tensors):
        raise RuntimeError(f"{name}: got both global and local tensors; mixing them is not allowed. Make the local "
                           "one global with .to_global(placement, sbp), or the global one local with .to_local()")
    placement = tensors[0].placement
    for t in tensors[1:]:
        if t.placement != placement:
            raise RuntimeError(f"{name}: global operands are on different placements ({placement!r} and "
                               f"{t.placement!r}); move one with .to_global(placement=...)")
    return placement


def _as_sequence(out):
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def _rebuild(out, items):
    if isinstance(out, list):
        return items
    if isinstance(out, tuple):
        return type(out)(items) if type(out) is tuple else type(out)(*items)
    return items[0]


def _check_device_strings(values):
    # (OneFlow's check and wording: a global tensor's devices are its placement's, so a string may only
    # name a device type)
    for v in values:
        if isinstance(v, str):
            try:
                bare = ":" not in v and _C.device(v) is not None
            except RuntimeError:
                bare = False
            if not bare:
                raise RuntimeError(f'to(): Only string device without device id (eg. "cpu" or "cuda") is expected '
                                   f'for global tensor, but got {v}')


def call(name, fn, args, kwargs, method=False):
    """Runs `fn` (the local op) on global operands."""
    if name == "to":  # x.to(other) takes other's dtype (its device is the placement's type)
        _check_device_strings(args[1:] + [kwargs.get("device")])
        args = [args[0]] + [a.dtype if isinstance(a, Tensor) else a for a in args[1:]]
    if name == "cross_entropy" and len(args) >= 2:  # OneFlow's (N, 1) class indices, as the local op takes them
        from monoflow._losses import _class_dim_squeezed

        args[1] = _class_dim_squeezed(args[0], args[1])
    where = _find_tensors(args, kwargs)
    tensors = [_get(args, kwargs, w) for w in where]
    placement = _check_operands(name, tensors)
    composite = COMPOSITES.get(name)
    if composite is not None:
        out = composite(name, fn, args, kwargs)
        if out is not NotImplemented:
            return out
    with suspended():  # OneFlow's global mode (mode.py): the local op on the shards makes local tensors
        return _run_rule(name, fn, args, kwargs, method, where, tensors, placement)


def _run_rule(name, fn, args, kwargs, method, where, tensors, placement):
    rule = RULES.get(name)
    if rule is None:
        raise RuntimeError(f"{name}: no SBP rule for global tensors")
    op = Op(name, args, kwargs, tensors, method)
    found = rule(op)
    sigs, out_shapes = found[0], found[1]
    localize = found[2] if len(found) > 2 else None
    inplace = is_inplace(name) or name == "__setitem__" or kwargs.get("inplace") is True
    combo = choose(name, tensors, sigs, keep=tensors[0].sbp if inplace else None, nonempty=op.nonempty)
    h, coords = placement.hierarchy, placement.coords(groups.rank())

    def out_nd(k):
        return tuple(c.outputs[min(k, len(c.outputs) - 1)] for c in combo)

    def out_shape(k, local=None):
        s = out_shapes[min(k, len(out_shapes) - 1)]
        return tuple(s(local)) if callable(s) else tuple(s)

    if coords is None:
        return _logged(tensors, _outside(name, fn, args, kwargs, where, tensors, inplace, out_nd, out_shapes,
                                         out_shape))

    args, kwargs = list(args), dict(kwargs)
    fresh0 = False
    with shard_access():
        for i, (w, t) in enumerate(zip(where, tensors)):
            want = tuple(c.inputs[i] for c in combo)
            if want == t.sbp:
                local = _C._alias(Tensor, t)
            else:
                source = local_view(t)
                local = boxing.convert(source, t._shape, placement, t.sbp, want)
                # a conversion along axes of size 1 moves nothing and hands back the view itself
                if i == 0 and local is not source:
                    fresh0 = True
                    if inplace:
                        # the op writes this copy, which a slice step may have
                        # made a view: writes through views of views lose
                        # their history in the core today (the viewed tensor
                        # keeps a stale gradient function), so own memory
                        local = local.clone()
            _put(args, kwargs, w, local)
        local0 = _get(args, kwargs, where[0])
        call_fn = fn
        if localize is not None:
            local_out = [layout.local_shape(out_shape(k), out_nd(k), h, coords) for k in range(len(out_shapes))]
            call_fn, args, kwargs = localize(fn, args, kwargs, local_out)
        out = call_fn(*args, **kwargs)
    if (inplace and out is None) or out is local0:
        # in place, or handed its input back (contiguous(), +x, dropout in
        # eval): the result is operand 0 itself, in its own layout; an op
        # that mutated a converted copy writes it back
        if inplace or (fresh0 and _inplace_argument(fn, args, kwargs)):
            _write_back(tensors[0], local0, out_nd(0), fresh0)
        return None if out is None else tensors[0]
    wrapped = []
    for k, o in enumerate(_as_sequence(out)):
        if not isinstance(o, Tensor):
            wrapped.append(o)
        elif o is local0 and not fresh0 and out_nd(k) == tensors[0].sbp:
            wrapped.append(tensors[0])  # the op handed its input back (contiguous(), dropout in eval...)
        else:
            wrapped.append(wrap(o, placement, out_nd(k), out_shape(k, tuple(o.shape))))
    return _logged(tensors, _rebuild(out, wrapped))


def _logged(tensors, out):
    """`out`, after telling a graph trace's decision log that the last
    chosen call produced it (whole_graph.py links consumers by identity)."""
    recorder = whole_graph.active()
    if recorder is not None:
        recorder.produced(tensors, _as_sequence(out))
    return out


def _outside(name, fn, args, kwargs, where, tensors, inplace, out_nd, out_shapes, out_shape):
    """An op on a placement this rank is not in (Note in move.py): no kernel
    runs, and each result is an empty shard with the logical shape and SBP
    the rule gives, so that the program and its backward go on as on the
    other ranks. The dtypes come from running the local op on one-element
    stand-ins (an op that cannot take them keeps its first operand's dtype)."""
    if inplace:
        return tensors[0]
    if any(callable(s) for s in out_shapes):
        raise RuntimeError(f"{name}: on a rank outside {tensors[0].placement!r} this op's result shape is not known "
                           "(it depends on the shard); run it on the placement's ranks only")
    probe_args, probe_kwargs = list(args), dict(kwargs)
    for w, t in zip(where, tensors):
        _put(probe_args, probe_kwargs, w, _creation.zeros([1] * t.dim(), dtype=t.dtype))
    try:
        with no_grad():
            probe = fn(*probe_args, **probe_kwargs)
    except Exception:  # noqa: BLE001 - a stand-in the op refuses: shape ops keep their operand's dtype
        probe = tuple(_creation.empty(0, dtype=tensors[0].dtype) for _ in out_shapes) if len(out_shapes) > 1 else \
            _creation.empty(0, dtype=tensors[0].dtype)
    placement = tensors[0].placement
    items = [outside(placement, out_nd(k), out_shape(k), o.dtype, tensors) if isinstance(o, Tensor) else o
             for k, o in enumerate(_as_sequence(probe))]
    return _rebuild(probe, items)


def _inplace_argument(fn, args, kwargs):
    """Whether a call passed inplace=True positionally (F.relu(x, True))."""
    import inspect

    try:
        return bool(inspect.signature(fn).bind(*args, **kwargs).arguments.get("inplace", False))
    except (TypeError, ValueError):
        return False


def _write_back(t, local, nd, fresh):
    """An in-place op ran on `local` (operand 0 in layout `nd`): make the
    global tensor `t` hold the result in its own layout."""
    if not fresh and nd == t.sbp:
        return  # it ran on t's own shard
    with shard_access():
        back = boxing.convert(local, t._shape, t.placement, nd, t.sbp)
        Tensor.copy_(_C._alias(Tensor, t), back)


# ------------------------------------------------------- composite ops
# Ops whose global form is a composition of global ops, because their local
# result on a piece is not a piece (or partial sum) of the whole result.

def _mean(name, fn, args, kwargs):
    from monoflow._global.signatures.reductions import _reduced_dims

    op = Op(name, args, kwargs, [args[0]])
    x = args[0]
    if op.arg("dtype", None) is not None or not x.is_floating_point():
        return NotImplemented  # the local op's own rules (and errors) apply
    dim = op.arg("dim", 1)
    dims = _reduced_dims(op, x.dim(), dim)
    count = 1
    for d in dims:
        count *= x._shape[d] if x._shape else 1  # (a 0-d tensor's dim 0 or -1: itself)
    sum_kwargs = {"keepdim": bool(op.arg("keepdim", 2, False))}
    if dim is not None:
        sum_kwargs["dim"] = dim
    # the sum of the pieces over the global count: P where the mean spans a split
    return call("sum", Tensor.sum, [x], sum_kwargs) / count


def _classification_mean(name, fn, args, kwargs):
    """cross_entropy / nll_loss with reduction='mean': the sum of the
    per-sample losses (P over a split batch) over the global count of
    targets that are not ignored."""
    from monoflow._global.signatures.nn import _loss_reduction

    op = Op(name, args, kwargs, [])
    if _loss_reduction(op, 3, 5, 6) != "mean":
        return NotImplemented
    x, target = op.arg("input", 0), op.arg("target", 1)
    if op.arg("weight", 2) is not None or not isinstance(target, Tensor) or target.is_floating_point():
        return NotImplemented  # weighted means divide by the weights; probabilities by the batch
    ignore = op.arg("ignore_index", 4, -100)
    kw = {"ignore_index": ignore, "reduction": "sum"}
    if name == "cross_entropy":
        kw["label_smoothing"] = op.arg("label_smoothing", 7, 0.0)
    total = call(name, fn, [x, target], kw)
    count = call("__ne__", Tensor.__ne__, [target, ignore], {}, method=True).sum()
    return total / count.to(total.dtype)


LIKE = ("zeros_like", "ones_like", "empty_like", "full_like")


def like_with_placement(name, args, kwargs):
    """zeros_like(x, placement=, sbp=) & co. (OneFlow): the global tensor of
    x's shape (its logical shape for a global x) and dtype; placement and SBP
    default to a global x's (a partial sum is made broadcast: ones would add
    up over the ranks)."""
    from monoflow._global.sbp import broadcast

    kwargs = dict(kwargs)
    placement, sbp = kwargs.pop("placement", None), kwargs.pop("sbp", None)
    x = args[0] if args else kwargs.pop("input")
    rest = list(args[1:])
    if isinstance(x, GlobalTensor):
        placement = placement if placement is not None else x.placement
        sbp = sbp if sbp is not None else [broadcast if s.is_partial_sum() else s for s in x.sbp]
    if placement is None or sbp is None:
        raise ValueError(f"{name}: placement= needs sbp= too (and sbp= placement=) for a local input")
    dtype = kwargs.pop("dtype", None) or x.dtype
    kwargs.pop("device", None)
    kwargs.pop("memory_format", None)
    if name == "full_like":
        fill = rest.pop(0) if rest else kwargs.pop("fill_value")
        return _creation.full(tuple(x.shape), fill, dtype=dtype, placement=placement, sbp=sbp, **kwargs)
    maker = {"zeros_like": _creation.zeros, "ones_like": _creation.ones, "empty_like": _creation.empty}[name]
    return maker(tuple(x.shape), dtype=dtype, placement=placement, sbp=sbp, **kwargs)


def _diag(name, fn, args, kwargs):
    """diag of a vector: the vector times a broadcast identity (padded for
    an offset diagonal), so that its splits carry over to the rows. A
    matrix's diagonal composes global ops already."""
    import monoflow.nn.functional as F
    from monoflow._global.sbp import broadcast

    op = Op(name, args, kwargs, [])
    x = op.arg("input", 0)
    if not isinstance(x, GlobalTensor) or x.dim() != 1:
        return fn(*args, **kwargs)
    offset = op.arg("diagonal", 1, 0)
    eye = ops_random.eye(x._shape[0], dtype=x.dtype, placement=x.placement, sbp=[broadcast] * len(x.sbp))
    out = x.unsqueeze(-1) * eye
    k = abs(int(offset))
    if k:
        out = F.pad(out, (k, 0, 0, k) if offset > 0 else (0, k, k, 0))
    return out


def _vector_norm(name, fn, args, kwargs):
    """linalg.vector_norm as global reductions of |x| (the local op reads one
    rank's piece): max/min for +-inf, the count of non-zeros for 0, else
    (sum |x|^ord)^(1/ord)."""
    import math

    op = Op(name, args, kwargs, [])
    x = op.arg("x", 0)
    order, dim, keepdim = op.arg("ord", 1, 2), op.arg("dim", 2), bool(op.arg("keepdim", 3, False))
    dtype = kwargs.get("dtype")
    if not isinstance(x, GlobalTensor) or x.dtype.is_complex or not x.is_floating_point():
        return fn(*args, **kwargs)  # the local op's checks (and errors) apply
    if dtype is not None:
        x = x.to(dtype)
    dims = tuple(range(x.dim())) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    kw = {"dim": dims, "keepdim": keepdim}
    a = x.abs()
    order = float(order)
    if order == math.inf:
        return a.amax(**kw)
    if order == -math.inf:
        return a.amin(**kw)
    if order == 0:
        # the count, with the local op's (zero) gradient: a * 0 keeps the graph
        return (a * 0 + (a != 0).to(a.dtype)).sum(**kw)
    if order == 1:
        return a.sum(**kw)
    if order == 2:
        return (a * a).sum(**kw).sqrt()
    return (a ** order).sum(**kw) ** (1.0 / order)


COMPOSITES = {"mean": _mean, "cross_entropy": _classification_mean, "nll_loss": _classification_mean,
              "diag": _diag, "vector_norm": _vector_norm}
