"""Optimizer: the base class of every optimizer (torch.optim.Optimizer's API).

An optimizer holds ``param_groups`` (dicts: "params" plus the options of that
group) and ``state`` (per-parameter dicts, keyed by the parameter tensor).
Subclasses implement ``step``; their updates run under ``no_grad`` with
in-place ops on the parameters, so the autograd graph never sees them.

Note [Parameters are keyed by identity]
    Tensor ``==`` is elementwise, so a parameter must never be looked up with
    ``in``/``index`` on a list. Dicts and sets are safe (hash = identity, and
    dicts compare by identity before ``==``); everything here that asks "is
    this the same parameter" uses ``id()``.

Note [Updating global parameters shard by shard]
    A global parameter's gradient arrives in the parameter's own layout (the
    grad hook converts the dual SBP back), and its state tensors are made
    from its shard, so parameter, gradient and state share one placement and
    SBP. Every built-in update is elementwise, and an elementwise function of
    tensors laid out alike is, on each rank, that function of their shards
    (for split and broadcast; for partial sums only if it is linear). So the
    optimizers update the shards in place under shard_access(), with the same
    fused kernels as for local tensors: no dispatch, no boxing, no extra
    temporaries, and the very same rounding as a single process, which is
    what lets a global run match it. The state stays global (a state_dict of
    a global model is global), laid out as its parameter.

Note [Step counts are Python numbers]
    torch keeps ``state["step"]`` as a 0-d tensor; reading it back for the
    bias corrections is an ``.item()``, which would wait for the device's
    queue on every step. Here it is a Python int (``load_state_dict`` accepts
    either), so a step never synchronises.
"""
from collections import OrderedDict, defaultdict
from collections.abc import MutableMapping
import contextlib
from copy import deepcopy
import functools
from itertools import chain

