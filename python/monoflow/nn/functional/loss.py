"""Loss functions of torch.nn.functional. cross_entropy and nll_loss are the
core's fused ops (monoflow._losses); the others are short compositions of
differentiable ops written in torch's numerically stable forms."""
import warnings

from monoflow import _C, _autocast, _composite
from monoflow import ops_math as _m
from monoflow._losses import _flag, _legacy_reduction, cross_entropy, nll_loss  # noqa: F401 - the core's fused ops
from monoflow.autograd.function import Function as _Function

__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss",
           "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "triplet_margin_loss"]


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    return reduction


def _reduce(loss, reduction):
    if isinstance(reduction, str):  # (a tensor or an array compared to a str: no bool)
        if reduction == "none":
            return loss
        if reduction == "mean":
            return loss.mean()
        if reduction == "sum":
            return loss.sum()
    raise ValueError(_C.name_op_in_progress(f"{reduction} is not a valid value for reduction (Reduction should be none, sum or mean.)"))


def _check_pair(op, input, target):
    if not isinstance(input, _C.TensorBase) or not isinstance(target, _C.TensorBase):
        raise TypeError(f"{op}(): input and target must be Tensors")
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


@_autocast.fp32
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target) ** 2``, reduced. See :class:`~monoflow.nn.MSELoss`.

    A target whose shape differs from the input's is broadcast, with torch's warning.

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target, the shape of ``input``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        weight (Tensor, optional): a weight multiplied into the per-element loss (broadcast). Default:
            ``None``.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> F.mse_loss(x, y)
        tensor(1.4167)
    """
    _C.check_tensor(input, "mse_loss", "input", 1)
    _check_pair("mse_loss", input, target)
    d = input - target
    loss = d * d
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, _reduction(reduction, size_average, reduce))


@_autocast.fp32
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, reduced. See :class:`~monoflow.nn.L1Loss`.

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target, the shape of ``input``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        weight (Tensor, optional): a weight multiplied into the per-element loss (broadcast). Default:
            ``None``.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> F.l1_loss(x, y, reduction='sum')
        tensor(2.5000)
    """
    _C.check_tensor(input, "l1_loss", "input", 1)
    _check_pair("l1_loss", input, target)
    loss = (input - target).abs()
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, _reduction(reduction, size_average, reduce))


@_autocast.fp32
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Smooth L1 loss: ``0.5 * d ** 2 / beta`` where ``|d| < beta``, ``|d| - beta / 2`` elsewhere (L1 for
    ``beta = 0``). See :class:`~monoflow.nn.SmoothL1Loss`.

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target, the shape of ``input``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        beta (float): the end of the quadratic part. Default: ``1.0``.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> F.smooth_l1_loss(x, y)
        tensor(0.5417)
    """
    _C.check_tensor(input, "smooth_l1_loss", "input", 1)
    _check_pair("smooth_l1_loss", input, target)
    if _C.check_float(beta, "smooth_l1_loss", "beta", 6) < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = (input - target).abs()
    loss = d if beta == 0 else _m.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, _reduction(reduction, size_average, reduce))


@_autocast.fp32
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Huber loss: ``0.5 * d ** 2`` where ``|d| < delta``, ``delta * (|d| - delta / 2)`` elsewhere. See
    :class:`~monoflow.nn.HuberLoss`.

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target, the shape of ``input``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        delta (float): the end of the quadratic part. Default: ``1.0``.
        weight (Tensor, optional): a weight multiplied into the per-element loss (broadcast). Default:
            ``None``.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> F.huber_loss(x, y, delta=0.5)
        tensor(0.3333)
    """
    _C.check_tensor(input, "huber_loss", "input", 1)
    _C.check_optional_tensor(weight, "huber_loss", "weight", 5)
    _check_pair("huber_loss", input, target)
    if _C.check_float(delta, "huber_loss", "delta", 4) <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = (input - target).abs()
    loss = _m.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@_autocast.fp32
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy ``-(t * log(x) + (1 - t) * log(1 - x))`` of probabilities; each log is clamped
    at -100, as torch does. See :class:`~monoflow.nn.BCELoss`.

    Args:
        input (Tensor): probabilities in ``[0, 1]``.
        target (Tensor): targets in ``[0, 1]``, the shape of ``input``.
        weight (Tensor, optional): a rescaling weight, broadcast. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.binary_cross_entropy(flow.tensor([0.9, 0.2]), flow.tensor([1.0, 0.0]))
        tensor(0.1643)
    """
    _C.check_tensor(input, "binary_cross_entropy", "input", 1)
    _C.check_tensor(target, "binary_cross_entropy", "target", 2)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"binary_cross_entropy(): Using a target size ({target.shape}) that is different to the "
                         f"input size ({input.shape}) is deprecated. Please ensure they have the same size.")
    if input.is_global or target.is_global:
        # autograd.Function records local tensors only: a global pair takes the composite,
        # whose gradient is torch's except at probabilities of exactly 0 or 1
        loss = _bce_elementwise(input, target)
    else:
        loss = _BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, _reduction(reduction, size_average, reduce))


def _bce_elementwise(x, t):
    return -(t * _m.log(x).clamp_min(-100) + (1 - t) * _m.log(1 - x).clamp_min(-100))


class _BinaryCrossEntropy(_Function):
    """The per-element loss with torch's gradients. Through the clamped logs of the
    composite, an input at exactly 0 or 1 (a saturated sigmoid) got 0 * inf = nan;
    torch's gradient is (x - t) / max(x (1 - x), 1e-12), large but finite."""

    @staticmethod
    def forward(ctx, x, t):
        ctx.save_for_backward(x, t)  # (for the in-place modification check)
        ctx.inputs = x, t  # not detached, so that create_graph=True differentiates the gradient again
        return _bce_elementwise(x, t)

    @staticmethod
    def backward(ctx, g):
        ctx.saved_tensors
        x, t = ctx.inputs
        gx = gt = None
        if ctx.needs_input_grad[0]:
            gx = g * (x - t) / ((1 - x) * x).clamp_min(1e-12)
        if ctx.needs_input_grad[1]:
            gt = g * (_m.log(1 - x) - _m.log(x))  # (torch's: unclamped, inf at x = 0 or 1)
        return gx, gt


