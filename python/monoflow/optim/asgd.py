"""ASGD (torch.optim.ASGD): SGD with a decaying step eta and a running
average ``ax`` of the iterates (started after t0 steps).

    p *= 1 - lambd * eta;  p -= eta * g
    ax += (p - ax) * mu  (ax = p while mu == 1)
    eta = lr / (1 + lambd * lr * t)^alpha;  mu = 1 / max(1, t - t0)
"""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.optim._float32 import f32
from monoflow.optim._functional import axpy_
from monoflow.optim._validate import check_impl_options, check_nonneg
from monoflow.optim.optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """``ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
    differentiable=False, capturable=False)``."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_nonneg(lr=lr, weight_decay=weight_decay)
        check_impl_options(type(self).__name__, differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, lambd, alpha, t0, wd = (self._group_lr(group), group["lambd"], group["alpha"], group["t0"],
                                            group["weight_decay"])
                for p, g, state in self._updates(group):
                    if len(state) == 0:
                        state["step"] = 0
                        state["eta"] = f32(lr)
                        state["mu"] = 1.0
                        state["ax"] = _creation.zeros_like(p)
                    step = state["step"] = state["step"] + 1
                    if wd != 0:
                        g = _C.add_alpha(g, p, wd)
                    eta, ax = state["eta"], state["ax"]
                    p.mul_(1 - lambd * eta)
                    axpy_(p, g, -eta)
                    if state["mu"] != 1:
                        ax.add_(p.sub(ax).mul_(state["mu"]))
                    else:
                        ax.copy_(p)
                    state["eta"] = f32(lr / ((1 + lambd * lr * step) ** alpha))
                    state["mu"] = f32(1 / max(1, step - t0))
        return loss
