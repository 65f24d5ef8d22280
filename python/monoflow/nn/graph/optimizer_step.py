"""Optimizer updates inside a graph trace, with the values that change from
step to step (learning rates, Adam's bias corrections) as tensor inputs of
the plan instead of constants frozen into it.

Each call computes those values on the host (advancing Adam's step counts as
eager step() would) into one 1-D tensor per (device, dtype) - a single
host-to-device copy - that the plan takes as an input; the traced update
reads them through 0-d views. The update is written with the same kernels
and the same rounding order as the eager optimizer (a scalar attribute
becomes a 0-d operand of the same value), so graph training matches eager.
Hyperparameters that stay fixed (momentum, betas, eps, weight decay) are
constants of the plan and part of its cache key: changing one recompiles.
"""
import monoflow as flow
from monoflow import _C
from monoflow.autograd import no_grad
from monoflow.optim import SGD

__all__ = ["check_supported", "needs_warmup", "GraphOptimizerStep"]

_FED = ("lr", "initial_lr")  # changed by schedulers between steps: fed, never constants


def check_supported(opt):
    if type(opt) not in (SGD, flow.optim.Adam, flow.optim.AdamW):
        raise TypeError(f"nn.Graph.add_optimizer: {type(opt).__name__} is not supported in graph mode yet (its "
                        f"per-step values would be frozen into the plan); supported: SGD, Adam, AdamW")


def _params(opt):
    for group in opt.param_groups:
        for p in group["params"]:
            yield group, p


def needs_warmup(opt):
    """True while some parameter lacks the state its update reads (SGD's momentum
    buffer, Adam's moments): the graph then runs one eager step to create it,
    since state created during a trace would be built by the trace's first step
    rule and frozen."""
    for group, p in _params(opt):
        if isinstance(opt, SGD) and group["momentum"] == 0:
            continue
        if not opt.state.get(p):
            return True
    return False


def constant_key(opt, lr_constant=False):
    skip = ("initial_lr",) if lr_constant else _FED
    return tuple(tuple(sorted((k, v) for k, v in g.items() if k != "params" and k not in skip))
                 for g in opt.param_groups)


class GraphOptimizerStep:
    """feeds() on the host before each call, update(feeds) inside the trace.

    SGD without an lr scheduler keeps its learning rate as a constant: the
    plan then runs the eager step() itself (the fused momentum kernel, no
    extra inputs), and the lr is part of the cache key, so changing it by
    hand compiles another plan instead of running a stale one. With a
    scheduler (lr changes every few steps) and for Adam (bias corrections
    change every step) the values are fed."""

    def __init__(self, opt, scheduled=False):
        check_supported(opt)
        self.opt = opt
        self.scheduled = scheduled

    @property
    def lr_constant(self):
        return isinstance(self.opt, SGD) and not self.scheduled

    def key(self):
        return constant_key(self.opt, self.lr_constant)

    def needs_warmup(self):
        n = len(self.opt.state)  # state is only ever added: once complete, skip the scan
        if getattr(self, "_warm_at", None) == n:
            return False
        if needs_warmup(self.opt):
            return True
        self._warm_at = n
        return False

    def feeds(self):
        """The per-step values, in the order update() reads them: {(device, dtype): tensor}."""
        if self.lr_constant:
            return {}
        values = {}
        self._stepped = []  # states whose step count this call advanced (see undo)
        self._slots = []  # per (group, param): dict of value name -> (key, index)
        for group, p in _params(self.opt):
            if p.grad is None and not self._traced_grad(p):
                self._slots.append(None)
                continue
            key = (str(p.device), p.dtype)
            vals = values.setdefault(key, [])
            slot = {}
            lr = group["lr"]
            if isinstance(self.opt, SGD):
                slot["neg_lr"] = (key, len(vals))
                vals.append(-lr)
            else:
                state = self.opt.state[p]
                step = state["step"] = state["step"] + 1
                self._stepped.append(state)
                beta1, beta2 = group["betas"]
                slot["neg_step_size"] = (key, len(vals))
                vals.append(-(lr / (1 - beta1 ** step)))
                slot["bc2_sqrt"] = (key, len(vals))
                vals.append((1 - beta2 ** step) ** 0.5)
                if group["decoupled_weight_decay"] and group["weight_decay"] != 0:
                    slot["decay"] = (key, len(vals))
                    vals.append(1 - lr * group["weight_decay"])
            self._slots.append(slot)
        # Constant values (SGD without a scheduler) reuse the last call's tensors:
        # the plan only reads them. Saves a host-to-device copy per call.
        frozen = tuple((k, tuple(v)) for k, v in values.items())
        if getattr(self, "_last", (None,))[0] != frozen:
            self._last = (frozen, {k: flow.tensor(v, dtype=k[1], device=k[0]) for k, v in values.items()})
        return self._last[1]

    def undo(self):
        """Takes back feeds()'s step counts when the call failed before updating."""
        for state in getattr(self, "_stepped", ()):
            state["step"] -= 1
        self._stepped = []

    @staticmethod
    def _traced_grad(p):
        return p.requires_grad  # a grad that build's backward will create inside the trace

    def update(self, feeds):
        """The optimizer's step, traced (no host reads); then zero_grad."""
        opt = self.opt
        if self.lr_constant:
            opt.step()  # exactly eager's update; its only per-step value, lr, is in the key
            opt.zero_grad(set_to_none=True)
            return
        with no_grad():
            for (group, p), slot in zip(_params(opt), self._slots):
                if slot is None or p.grad is None:
                    continue
                h = {name: feeds[key][i] for name, (key, i) in slot.items()}
                if isinstance(opt, SGD):
                    self._sgd(group, p, opt.state[p], h)
                else:
                    self._adam(group, p, opt.state[p], h)
        opt.zero_grad(set_to_none=True)

    @staticmethod
    def _sgd(group, p, state, h):
        g = p.grad
        momentum, dampening = group["momentum"], group["dampening"]
        if group["maximize"]:
            g = -g
        if group["weight_decay"] != 0:
            g = _C.add_alpha(g, p, group["weight_decay"])
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

    @staticmethod
    def _adam(group, p, state, h):
        g = p.grad
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
        if group["amsgrad"]:
            max_sq = state["max_exp_avg_sq"]
            max_sq.clamp_(min=exp_avg_sq)
            denom = max_sq.sqrt()
        else:
            denom = exp_avg_sq.sqrt()
        denom.div_(h["bc2_sqrt"]).add_(group["eps"])
        # eager's addcdiv_: p + (-step_size * m) / denom, rounded in this order
        p.add_(exp_avg * h["neg_step_size"] / denom)
