"""Optimizer updates inside a graph trace, with the values that change from
step to step (learning rates, bias corrections) as tensor inputs of the plan
instead of constants frozen into it.

Each call computes those values on the host (advancing step counts as eager
step() would) into one 1-D tensor per (device, dtype) - a single
host-to-device copy - that the plan takes as an input; the traced update
reads them through 0-d views. The update is written with the same kernels
and the same rounding order as the eager optimizer (a scalar attribute
becomes a 0-d operand of the same value), so graph training matches eager.
Hyperparameters that stay fixed (momentum, betas, eps, weight decay, alpha,
lr_scale, the clipping keys) are constants of the plan and part of its cache
key: changing one recompiles.

Per group, OneFlow's keys: ``lr_scale`` multiplies the group's lr (in a graph
only, as in OneFlow: Optimizer._graph_group_lr), and ``clip_grad_max_norm`` /
``clip_grad_norm_type`` clip the group's gradients by their joint norm
inside the graph before the update (Optimizer.clip_grad, which eager code
calls by hand between backward and step, as in OneFlow).

Note [Parameters that get no gradient in build]
    Eager step() skips a parameter whose grad is None: no update and no
    step count advance. feeds() runs before the plan, so it must know which
    parameters build leaves without a gradient. The graph learns that per
    build signature: from its eager first step (grads are visible there),
    or, when it traces without one, from the trace itself - update() sees
    the parameter's grad is None, takes back the step count feeds()
    advanced for it, and reports it (traced_ungraded). The next call feeds
    without it, which is another feed layout, so that signature compiles
    once more; from then on the step counts match eager's exactly.
"""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.nn import _global_layout as _gl
from monoflow.nn.graph.zero import ZeroSharding
from monoflow.optim import LAMB, SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, RAdam, RMSprop
from monoflow.optim import adamax as _adamax_rule
from monoflow.optim import radam as _radam_rule
from monoflow.optim.lamb import lamb_update

__all__ = ["check_supported", "needs_warmup", "GraphOptimizerStep"]

_SUPPORTED = (SGD, Adam, AdamW, RMSprop, Adagrad, LAMB, Adadelta, Adamax, RAdam)
_FED = ("lr", "initial_lr")  # changed by schedulers between steps: fed, never constants


def check_supported(opt):
    if type(opt) not in _SUPPORTED:
        names = ", ".join(c.__name__ for c in _SUPPORTED)
        raise TypeError(f"nn.Graph.add_optimizer: {type(opt).__name__} is not supported in graph mode yet (its "
                        f"per-step values would be frozen into the plan); supported: {names}")


def _params(opt):
    for group in opt.param_groups:
        for p in group["params"]:
            yield group, p


def needs_warmup(opt, skip=()):
    """True while some parameter lacks the state its update reads (SGD's momentum
    buffer, Adam's moments, RMSprop's averages): the graph then runs one eager
    step to create it, since state created during a trace would be built by
    the trace's first step rule and frozen. Parameters in `skip` (ids of those
    build leaves without a gradient) and frozen ones never get state."""
    for group, p in _params(opt):
        if id(p) in skip or not p.requires_grad:
            continue
        if isinstance(opt, SGD) and group["momentum"] == 0:
            continue
        if not opt.state.get(p):
            return True
    return False


def constant_key(opt, lr_constant=False):
    # In the groups' own key order (computed on every call: no sort); a key
    # added later changes the order, which at worst compiles another plan.
    skip = ("params", "initial_lr") if lr_constant else ("params",) + _FED
    return tuple(tuple([(k, v) for k, v in g.items() if k not in skip]) for g in opt.param_groups)


