"""Adafactor (torch.optim.Adafactor; Shazeer & Stern, 2018), in torch's variant.

Memory-light second moments: for a matrix (or a batch of them, the last two dimensions) only a
row and a column average of ``g * g`` are kept, and their outer product, normalised by the rows'
mean, estimates the full second moment. Vectors keep a full running average. Each step:

    t += 1;  decay = t ** beta2_decay;  rho = min(lr, 1 / sqrt(t))
    alpha = max(eps2, rms(p)) * rho                   (rms(p) before weight decay)
    p *= 1 - lr * weight_decay
    rows  <- lerp(rows, mean(g*g, dim=-1), decay);  cols <- lerp(cols, mean(g*g, dim=-2), decay)
    v = rows @ cols / max(mean(rows, dim=-2), eps1)   (a vector: v <- lerp(v, g*g, decay))
    u = g / sqrt(max(v, eps1^2));  p -= alpha / max(1, rms(u) / d) * u
"""
import math

from monoflow import _creation
from monoflow._type_info import finfo
from monoflow.autograd import no_grad
from monoflow.optim._validate import check_impl_options
from monoflow.optim.optimizer import Optimizer

__all__ = ["Adafactor"]


def _rms(t):
    return float(t.norm(2)) / math.sqrt(t.numel()) if t.numel() else 0.0


class Adafactor(Optimizer):
    """Adafactor: Adam-like steps whose second moment of a matrix is stored as one row and one
    column vector, with relative step sizes (torch's variant, no first moment).

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): the largest relative step, capped by ``1 / sqrt(step)``. Default: ``1e-2``.
        beta2_decay (float): the exponent of the running average's weight ``step ** beta2_decay``
            (at most 0). Default: ``-0.8``.
        eps (tuple of (float or None, float)): ``eps1`` added to the second moment (``None``: the
            dtype's machine epsilon) and ``eps2``, the smallest parameter scale. Default:
            ``(None, 1e-3)``.
        d (float): the clipping threshold of the update's root mean square. Default: ``1.0``.
        weight_decay (float): decoupled weight decay (``p *= 1 - lr * weight_decay``). Default: ``0``.
        foreach (bool, optional): accepted for torch compatibility, changes nothing. Default: ``None``.
        maximize (bool): maximize the objective (step along the gradient). Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.ones(2, 3))
        >>> opt = flow.optim.Adafactor([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> round(w[0, 0].item(), 4)
        0.9
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        check_impl_options("Adafactor", False)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr = self._group_lr(group)
                eps1, eps2 = group["eps"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.is_complex():
                        raise RuntimeError("Adafactor does not support complex parameters")
                    p, g, state = self._shards(p)
                    if group["maximize"]:
                        g = -g
                    self._update(p, g, state, group, lr, finfo(p.dtype).eps if eps1 is None else eps1,
                                 eps2)
        return loss

    @staticmethod
    def _update(p, g, state, group, lr, eps1, eps2):
        if not state:
            state["step"] = 0
            if g.dim() > 1:
                state["row_var"] = _creation.zeros(*g.shape[:-1], 1, dtype=p.dtype, device=p.device)
                state["col_var"] = _creation.zeros(*g.shape[:-2], 1, g.shape[-1], dtype=p.dtype, device=p.device)
            else:
                state["variance"] = _creation.zeros_like(p)
        step = state["step"] = state["step"] + 1
        decay = step ** group["beta2_decay"]
        alpha = max(eps2, _rms(p)) * min(lr, 1 / math.sqrt(step))
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        g2 = g * g
        if g.dim() > 1:
            rows, cols = state["row_var"], state["col_var"]
            rows.lerp_(g2.mean(-1, keepdim=True), decay)
            cols.lerp_(g2.mean(-2, keepdim=True), decay)
            v = (rows @ cols) / rows.mean(-2, keepdim=True).clamp(min=eps1)
        else:
            v = state["variance"].lerp_(g2, decay).clone()
        u = v.clamp_(min=eps1 * eps1).rsqrt_().mul_(g)
        p.add_(u, alpha=-alpha / max(1.0, _rms(u) / group["d"]))
