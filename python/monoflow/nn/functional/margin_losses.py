"""Multi-class and multi-label margin losses, and the triplet loss with a
custom distance (torch.nn.functional's), as compositions."""
from monoflow import _C
from monoflow import ops_math as _m
from monoflow.nn.functional.activation import logsigmoid
from monoflow.nn.functional.distance import pairwise_distance
from monoflow.nn.functional.loss import _reduce, _reduction

__all__ = ["multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
           "triplet_margin_with_distance_loss"]


def _two_d(input, target, op):
    if not isinstance(input, _C.TensorBase) or not isinstance(target, _C.TensorBase):
        raise TypeError(f"{op}(): input and target must be Tensors")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"{op}: expected 1D or 2D input, but got {input.dim()}D")
    return input.dim() == 1


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Multi-class hinge loss: ``sum over j != y of max(0, margin - x[y] + x[j]) ** p`` (times
    ``weight[y]``), divided by ``C``. See :class:`~monoflow.nn.MultiMarginLoss`.

    Args:
        input (Tensor): ``(N, C)`` or ``(C,)`` scores.
        target (Tensor): ``(N,)`` or ``()`` class indices.
        p (int): 1 or 2. Default: ``1``.
        margin (float): the margin. Default: ``1.0``.
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.multi_margin_loss(flow.tensor([[0.1, 0.2, 0.4, 0.8]]), flow.tensor([3]))
        tensor(0.3250)
    """
    _C.check_tensor(input, "multi_margin_loss", "input", 1)
    reduction = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("multi_margin_loss(): only p == 1 and p == 2 supported")
    unbatched = _two_d(input, target, "multi_margin_loss")
    x = input.unsqueeze(0) if unbatched else input
    y = target.reshape(-1)
    c = x.shape[1]
    picked = x.gather(1, y.unsqueeze(1))  # x[y], (N, 1)
    z = (x - picked + margin).clamp(min=0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, y).unsqueeze(1)
    from monoflow._creation import zeros_like

    not_target = zeros_like(z).scatter(1, y.unsqueeze(1), value=1.0).logical_not()
    loss = (z * not_target.to(z.dtype)).sum(1) / c
    loss = _reduce(loss, reduction)
    return loss.squeeze(0) if unbatched and reduction == "none" else loss


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: target classes are the target's entries before the first -1; sums ``max(0, 1
    - (x[j] - x[i]))`` over target ``j`` and non-target ``i``, divided by ``C``. See
    :class:`~monoflow.nn.MultiLabelMarginLoss`.

    Args:
        input (Tensor): ``(N, C)`` or ``(C,)`` scores.
        target (Tensor): int64 of the input's shape, padded with -1.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.multilabel_margin_loss(flow.tensor([[0.1, 0.2, 0.4, 0.8]]), flow.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    _C.check_tensor(input, "multilabel_margin_loss", "input", 1)
    reduction = _reduction(reduction, size_average, reduce)
    unbatched = _two_d(input, target, "multilabel_margin_loss")
    x = input.unsqueeze(0) if unbatched else input
    t = target.unsqueeze(0) if unbatched else target
    if tuple(t.shape) != tuple(x.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    n, c = x.shape
    from monoflow._creation import zeros
    from monoflow._dtypes import int64

    # the entries before the first -1 are targets; later ones are ignored
    valid = ((t < 0).to(int64).cumsum(1) == 0)
    is_target = zeros((n, c + 1), dtype=x.dtype, device=x.device).scatter_add(
        1, _m.where(valid, t, c), valid.to(x.dtype))[:, :c].clamp(max=1)
    hinge = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).clamp(min=0)  # [n, j, i]
    pair = is_target.unsqueeze(2) * (1 - is_target).unsqueeze(1)
    loss = (hinge * pair).sum((1, 2)) / c
    loss = _reduce(loss, reduction)
    return loss.squeeze(0) if unbatched and reduction == "none" else loss


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Multi-label one-versus-all logistic loss, averaged over the classes. See
    :class:`~monoflow.nn.MultiLabelSoftMarginLoss`.

    Args:
        input (Tensor): ``(N, C)`` scores.
        target (Tensor): ``(N, C)`` of 0 and 1.
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.multilabel_soft_margin_loss(flow.tensor([[2.0, -1.0, 0.5]]), flow.tensor([[1.0, 0.0, 1.0]]))
        tensor(0.3048)
    """
    _C.check_tensor(input, "multilabel_soft_margin_loss", "input", 1)
    _C.check_tensor(target, "multilabel_soft_margin_loss", "target", 2)
    if input.dim() == 0:
        raise IndexError("multilabel_soft_margin_loss(): Dimension specified as -1 but tensor has no dimensions")
    reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=input.dim() - 1) / input.shape[-1]
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """Triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with ``d = distance_function`` (pairwise
    distance by default). See :class:`~monoflow.nn.TripletMarginWithDistanceLoss`.

    Args:
        anchor (Tensor): the anchors.
        positive (Tensor): the positive examples.
        negative (Tensor): the negative examples.
        distance_function (callable, optional): ``(x1, x2) -> distances``. Default: ``None`` (pairwise
            distance).
        margin (float): must be positive (else ``ValueError``). Default: ``1.0``.
        swap (bool): use the distance swap. Default: ``False``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> a = flow.tensor([[0.0, 0.0]])
        >>> F.triplet_margin_with_distance_loss(a, flow.tensor([[1.0, 0.0]]), flow.tensor([[0.0, 3.0]]))
        tensor(0.)
    """
    _C.check_tensor(anchor, "triplet_margin_with_distance_loss", "anchor", 1)
    _C.check_tensor(positive, "triplet_margin_with_distance_loss", "positive", 2)
    _C.check_tensor(negative, "triplet_margin_with_distance_loss", "negative", 3)
    if distance_function is not None and not callable(distance_function):
        raise TypeError(f"triplet_margin_with_distance_loss(): argument 'distance_function' must be callable, not "
                        f"{type(distance_function).__name__}")
    if _C.check_float(margin, "triplet_margin_with_distance_loss", "margin") <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)
