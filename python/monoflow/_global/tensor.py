"""GlobalTensor: a tensor that spans the ranks of a placement.

Each rank holds its shard as an ordinary local tensor (this object's C++
tensor), marked so that only the global layer computes on it (Note [Global
shards]). The logical shape, placement and nd-SBP live on the Python object.
Ops reach GlobalTensor through its methods and through the free functions
that have SBP rules (dispatch.py); anything else is refused by the core.
"""
import hashlib
import weakref

import numpy as np

from monoflow import _C, _creation, _dtypes
from monoflow._global import boxing, groups, layout
from monoflow._global.access import shard_access
from monoflow._global.placement import placement as Placement
from monoflow._global.sbp import as_nd_sbp, broadcast, check_dims, dual
from monoflow._tensor import Size, Tensor


class GlobalTensor(Tensor):
    __module__ = "monoflow"

    # new_zeros & co.: OneFlow's global tensor lends its placement and SBP
    # (local tensors: the device) to the result unless placement=/device= say otherwise
    def _new(self, name, size, kwargs):
        from monoflow._global.sbp import broadcast

        if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
            size = tuple(size[0])
        if "size" in kwargs:
            size = kwargs.pop("size")
            size = (size,) if isinstance(size, int) else tuple(size)
        placement, sbp = kwargs.pop("placement", None), kwargs.pop("sbp", None)
        if kwargs.get("device") is not None:
            return getattr(Tensor, name)(self, *size, **kwargs)
        kwargs.pop("device", None)
        kwargs.pop("pin_memory", None)
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = self.dtype
        if sbp is None:
            # self's SBP where it lays out the new shape; partial sums would
            # add the value up over the ranks, and a split past the last dim
            # cannot be: broadcast there
            sbp = [broadcast if s.is_partial_sum() or (s.is_split() and s.dim >= len(size)) else s
                   for s in self.sbp]
        fill = kwargs.pop("fill_value", None)
        maker = {"new_zeros": _creation.zeros, "new_ones": _creation.ones, "new_empty": _creation.empty}.get(name)
        if maker is None:
            return _creation.full(size, fill, placement=placement or self.placement, sbp=sbp, **kwargs)
        return maker(*size, placement=placement or self.placement, sbp=sbp, **kwargs)

    def new_zeros(self, *size, **kwargs):
        return self._new("new_zeros", size, kwargs)

    def new_ones(self, *size, **kwargs):
        return self._new("new_ones", size, kwargs)

    def new_empty(self, *size, **kwargs):
        return self._new("new_empty", size, kwargs)

    def new_full(self, size, fill_value, **kwargs):
        return self._new("new_full", (size,), dict(kwargs, fill_value=fill_value))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """`np.float32(2) - x`, `np.exp(x)`: NumPy hands its ufunc here. NumPy
        scalars are numbers to the op (a number may come first: flow.sub(2, x));
        the op runs as the global op of the same name. An array operand is a
        local value, which a global tensor does not mix with."""
        import numpy as np

        from monoflow._numpy_ufuncs import twin

        fn = twin(ufunc.__name__)
        if method != "__call__" or kwargs or fn is None:
            raise TypeError(f"numpy.{ufunc.__name__}{'' if method == '__call__' else '.' + method}: not supported on "
                            "global tensors; use .to_local() (this rank's shard) or .numpy() (the whole value)")
        args = [v.item() if isinstance(v, np.generic) else v for v in inputs]
        if any(isinstance(v, np.ndarray) for v in args):
            raise RuntimeError(f"numpy.{ufunc.__name__}: got a global tensor and a numpy array; make the array a "
                               "global tensor with flow.tensor(array).to_global(placement, sbp)")
        return fn(*args)

    # -- metadata
    @property
    def is_global(self):
        return True

    @property
    def is_local(self):
        return False

    @property
    def placement(self):
        return self._placement

    @property
    def sbp(self):
        return self._nd_sbp

    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        return self._shape[_wrap_dim(dim, len(self._shape))] if self._shape else 1

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._shape)

    def numel(self):
        return int(np.prod(self._shape, dtype=np.int64))

    nelement = numel

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    # -- conversions
    def to_local(self):
        """This rank's shard, as a local tensor sharing its memory (differentiable)."""
        return local_view(self)

    def to_global(self, placement=None, sbp=None, **kwargs):
        placement = self._placement if placement is None else placement
        sbp = self._nd_sbp if sbp is None else sbp
        return global_to_global(self, placement, sbp, **kwargs)

    def numpy(self, *, force=False):
        # The logical value, also of a tensor that requires grad (OneFlow's rule, as for local tensors).
        return self._logical_local().detach().numpy()

    def tolist(self):
        return self._logical_local().tolist()

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self._logical_local().item()

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def _logical_local(self):
        """The whole logical value on this rank, as a local tensor."""
        if self._placement.coords(groups.rank()) is None:
            raise RuntimeError(f"rank {groups.rank()} is not in {self._placement!r}, so it holds no part of this "
                               "tensor's value; move it with .to_global(placement=...) to read it here")
        b = global_to_global(self, self._placement, (broadcast,) * len(self._nd_sbp), check_meta=False)
        return Tensor.detach(b)

    def __repr__(self):
        from monoflow._tensor_str import tensor_repr

        if self._placement.coords(groups.rank()) is None:  # (no value here: its description, not an error)
            return (f"tensor(<held by ranks {self._placement.rank_list()}>, size={tuple(self._shape)}, "
                    f"dtype={self.dtype}, placement={self._placement!r}, sbp={self._nd_sbp!r})")
        body = tensor_repr(self._logical_local())
        head, _, tail = body.rpartition(")")
        return f"{head}, placement={self._placement!r}, sbp={self._nd_sbp!r}){tail}"

    # -- autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if not self.requires_grad and self._placement.coords(groups.rank()) is None:
            return  # a rank outside the placement with no move in this tensor's history: nothing to do
        if gradient is None:
            if self.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            seed_nd = tuple(dual(s) for s in self._nd_sbp)
            coords = self._placement.coords(groups.rank())
            local = Tensor.detach(self)
            if coords is not None and layout.holds_value(seed_nd, coords):
                seed = local.new_ones(local.shape)
            else:  # zeros, or the empty shard of a rank outside the placement
                seed = local.new_zeros(local.shape)
        else:
            gradient = _as_global(gradient, "backward")
            seed = Tensor.detach(global_to_global(gradient, self._placement, tuple(dual(s) for s in self._nd_sbp)))
        with shard_access():
            _C.backward([self], [seed], create_graph if retain_graph is None else retain_graph, create_graph,
                        list(inputs or []))

    @property
    def grad(self):
        g = Tensor.grad.__get__(self)
        if g is None or isinstance(g, GlobalTensor):
            return g
        # a leaf's gradient is converted to its own SBP on arrival (install_grad_hook); a
        # retained one (retain_grad) stays as it arrived, laid out as the dual of the tensor's
        # SBP: a broadcast tensor's gradient is partial sums, a partial-sum tensor's is
        # broadcast (labelling it with the tensor's own SBP misreads the value)
        nd = self._nd_sbp if self.is_leaf else tuple(dual(s) for s in self._nd_sbp)
        return wrap(g, self._placement, nd, self._shape)

    @grad.setter
    def grad(self, value):
        if value is not None:
            value = _as_global(value, "grad")
            if value._placement != self._placement or value._nd_sbp != self._nd_sbp:
                value = value.to_global(self._placement, self._nd_sbp)
        Tensor.grad.__set__(self, value)

    @grad.deleter
    def grad(self):
        Tensor.grad.__set__(self, None)

    def requires_grad_(self, requires_grad=True):
        Tensor.requires_grad_(self, requires_grad)
        if requires_grad:
            install_grad_hook(self)
        return self

    def detach(self):
        return wrap(Tensor.detach(self), self._placement, self._nd_sbp, self._shape)

    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, value):
        value = _as_global(value, "data")
        Tensor.data.__set__(self, value)  # the shard's memory; autograd state stays
        self._placement, self._nd_sbp, self._shape = value._placement, value._nd_sbp, value._shape

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with shard_access():
            local = _C._alias(Tensor, self).detach().clone()
        out = wrap(local, self._placement, self._nd_sbp, self._shape)
        if self.requires_grad:
            out.requires_grad_(True)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol):
        raise TypeError("a global tensor cannot be pickled; save it with monoflow.save")