@_autocast.fp32
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Sigmoid and binary cross entropy in one stable expression: ``(1 - t) * x + (1 + (pos_weight - 1) *
    t) * softplus(-x)``. See :class:`~monoflow.nn.BCEWithLogitsLoss`.

    A target whose shape differs from the input's raises ``ValueError``.

    Args:
        input (Tensor): logits.
        target (Tensor): targets in ``[0, 1]``, the shape of ``input``.
        weight (Tensor, optional): a rescaling weight, broadcast. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        pos_weight (Tensor, optional): the weight of positive examples, per class (last dim). Default:
            ``None``.

    Example::

        >>> F.binary_cross_entropy_with_logits(flow.tensor([2.0, -1.0]), flow.tensor([1.0, 0.0]))
        tensor(0.2201)
    """
    _C.check_tensor(input, "binary_cross_entropy_with_logits", "input", 1)
    _C.check_tensor(target, "binary_cross_entropy_with_logits", "target", 2)
    _C.check_optional_tensor(weight, "binary_cross_entropy_with_logits", "weight", 3)
    _C.check_optional_tensor(pos_weight, "binary_cross_entropy_with_logits", "pos_weight", 7)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"binary_cross_entropy_with_logits(): Target size ({target.shape}) must be the same as "
                         f"input size ({input.shape})")
    neg_logsig = _m.softplus(-input)  # -log(sigmoid(x)), finite for any x
    if pos_weight is None:
        loss = (1 - target) * input + neg_logsig
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * neg_logsig
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, _reduction(reduction, size_average, reduce))


@_autocast.fp32
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence ``target * (log(target) - input)`` pointwise, ``input`` holding
    log-probabilities (0 where ``target <= 0``, as OneFlow). See :class:`~monoflow.nn.KLDivLoss`.

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities with ``log_target``).
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'``, ``'batchmean'`` (sum / batch size, the true KL divergence),
            ``'mean'`` (warns) or ``'sum'``. Default: ``'mean'``.
        log_target (bool): ``target`` holds log-probabilities. Default: ``False``.

    Example::

        >>> logq = F.log_softmax(flow.tensor([[1.0, 2.0, 3.0]]), dim=1)
        >>> F.kl_div(logq, flow.tensor([[0.2, 0.3, 0.5]]), reduction='batchmean')
        tensor(0.0780)
    """
    _C.check_tensor(input, "kl_div", "input", 1)
    _C.check_tensor(target, "kl_div", "target", 2)
    if not all(t.dtype.is_floating_point or t.dtype.is_complex for t in (input, target)):
        raise RuntimeError("kl_div: Integral inputs not supported.")  # (as torch; they gave a number)
    if _composite.flag("kl_div", "log_target", log_target):
        loss = _m.exp(target) * (target - input)
    else:
        pos = target > 0
        # OneFlow's rule: the pointwise loss is 0 wherever target <= 0 (0 * log 0 = 0 as in torch; a negative
        # target, which torch turns into NaN, gives 0 and no gradient), and no NaN gradient through the mask.
        loss = _m.where(pos, target * (_m.log(_m.where(pos, target, 1.0)) - input), 0.0)
    reduction = _reduction(reduction, size_average, reduce)
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    return _reduce(loss, reduction)