class GraphOptimizerStep:
    """feeds() on the host before each call, update(feeds) inside the trace.

    SGD without an lr scheduler keeps its learning rate as a constant: the
    plan then runs the eager step() itself (the fused momentum kernel, no
    extra inputs), and the lr is part of the cache key, so changing it by
    hand compiles another plan instead of running a stale one. With a
    scheduler (lr changes every few steps), and for the optimizers whose
    update reads a step count (Adam's bias corrections, Adagrad's lr decay)
    or that keep one in their state (RMSprop), the values are fed."""

    def __init__(self, opt, scheduled=False):
        check_supported(opt)
        self.opt = opt
        self.scheduled = scheduled
        self.traced_ungraded = set()
        self.zero = None  # a ZeroSharding while the graph's config enables ZeRO (zero.py)

    @property
    def lr_constant(self):
        # (ZeRO updates row slices with the rules below, never the eager step())
        return isinstance(self.opt, SGD) and not self.scheduled and self.zero is None

    def key(self):
        zero = self.zero.settings.key() if self.zero is not None else None
        return constant_key(self.opt, self.lr_constant), zero

    def use_zero(self, settings):
        """Before each call: ZeRO per the graph's config (zero.ZeroSettings,
        or None), with the state laid out for it (Note [ZeRO state layout] in
        zero.py). True when state tensors were replaced: compiled plans are stale."""
        # Local parameters (one process, as OneFlow runs a single-device graph with ZeRO on): nothing to shard.
        if settings is None or not settings.mode or not any(_gl.is_global(p) for g in self.opt.param_groups
                                                              for p in g["params"]):
            if self.zero is None:
                return False
            zero, self.zero = self.zero, None
            return zero.relayout(False)
        if self.zero is None or self.zero.settings is not settings:
            self.zero = ZeroSharding(self.opt, settings)
        return self.zero.relayout(True)

    def eager_step(self):
        """The optimizer's eager step (the graph's warm-up), sharded under ZeRO."""
        with self.opt._lr_scaled_steps():
            if self.zero is not None:
                self.zero.eager_step()
            else:
                self.opt.step()

    def needs_warmup(self, skip=frozenset()):
        n = len(self.opt.state)  # state is only ever added: once complete, skip the scan
        if getattr(self, "_warm_at", None) == (n, skip):
            return False
        if needs_warmup(self.opt, skip):
            return True
        self._warm_at = (n, skip)
        return False

    def feeds(self, skip=frozenset()):
        """The per-step values, in the order update() reads them: {(device, dtype): tensor}.
        skip: ids of the parameters build leaves without a gradient."""
        self.opt._opt_called = True  # the plan steps it (what lr schedulers check, as after eager step())
        self._stepped = {}  # id(param) -> its state, for those whose step count this call advanced
        if self.lr_constant:
            return {}
        opt = self.opt
        values = {}
        self._slots = []  # per (group, param): dict of value name -> (key, index)
        for group, p in _params(opt):
            if id(p) in skip or (p.grad is None and not p.requires_grad):
                self._slots.append(None)
                continue
            key = (str(p.device), p.dtype)
            vals = values.setdefault(key, [])
            slot = {}

            def put(name, value):
                slot[name] = (key, len(vals))
                vals.append(value)
            lr = opt._graph_group_lr(group)
            if isinstance(opt, SGD):
                put("neg_lr", -lr)
            else:
                state = opt.state[p]
                step = state["step"] = state["step"] + 1
                self._stepped[id(p)] = state
                if isinstance(opt, Adam):
                    beta1, beta2 = group["betas"]
                    bc = group.get("do_bias_correction", True)  # (OneFlow's option; eager step()'s rule)
                    put("neg_step_size", -(lr / (1 - beta1 ** step)) if bc else -lr)
                    put("bc2_sqrt", (1 - beta2 ** step) ** 0.5 if bc else 1.0)
                    if group["decoupled_weight_decay"] and group["weight_decay"] != 0:
                        put("decay", 1 - lr * group["weight_decay"])
                elif isinstance(opt, (RMSprop, Adadelta)):
                    put("neg_lr", -lr)
                elif isinstance(opt, Adamax):
                    put("neg_clr", -lr / _adamax_rule.bias_correction1(group, step))
                elif isinstance(opt, RAdam):
                    # the rectified (rect > 0) and the plain step (plain = 1) in one traced
                    # update, as the switch between them happens at a step count
                    bc1, bc2, rect = _radam_rule.step_factors(group, step)
                    put("neg_clr", -lr / bc1)
                    put("adaptive_scale", 0.0 if rect is None else bc2 ** 0.5 * rect)
                    put("plain", 1.0 if rect is None else 0.0)
                    if group["decoupled_weight_decay"] and group["weight_decay"] != 0:
                        put("decay", 1 - lr * group["weight_decay"])
                elif isinstance(opt, LAMB):
                    beta1, beta2 = group["betas"]
                    put("neg_lr", -lr)
                    bc = group["do_bias_correction"]
                    put("bc1", 1 - beta1 ** step if bc else 1.0)
                    put("bc2_sqrt", (1 - beta2 ** step) ** 0.5 if bc else 1.0)
                else:  # Adagrad
                    put("neg_clr", -(lr / (1 + (step - 1) * group["lr_decay"])))
            self._slots.append(slot)
        # Constant values (SGD without a scheduler) reuse the last call's tensors:
        # the plan only reads them. Saves a host-to-device copy per call.
        frozen = tuple((k, tuple(v)) for k, v in values.items())
        if getattr(self, "_last", (None,))[0] != frozen:
            self._last = (frozen, {k: _creation.tensor(v, dtype=k[1], device=k[0]) for k, v in values.items()})
        return self._last[1]

    def undo(self):
        """Takes back feeds()'s step counts when the call failed before updating."""
        for state in getattr(self, "_stepped", {}).values():
            state["step"] -= 1
        self._stepped = {}

    def update(self, feeds):
        """Inside the trace: clipping by the groups' keys, the optimizer's step
        (no host reads), then zero_grad."""
        opt = self.opt
        opt.clip_grad()
        if self.lr_constant:
            with opt._lr_scaled_steps():
                opt.step()  # exactly eager's update; its only per-step value, lr, is in the key
            opt.zero_grad(set_to_none=True)
            return
        self.traced_ungraded = set()
        with no_grad(), opt._shard_access():
            for (group, p), slot in zip(_params(opt), self._slots):
                if slot is None:
                    continue
                if p.grad is None:  # Note [Parameters that get no gradient in build]
                    state = self._stepped.pop(id(p), None)
                    if state is not None:
                        state["step"] -= 1
                    self.traced_ungraded.add(id(p))
                    continue
                h = {name: feeds[key][i] for name, (key, i) in slot.items()}
                if self.zero is not None and self.zero.shards(p):  # Note [ZeRO stage 1 in a graph]
                    self.zero.update(_UPDATES[type(opt)], group, p, h)
                    continue
                # A global parameter is updated shard by shard (Note [Updating
                # global parameters shard by shard] in optim/optimizer.py).
                _UPDATES[type(opt)](group, *opt._shards(p), h)
        opt.zero_grad(set_to_none=True)


