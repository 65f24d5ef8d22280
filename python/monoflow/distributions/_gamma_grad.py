"""Implicit reparameterisation of Gamma(alpha, 1) samples: d x / d alpha = -(dP(alpha, x)/d alpha) / pdf(x),
P the regularised lower incomplete gamma function.

dP/d alpha is summed from the series P = sum_n x^(alpha+n) e^(-x) / Gamma(alpha+n+1), term by term in log
space on the host in float64 (digamma and lgamma of alpha+n+1 by their recurrences from alpha+1)."""
import math

import numpy as np

from monoflow._creation import tensor
from monoflow.ops_special import digamma


def _dx_dalpha(x, alpha):
    """float64 arrays of one shape -> d x / d alpha."""
    x = np.maximum(x, 1e-300)
    a = alpha
    n_terms = int(min(100000, np.max(x) + 12 * np.sqrt(np.max(x)) + 60))
    k = np.arange(1, n_terms + 1, dtype=np.float64).reshape((-1,) + (1,) * a.ndim)
    lg1 = np.vectorize(math.lgamma)(a + 1)
    dg1 = digamma(tensor(a + 1)).numpy()
    inv = np.concatenate([np.zeros((1,) + a.shape), np.cumsum(1.0 / (a + k), axis=0)[:-1]], axis=0)
    logs = np.concatenate([np.zeros((1,) + a.shape), np.cumsum(np.log(a + k), axis=0)[:-1]], axis=0)
    n = k - 1
    log_t = (a + n) * np.log(x) - x - (lg1 + logs)  # log of the n-th series term
    psi = dg1 + inv  # digamma(a + n + 1)
    peak = log_t.max(axis=0)
    dP = np.exp(peak) * np.sum(np.exp(log_t - peak) * (np.log(x) - psi), axis=0)
    log_pdf = (a - 1) * np.log(x) - x - (lg1 - np.log(a))
    return -dP / np.exp(log_pdf)


def _make():
    from monoflow.autograd import Function

    class StandardGamma(Function):
        @staticmethod
        def forward(ctx, alpha, sample):
            ctx.save_for_backward(alpha, sample)
            return sample.clone()

        @staticmethod
        def backward(ctx, grad):
            alpha, sample = ctx.saved_tensors
            d = _dx_dalpha(sample.detach().cpu().numpy().astype(np.float64),
                           alpha.detach().cpu().numpy().astype(np.float64))
            return grad * tensor(d, dtype=alpha.dtype, device=alpha.device), None

    return StandardGamma


_cls = []


def attach_gradient(alpha, sample):
    """`sample` (drawn from Gamma(alpha, 1)) as a function of alpha, with the implicit gradient."""
    if not _cls:
        _cls.append(_make())
    return _cls[0].apply(alpha, sample.detach())