def _wrap_dim(dim, n):
    m = max(n, 1)
    if not -m <= dim < m:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-m}, {m - 1}], but got {dim})")
    return dim + m if dim < 0 else dim


def local_view(x):
    """An unmarked, differentiable view of global `x`'s shard."""
    with shard_access():
        plain = _C._alias(Tensor, x)
        return plain.view(plain.shape)


def wrap(local, placement, nd_sbp, shape, cls=GlobalTensor):
    """A GlobalTensor (or `cls`) whose shard is `local` (taken over, not copied)."""
    if placement.type == "meta" and local.device.type != "meta":  # a meta placement's shards hold no data
        local = local.to("meta")
    g = _C._alias(cls, local)
    _C._mark_global_shard(g, True)
    g._placement, g._nd_sbp, g._shape = placement, tuple(nd_sbp), tuple(int(d) for d in shape)
    return g


def outside(placement, nd, shape, dtype, inputs=()):
    """What a rank outside `placement` holds of an op's result there: an empty
    shard, connected to the inputs' history so that a backward still reaches
    the moves that brought them (move.py), where this rank takes part."""
    local = _creation.empty((0,), dtype=dtype)
    sources = [local_view(t) for t in inputs if t.requires_grad]
    if sources and _C.is_grad_enabled():
        local = _C.record_function("OutsidePlacementBackward", sources, [local],
                                   lambda grads: [_creation.zeros_like(s) for s in sources])[0]
    return wrap(local, placement, nd, shape)