def _signed_l2(group, p, g):
    """The gradient as a rule reads it: negated under maximize, plus weight_decay * p (L2)."""
    if group["maximize"]:
        g = -g
    if group["weight_decay"] != 0:
        g = _C.add_alpha(g, p, group["weight_decay"])
    return g


def _sgd(group, p, g, state, h):
    momentum, dampening = group["momentum"], group["dampening"]
    g = _signed_l2(group, p, g)
    if momentum != 0:
        buf = state["momentum_buffer"]
        buf.mul_(momentum)  # = the fused sgd_momentum kernel's rounding order
        if dampening == 0:
            buf.add_(g)
        else:
            _C.add_alpha_(buf, g, 1 - dampening)
        g = g + buf * momentum if group["nesterov"] else buf
    # p + (-lr) * g, rounded as eager's add_alpha: the product, then the sum.
    # (Two plain kernels: a 0-d operand in addcmul_ takes a slow broadcast path.)
    p.add_(g * h["neg_lr"])


def _adam_moments(group, p, g, state, h):
    """Adam's and RAdam's common start: the gradient's sign and weight decay (decoupled: on
    p, by the fed factor), then both moments updated in place; returns them."""
    beta1, beta2 = group["betas"]
    if group["maximize"]:
        g = -g
    if group["weight_decay"] != 0:
        if group["decoupled_weight_decay"]:
            p.mul_(h["decay"])
        else:
            g = _C.add_alpha(g, p, group["weight_decay"])
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(g, 1 - beta1)
    _C.addcmul_(exp_avg_sq.mul_(beta2), g, g, 1 - beta2)
    return exp_avg, exp_avg_sq


