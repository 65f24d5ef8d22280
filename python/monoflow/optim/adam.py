"""Adam and AdamW (torch.optim.Adam / AdamW), with amsgrad and maximize.

The arithmetic follows torch's single-tensor path operation by operation,
so float64 trajectories agree to rounding:
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v or max_v) / sqrt(1 - beta2^t) + eps
    p += -(lr / (1 - beta1^t)) * m / denom   (addcdiv_)
AdamW decays the weights directly, ``p *= 1 - lr * weight_decay``, before the
moments; Adam adds ``weight_decay * p`` to the gradient.
"""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.optim._functional import addcdiv_, addcmul_
from monoflow.optim._validate import check_impl_options
from monoflow.optim.optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


def _check(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
    maximize=False, decoupled_weight_decay=False)``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check(lr, betas, eps, weight_decay)
        check_impl_options(type(self).__name__, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    @staticmethod
    def _init_state(p, state, amsgrad):
        if len(state) == 0:
            state["step"] = 0
            state["exp_avg"] = _creation.zeros_like(p)
            state["exp_avg_sq"] = _creation.zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = _creation.zeros_like(p)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, (beta1, beta2), eps = self._group_lr(group), group["betas"], group["eps"]
                weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
                decoupled = group["decoupled_weight_decay"]
                for p, g, state in self._updates(group):
                    self._init_state(p, state, amsgrad)
                    step = state["step"] = state["step"] + 1
                    if weight_decay != 0:
                        if decoupled:
                            p.mul_(1 - lr * weight_decay)
                        else:
                            g = _C.add_alpha(g, p, weight_decay)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.lerp_(g, 1 - beta1)
                    addcmul_(exp_avg_sq.mul_(beta2), g, g, 1 - beta2)

                    step_size = lr / (1 - beta1 ** step)
                    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
                    if amsgrad:
                        max_sq = state["max_exp_avg_sq"]
                        max_sq.clamp_(min=exp_avg_sq)  # max(max_sq, v), in place
                        denom = max_sq.sqrt()
                    else:
                        denom = exp_avg_sq.sqrt()
                    denom.div_(bias_correction2_sqrt).add_(eps)
                    addcdiv_(p, exp_avg, denom, -step_size)
        return loss


class AdamW(Adam):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
    maximize=False)``: Adam with decoupled weight decay."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         differentiable=differentiable, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