def relayout_in_place(t, nd_sbp):
    """Lays global leaf `t` out as `nd_sbp` in place: its shard becomes that
    layout's, its identity stays, so the module and optimizer that hold it
    keep it (ZeRO stage 3, nn/graph/zero.py). Its gradient is dropped."""
    from monoflow.autograd.grad_mode import no_grad

    with no_grad():
        value = t.detach().to_global(t._placement, nd_sbp)
        with shard_access():
            Tensor.data.__set__(t, _C._alias(Tensor, value))
    t._nd_sbp = tuple(value.sbp)
    Tensor.grad.__set__(t, None)


def install_grad_hook(t):
    """Gradients reach a global leaf laid out as the dual of its SBP (a
    broadcast weight gets partial sums from each rank); convert them to the
    leaf's own SBP before they accumulate, as data parallelism's all-reduce."""
    if t.__dict__.get("_grad_hooked") or not t.is_leaf:
        return
    t._grad_hooked = True
    if all(s.is_split() for s in t._nd_sbp):  # its gradient arrives split: no hook on the backward path
        return
    leaf = weakref.ref(t)  # (the hook lives on t: no cycle)

    def to_own_sbp(g):
        # the layout at backward time: ZeRO stage 3 relays a parameter out in place (nn/graph/zero.py)
        t = leaf()
        nd = t._nd_sbp
        if all(s.is_split() for s in nd):  # a split leaf's gradient arrives split: nothing to do
            return g
        with shard_access():
            return boxing.convert(g, t._shape, t._placement, tuple(dual(s) for s in nd), nd)

    Tensor.register_hook(t, to_own_sbp)


def _as_global(t, what):
    if not isinstance(t, GlobalTensor):
        raise RuntimeError(f"{what}: expected a global tensor, got a local one; mixing local and global tensors is "
                           "not allowed (convert with .to_global(placement, sbp))")
    return t


# ---------------------------------------------------------------- to_global

def _check_placement(p, what):
    if not isinstance(p, Placement):
        raise TypeError(f"{what}: placement must be a monoflow.placement, got {type(p).__name__}")
    world = groups.world_size()
    bad = [r for r in p.rank_list() if r >= world]
    if bad:
        from monoflow._C import ValueRuntimeError  # ValueError as before, RuntimeError as OneFlow (its wording)
        raise ValueRuntimeError(f"{what}: placement {p!r} names rank(s) {bad} that do not exist (world size {world}): "
                                f"Placement is invalid because rank must be less than world size!")


def _digest(*parts):
    return int.from_bytes(hashlib.sha1(repr(parts).encode()).digest()[:7], "little")


