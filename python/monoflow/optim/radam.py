"""RAdam (torch.optim.RAdam): Adam whose adaptive step is switched on, and
rectified, once the variance of the moment estimate is tractable.

    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
    rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t),  rho_inf = 2 / (1 - beta2) - 1
    rho_t > 5:  p -= m / (1 - beta1^t) * lr * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t
    otherwise:  p -= m / (1 - beta1^t) * lr
"""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.optim._functional import addcmul_
from monoflow.optim._validate import check_impl_options, check_betas, check_nonneg
from monoflow.optim.optimizer import Optimizer

__all__ = ["RAdam"]


def step_factors(group, step):
    """(1 - beta1^t, 1 - beta2^t, the rectification r_t or None while rho_t <= 5) of
    step t; both corrections 1 where OneFlow's do_bias_correction is off."""
    beta1, beta2 = group["betas"]
    corrected = group.get("do_bias_correction", True)
    bc1, bc2 = (1 - beta1 ** step, 1 - beta2 ** step) if corrected else (1.0, 1.0)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bc2
    if rho_t <= 5.0:
        return bc1, bc2, None
    return bc1, bc2, ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5


class RAdam(Optimizer):
    """RAdam: Adam whose adaptive step is rectified, and switched on only once the
    variance of the second-moment estimate is tractable (``rho_t > 5``).

    Until then the step is the bias-corrected momentum, ``lr * m_hat`` (as in
    the example's first step).

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-3``.
        betas (Tuple[float, float]): decay rates of the first and second moment
            averages. Default: ``(0.9, 0.999)``.
        eps (float): added to the denominator for stability. Default: ``1e-8``.
        weight_decay (float): L2 penalty. Default: ``0``.
        decoupled_weight_decay (bool): decay the weights directly (as AdamW) instead
            of adding the penalty to the gradient. Default: ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        capturable (bool): accepted for torch compatibility, changes nothing.
            Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        do_bias_correction (bool): OneFlow's option: ``False`` takes both bias corrections
            as 1 (``m_hat = m``, ``rho_t = rho_inf - 2 t beta2^t``). Default: ``True``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.RAdam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.8000, -1.6000])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, do_bias_correction=True):
        check_nonneg(lr=lr, eps=eps, weight_decay=weight_decay)
        check_impl_options(type(self).__name__, differentiable)
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable, do_bias_correction=bool(do_bias_correction))
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
                        state["exp_avg_sq"] = _creation.zeros_like(p)
                    step = state["step"] = state["step"] + 1
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            g = _C.add_alpha(g, p, wd)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.lerp_(g, 1 - beta1)
                    addcmul_(exp_avg_sq.mul_(beta2), g, g, 1 - beta2)
                    bias_correction1, bias_correction2, rect = step_factors(group, step)
                    corrected = exp_avg / bias_correction1
                    if rect is not None:
                        # torch divides a number by a tensor as reciprocal() * number
                        adaptive = exp_avg_sq.sqrt().add_(eps).reciprocal() * (bias_correction2 ** 0.5)
                        p.sub_(corrected * lr * adaptive * rect)
                    else:
                        p.sub_(corrected * lr)
        return loss
