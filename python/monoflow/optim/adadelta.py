"""Adadelta (torch.optim.Adadelta), in torch's order of operations:

    v = rho * v + (1 - rho) * g * g
    delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta * delta
    p -= lr * delta
"""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.optim._functional import addcmul_, axpy_
from monoflow.optim._validate import check_impl_options, check_nonneg
from monoflow.optim.optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of past updates and of gradients.

    ``v = rho * v + (1 - rho) * g * g``, ``delta = sqrt(u + eps) / sqrt(v + eps) * g``,
    ``u = rho * u + (1 - rho) * delta * delta``, ``p -= lr * delta``.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): coefficient that scales ``delta``. Default: ``1.0``.
        rho (float): decay rate of the running averages, in ``[0, 1]``. Default: ``0.9``.
        eps (float): added inside the square roots for stability. Default: ``1e-6``.
        weight_decay (float): L2 penalty added to the gradient. Default: ``0``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        capturable (bool): accepted for torch compatibility, changes nothing.
            Default: ``False``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        contiguous_params (bool): OneFlow's option (its parameters then live in one
            buffer); monoflow accepts it and updates the same values. Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.Adadelta([w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.9968, -1.9968])
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False, contiguous_params=False):
        check_nonneg(lr=lr, eps=eps, weight_decay=weight_decay)
        check_impl_options(type(self).__name__, differentiable)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable,
                        contiguous_params=bool(contiguous_params))
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, rho, eps, wd = self._group_lr(group), group["rho"], group["eps"], group["weight_decay"]
                for p, g, state in self._updates(group):
                    if len(state) == 0:
                        state["step"] = 0
                        state["square_avg"] = _creation.zeros_like(p)
                        state["acc_delta"] = _creation.zeros_like(p)
                    state["step"] += 1
                    if wd != 0:
                        g = _C.add_alpha(g, p, wd)
                    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                    addcmul_(square_avg.mul_(rho), g, g, 1 - rho)
                    std = (square_avg + eps).sqrt_()
                    delta = (acc_delta + eps).sqrt_().div_(std).mul_(g)
                    addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
                    axpy_(p, delta, -lr)
        return loss
