"""LAMB (OneFlow's flow.optim.LAMB): Adam's direction scaled per parameter by a trust ratio.

    g = grad + l2 * p                      (adam_w_mode=False: weight_decay is this l2)
    m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
    u = (m / bc1) / (sqrt(v) / sqrt(bc2) + eps)        (bc = 1 - beta^t; 1 without bias correction)
    r = ||p|| / ||u||  (1 when either norm is 0)
    p -= lr * r * (u + weight_decay * p)   (adam_w_mode=True: decoupled weight decay)

as OneFlow's lamb_update kernel computes it (the trust ratio from the Adam direction alone).
The ratio stays a tensor (no host read), so the step traces into an nn.Graph plan.
"""
from monoflow import _C, _creation
from monoflow import ops_math as _m
from monoflow.autograd import no_grad
from monoflow.optim._validate import check_betas, check_nonneg
from monoflow.optim.optimizer import Optimizer

__all__ = ["LAMB"]


class LAMB(Optimizer):
    """LAMB (layer-wise adaptive moments, for large-batch training; OneFlow's ``flow.optim.LAMB``).

    Each parameter takes Adam's step direction ``u`` scaled by the trust ratio ``||p|| / ||u||``
    (1 when either norm is zero): ``p -= lr * ratio * (u + weight_decay * p)``.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): learning rate. Default: ``1e-3``.
        betas (Tuple[float, float]): decay rates of the first and second moments.
            Default: ``(0.9, 0.999)``.
        eps (float): added to the denominator. Default: ``1e-8``.
        weight_decay (float): decoupled weight decay (``adam_w_mode=True``) or an L2 penalty added
            to the gradient (``adam_w_mode=False``). Default: ``0``.
        adam_w_mode (bool): decoupled weight decay, as AdamW. Default: ``True``.
        do_bias_correction (bool): divide the moments by ``1 - beta ** t``. Default: ``True``.
        amsgrad (bool): not supported (``True`` raises ``RuntimeError``, as OneFlow). Default: ``False``.
        contiguous_params (bool): OneFlow's option, accepted; changes nothing. Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.tensor([3.0, -4.0]))
        >>> opt = flow.optim.LAMB([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()  # ||w|| = 5, ||u|| = sqrt(2): the step is 0.1 * 5 / sqrt(2) per element
        tensor([ 2.6464, -3.6464])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, adam_w_mode=True,
                 do_bias_correction=True, amsgrad=False, contiguous_params=False):
        if amsgrad:
            raise RuntimeError("LAMB does not support AMSGrad variant.")
        check_nonneg(lr=lr, eps=eps, weight_decay=weight_decay)
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, adam_w_mode=adam_w_mode,
                        do_bias_correction=do_bias_correction, amsgrad=amsgrad, contiguous_params=contiguous_params)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr, (beta1, beta2) = self._group_lr(group), group["betas"]
                for p, g, state in self._updates(group):
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = _creation.zeros_like(p)
                        state["exp_avg_sq"] = _creation.zeros_like(p)
                    step = state["step"] = state["step"] + 1
                    if group["do_bias_correction"]:
                        bc1, bc2_sqrt = 1 - beta1 ** step, (1 - beta2 ** step) ** 0.5
                    else:
                        bc1 = bc2_sqrt = 1.0
                    lamb_update(group, p, g, state, -lr, bc1, bc2_sqrt)
        return loss


def lamb_update(group, p, g, state, neg_lr, bc1, bc2_sqrt):
    """One LAMB update of `p` (in place); neg_lr, bc1 (1 - beta1^t) and bc2_sqrt (sqrt(1 - beta2^t))
    are numbers in eager mode and 0-d tensors fed to an nn.Graph plan (nn/graph/optimizer_step.py),
    in the same order of operations."""
    (beta1, beta2), eps, wd = group["betas"], group["eps"], group["weight_decay"]
    decoupled = group["adam_w_mode"]
    if wd != 0 and not decoupled:
        g = _C.add_alpha(g, p, wd)
    m, v = state["exp_avg"], state["exp_avg_sq"]
    m.mul_(beta1).add_(g, alpha=1 - beta1)
    v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    u = (m / bc1) / (v.sqrt() / bc2_sqrt + eps)
    w_norm, u_norm = p.norm(), u.norm()
    ratio = _m.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, 1.0)
    if wd != 0 and decoupled:
        u = u.add(p, alpha=wd)
    p.add_(u * (ratio * neg_lr))
