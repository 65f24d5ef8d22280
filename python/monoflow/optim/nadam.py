"""NAdam (torch.optim.NAdam): Adam with Nesterov momentum and a momentum
schedule mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)).

    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v / (1 - beta2^t)) + eps
    p -= lr * (1 - mu_t) / (1 - prod mu) * g / denom
    p -= lr * mu_{t+1} / (1 - prod mu * mu_{t+1}) * m / denom
"""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.optim._float32 import f32
from monoflow.optim._functional import addcdiv_, addcmul_
from monoflow.optim._validate import check_impl_options, check_betas, check_nonneg
from monoflow.optim.optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum and the momentum schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``2e-3``.
        betas (Tuple[float, float]): decay rates of the first and second moment
            averages. Default: ``(0.9, 0.999)``.
        eps (float): added to the denominator for stability. Default: ``1e-8``.
        weight_decay (float): L2 penalty. Default: ``0``.
        momentum_decay (float): rate of the momentum schedule. Default: ``4e-3``.
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

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.NAdam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.8944, -1.8944])
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_nonneg(lr=lr, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay)
        check_impl_options(type(self).__name__, differentiable)
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, (beta1, beta2), eps, wd = self._group_lr(group), group["betas"], group["eps"], \
                    group["weight_decay"]
                decay = group["momentum_decay"]
                for p, g, state in self._updates(group):
                    if len(state) == 0:
                        state["step"] = 0
                        state["mu_product"] = 1.0
                        state["exp_avg"] = _creation.zeros_like(p)
                        state["exp_avg_sq"] = _creation.zeros_like(p)
                    step = state["step"] = state["step"] + 1
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            g = _C.add_alpha(g, p, wd)
                    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
                    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
                    mu_product = state["mu_product"] = f32(f32(state["mu_product"]) * f32(mu))
                    mu_product_next = mu_product * mu_next
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.lerp_(g, 1 - beta1)
                    addcmul_(exp_avg_sq.mul_(beta2), g, g, 1 - beta2)
                    denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add_(eps)
                    addcdiv_(p, g, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
                    addcdiv_(p, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        return loss
