"""Functions under the names and argument orders OneFlow's nn.functional gives them:
sparse_softmax_cross_entropy, l2_normalize."""
from monoflow import _C

__all__ = ["l2_normalize", "sparse_softmax_cross_entropy"]


def l2_normalize(input, dim=0, epsilon=1e-12):
    """OneFlow's ``nn.functional.l2_normalize``: ``input / sqrt(max(sum(input ** 2, dim), epsilon))``.

    Args:
        input (Tensor): the tensor to normalize.
        dim (int): the dim along which the L2 norm is taken. Default: ``0``.
        epsilon (float): the lower bound of the sum of squares. Default: ``1e-12``.

    Returns:
        Tensor: of ``input``'s shape; where the sum of squares is below ``epsilon`` the gradient is
        ``dy / sqrt(epsilon)``, as OneFlow's kernel.

    Example::

        >>> import monoflow as flow
        >>> flow.nn.functional.l2_normalize(flow.tensor([[3.0, 0.0], [4.0, 0.0]]), dim=0)
        tensor([[0.6000, 0.0000],
                [0.8000, 0.0000]])
    """
    input = _C.check_tensor(input, "l2_normalize", "input", 1)
    norm = input.square().sum(dim, keepdim=True).clamp(min=epsilon).sqrt()
    return input / norm


def check_sparse_labels(op, prediction, label):
    """OneFlow's checks and wording for a prediction (N, ..., C) and its integer labels (N, ...)
    (sparse_softmax_cross_entropy, oneflow._C.sparse_cross_entropy)."""
    if prediction.dim() < 2:
        raise RuntimeError(f"{op}(): The dimension of prediction must greater than or equal to 2, but got "
                           f"{prediction.dim()}")
    if label.dim() != prediction.dim() - 1:
        raise RuntimeError(f"{op}(): The dimension of label is expected to be less than that of prediction by 1, "
                           f"but got label of shape {list(label.shape)} and prediction of shape "
                           f"{list(prediction.shape)}")
    for i in range(label.dim()):
        if prediction.shape[i] != label.shape[i]:
            raise RuntimeError(f"{op}(): The size of prediction ({prediction.shape[i]}) at dimension {i} must match "
                               f"the size of label ({label.shape[i]})")
    if label.dtype.is_floating_point or label.dtype.is_complex or label.dtype.name == "bool":
        raise TypeError(f"{op}(): The dtype of label must be integer, but got {label.dtype}")


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
    check_sparse_labels("sparse_softmax_cross_entropy", logits, labels)
    from monoflow import _dtypes

    log_probs = logits.log_softmax(-1)
    picked = log_probs.gather(-1, labels.to(_dtypes.int64).unsqueeze(-1)).squeeze(-1)
    return -picked