def agree(what, local_shape, *meta):
    """Checks that every rank passed the same `meta` (placement, SBP, dtype...)
    and returns every rank's local shape. Runs on the whole world so that ranks
    that disagree about the placement still meet: each raises the same error."""
    world = groups.world_group()
    if world is None:
        return [tuple(local_shape)]
    import monoflow.distributed as dist

    # (the width of _agree_local's row: two ranks that reach different checks then meet in one
    # all-gather of equal sizes and report the difference, where unequal sizes abort in Gloo)
    width = 3 + 16
    row = [_digest(*meta), len(local_shape)] + list(local_shape) + [-1] * (17 - len(local_shape))
    mine = _creation.tensor(row, dtype=_dtypes.int64)
    everyone = _creation.empty(world.size() * width, dtype=_dtypes.int64)
    dist.all_gather_into_tensor(everyone, mine, group=world)
    rows = everyone.reshape(world.size(), width).tolist()
    differ = [r for r, x in enumerate(rows) if x[0] != rows[0][0]]
    if differ:
        raise RuntimeError(f"{what}: ranks passed different placements, SBPs or dtypes (rank(s) {differ} differ "
                           f"from rank 0); every rank must make the same global tensor call. This rank passed "
                           + ", ".join(repr(m) for m in meta))
    return [tuple(x[2:2 + x[1]]) for x in rows]


_DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                "complex64", "complex128")


def _agree_local(what, local, placement, nd):
    """agree() for local_to_global: placement and SBP the same on every rank,
    the dtype the same on the placement's ranks; a rank outside the placement
    passes any tensor (OneFlow), and takes the dtype of the placement's ranks.
    Returns (every rank's local shape, the dtype)."""
    world = groups.world_group()
    if world is None:
        return [tuple(local.shape)], local.dtype
    import monoflow.distributed as dist

    name = local.dtype.name
    code = _DTYPE_NAMES.index(name) if name in _DTYPE_NAMES else 1000 + _digest(name) % 10 ** 6
    shape = tuple(local.shape)
    width = 3 + 16
    row = [_digest(placement, nd), code, len(shape)] + list(shape) + [-1] * (16 - len(shape))
    everyone = _creation.empty(world.size() * width, dtype=_dtypes.int64)
    dist.all_gather_into_tensor(everyone, _creation.tensor(row, dtype=_dtypes.int64), group=world)
    rows = everyone.reshape(world.size(), width).tolist()
    differ = [r for r, x in enumerate(rows) if x[0] != rows[0][0]]
    if differ:
        raise RuntimeError(f"{what}: ranks passed different placements, SBPs or dtypes (rank(s) {differ} differ from "
                           f"rank 0); every rank must make the same global tensor call. This rank passed "
                           f"{placement!r}, {nd!r}")
    members = placement.rank_list()
    codes = {rows[r][1] for r in members}
    if len(codes) > 1:
        raise RuntimeError(f"{what}: ranks passed different placements, SBPs or dtypes (the ranks of {placement!r} "
                           f"passed local tensors of different dtypes; this rank's is {name})")
    first = rows[members[0]][1]
    dtype = local.dtype if first == code else _dtypes.ALIASES[_DTYPE_NAMES[first]]
    return [tuple(x[3:3 + x[2]]) for x in rows], dtype


def _broadcast_along_broadcast_axes(local, placement, nd):
    # OneFlow's rule: along each mesh axis laid out as broadcast, every rank
    # takes the value of the axis's first rank (written into `local`).
    from monoflow.autograd.grad_mode import no_grad
    from monoflow.distributed.collectives import broadcast as broadcast_

    coords = placement.coords(groups.rank())
    with no_grad():
        for axis, s in enumerate(nd):
            if not s.is_broadcast() or placement.hierarchy[axis] == 1:
                continue
            ranks = groups.axis_ranks(placement, coords, axis)
            dense = local if local.is_contiguous() else local.contiguous()
            broadcast_(dense, src=ranks[0], group=groups.group(ranks))
            if dense is not local:
                local.copy_(dense)


