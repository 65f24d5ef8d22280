"""Fused-update helpers the optimizers compose from the core's in-place ops.

torch has ``addcmul_``/``addcdiv_``; the core does not (yet), so these build
them from two or three elementwise kernels, in the order torch's kernels
round: ``t + value * a * b`` and ``t + value * (a / b)``. One temporary each,
from the caching allocator.
"""


def addcmul_(t, a, b, value=1):
    """t += value * a * b, in place."""
    tmp = a * b if value == 1 else (a * value).mul_(b)
    return t.add_(tmp)


def addcdiv_(t, a, b, value=1):
    """t += value * (a / b), in place."""
    tmp = a / b
    if value != 1:
        tmp.mul_(value)
    return t.add_(tmp)


def axpy_(t, x, alpha):
    """t += alpha * x, in place (Tensor.add_ with alpha, written out so that
    alpha == -1 and 1 need no temporary)."""
    if alpha == 1:
        return t.add_(x)
    if alpha == -1:
        return t.sub_(x)
    return t.add_(x * alpha)
