"""SparseAdam (torch.optim.SparseAdam): Adam for sparse gradients, such as those of an
``nn.Embedding(sparse=True)`` table.

Only the rows present in a step's gradient change, moments included ("lazy" Adam): for each such
row, ``m += (1 - beta1) (g - m)``, ``v += (1 - beta2) (g^2 - v)``, and
``p -= lr sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)``, with one step count per
parameter.
"""
import math

from monoflow import _creation
from monoflow.autograd import no_grad
from monoflow.optim.optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam that updates only the rows present in each (sparse) gradient, as torch's.

    The parameters must be dense and real; their gradients must be sparse (a dense gradient
    raises ``RuntimeError``, as in torch). ``nn.Embedding(..., sparse=True)`` gives its table such
    gradients.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups.
        lr (float): learning rate. Default: ``1e-3``.
        betas (tuple of float): decay rates of the first and second moments. Default: ``(0.9, 0.999)``.
        eps (float): added to the denominator for stability. Default: ``1e-8``.
        maximize (bool): maximize the objective instead of minimizing it. Default: ``False``.

    Example::

        >>> emb = nn.Embedding(4, 2, sparse=True)
        >>> opt = flow.optim.SparseAdam(emb.parameters(), lr=0.1)
        >>> before = emb.weight.detach().clone()
        >>> emb(flow.tensor([1, 3])).sum().backward()
        >>> opt.step()
        >>> (emb.weight != before).any(1).tolist()  # rows 0 and 2 were not looked up
        [False, True, False, True]
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        for kind, test, why in (("Sparse", lambda p: p.is_sparse, "SparseAdam requires dense parameter tensors"),
                                ("Complex", lambda p: p.is_complex(),
                                 "SparseAdam does not support complex parameters")):
            where = [[gi, pi] for gi, group in enumerate(self.param_groups)
                     for pi, p in enumerate(group["params"]) if test(p)]
            if where:
                raise ValueError(f"{kind} params at indices {where}: {why}")

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad():
            for group in self.param_groups:
                lr, eps, (beta1, beta2) = self._group_lr(group), group["eps"], group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad
                    if not grad.is_sparse:
                        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = _creation.zeros_like(p)
                        state["exp_avg_sq"] = _creation.zeros_like(p)
                    state["step"] += 1
                    grad = grad.coalesce()
                    index = tuple(grad._indices())
                    g = grad._values()
                    if g.numel() == 0:
                        continue
                    if group["maximize"]:
                        g = -g
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    m = exp_avg[index]
                    m = m + (g - m) * (1 - beta1)
                    v = exp_avg_sq[index]
                    v = v + (g * g - v) * (1 - beta2)
                    exp_avg[index] = m
                    exp_avg_sq[index] = v
                    step = state["step"]
                    step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
                    p[index] = p[index] - step_size * (m / (v.sqrt() + eps))
        return loss