from monoflow import _C
from monoflow._complex import view_as_real as _view_as_real
from monoflow.autograd import enable_grad
from monoflow.nn import _global_layout as _gl

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks an option with no default (``SGD(params)`` without ``lr``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class _RemovableHandle:
    """Returned by the ``register_*_hook`` methods; ``remove()`` unregisters."""

    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = _RemovableHandle._next_id
        _RemovableHandle._next_id += 1

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _wrap_step(step):
    """Runs the step hooks around ``step`` and records that it was called
    (the LR schedulers warn when they are stepped before the optimizer)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        self._opt_called = True
        if self._step_pre_hooks:
            for hook in list(self._step_pre_hooks.values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"optimizer step pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result!r}")
                    args, kwargs = result
        out = step(self, *args, **kwargs)
        if self._step_post_hooks:
            for hook in list(self._step_post_hooks.values()):
                hook(self, args, kwargs)
        return out

    wrapper._monoflow_hooked = True
    return wrapper


def _typename(obj):
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


class Optimizer:
    """Base class of all optimizers: holds parameter groups and per-parameter state.

    A subclass implements ``step()``; the base class provides ``zero_grad()``,
    ``add_param_group()``, ``state_dict()`` / ``load_state_dict()`` and the
    step hooks. An empty ``params`` is accepted, as in OneFlow (torch raises).

    Args:
        params (iterable): tensors, or dicts ``{"params": ..., option: value}`` whose
            options override ``defaults`` for that group. A single tensor raises
            ``TypeError``.
        defaults (dict): the default value of every option of the optimizer.

    Example::

        >>> w = nn.Parameter(flow.ones(2))
        >>> b = nn.Parameter(flow.zeros(1))
        >>> opt = flow.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
        >>> [g["lr"] for g in opt.param_groups]
        [0.1, 0.5]
        >>> sorted(opt.state_dict())
        ['param_groups', 'state']
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._step_pre_hooks = OrderedDict()
        self._step_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, _C.TensorBase):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_typename(params)}")
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        # An empty list is accepted, as OneFlow does (torch raises): a graph
        # or a model without trainable parameters still builds its optimizer.
        if groups and not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def _patch_step_function(self):
        cls = type(self)
        if not getattr(cls.step, "_monoflow_hooked", False):
            cls.step = _wrap_step(cls.step)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_step_post_hooks", OrderedDict())
        if not isinstance(self.state, defaultdict):
            self.state = defaultdict(dict, self.state)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    # -- groups
    def add_param_group(self, param_group):
        """Adds a group (a dict with "params" and optional options) to ``param_groups``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        group = dict(param_group)
        if "params" not in group:
            raise ValueError("param_group must have a 'params' entry")
        params = group["params"]
        if isinstance(params, _C.TensorBase):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        # (name, tensor) pairs, as named_parameters() gives them
        names = [p[0] for p in params if isinstance(p, tuple)]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            group["param_names"] = names
            params = [p[1] for p in params]
        group["params"] = params

        for p in params:
            if not isinstance(p, _C.TensorBase):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}")
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            group.setdefault(name, default)

        ids = [id(p) for p in params]
        if len(ids) != len(set(ids)):
            raise ValueError("optimizer contains a parameter group with duplicate parameters")
        seen = set()
        for other in self.param_groups:
            seen.update(id(p) for p in other["params"])
            if ("param_names" in group) != ("param_names" in other):
                kind = "with names" if "param_names" in group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    # -- gradients
    def zero_grad(self, set_to_none=True):
        """Resets the gradients of all parameters: to None (default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    _gl.zero_grad_(g)

    def step(self, closure=None):
        raise NotImplementedError

    # -- OneFlow's per-group keys: lr_scale, clip_grad_max_norm / clip_grad_norm_type
    def _group_lr(self, group):
        """The learning rate a group's update uses: its ``lr``, times OneFlow's
        ``lr_scale`` key only in steps an nn.Graph makes (_lr_scaled_steps), as
        in OneFlow, whose eager optimizers read ``lr`` alone (its documentation
        also uses the key for a user's own decay rule in eager code)."""
        return self._graph_group_lr(group) if self.__dict__.get("_lr_scaled") else group["lr"]

    @contextlib.contextmanager
    def _lr_scaled_steps(self):
        """Steps made inside this block are a graph's (its eager warm-up step, or
        its traced step()): they apply the groups' ``lr_scale``."""
        self.__dict__["_lr_scaled"] = True
        try:
            yield
        finally:
            self.__dict__["_lr_scaled"] = False

    @staticmethod
    def _graph_group_lr(group):
        """The learning rate of a group's update inside an nn.Graph: ``lr`` times the
        group's optional ``lr_scale`` (schedulers change ``lr`` only, so the scale
        stays a fixed ratio between groups)."""
        scale = group.get("lr_scale")
        return group["lr"] if scale is None else group["lr"] * scale

    def clip_grad(self):
        """Clips the gradients of each group that has ``clip_grad_max_norm``
        (OneFlow's key; norm order ``clip_grad_norm_type``, default 2) by the
        group's joint norm, as ``nn.utils.clip_grad_norm_`` (no host read).
        OneFlow's eager API: call it between backward and step. An nn.Graph
        with this optimizer calls it inside the graph before the update."""
        from monoflow.nn.utils.clip_grad import clip_grad_norm_

        for group in self.param_groups:
            max_norm = group.get("clip_grad_max_norm")
            if max_norm is not None:
                clip_grad_norm_(group["params"], max_norm, group.get("clip_grad_norm_type", 2.0))

    # -- global parameters (Note [Updating global parameters shard by shard])
    # Whether the update is linear in (param, grad, state), so that it is also
    # right on partial-sum shards (SGD); Adam's square roots are not.
    _linear_update = False

    def _shard_access(self):
        """Opens the core's guard on global shards for the update loop when
        there are global parameters (a no-op context otherwise)."""
        for group in self.param_groups:
            for p in group["params"]:
                if _gl.is_global(p):
                    from monoflow._global.access import shard_access

                    return shard_access()
        return contextlib.nullcontext()

    def _updates(self, group):
        """(param, gradient, state) of each of the group's parameters that has
        a gradient, as ``_shards`` gives them, the gradient negated under
        ``maximize=True``: the loop every update rule starts with. Call it
        inside ``_shard_access()``."""
        maximize = group.get("maximize", False)
        for p in group["params"]:
            if p.grad is None:
                continue
            p, g, state = self._shards(p)
            yield p, (-g if maximize else g), state

    def _shards(self, p, grad=True, state=True):
        """(param, grad, state) for the in-place update of `p`: the tensors
        themselves for a local parameter; for a global one, this rank's shards
        and a view of its state that stores new tensors as global ones laid
        out like `p` (None when not `state`: no entry is made). Call it
        inside ``_shard_access()``."""
        state = self.state[p] if state else None
        if not _gl.is_global(p):
            g = p.grad if grad else None
            if p.is_complex():  # torch's rule: a complex parameter is updated as its (..., 2) real view
                p, g = _view_as_real(p), _view_as_real(g) if g is not None else None
            return p, g, state
        if not self._linear_update and any(s.is_partial_sum() for s in p.sbp):
            raise RuntimeError(f"{type(self).__name__}.step: a parameter laid out as {p.sbp!r} holds partial sums, "
                               "and this update is not linear; convert the parameter to broadcast or split SBP")
        g = p.grad if grad else None
        if g is not None and (g.placement != p.placement or g.sbp != p.sbp):  # (a hook's or the user's doing)
            g = g.to_global(p.placement, p.sbp)
        return (_gl.shard(p), _gl.shard(g) if g is not None else None,
                _ShardState(state, p) if state is not None else None)

    @staticmethod
    def _eval_closure(closure):
        """Re-evaluates the model under grad mode (the step itself runs without)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # -- hooks
    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before each ``step``; it may return
        ``(new_args, new_kwargs)``."""
        handle = _RemovableHandle(self._step_pre_hooks)
        self._step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after each ``step``."""
        handle = _RemovableHandle(self._step_post_hooks)
        self._step_post_hooks[handle.id] = hook
        return handle

    # -- checkpoints
    def state_dict(self):
        """``{"state": {index: per-parameter state}, "param_groups": [...]}``, with the
        parameters replaced by their index in group order (as torch). The state's
        tensors are the optimizer's own (not copies)."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)] if isinstance(p, _C.TensorBase) else p: v
                 for p, v in self.state.items() if not isinstance(p, _C.TensorBase) or id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads a ``state_dict()``: the groups must match in number and size. State
        tensors are copied to each parameter's device (and dtype, for floating ones)."""
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError("load_state_dict: expected a dict with 'state' and 'param_groups' entries")
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(s["params"] for s in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = _cast_state(param, value, None)
            else:
                state[key] = value
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})