@_autocast.fp32
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Two-class logistic loss ``log(1 + exp(-y * x))``, targets in ``{1, -1}``. See
    :class:`~monoflow.nn.SoftMarginLoss`.

    Args:
        input (Tensor): the scores.
        target (Tensor): 1 or -1, the shape of ``input``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.soft_margin_loss(flow.tensor([0.5, -2.0]), flow.tensor([1.0, -1.0]))
        tensor(0.3005)
    """
    _C.check_tensor(input, "soft_margin_loss", "input", 1)
    _C.check_tensor(target, "soft_margin_loss", "target", 2)
    return _reduce(_m.softplus(-target * input), _reduction(reduction, size_average, reduce))


@_autocast.fp32
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """Ranking loss ``max(0, -y * (x1 - x2) + margin)``. See :class:`~monoflow.nn.MarginRankingLoss`.

    Args:
        input1 (Tensor): the first scores.
        input2 (Tensor): the second scores.
        target (Tensor): 1 (input1 should rank higher) or -1.
        margin (float): the required gap. Default: ``0.0``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.margin_ranking_loss(flow.tensor([1.0, 0.2]), flow.tensor([0.5, 0.8]), flow.tensor([1.0, 1.0]))
        tensor(0.3000)
    """
    _C.check_tensor(input1, "margin_ranking_loss", "input1", 1)
    _C.check_tensor(input2, "margin_ranking_loss", "input2", 2)
    _C.check_tensor(target, "margin_ranking_loss", "target", 3)
    _C.check_float(margin, "margin_ranking_loss", "margin", 4)
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), _reduction(reduction, size_average, reduce))


@_autocast.fp32
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """Hinge embedding loss: ``x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1``. See
    :class:`~monoflow.nn.HingeEmbeddingLoss`.

    Args:
        input (Tensor): the inputs (usually distances).
        target (Tensor): 1 or -1, the shape of ``input``.
        margin (float): the margin. Default: ``1.0``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.hinge_embedding_loss(flow.tensor([0.3, 0.4]), flow.tensor([1.0, -1.0]))
        tensor(0.4500)
    """
    _C.check_tensor(input, "hinge_embedding_loss", "input", 1)
    _C.check_tensor(target, "hinge_embedding_loss", "target", 2)
    _C.check_float(margin, "hinge_embedding_loss", "margin", 3)
    # torch's (and OneFlow's) rule for any target: the hinge where target != 1, input where target != -1
    loss = _m.where(target != 1, (margin - input).clamp_min(0), 0.0) + _m.where(target != -1, input, 0.0)
    return _reduce(loss, _reduction(reduction, size_average, reduce))


@_autocast.fp32
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """Cosine embedding loss: ``1 - cos`` where ``y = 1``, ``max(0, cos - margin)`` where ``y = -1``,
    ``cos`` along the last dim. See :class:`~monoflow.nn.CosineEmbeddingLoss`.

    Args:
        input1 (Tensor): ``(N, D)`` or ``(D,)``.
        input2 (Tensor): the shape of ``input1``.
        target (Tensor): ``(N,)`` or ``()``, 1 or -1.
        margin (float): in ``[-1, 1]``. Default: ``0.0``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> a, b = flow.tensor([[1.0, 0.0]]), flow.tensor([[1.0, 1.0]])
        >>> F.cosine_embedding_loss(a, b, flow.tensor([1.0]))
        tensor(0.2929)
    """
    _C.check_tensor(input1, "cosine_embedding_loss", "input1", 1)
    _C.check_tensor(input2, "cosine_embedding_loss", "input2", 2)
    _C.check_tensor(target, "cosine_embedding_loss", "target", 3)
    _C.check_float(margin, "cosine_embedding_loss", "margin", 4)
    # torch's formula: the product of the squared norms (each + 1e-12) under one square root, so that
    # equal inputs give cos == 1 exactly (a 0 loss)
    prod_sum = (input1 * input2).sum(-1)
    mag_square1 = (input1 * input1).sum(-1) + 1e-12
    mag_square2 = (input2 * input2).sum(-1) + 1e-12
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    # (a target other than 1 and -1 contributes 0, as torch)
    loss = _m.where(target == 1, 1 - cos, 0.0) + _m.where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(loss, _reduction(reduction, size_average, reduce))


@_autocast.fp32
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log likelihood: ``exp(x) - t * x`` for a log-rate input, ``x - t * log(x + eps)``
    otherwise. See :class:`~monoflow.nn.PoissonNLLLoss`.

    Args:
        input (Tensor): the (log-)rate.
        target (Tensor): the counts, the shape of ``input``.
        log_input (bool): ``input`` is the log of the rate. Default: ``True``.
        full (bool): add the Stirling term for targets ``> 1``. Default: ``False``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        eps (float): keeps ``log`` finite when ``log_input=False``. Default: ``1e-8``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.poisson_nll_loss(flow.tensor([0.0, 1.0]), flow.tensor([1.0, 3.0]))
        tensor(0.3591)
    """
    import math

    _C.check_tensor(input, "poisson_nll_loss", "input", 1)
    _C.check_tensor(target, "poisson_nll_loss", "target", 2)
    _C.check_float(eps, "poisson_nll_loss", "eps", 6)
    log_input, full = _flag("log_input", log_input, False), _flag("full", full, False)
    if log_input:
        loss = _m.exp(input) - target * input
    else:
        loss = input - target * _m.log(input + eps)
    if full:
        t = target
        stirling = t * _m.log(_m.where(t > 1, t, 1.0)) - t + 0.5 * _m.log(2 * math.pi * _m.where(t > 1, t, 1.0))
        loss = loss + _m.where(t > 1, stirling, 0.0)
    return _reduce(loss, _reduction(reduction, size_average, reduce))