def _adam(group, p, g, state, h):
    exp_avg, exp_avg_sq = _adam_moments(group, p, g, state, h)
    if group["amsgrad"]:
        max_sq = state["max_exp_avg_sq"]
        max_sq.clamp_(min=exp_avg_sq)
        denom = max_sq.sqrt()
    else:
        denom = exp_avg_sq.sqrt()
    denom.div_(h["bc2_sqrt"]).add_(group["eps"])
    # eager's addcdiv_: p + (-step_size * m) / denom, rounded in this order
    p.add_(exp_avg * h["neg_step_size"] / denom)


def _rmsprop(group, p, g, state, h):
    alpha = group["alpha"]
    g = _signed_l2(group, p, g)
    square_avg = state["square_avg"]
    _C.addcmul_(square_avg.mul_(alpha), g, g, 1 - alpha)
    if group["centered"]:
        grad_avg = state["grad_avg"]
        grad_avg.lerp_(g, 1 - alpha)
        avg = _C.addcmul(square_avg, grad_avg, grad_avg, -1).sqrt_()
    else:
        avg = square_avg.sqrt()
    avg.add_(group["eps"])
    if group["momentum"] > 0:
        buf = state["momentum_buffer"]
        _C.addcdiv_(buf.mul_(group["momentum"]), g, avg, 1)
        p.add_(buf * h["neg_lr"])  # eager's add_alpha(p, buf, -lr)
    else:
        p.add_(g * h["neg_lr"] / avg)  # eager's addcdiv_(p, g, avg, -lr)


def _adagrad(group, p, g, state, h):
    g = _signed_l2(group, p, g)
    state_sum = state["sum"]
    _C.addcmul_(state_sum, g, g, 1)
    std = state_sum.sqrt().add_(group["eps"])
    p.add_(g * h["neg_clr"] / std)  # eager's addcdiv_(p, g, std, -clr)


def _lamb(group, p, g, state, h):
    lamb_update(group, p, g, state, h["neg_lr"], h["bc1"], h["bc2_sqrt"])


def _adadelta(group, p, g, state, h):
    rho, eps = group["rho"], group["eps"]
    g = _signed_l2(group, p, g)
    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
    _C.addcmul_(square_avg.mul_(rho), g, g, 1 - rho)
    std = (square_avg + eps).sqrt_()
    delta = (acc_delta + eps).sqrt_().div_(std).mul_(g)
    _C.addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
    p.add_(delta * h["neg_lr"])  # eager's axpy_(p, delta, -lr)


def _adamax(group, p, g, state, h):
    beta1, beta2 = group["betas"]
    g = _signed_l2(group, p, g)
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    exp_avg.lerp_(g, 1 - beta1)
    exp_inf.mul_(beta2).clamp_(min=g.abs().add_(group["eps"]))
    p.add_(exp_avg * h["neg_clr"] / exp_inf)  # eager's addcdiv_(p, m, u, -lr / bc1)


def _radam(group, p, g, state, h):
    exp_avg, exp_avg_sq = _adam_moments(group, p, g, state, h)
    adaptive = exp_avg_sq.sqrt().add_(group["eps"]).reciprocal() * h["adaptive_scale"]
    p.add_(exp_avg * h["neg_clr"] * (adaptive + h["plain"]))


_UPDATES = {SGD: _sgd, Adam: _adam, AdamW: _adam, RMSprop: _rmsprop, Adagrad: _adagrad, LAMB: _lamb,
            Adadelta: _adadelta, Adamax: _adamax, RAdam: _radam}
