"""ZeRO in nn.Graph (graph.config.enable_zero, OneFlow's API): stage 1, the
optimizer state of data-parallel parameters split across the data-parallel
ranks, and stage 3, the parameters too.

Note [ZeRO stage 1 in a graph]
    Under data parallelism every rank holds the whole parameter (SBP
    broadcast on a placement of N ranks), gets the whole all-reduced
    gradient (the grad hook's P -> B, Note [Updating global parameters shard
    by shard] in optim/optimizer.py) and, without ZeRO, keeps the whole
    optimizer state and computes the same update as every other rank. With
    ZeRO the state of such a parameter is a global tensor split S(0): each
    rank keeps 1/N of it. In the update each rank takes its rows of the
    parameter and of the gradient (views: B -> S(0) is a local slice),
    updates them with its rows of the state by the optimizer's own rule,
    and an all-gather (S(0) -> B) writes the updated rows of every rank back
    into the parameter's memory, so the parameter stays broadcast and eager
    code keeps seeing it whole.

    The built-in updates are elementwise, so a row of the update is the
    update of the row: a ZeRO run matches the run without ZeRO bit for bit
    (the same all-reduce of the gradients runs in both; clipping reads the
    whole gradients before the update in both). What it costs: the
    all-gather, (N-1)/N of the parameter's bytes received per rank per step,
    on top of the all-reduce (stage 2 would reduce-scatter the gradient
    instead: stage 3 does, Note [ZeRO stage 3 in a graph]).

    A parameter is sharded when it is broadcast on a 1-D placement of at
    least 2 ranks that holds this rank, its dim 0 has at least N rows and
    each shard holds at least shard_min_size elements. Others (small ones,
    split or partial-sum parameters of tensor parallelism, 2-D placements,
    and all of plain SGD's, which has no state to shard) keep the usual path.

Note [ZeRO stage 3 in a graph]
    Stage 3 shards the parameters themselves, through SBP: before the
    graph's call each parameter that stage 1 would shard (the same rule,
    plain SGD's included) is laid out S(0) in place (``p.data``: the same
    Parameter object, so the module, the optimizer and eager code keep
    it), and its state follows as in stage 1. In the traced step an op
    that consumes a split parameter boxes it like any global operand: a
    Linear's all-gather (S(0) -> B) brings the whole weight, which is then
    a Transient buffer of the plan, freed after its last use (memory
    planning), and the all-gather's backward is a reduce-scatter, so each
    gradient arrives S(0): 1/N of it per rank. The update is the ordinary
    shard-by-shard one of S(0) tensors (Note [Updating global parameters
    shard by shard]). At rest each rank keeps 1/N of every sharded
    parameter, its gradient during the step and its state; eager code sees
    S(0) global tensors with the same logical values (``to_global(P, B)``
    gathers them). Turning ZeRO off lays them out broadcast again. Stage 2
    (OneFlow's default) runs stage 1's plan: a graph's gradients live only
    inside its step (set to None at its end, their memory planned), so
    sharding them would save no memory at rest over stage 1; what it would
    change, reduce-scattering the gradients instead of all-reducing them
    (half the gradient traffic), stage 3 does. ``shard_restore_level`` 0 (OneFlow's "no restore": the
    sharded parameter is not gathered back after the update) gives stages 1 and 2 this layout too;
    levels 1 and 2 (soft, hard restore) both gather the whole parameter after each update in stages 1
    and 2, and change nothing in stage 3, where the SBP deduction decides per consuming op where the
    parameter is gathered.

Note [ZeRO state layout]
    The state stays global (its logical value is what state_dict() gives and
    what checkpoints hold), only its SBP changes: S(0) under ZeRO, the
    parameter's own otherwise. Loading a checkpoint lays state out as the
    parameter (Optimizer.load_state_dict), and a ZeRO graph may share its
    optimizer with a graph without ZeRO; so before each call the graph asks
    relayout() to put every state tensor in the layout this graph's update
    expects, which is free when it already is. A changed layout means new
    state tensors, which compiled plans do not know: the graph then drops
    them and compiles again.

    The eager warm-up step (which creates the state, graph.py's _eager_step)
    runs the optimizer's own step() on stand-ins: for each sharded parameter
    a local view of this rank's rows with its rows of the gradient, so the
    state the step creates is the shard from the start (never the whole
    state), with eager's exact first-step rules; the shards are then stored
    as S(0) global tensors under the real parameter.
"""
from monoflow import _C
from monoflow.autograd import no_grad
from monoflow.nn import _global_layout as _gl
from monoflow.optim import SGD

__all__ = ["ZeroSettings", "ZeroSharding", "state_bytes"]