@_autocast.fp32
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood ``0.5 * (log(var) + (input - target) ** 2 / var)``. See
    :class:`~monoflow.nn.GaussianNLLLoss`.

    A negative ``var`` raises ``ValueError``.

    Args:
        input (Tensor): the predicted means.
        target (Tensor): the targets, the shape of ``input``.
        var (Tensor): the predicted variances: the input's shape, or with the last dim 1 or dropped.
        full (bool): add ``0.5 * log(2 * pi)``. Default: ``False``.
        eps (float): lower clamp of ``var``. Default: ``1e-6``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.gaussian_nll_loss(flow.tensor([0.0, 1.0]), flow.tensor([0.5, 1.0]), flow.tensor([1.0, 1.0]))
        tensor(0.0625)
    """
    _C.check_tensor(input, "gaussian_nll_loss", "input", 1)
    _C.check_tensor(target, "gaussian_nll_loss", "target", 2)
    import math

    from monoflow.autograd.grad_mode import no_grad

    if not isinstance(var, _C.TensorBase):  # a float: one variance for every element, as torch
        if isinstance(var, bool) or not isinstance(var, (int, float)):
            raise TypeError(f"gaussian_nll_loss(): argument 'var' (position 3) must be Tensor or float, not "
                            f"{type(var).__name__}")
        if var < 0:
            raise ValueError("gaussian_nll_loss(): var has negative entry/entries")
        from monoflow._creation import full_like

        var = full_like(input, var)
    with no_grad():
        if bool((var < 0).any()):
            raise ValueError("gaussian_nll_loss(): var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(var.shape) == tuple(input.shape[:-1]):  # homoscedastic: one variance per row
            var = var.unsqueeze(-1)
        elif var.dim() != input.dim() or sum(v for i, v in zip(input.shape, var.shape) if i != v) != 1:
            raise ValueError("gaussian_nll_loss(): var is of incorrect size")
    var = var.clamp_min(eps)
    loss = 0.5 * (_m.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@_autocast.fp32
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """Triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with the p-norm distance. See
    :class:`~monoflow.nn.TripletMarginLoss`.

    Args:
        anchor (Tensor): ``(N, D)`` or ``(D,)``.
        positive (Tensor): the anchor's shape.
        negative (Tensor): the anchor's shape.
        margin (float): the gap. Default: ``1.0``.
        p (float): norm degree. Default: ``2.0``.
        eps (float): stabiliser of the distance. Default: ``1e-6``.
        swap (bool): use the distance swap. Default: ``False``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> a = flow.tensor([[0.0, 0.0]])
        >>> F.triplet_margin_loss(a, flow.tensor([[1.0, 0.0]]), flow.tensor([[0.0, 3.0]]))
        tensor(0.)
    """
    _C.check_tensor(anchor, "triplet_margin_loss", "anchor", 1)
    _C.check_tensor(positive, "triplet_margin_loss", "positive", 2)
    _C.check_tensor(negative, "triplet_margin_loss", "negative", 3)
    _C.check_float(margin, "triplet_margin_loss", "margin", 4)
    from monoflow.nn.functional.distance import pairwise_distance

    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp_min(0), _reduction(reduction, size_average, reduce))