def _cast_state(param, value, key):
    """Copies one loaded state value next to its parameter. Step counts stay
    numbers (Note [Step counts are Python numbers]); floating state takes the
    parameter's dtype, other tensors keep theirs. Copies, so that the loaded
    optimizer never shares buffers with the dict it was loaded from."""
    if key == "step":
        if isinstance(value, _C.TensorBase):
            value = value.item()
        return int(value) if float(value).is_integer() else value
    if isinstance(value, _C.TensorBase) and _gl.is_global(param):
        from monoflow._global.access import shard_access
        from monoflow._global.tensor import wrap

        laid = _gl.relayout_like(value, param)  # a logical value, laid out as the parameter
        dtype = param.dtype if param.is_floating_point() and value.is_floating_point() else value.dtype
        with shard_access():
            local = _gl.shard(laid).to(dtype=dtype, copy=True)
        return wrap(local, param.placement, param.sbp, tuple(param.shape))
    if isinstance(value, _C.TensorBase):
        if param.is_floating_point() and value.is_floating_point():
            return value.to(device=param.device, dtype=param.dtype, copy=True)
        return value.to(device=param.device, copy=True)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, key) for v in value)
    return value


class _ShardState(MutableMapping):
    """A global parameter's state seen shard by shard: reading a global state
    tensor gives this rank's shard, storing a tensor (made from the shards)
    stores it as a global tensor laid out like the parameter."""

    __slots__ = ("_state", "_param")

    def __init__(self, state, param):
        self._state, self._param = state, param

    def __getitem__(self, key):
        v = self._state[key]
        return _gl.shard(v) if _gl.is_global(v) else v

    def __setitem__(self, key, value):
        if isinstance(value, _C.TensorBase) and not _gl.is_global(value):
            from monoflow._global.tensor import wrap

            p = self._param
            if tuple(value.shape) != tuple(_gl.shard(p).shape):
                raise RuntimeError(f"optimizer state {key!r}: a tensor of shape {list(value.shape)} does not match "
                                   f"the global parameter's shard {list(_gl.shard(p).shape)}")
            value = wrap(value, p.placement, p.sbp, tuple(p.shape))
        self._state[key] = value

    def __delitem__(self, key):
        del self._state[key]

    def __iter__(self):
        return iter(self._state)

    def __len__(self):
        return len(self._state)
