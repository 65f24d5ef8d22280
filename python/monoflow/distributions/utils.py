"""Helpers the distributions share: turning numbers into tensors of one
shape, and converting between probabilities and logits."""
import numbers

from monoflow._C import get_default_dtype
from monoflow._creation import tensor
from monoflow._tensor import Tensor
from monoflow._type_info import finfo
from monoflow.autograd.grad_mode import enable_grad
from monoflow.ops_join import broadcast_tensors
from monoflow.ops_layout import tril_indices
from monoflow.ops_math import log, log1p, sigmoid
from monoflow.ops_reduce import softmax

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def broadcast_all(*values):
    """Broadcasts tensors and Python numbers to one shape (numbers take the
    first tensor's dtype, or the default dtype when there is none)."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    for v in values:
        if not isinstance(v, (Tensor, numbers.Number)):
            raise ValueError(f"broadcast_all(): input arguments must all be instances of numbers.Number or Tensor, not {type(v).__name__}")
    dtype = tensors[0].dtype if tensors else get_default_dtype()
    like = [v if isinstance(v, Tensor) else tensor(float(v), dtype=dtype) for v in values]
    return broadcast_tensors(*like)


def clamp_probs(probs):
    """Keeps probabilities inside (0, 1) by the dtype's eps so that their logs stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    return sigmoid(logits) if is_binary else softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    ps = clamp_probs(probs)
    return log(ps) - log1p(-ps) if is_binary else log(ps)


class lazy_property:
    """A property computed on first use and then stored on the instance
    (how a distribution built from logits gets its probs only when asked)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def tril_matrix_to_vec(mat, diag=0):
    """The entries of the lower triangle (from diagonal ``diag``) of the last two dims of ``mat``, row by row,
    as a vector (torch.distributions.utils' helper)."""
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = tril_indices(n, n, offset=diag, device=mat.device)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of :func:`tril_matrix_to_vec`: a square matrix whose lower triangle (from diagonal ``diag``)
    holds ``vec`` row by row and is zero elsewhere."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = finfo(vec.dtype).eps
    if not round(n) - n < eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    n = round(n.item()) if isinstance(n, Tensor) else round(n)
    rows, cols = tril_indices(n, n, offset=diag, device=vec.device)
    index = rows * n + cols
    flat = vec.new_zeros(tuple(vec.shape[:-1]) + (n * n,))
    flat = flat.scatter(-1, index.expand(tuple(vec.shape[:-1]) + (index.shape[-1],)), vec)
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))

