"""Helpers the distributions share: turning numbers into tensors of one
shape, and converting between probabilities and logits."""
import numbers

import monoflow as flow


def broadcast_all(*values):
    """Broadcasts tensors and Python numbers to one shape (numbers take the
    first tensor's dtype, or the default dtype when there is none)."""
    tensors = [v for v in values if isinstance(v, flow.Tensor)]
    for v in values:
        if not isinstance(v, (flow.Tensor, numbers.Number)):
            raise ValueError(f"broadcast_all(): input arguments must all be instances of numbers.Number or Tensor, not {type(v).__name__}")
    dtype = tensors[0].dtype if tensors else flow.get_default_dtype()
    like = [v if isinstance(v, flow.Tensor) else flow.tensor(float(v), dtype=dtype) for v in values]
    return flow.broadcast_tensors(*like)


def clamp_probs(probs):
    """Keeps probabilities inside (0, 1) by the dtype's eps so that their logs stay finite."""
    eps = flow.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    return flow.sigmoid(logits) if is_binary else flow.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    ps = clamp_probs(probs)
    return flow.log(ps) - flow.log1p(-ps) if is_binary else flow.log(ps)


class lazy_property:
    """A property computed on first use and then stored on the instance
    (how a distribution built from logits gets its probs only when asked)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with flow.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