class ZeroSettings:
    """What graph.config.enable_zero(...) set, checked (stage 2 runs stage 1's plan: Note [ZeRO stage 3 in
    a graph])."""

    def __init__(self, mode=True, stage=2, shard_min_size=1024, shard_restore_level=1):
        what = "nn.Graph: config.enable_zero"
        for name, v in (("stage", stage), ("shard_min_size", shard_min_size),
                        ("shard_restore_level", shard_restore_level)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{what}: {name} must be an int, got {type(v).__name__}")
        if not isinstance(mode, bool):
            raise TypeError(f"{what}: mode must be a bool, got {type(mode).__name__}")
        if stage not in (1, 2, 3):
            raise ValueError(f"{what}: stage must be 1, 2 or 3, got {stage}")
        if shard_min_size < 1:
            raise ValueError(f"{what}: shard_min_size must be at least 1, got {shard_min_size}")
        if shard_restore_level not in (0, 1, 2):
            raise ValueError(f"{what}: shard_restore_level must be 0, 1 or 2, got {shard_restore_level}")
        self.mode, self.stage = mode, stage
        self.shard_min_size, self.shard_restore_level = shard_min_size, shard_restore_level

    @property
    def params_split(self):
        """Whether the parameters themselves stay split S(0) at rest: stage 3, or any stage with
        shard_restore_level 0 (OneFlow's "no restore": the sharded parameter is not gathered back)."""
        return self.stage == 3 or self.shard_restore_level == 0

    def key(self):
        return ("zero", self.stage, self.shard_min_size, self.params_split)

    def __repr__(self):
        return (f"ZeRO(stage={self.stage}, shard_min_size={self.shard_min_size}, "
                f"shard_restore_level={self.shard_restore_level})")


def _split0():
    from monoflow._global.sbp import split

    return split(0)


def _rows(p, shard_min_size, split_too=False):
    """(start, length) of this rank's rows of `p` under S(0) when `p` is
    sharded (Note [ZeRO stage 1 in a graph]), else None. `split_too`: a
    parameter already split S(0) (by stage 3) counts too."""
    from monoflow._global import groups, layout

    if not _gl.is_global(p) or not p.requires_grad or len(p.sbp) != 1:
        return None
    if not (p.sbp[0].is_broadcast() or (split_too and p.sbp[0] == _split0())):
        return None
    n = p.placement.hierarchy[0]
    coords = p.placement.coords(groups.rank())
    if n < 2 or coords is None or p.dim() == 0 or p.shape[0] < n or p.numel() // n < shard_min_size:
        return None
    lo, hi = layout.shard_box(tuple(p.shape), (_split0(),), p.placement.hierarchy, coords)[0]
    return lo, hi - lo


def _relayout_parameter(p, split):
    """Lays parameter `p` out S(0) (split) or back as it was before (its
    identity, and so the optimizer's and the module's references, stay);
    True when it changed."""
    was = p.__dict__.get("_zero_layout")  # the layout before stage 3 split it
    if split == (was is not None):
        return False
    if split:
        p.__dict__["_zero_layout"], nd = tuple(p.sbp), (_split0(),)
    else:
        nd = p.__dict__.pop("_zero_layout")
    if tuple(p.sbp) == nd:  # made S(0) by its owner: nothing to move
        return False
    from monoflow._global.tensor import relayout_in_place

    relayout_in_place(p, nd)
    return True


def _like_param(v, p):
    """Whether state value `v` is laid out element for element like `p` (a
    moment, a momentum buffer), as opposed to a step count or a scalar."""
    return isinstance(v, _C.TensorBase) and _gl.is_global(v) and tuple(v.shape) == tuple(p.shape)


def _to_layout(v, p, sharded):
    """State tensor `v` of `p` laid out S(0) (sharded) or as `p`, in memory of
    its own (a slice of a broadcast value is copied out, so the whole one is freed)."""
    from monoflow._global.access import shard_access
    from monoflow._global.tensor import wrap

    nd = (_split0(),) if sharded else tuple(p.sbp)
    if tuple(v.sbp) == nd and v.placement == p.placement:
        return v
    with no_grad():
        laid = v.detach().to_global(p.placement, nd)
        with shard_access():
            local = _gl.shard(laid).clone()
    return wrap(local, p.placement, nd, tuple(p.shape))


class _RowState:
    """A sharded parameter's state as its update rule sees it: reading gives
    this rank's rows (the S(0) shard), storing a local tensor of those rows
    stores it as an S(0) global tensor."""

    __slots__ = ("_state", "_param", "_n")

    def __init__(self, state, param, n):
        self._state, self._param, self._n = state, param, n

    def __getitem__(self, key):
        v = self._state[key]
        return _gl.shard(v) if _gl.is_global(v) else v

    def __setitem__(self, key, value):
        self._state[key] = _as_row_state(value, self._param, self._n)


def _as_row_state(value, p, n):
    """`value` stored as an S(0) global tensor when it is a local tensor of
    `p`'s `n` rows (a state tensor made from the rows); as it is otherwise."""
    from monoflow._global.tensor import wrap

    if isinstance(value, _C.TensorBase) and not _gl.is_global(value) \
            and tuple(value.shape) == (n,) + tuple(p.shape[1:]):
        return wrap(value, p.placement, (_split0(),), tuple(p.shape))
    return value


def state_bytes(opt):
    """This rank's bytes of `opt`'s state tensors (the shards of global ones)."""
    total = 0
    for st in opt.state.values():
        for v in st.values():
            if isinstance(v, _C.TensorBase):
                t = _gl.shard(v) if _gl.is_global(v) else v
                total += t.numel() * t.element_size()
    return total


class ZeroSharding:
    """ZeRO for one optimizer of a graph: stage 1 (Note [ZeRO stage 1 in a
    graph]) or stage 3 (Note [ZeRO stage 3 in a graph])."""

    def __init__(self, opt, settings):
        self.opt, self.settings = opt, settings
        self.rows = {}  # id(param) -> (start, length) of this rank's rows, for the sharded parameters
        self.params_split = settings.params_split
        for group in opt.param_groups:
            # plain SGD keeps no state: sharding it would only add the all-gather (stage 1)
            stateless = isinstance(opt, SGD) and group["momentum"] == 0 and not self.params_split
            for p in group["params"]:
                r = None if stateless else _rows(p, settings.shard_min_size, split_too=self.params_split)
                if r is not None:
                    self.rows[id(p)] = r

    def shards(self, p):
        """Whether `p` takes the row update (stage 1); under stage 3 a sharded
        parameter is an S(0) global tensor, updated shard by shard as any."""
        return not self.params_split and id(p) in self.rows

    def _param_rows(self, p):
        start, n = self.rows[id(p)]
        return _gl.shard(p).narrow(0, start, n)

    def _grad_rows(self, p):
        g = p.grad
        if g.placement != p.placement or g.sbp != p.sbp:
            g = g.to_global(p.placement, p.sbp)
        start, n = self.rows[id(p)]
        return _gl.shard(g).narrow(0, start, n)

    def _gather(self, p):
        """The all-gather (S(0) -> B) of the updated rows straight into the
        parameter's memory: every rank's rows are a contiguous view of it. The
        rank's own rows are sent from a copy (an engine's input must not
        overlap its outputs)."""
        import monoflow.distributed as dist
        from monoflow._global import groups, layout

        whole = _gl.shard(p)
        placement, n = p.placement, p.placement.hierarchy[0]
        parts = []
        for c in range(n):
            lo, hi = layout.shard_box(tuple(p.shape), (_split0(),), placement.hierarchy, (c,))[0]
            parts.append(whole.narrow(0, lo, hi - lo))
        dist.all_gather(parts, self._param_rows(p).clone(), group=groups.group(placement.rank_list()))

    # -- before each call
    def relayout(self, on):
        """Puts the state of every parameter in the layout the update expects
        (Note [ZeRO state layout]): S(0) for the sharded ones when `on`, the
        parameter's otherwise. True when some state tensor was replaced."""
        changed = False
        for group in self.opt.param_groups:
            for p in group["params"]:
                if self.params_split and id(p) in self.rows:  # Note [ZeRO stage 3 in a graph]
                    changed |= _relayout_parameter(p, on)
                elif "_zero_layout" in p.__dict__:  # split by an earlier stage-3 setting
                    changed |= _relayout_parameter(p, False)
                st = self.opt.state.get(p)
                if not st:
                    continue
                sharded = on and id(p) in self.rows
                for k, v in list(st.items()):
                    if _like_param(v, p):
                        new = _to_layout(v, p, sharded)
                        if new is not v:
                            st[k] = new
                            changed = True
        return changed

    # -- inside the trace
    def update(self, rule, group, p, h):
        """One sharded parameter's update with `rule` (optimizer_step.py's
        _UPDATES), then the all-gather. Inside no_grad and shard access."""
        state = _RowState(self.opt.state[p], p, self.rows[id(p)][1])
        rule(group, self._param_rows(p), self._grad_rows(p), state, h)
        self._gather(p)

    # -- the eager warm-up step
    def eager_step(self):
        """opt.step() with each sharded parameter replaced by the local view of
        its rows (grad: its gradient's rows), so that the state it creates is
        the S(0) shard; then the all-gathers. Note [ZeRO state layout]."""
        from monoflow._global.access import shard_access

        opt = self.opt
        if self.params_split:  # the parameters are S(0) already: the step makes S(0) state
            opt.step()
            return
        saved = [g["params"] for g in opt.param_groups]
        stand_ins = []  # (param, stand-in)
        with no_grad(), shard_access():
            try:
                for group in opt.param_groups:
                    params = []
                    for p in group["params"]:
                        if id(p) in self.rows and p.grad is not None:
                            rows = self._param_rows(p).detach()
                            rows.grad = self._grad_rows(p).detach()
                            st = opt.state.pop(p, None)
                            if st:
                                opt.state[rows] = {k: _gl.shard(v) if _gl.is_global(v) else v
                                                   for k, v in st.items()}
                            stand_ins.append((p, rows))
                            p = rows
                        params.append(p)
                    group["params"] = params
                opt.step()
            finally:
                for group, params in zip(opt.param_groups, saved):
                    group["params"] = params
                for p, rows in stand_ins:
                    st = opt.state.pop(rows, None)
                    if st is not None:
                        opt.state[p] = {k: _as_row_state(v, p, rows.shape[0]) for k, v in st.items()}
                    rows.grad = None
        with no_grad(), shard_access():
            for p, _ in stand_ins:
                self._gather(p)
