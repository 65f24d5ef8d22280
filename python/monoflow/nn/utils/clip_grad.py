"""Gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_)."""
import math
import warnings

from monoflow import _C
from monoflow.autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"]


def _grads(parameters):
    if isinstance(parameters, _C.TensorBase):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint norm (as if they were
    one vector) is at most max_norm. Returns that total norm (before clipping)."""
    from monoflow._creation import tensor as _tensor
    from monoflow.ops_shape import stack

    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not grads:
        return _tensor(0.0)
    with no_grad():
        if norm_type == math.inf:
            norms = [g.detach().abs().amax() for g in grads]
            total = norms[0] if len(norms) == 1 else stack([n.to(dtype=norms[0].dtype) for n in norms]).amax()
        else:
            norms = [g.detach().norm(norm_type) for g in grads]
            total = stack([n.to(dtype=norms[0].dtype) for n in norms]).norm(norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                               "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
                               "by the non-finite norm anyway, set `error_if_nonfinite=False`")
        # clamp instead of a Python branch: no host sync on the norm
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(dtype=g.dtype))
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`nn.utils.clip_grad_norm` is now deprecated in favor of `nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
