"""RMSprop (torch.optim.RMSprop), plain or centered, with momentum.

    v = alpha * v + (1 - alpha) * g * g
    avg = sqrt(v - gbar^2) (centered, gbar = lerp(gbar, g, 1 - alpha)) or sqrt(v); avg += eps
    momentum: buf = momentum * buf + g / avg; p -= lr * buf
    otherwise: p -= lr * (g / avg)
"""
from monoflow import _creation
from monoflow.autograd import no_grad
from monoflow import _C
from monoflow.optim._functional import addcdiv_, addcmul_, axpy_
from monoflow.optim._validate import check_impl_options
from monoflow.optim.optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: steps divided by a running root mean square of the gradient.

    ``v = alpha * v + (1 - alpha) * g * g``; the step is ``lr * g / (sqrt(v) + eps)``
    (centered: the variance ``v - mean(g)**2`` replaces ``v``), through a
    momentum buffer when ``momentum > 0``.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-2``.
        alpha (float): smoothing constant of the square average. Default: ``0.99``.
        eps (float): added to the denominator for stability. Default: ``1e-8``.
        weight_decay (float): L2 penalty added to the gradient. Default: ``0``.
        momentum (float): momentum factor. Default: ``0``.
        centered (bool): normalize by the estimated variance of the gradient. Default: ``False``.
        capturable (bool): accepted for torch compatibility, changes nothing.
            Default: ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        contiguous_params (bool): OneFlow's option (its parameters then live in one
            buffer); monoflow accepts it and updates the same values. Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.RMSprop([w], lr=0.01)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.9000, -1.9000])
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, *, maximize=False, differentiable=False, contiguous_params=False):
        check_impl_options("RMSprop", differentiable)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                        centered=centered, maximize=maximize, contiguous_params=bool(contiguous_params))
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, alpha, eps = self._group_lr(group), group["alpha"], group["eps"]
                weight_decay, momentum = group["weight_decay"], group["momentum"]
                centered = group["centered"]
                for p, g, state in self._updates(group):
                    if len(state) == 0:
                        state["step"] = 0
                        state["square_avg"] = _creation.zeros_like(p)
                        if momentum > 0:
                            state["momentum_buffer"] = _creation.zeros_like(p)
                        if centered:
                            state["grad_avg"] = _creation.zeros_like(p)
                    state["step"] += 1
                    if weight_decay != 0:
                        g = _C.add_alpha(g, p, weight_decay)
                    square_avg = state["square_avg"]
                    addcmul_(square_avg.mul_(alpha), g, g, 1 - alpha)
                    if centered:
                        grad_avg = state["grad_avg"]
                        grad_avg.lerp_(g, 1 - alpha)
                        avg = _C.addcmul(square_avg, grad_avg, grad_avg, -1).sqrt_()
                    else:
                        avg = square_avg.sqrt()
                    avg.add_(eps)
                    if momentum > 0:
                        buf = state["momentum_buffer"]
                        addcdiv_(buf.mul_(momentum), g, avg)
                        axpy_(p, buf, -lr)
                    else:
                        addcdiv_(p, g, avg, -lr)
        return loss
