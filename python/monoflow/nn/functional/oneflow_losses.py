"""Losses under the names and argument orders OneFlow's nn.functional gives them."""
from monoflow import _C

__all__ = ["sparse_softmax_cross_entropy"]


def sparse_softmax_cross_entropy(labels, logits):
    """OneFlow's ``nn.functional.sparse_softmax_cross_entropy``: per-example cross entropy of the
    softmax of ``logits`` over the last dim against integer class ``labels``, unreduced.

    ``out[i...] = logsumexp(logits[i..., :]) - logits[i..., labels[i...]]``, the same as
    ``cross_entropy(logits, labels, reduction="none")`` for 2-D logits (with the classes in the last
    dim for any rank).

    Args:
        labels (Tensor): int32/int64 class indices, of ``logits``' shape without its last dim.
        logits (Tensor): the unnormalized scores, classes in the last dim.

    Returns:
        Tensor: the losses, of ``labels``' shape and ``logits``' dtype; differentiable with respect
        to ``logits``.

    Example::

        >>> import monoflow as flow
        >>> logits = flow.tensor([[2.0, 0.0], [0.0, 0.0]])
        >>> flow.nn.functional.sparse_softmax_cross_entropy(labels=flow.tensor([0, 1]), logits=logits)
        tensor([0.1269, 0.6931])
    """
    labels = _C.check_tensor(labels, "sparse_softmax_cross_entropy", "labels", 1)
    logits = _C.check_tensor(logits, "sparse_softmax_cross_entropy", "logits", 2)
    if labels.dtype.is_floating_point or labels.dtype.is_complex or labels.dtype.name == "bool":
        raise TypeError(f"sparse_softmax_cross_entropy(): labels must be an integer tensor, got {labels.dtype}")
    if logits.dim() < 1 or tuple(labels.shape) != tuple(logits.shape[:-1]):
        raise RuntimeError(f"sparse_softmax_cross_entropy(): labels of shape {list(labels.shape)} must be "
                           f"logits' shape {list(logits.shape)} without its last dim")
    from monoflow import _dtypes

    log_probs = logits.log_softmax(-1)
    picked = log_probs.gather(-1, labels.to(_dtypes.int64).unsqueeze(-1)).squeeze(-1)
    return -picked
