"""Rprop (torch.optim.Rprop): per-element step sizes grown by etaplus while
the gradient keeps its sign and shrunk by etaminus when it flips (that
element then skips its update); parameters move by sign(g) * step size."""
from monoflow import _creation
from monoflow.autograd import no_grad
from monoflow.optim._functional import addcmul_
from monoflow.optim._validate import check_impl_options, check_nonneg
from monoflow.optim.optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop: resilient backpropagation, moving each element by ``sign(g) * step_size``.

    Each element's step size grows by ``etaplus`` while its gradient keeps its
    sign and shrinks by ``etaminus`` when the sign flips (that element then skips
    its update), clamped to ``step_sizes``. The first step size is ``lr``.

    Args:
        params (iterable): the tensors to optimize, or dicts ``{"params": ..., option: value}``
            defining parameter groups with their own options.
        lr (float): initial step size. Default: ``1e-2``.
        etas (Tuple[float, float]): ``(etaminus, etaplus)``, with
            ``0 < etaminus < 1 < etaplus``. Default: ``(0.5, 1.2)``.
        step_sizes (Tuple[float, float]): minimal and maximal step size. Default: ``(1e-6, 50)``.
        capturable (bool): accepted for torch compatibility, changes nothing.
            Default: ``False``.
        foreach (bool, optional): accepted for torch compatibility; monoflow has one
            fused update, so it changes nothing. Default: ``None``.
        maximize (bool): maximize the objective (step along the gradient) instead of
            minimizing it. Default: ``False``.
        differentiable (bool): autograd through the step is not supported:
            ``True`` raises ``NotImplementedError``. Default: ``False``.

    Example::

        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.Rprop([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.9000, -1.9000])
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_nonneg(lr=lr)
        check_impl_options(type(self).__name__, differentiable)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        with no_grad(), self._shard_access():
            for group in self.param_groups:
                etaminus, etaplus = group["etas"]
                size_min, size_max = group["step_sizes"]
                for p, g, state in self._updates(group):
                    if len(state) == 0:
                        state["step"] = 0
                        state["prev"] = _creation.zeros_like(p)
                        state["step_size"] = _creation.full_like(g, self._group_lr(group))
                    state["step"] += 1
                    prev, step_size = state["prev"], state["step_size"]
                    sign = g.mul(prev).sign()
                    factor = (sign.masked_fill(sign.gt(0), etaplus).masked_fill(sign.lt(0), etaminus)
                              .masked_fill(sign.eq(0), 1))
                    step_size.mul_(factor).clamp_(size_min, size_max)
                    g = g.masked_fill(factor.eq(etaminus), 0)
                    addcmul_(p, g.sign(), step_size, -1)
                    prev.copy_(g)
        return loss
