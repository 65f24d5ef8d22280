"""Adamax (torch.optim.Adamax): Adam with an infinity-norm second moment.

    m = lerp(m, g, 1 - beta1);  u = max(beta2 * u, |g| + eps)
    p -= lr / (1 - beta1^t) * m / u
"""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.optim._functional import addcdiv_
from monoflow.optim._validate import check_impl_options, check_betas, check_nonneg
from monoflow.optim.optimizer import Optimizer

__all__ = ["Adamax"]


def bias_correction1(group, step):
    """1 - beta1^t, or 1 where the group turned OneFlow's do_bias_correction off
    (groups made before the option existed have it on)."""
    return 1 - group["betas"][0] ** step if group.get("do_bias_correction", True) else 1.0


class Adamax(Optimizer):
    """Adamax: Adam with an infinity-norm second moment, ``u = max(beta2 * u, |g| + eps)``.

    The step is ``lr / (1 - beta1 ** t) * m / u``.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``2e-3``.
        betas (Tuple[float, float]): decay rates of the first moment and of the
            infinity norm. Default: ``(0.9, 0.999)``.
        eps (float): added to ``|g|`` for stability. Default: ``1e-8``.
        weight_decay (float): L2 penalty added to the gradient. Default: ``0``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        capturable (bool): accepted for torch compatibility, changes nothing.
            Default: ``False``.
        do_bias_correction (bool): divide the step by ``1 - beta1 ** t`` (OneFlow's option;
            ``False`` leaves it out). Default: ``True``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.Adamax([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.9000, -1.9000])
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False, do_bias_correction=True):
        check_nonneg(lr=lr, eps=eps, weight_decay=weight_decay)
        check_impl_options(type(self).__name__, differentiable)
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable,
                        do_bias_correction=bool(do_bias_correction))
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, (beta1, beta2), eps, wd = self._group_lr(group), group["betas"], group["eps"], \
                    group["weight_decay"]
                for p, g, state in self._updates(group):
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = _creation.zeros_like(p)
                        state["exp_inf"] = _creation.zeros_like(p)
                    step = state["step"] = state["step"] + 1
                    if wd != 0:
                        g = _C.add_alpha(g, p, wd)
                    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                    exp_avg.lerp_(g, 1 - beta1)
                    exp_inf.mul_(beta2).clamp_(min=g.abs().add_(eps))  # max(beta2 * u, |g| + eps), in place
                    addcdiv_(p, exp_avg, exp_inf, -lr / bias_correction1(group, step))
        return loss
