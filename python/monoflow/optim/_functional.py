"""Fused-update helpers the optimizers use: thin names over the core's fused
kernels (one pass over memory, no temporaries), rounding as torch's
``addcmul_``/``addcdiv_``/``add_(x, alpha=)``: ``t + value * a * b``,
``t + value * a / b`` and ``t + alpha * x``.
"""
from monoflow import _C


def addcmul_(t, a, b, value=1):
    """t += value * a * b, in place."""
    return _C.addcmul_(t, a, b, value)


def addcdiv_(t, a, b, value=1):
    """t += value * (a / b), in place."""
    return _C.addcdiv_(t, a, b, value)


def axpy_(t, x, alpha):
    """t += alpha * x, in place (alpha == 1 and -1 are plain add_/sub_)."""
    if alpha == 1:
        return t.add_(x)
    if alpha == -1:
        return t.sub_(x)
    return _C.add_alpha_(t, x, alpha)
