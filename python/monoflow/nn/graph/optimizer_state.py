"""A training graph's optimizer state in Graph.state_dict(), under OneFlow's variable names.

OneFlow keeps a training graph's optimizer state as variables of its job named
``<parameter>-<state>``: the parameter's name in the graph (``linear.weight``) and the state's
(SGD's ``momentum``, Adam's ``m``/``v``/``max_v``, RMSprop's ``mean_square``/``mean_gradient``,
Adagrad's ``sum``). ``Graph.state_dict()`` lists them beside the modules' entries, so that
``graph.load_state_dict(flow.load(path))`` resumes training where it stopped. Here the state lives
in the optimizers (``opt.state[p]``); this file names its entries that way and loads them back
(a state with no OneFlow name keeps monoflow's key: Adamax's ``exp_inf``, Adadelta's ``acc_delta``).

A step count (Adam's bias corrections, ...) is an int per parameter here, where OneFlow derives it
from the graph's train step: it is kept as ``<parameter>-step`` (int64, shape [1]); a state loaded
without it (one OneFlow saved) takes the step from ``System-Train-TrainStep``.
"""
from collections import OrderedDict

from monoflow import _dtypes
from monoflow._creation import tensor as _tensor_from_data
from monoflow.autograd.grad_mode import no_grad
from monoflow.optim import LAMB, SGD, Adagrad, Adam, AdamW, RMSprop

__all__ = ["optimizer_state_entries", "load_optimizer_state"]

_ADAM_NAMES = {"exp_avg": "m", "exp_avg_sq": "v", "max_exp_avg_sq": "max_v"}
_ONEFLOW_NAMES = {
    SGD: {"momentum_buffer": "momentum"},
    Adam: _ADAM_NAMES, AdamW: _ADAM_NAMES, LAMB: _ADAM_NAMES,
    RMSprop: {"square_avg": "mean_square", "grad_avg": "mean_gradient", "momentum_buffer": "momentum"},
    Adagrad: {"sum": "sum"},
}
_STEP = "step"


def _named_params(graph):
    """(optimizer, param, the param's name in the graph) for every parameter of the graph's optimizers
    that a registered module holds (the first name wins for a shared parameter)."""
    names = {}
    for module_name, module in graph._modules.items():
        for name, p in module.named_parameters(remove_duplicate=False):
            names.setdefault(id(p), f"{module_name}.{name}")
    for step, _ in graph._optimizers:
        for group in step.opt.param_groups:
            for p in group["params"]:
                if id(p) in names:
                    yield step.opt, p, names[id(p)]


def optimizer_state_entries(graph, prefix=""):
    """The optimizers' state of `graph` as OneFlow names it: ``{"<param>-<state>": tensor}`` (the
    tensors themselves, detached, as Module.state_dict gives its parameters)."""
    out = OrderedDict()
    for opt, p, name in _named_params(graph):
        names = _ONEFLOW_NAMES.get(type(opt), {})
        for key, value in opt.state.get(p, {}).items():
            if key == _STEP and isinstance(value, int):
                out[f"{prefix}{name}-{_STEP}"] = _tensor_from_data([value], dtype=_dtypes.int64)
            elif hasattr(value, "detach"):
                out[f"{prefix}{name}-{names.get(key, key)}"] = value.detach()
    return out


def _like(value, p):
    """A loaded state tensor laid out as the parameter it belongs to (device, global placement)."""
    if getattr(p, "is_global", False):
        if not getattr(value, "is_global", False):
            from monoflow._global.sbp import broadcast

            value = value.to(p.placement.type).to_global(placement=p.placement, sbp=broadcast)
        return value.to_global(placement=p.placement, sbp=p.sbp).clone()
    return value.to(p.device).clone()


def load_optimizer_state(graph, state_dict, train_step):
    """Loads the ``<param>-<state>`` entries of `state_dict` into the optimizers of `graph`: into the
    existing state tensors in place, or as new state. Returns (the keys used, whether new state
    tensors were made: the graph's plans, which hold the old ones, are stale then)."""
    used, made = set(), False
    for opt, p, name in _named_params(graph):
        from_oneflow = {v: k for k, v in _ONEFLOW_NAMES.get(type(opt), {}).items()}
        entries = {k[len(name) + 1:]: k for k in state_dict if k.startswith(name + "-")}
        if not entries:
            continue
        state = opt.state.setdefault(p, {})
        for suffix, key in entries.items():
            value = state_dict[key]
            used.add(key)
            if suffix == _STEP:
                state[_STEP] = int(value.reshape(-1)[0].item()) if hasattr(value, "reshape") else int(value)
                continue
            ours = from_oneflow.get(suffix, suffix)
            old = state.get(ours)
            if hasattr(old, "copy_") and tuple(old.shape) == tuple(value.shape):
                with no_grad():
                    old.copy_(_like(value, p))
            else:
                state[ours] = _like(value, p)
                made = True
        if _STEP not in state and not isinstance(opt, SGD):
            state[_STEP] = int(train_step)  # a OneFlow-saved state: its step is the graph's train step
    return used, made
