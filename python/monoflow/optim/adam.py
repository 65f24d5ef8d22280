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
    """Adam: adaptive moment estimation, with optional AMSGrad and decoupled weight decay.

    Keeps running averages of the gradient (``exp_avg``) and of its square
    (``exp_avg_sq``), bias-corrected, and steps by
    ``lr * m_hat / (sqrt(v_hat) + eps)``; float64 trajectories match torch to rounding.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-3``.
        betas (Tuple[float, float]): decay rates of the first and second moment
            averages. Default: ``(0.9, 0.999)``.
        eps (float): added to the denominator for stability. Default: ``1e-8``.
        weight_decay (float): L2 penalty added to the gradient (or, with
            ``decoupled_weight_decay``, applied to the weights as in AdamW). Default: ``0``.
        amsgrad (bool): use the running maximum of ``exp_avg_sq`` (AMSGrad). Default: ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        capturable (bool): accepted for torch compatibility, changes nothing.
            Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        fused (bool, optional): accepted for torch compatibility, changes nothing.
            Default: ``None``.
        decoupled_weight_decay (bool): decay the weights directly,
            ``p *= 1 - lr * weight_decay``, which makes this AdamW. Default: ``False``.
        do_bias_correction (bool): OneFlow's option: divide the moments by ``1 - beta^t``;
            ``False`` steps by ``lr * m / (sqrt(v) + eps)``. Default: ``True``.
        contiguous_params (bool): OneFlow's option (its parameters then live in one
            buffer); monoflow accepts it and updates the same values. Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.Adam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.9000, -1.9000])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False, do_bias_correction=True, contiguous_params=False):
        _check(lr, betas, eps, weight_decay)
        check_impl_options(type(self).__name__, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, decoupled_weight_decay=decoupled_weight_decay,
                        do_bias_correction=bool(do_bias_correction), contiguous_params=bool(contiguous_params))
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("do_bias_correction", True)
            group.setdefault("contiguous_params", False)

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
                bias_correction = group.get("do_bias_correction", True)
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

                    if bias_correction:
                        step_size = lr / (1 - beta1 ** step)
                        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
                    else:
                        step_size, bias_correction2_sqrt = lr, 1.0
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
    """AdamW: Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` before the update).

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-3``.
        betas (Tuple[float, float]): decay rates of the first and second moment
            averages. Default: ``(0.9, 0.999)``.
        eps (float): added to the denominator for stability. Default: ``1e-8``.
        weight_decay (float): decoupled weight decay factor. Default: ``1e-2``.
        amsgrad (bool): use the running maximum of ``exp_avg_sq`` (AMSGrad). Default: ``False``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        capturable (bool): accepted for torch compatibility, changes nothing.
            Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        fused (bool, optional): accepted for torch compatibility, changes nothing.
            Default: ``None``.
        do_bias_correction (bool): OneFlow's option, as in :class:`Adam`. Default: ``True``.
        contiguous_params (bool): OneFlow's option, accepted; same values. Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.AdamW([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.8990, -1.8980])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None,
                 do_bias_correction=True, contiguous_params=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         differentiable=differentiable, decoupled_weight_decay=True,
                         do_bias_correction=do_bias_correction, contiguous_params=contiguous_params)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
