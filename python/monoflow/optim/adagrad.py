"""Adagrad (torch.optim.Adagrad).

    clr = lr / (1 + (t - 1) * lr_decay);  s += g * g;  p -= clr * (g / (sqrt(s) + eps))
The accumulator starts at ``initial_accumulator_value`` and is created in the
constructor, as torch does (so a state_dict taken before the first step has it).
"""
from monoflow import _C, _creation
from monoflow.autograd import no_grad
from monoflow.optim._functional import addcdiv_, addcmul_
from monoflow.optim._validate import check_impl_options
from monoflow.optim.optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: steps scaled by the root of the accumulated squared gradients.

    ``clr = lr / (1 + (t - 1) * lr_decay)``, ``s += g * g``,
    ``p -= clr * g / (sqrt(s) + eps)``. The accumulator is created in the
    constructor, as torch does, so a ``state_dict()`` taken before the first step has it.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-2``.
        lr_decay (float): learning rate decay per step. Default: ``0``.
        weight_decay (float): L2 penalty added to the gradient. Default: ``0``.
        initial_accumulator_value (float): starting value of the sum of squares. Default: ``0``.
        eps (float): added to the denominator for stability. Default: ``1e-10``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.
        fused (bool, optional): accepted for torch compatibility, changes nothing.
            Default: ``None``.
        contiguous_params (bool): OneFlow's option (its parameters then live in one
            buffer); monoflow accepts it and updates the same values. Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.Adagrad([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.9000, -1.9000])
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None, contiguous_params=False):
        check_impl_options("Adagrad", differentiable)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, maximize=maximize,
                        contiguous_params=bool(contiguous_params))
        super().__init__(params, defaults)  # add_param_group creates the accumulators

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        for p in self.param_groups[-1]["params"]:
            self._init_state(p, self.param_groups[-1])

    def _init_state(self, p, group):
        if len(self.state[p]) == 0:
            with self._shard_access():
                p, _, state = self._shards(p, grad=False)
                state["step"] = 0
                state["sum"] = _creation.full_like(p, group["initial_accumulator_value"])

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, lr_decay, eps = self._group_lr(group), group["lr_decay"], group["eps"]
                weight_decay, maximize = group["weight_decay"], group["maximize"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    self._init_state(p, group)
                    p, g, state = self._shards(p)
                    step = state["step"] = state["step"] + 1
                    if maximize:
                        g = -g
                    if weight_decay != 0:
                        g = _C.add_alpha(g, p, weight_decay)
                    clr = lr / (1 + (step - 1) * lr_decay)
                    state_sum = state["sum"]
                    addcmul_(state_sum, g, g)
                    std = state_sum.sqrt().add_(eps)
                    addcdiv_(p, g, std, -clr)
        return loss
