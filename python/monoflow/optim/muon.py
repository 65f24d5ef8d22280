"""Muon (torch.optim.Muon; Jordan et al., 2024): momentum whose update is orthogonalised.

For a 2-D parameter each step keeps an exponential average of the gradient (the momentum buffer),
takes the update ``g + momentum * (buf - g)`` (Nesterov) or ``buf``, and replaces it by an
approximate orthogonal factor ``U V^T`` of its SVD with a few quintic Newton-Schulz iterations run
in bfloat16 (on the wide orientation, after scaling to unit Frobenius norm):

    X <- a X + (b A + c A A) X,   A = X X^T

Decoupled weight decay, then ``p -= lr' * X``, where lr' scales lr by the matrix's shape
(``sqrt(max(1, rows / cols))``, or ``0.2 sqrt(max(rows, cols))`` to match AdamW's update size).
"""
import math

from monoflow import _creation, _dtypes
from monoflow import ops_linalg as _ops_linalg
from monoflow.autograd import no_grad
from monoflow.optim.optimizer import Optimizer

__all__ = ["Muon"]

_NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)


def _orthogonalize(update, coefficients, steps, eps):
    """The Newton-Schulz approximation of update's orthogonal factor, in bfloat16."""
    a, b, c = coefficients
    tall = update.shape[0] > update.shape[1]
    x = update.to(_dtypes.bfloat16)
    if tall:
        x = x.t()
    x = x / x.norm().clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.t()
        x = _ops_linalg.addmm(x, _ops_linalg.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.t() if tall else x


def _lr_scale(shape, rule):
    rows, cols = shape[0], shape[1]
    if rule is None or rule == "original":
        return math.sqrt(max(1.0, rows / cols))
    return 0.2 * math.sqrt(max(rows, cols))  # "match_rms_adamw"


class Muon(Optimizer):
    """Muon for 2-D parameters (hidden layers' weight matrices): SGD momentum whose update is
    orthogonalised by Newton-Schulz iterations (torch's ``optim.Muon``). Give the other parameters
    (biases, embeddings, norms) to another optimizer such as AdamW.

    Args:
        params (iterable): 2-D tensors to optimize, or dicts defining parameter groups.
        lr (float): the learning rate. Default: ``1e-3``.
        weight_decay (float): decoupled weight decay (``p *= 1 - lr * weight_decay``). Default: ``0.1``.
        momentum (float): the momentum buffer's averaging factor. Default: ``0.95``.
        nesterov (bool): Nesterov momentum. Default: ``True``.
        ns_coefficients (tuple of 3 floats): the quintic iteration's ``(a, b, c)``.
            Default: ``(3.4445, -4.775, 2.0315)``.
        eps (float): the smallest norm the update is divided by. Default: ``1e-7``.
        ns_steps (int): Newton-Schulz iterations (fewer than 100). Default: ``5``.
        adjust_lr_fn (str, optional): ``"original"`` (default, ``None``) or ``"match_rms_adamw"``.

    Example::

        >>> w = nn.Parameter(flow.ones(3, 2))
        >>> opt = flow.optim.Muon([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.shape
        monoflow.Size([3, 2])
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=_NS_COEFFICIENTS, eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        if len(ns_coefficients) != 3:
            raise ValueError("Muon: ns_coefficients must be a tuple of exactly 3 values")
        if not 0 <= ns_steps < 100:
            raise ValueError("Muon: ns_steps must be less than 100 for computational efficiency")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=tuple(ns_coefficients), eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{tuple(p.shape)}")

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                lr = self._group_lr(group)
                m = group["momentum"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.is_complex():
                        raise RuntimeError("Muon does not support complex parameters")
                    p, g, state = self._shards(p)
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = _creation.zeros_like(g)
                    buf = state["momentum_buffer"].lerp_(g, 1 - m)
                    update = g.lerp(buf, m) if group["nesterov"] else buf
                    update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                    p.mul_(1 - lr * group["weight_decay"])
                    p.add_(update, alpha=-lr * _lr_scale(p.shape, group["adjust_lr_fn"]))
        return loss
