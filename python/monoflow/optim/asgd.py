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
    """Averaged SGD: SGD with a decaying step ``eta`` and a running average ``ax`` of the iterates.

    ``p *= 1 - lambd * eta``, ``p -= eta * g``, with
    ``eta = lr / (1 + lambd * lr * t) ** alpha``; the average starts after ``t0`` steps
    and is kept in ``state[p]["ax"]``.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-2``.
        lambd (float): decay term. Default: ``1e-4``.
        alpha (float): power of the ``eta`` update. Default: ``0.75``.
        t0 (float): step at which averaging starts. Default: ``1e6``.
        weight_decay (float): L2 penalty added to the gradient. Default: ``0``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        capturable (bool): accepted for torch compatibility, changes nothing.
            Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.ASGD([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.8000, -1.6000])
    """

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