def local_to_global(local, placement, sbp, what="to_global", copy=False):
    """The global tensor whose shard on this rank is `local` (the same memory
    unless `copy`). Along broadcast axes the first rank's value is sent to
    the others, as OneFlow does: their `local` is overwritten (keep it with
    copy=True)."""
    _check_placement(placement, what)
    nd = as_nd_sbp(sbp, len(placement.hierarchy), what)
    inside = placement.coords(groups.rank()) is not None
    if inside:
        check_dims(nd, local.dim(), what)
    # (a rank outside the placement passes anything: its tensor's shape and dtype are not read)
    shapes, dtype = _agree_local(what, local, placement, nd)
    h = placement.hierarchy
    logical = list(shapes[placement.rank_list()[0]])
    if not inside:
        check_dims(nd, len(logical), what)
    # the logical size of a split dimension: the sum along each split axis of
    # the pieces, read from the ranks whose other coordinates are zero
    coords_of = {r: placement.coords(r) for r in placement.rank_list()}
    for d in range(len(logical)):
        axes = [a for a, s in enumerate(nd) if s.is_split() and s.dim == d]
        if not axes:
            continue
        total = 0
        for r, c in coords_of.items():
            if all(c[a] == 0 for a in range(len(h)) if a not in axes):
                total += shapes[r][d]
        logical[d] = total
    for r, c in coords_of.items():
        expect = layout.local_shape(logical, nd, h, c)
        if tuple(shapes[r]) != expect:
            raise ValueError(f"{what}: rank {r}'s local tensor has shape {list(shapes[r])}, but "
                             f"{_nd_str(nd)} of the logical shape {logical} over {placement!r} gives it {list(expect)} "
                             "(splits are balanced: the first ranks hold one more element when a size does not divide)")
    if not inside:  # this rank holds no part of it: an empty shard
        return wrap(local.new_zeros((0,), dtype=dtype), placement, nd, logical)
    if copy:
        local = local.clone()
    _broadcast_along_broadcast_axes(local, placement, nd)
    alias = local.view(local.shape)  # differentiable, and leaves the caller's tensor local
    if local.requires_grad and any(s.is_broadcast() for s in nd) and _C.is_grad_enabled():
        # the gradient reaches the shard as partial sums along broadcast axes (the dual
        # layout); the local tensor gets the whole gradient, as OneFlow gives it (each rank's
        # copy of a broadcast value is the value: data parallelism's all-reduce)
        shape = tuple(logical)

        def backward(grads):
            with shard_access():
                return [boxing.convert(grads[0], shape, placement, tuple(dual(s) for s in nd), nd)]

        alias = _C.record_function("LocalToGlobalBackward", [local], [alias.detach()], backward)[0]
    return wrap(alias, placement, nd, logical)


def _nd_str(nd):
    return "(" + ", ".join(s.short() for s in nd) + ")"


def global_to_global(x, placement, sbp, grad_sbp=None, check_meta=True, copy=False, what="to_global"):
    """`x` laid out as `sbp` on `placement`: boxing on the same placement, a
    move (move.py) to another one."""
    _check_placement(placement, what)
    nd = as_nd_sbp(sbp, len(placement.hierarchy), what)
    check_dims(nd, len(x._shape), what)
    if grad_sbp is not None:
        # OneFlow's hint for the layout the result's gradient is converted to on the way back: a
        # gradient's value does not depend on its layout, and the backward of this conversion
        # lays it out as the dual of x's SBP whatever the hint, so it is checked and not needed
        check_dims(as_nd_sbp(grad_sbp, len(placement.hierarchy), f"{what} (grad_sbp)"), len(x._shape), what)
    if check_meta and not _C._graph_tracing():
        # (in a graph trace the values of the check's all-gather cannot be read: the graph's eager
        # first step made the same call with the same metadata and checked it)
        agree(what, (), x._placement, x._nd_sbp, placement, nd, x.dtype.name)
    if placement == x._placement:
        if nd == x._nd_sbp and not copy:
            return x
        if placement.coords(groups.rank()) is None:
            return outside(placement, nd, x._shape, x.dtype, [x])
        with shard_access():
            out = boxing.convert(local_view(x), x._shape, placement, x._nd_sbp, nd)
            if nd == x._nd_sbp:  # copy=True with nothing to convert
                out = out.clone()
        return wrap(out, placement, nd, x._shape)
    from monoflow._global.move import move

    return move(x, placement, nd)
