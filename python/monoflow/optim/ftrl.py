"""FTRL-Proximal (OneFlow's ``oneflow.one_embedding.FTRL``), for sparse (embedding) and dense models.

Per step, with ``g`` the gradient plus ``weight_decay * p``, ``n`` the accumulator and ``z`` the
linear term (OneFlow's update, as its kernel and test write it)::

    n' = n + g * g
    sigma = (n' ** lr_power - n ** lr_power) / lr
    z = z + g - sigma * p
    p = 0                                                    where |z| < lambda1
    p = (sign(z) * lambda1 - z) / ((beta + n' ** lr_power) / lr + lambda2)   elsewhere
"""
from monoflow import _creation
from monoflow.autograd import no_grad
from monoflow.optim.optimizer import Optimizer

__all__ = ["FTRL"]


class FTRL(Optimizer):
    """FTRL-Proximal ("Follow The Regularized Leader"), OneFlow's optimizer of its embedding API,
    usable on any parameters.

    ``n' = n + g * g``, ``sigma = (n' ** lr_power - n ** lr_power) / lr``,
    ``z = z + g - sigma * p``; then ``p = 0`` where ``|z| < lambda1``, else
    ``p = (sign(z) * lambda1 - z) / ((beta + n' ** lr_power) / lr + lambda2)``, where ``g`` is
    the gradient plus ``weight_decay * p``. ``n`` starts at ``initial_accumulator_value``, ``z`` at 0.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-3``.
        weight_decay (float): L2 penalty added to the gradient. Default: ``0``.
        lr_power (float): the power of the accumulator in the per-coordinate rate. Default: ``-0.5``.
        initial_accumulator_value (float): the accumulator's start. Default: ``0.1``.
        lambda1 (float): L1 strength (coordinates with ``|z| < lambda1`` are zero). Default: ``0``.
        lambda2 (float): L2 strength. Default: ``0``.
        beta (float): the rate's smoothing term. Default: ``0``.

    Example::

        >>> from monoflow.one_embedding import FTRL
        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = FTRL([w], lr=0.1, lambda1=0.01, beta=1.0)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.shape
        monoflow.Size([2])
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.0, lr_power=-0.5, initial_accumulator_value=0.1,
                 lambda1=0.0, lambda2=0.0, beta=0.0):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        defaults = dict(lr=lr, weight_decay=weight_decay, lr_power=lr_power,
                        initial_accumulator_value=initial_accumulator_value, lambda1=lambda1,
                        lambda2=lambda2, beta=beta)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad():
            for group in self.param_groups:
                lr, wd, power = self._group_lr(group), group["weight_decay"], group["lr_power"]
                l1, l2, beta = group["lambda1"], group["lambda2"], group["beta"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["accumulate"] = _creation.full_like(p, group["initial_accumulator_value"])
                        state["z"] = _creation.zeros_like(p)
                    g = p.grad if wd == 0 else p.grad + wd * p
                    n, z = state["accumulate"], state["z"]
                    new_n = n + g * g
                    new_n_pow = new_n ** power
                    sigma = (new_n_pow - n ** power) / lr
                    z.add_(g - sigma * p)
                    update = (z.sign() * l1 - z) / ((beta + new_n_pow) / lr + l2)
                    p.copy_(update.masked_fill(z.abs() < l1, 0.0))
                    n.copy_(new_n)
        return loss
