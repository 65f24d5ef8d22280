"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch.optim.SGD)."""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.optim._functional import axpy_
from monoflow.optim._validate import check_impl_options
from monoflow.optim.optimizer import Optimizer, required

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, with optional momentum, Nesterov momentum and weight decay.

    Each step: ``g = grad + weight_decay * p``; with momentum
    ``buf = momentum * buf + (1 - dampening) * g``, the buffer starting at zero as
    OneFlow's does; then ``p -= lr * buf`` (Nesterov: ``p -= lr * (g + momentum * buf)``).
    Without dampening this is torch's update too; with it, torch's first step stores
    ``g`` undamped, so the two differ by that first step (monoflow follows OneFlow).
    Nesterov takes any momentum and dampening, as OneFlow (torch refuses them unless
    ``momentum > 0`` and ``dampening == 0``); with ``momentum == 0`` it is plain SGD.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-3``.
        momentum (float): momentum factor. Default: ``0``.
        dampening (float): dampening of the momentum. Default: ``0``.
        weight_decay (float): L2 penalty added to the gradient. Default: ``0``.
        nesterov (bool): use Nesterov momentum. Default: ``False``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        fused (bool, optional): accepted for torch compatibility, changes nothing.
            Default: ``None``.
        contiguous_params (bool): OneFlow's option (its parameters then live in one
            buffer); monoflow accepts it and updates the same values. Default: ``False``.

    Raises:
        ValueError: for a negative ``lr``, ``momentum`` or ``weight_decay``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.8000, -1.6000])
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None, contiguous_params=False):
        check_impl_options("SGD", differentiable)
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, contiguous_params=bool(contiguous_params))
        super().__init__(params, defaults)

    _linear_update = True  # right on partial-sum shards too

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, momentum, dampening = self._group_lr(group), group["momentum"], group["dampening"]
                weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p, g, state = self._shards(p, state=momentum != 0)
                    if maximize:
                        g = -g
                    if weight_decay != 0:
                        g = _C.add_alpha(g, p, weight_decay)
                    if momentum != 0:
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = state["momentum_buffer"] = _creation.zeros_like(p)
                        if not nesterov:  # the common case: one fused pass over p, buf and g
                            _C.sgd_momentum_(p, buf, g, momentum, 1 - dampening, lr)
                            continue
                        axpy_(buf.mul_(momentum), g, 1 - dampening)
                        g = g + buf * momentum
                    axpy_(p, g, -lr)
        return loss
