"""Loss layers: Modules holding a loss's options (and weight buffers) over nn.functional."""
from monoflow.nn import functional as F
from monoflow.nn.functional.loss import _legacy_reduction
from monoflow.nn.module import Module

__all__ = ["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "NLLLoss", "CrossEntropyLoss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss", "SoftMarginLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
           "CosineEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss", "TripletMarginLoss", "MultiMarginLoss",
           "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginWithDistanceLoss", "NLLLoss2d"]


def _oneflow_order(size_average, reduce, extra, default):
    """OneFlow's loss layers take ``reduction`` where torch has ``size_average``
    (``nn.L1Loss("sum")``, ``nn.SmoothL1Loss("mean", 0.5)``): a string there is
    OneFlow's positional reduction, and the next positional (torch's ``reduce``)
    is OneFlow's following argument (``beta``, ``log_target``, ``pos_weight``).
    Returns ``(size_average, reduce, reduction_or_None, extra)``."""
    if not isinstance(size_average, str):
        return size_average, reduce, None, extra
    if reduce is not None:
        if extra is not default:
            raise TypeError("loss: the argument after reduction given both positionally and by keyword")
        extra = reduce
    return None, None, size_average, extra


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if isinstance(size_average, str):  # OneFlow's order: (reduction, ...)
            if reduce is not None:
                raise TypeError(f"{type(self).__name__}: unexpected positional argument after reduction "
                                f"{size_average!r}")
            size_average, reduction = None, size_average
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """The mean absolute error ``|input - target|`` between each element of the input and the target.

    Args:
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> nn.L1Loss()(x, y)
        tensor(0.8333)
        >>> nn.L1Loss(reduction='none')(x, y)
        tensor([0.5000, 2.0000, 0.0000])
    """

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """The mean squared error ``(input - target) ** 2`` between each element of the input and the target.

    Args:
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> nn.MSELoss()(x, y)
        tensor(1.4167)
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Smooth L1 loss: ``0.5 * d ** 2 / beta`` where ``|d| < beta``, ``|d| - beta / 2`` elsewhere, with ``d
    = input - target``.

    Args:
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        beta (float): where the quadratic part ends; ``0`` gives the L1 loss. Default: ``1.0``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> nn.SmoothL1Loss(beta=1.0)(x, y)
        tensor(0.5417)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        size_average, reduce, r, beta = _oneflow_order(size_average, reduce, beta, 1.0)
        super().__init__(size_average, reduce, r or reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss: ``0.5 * d ** 2`` where ``|d| < delta``, ``delta * (|d| - delta / 2)`` elsewhere, with
    ``d = input - target``.

    Args:
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        delta (float): where the quadratic part ends. Default: ``1.0``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> nn.HuberLoss(delta=0.5)(x, y)
        tensor(0.3333)
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """The negative log likelihood loss of log-probabilities (e.g. the output of :class:`LogSoftmax`) for
    class-index targets.

    With ``reduction='mean'`` the sum is divided by the total weight of the non-ignored targets.

    Args:
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        ignore_index (int): a target value that contributes neither to the loss nor to the mean's
            denominator. Default: ``-100``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        - Target: ``(N,)``, ``()`` or ``(N, d1, ...)``, int64 in ``[0, C)``.
        - Output: a scalar; with ``reduction='none'``, the shape of the target.

    Example::

        >>> logp = F.log_softmax(flow.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]]), dim=1)
        >>> nn.NLLLoss()(logp, flow.tensor([0, 1]))
        tensor(0.3964)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        if isinstance(ignore_index, str) and not isinstance(size_average, (bool, type(None))):
            # OneFlow's order (weight, ignore_index, reduction): NLLLoss(w, -100, "sum")
            size_average, ignore_index, reduction = None, size_average, ignore_index
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """The cross entropy between logits and targets: softmax over the classes, then the negative log
    likelihood.

    ``input`` holds unnormalised scores (logits) with the classes at dim 1 (dim 0 for an unbatched
    ``(C,)`` input). ``target`` is either class indices (int64, without the class dim) or class
    probabilities (floating, the shape of ``input``). Computed as one fused op:
    ``nll_loss(log_softmax(input, 1), target)``.

    Args:
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        ignore_index (int): a target value that contributes neither to the loss nor to the mean's
            denominator. Default: ``-100``. Only for class-index targets.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        label_smoothing (float): in ``[0, 1]``; mixes the target with the uniform distribution over the
            classes. Default: ``0.0``.

    Shape:
        - Input: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        - Target: class indices ``(N,)``, ``()`` or ``(N, d1, ...)``; or probabilities of the input's
          shape.
        - Output: a scalar; with ``reduction='none'``, the shape of the input without the class dim.

    Example::

        >>> logits = flow.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]])
        >>> nn.CrossEntropyLoss()(logits, flow.tensor([0, 1]))
        tensor(0.3964)
        >>> nn.CrossEntropyLoss(label_smoothing=0.1)(logits, flow.tensor([0, 1]))
        tensor(0.5047)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        if isinstance(ignore_index, str) and not isinstance(size_average, (bool, type(None))):
            # OneFlow's order (weight, ignore_index, reduction, ...): CrossEntropyLoss(w, -100, "sum")
            size_average, ignore_index, reduction = None, size_average, ignore_index
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross entropy between probabilities and targets: ``-(t * log(x) + (1 - t) * log(1 - x))``;
    each log is clamped at -100.

    Args:
        weight (Tensor, optional): a rescaling weight, broadcast against the input. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> p = flow.tensor([0.9, 0.2, 0.6])
        >>> nn.BCELoss()(p, flow.tensor([1.0, 0.0, 1.0]))
        tensor(0.2798)
    """

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid followed by binary cross entropy, as one numerically stable expression of the logits.

    Args:
        weight (Tensor, optional): a rescaling weight, broadcast against the input. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        pos_weight (Tensor, optional): the weight of the positive examples, one per class (last dim).
            Default: ``None``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> logits = flow.tensor([2.0, -1.0, 0.5])
        >>> nn.BCEWithLogitsLoss()(logits, flow.tensor([1.0, 0.0, 1.0]))
        tensor(0.3048)
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        size_average, reduce, r, pos_weight = _oneflow_order(size_average, reduce, pos_weight, None)
        super().__init__(size_average, reduce, r or reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class KLDivLoss(_Loss):
    """The Kullback-Leibler divergence ``target * (log(target) - input)``; ``input`` holds
    log-probabilities.

    Args:
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'``, ``'batchmean'`` (the sum divided by the batch size: the true KL
            divergence), ``'mean'`` (divided by the number of elements; warns) or ``'sum'``. Default:
            ``'mean'``.
        log_target (bool): ``target`` holds log-probabilities too. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> logq = F.log_softmax(flow.tensor([[1.0, 2.0, 3.0]]), dim=1)
        >>> p = flow.tensor([[0.2, 0.3, 0.5]])
        >>> nn.KLDivLoss(reduction='batchmean')(logq, p)
        tensor(0.0780)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        size_average, reduce, r, log_target = _oneflow_order(size_average, reduce, log_target, False)
        super().__init__(size_average, reduce, r or reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class SoftMarginLoss(_Loss):
    """The two-class logistic loss ``log(1 + exp(-y * x))`` for targets ``y`` in ``{1, -1}``.

    Args:
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> x = flow.tensor([0.5, 2.0, -1.0])
        >>> y = flow.tensor([1.0, 0.0, -1.0])
        >>> nn.SoftMarginLoss()(x, flow.tensor([1.0, -1.0, -1.0]))
        tensor(0.9714)
    """

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """The ranking loss ``max(0, -y * (x1 - x2) + margin)``: ``y = 1`` says ``x1`` should rank higher, ``y
    = -1`` lower.

    Args:
        margin (float): the required gap. Default: ``0.0``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input1, Input2: ``(N,)`` or ``()``.
        - Target: the shape of the inputs, values in ``{1, -1}``.
        - Output: a scalar; with ``reduction='none'``, ``(N,)``.

    Example::

        >>> x1, x2 = flow.tensor([1.0, 0.2]), flow.tensor([0.5, 0.8])
        >>> nn.MarginRankingLoss(margin=0.1)(x1, x2, flow.tensor([1.0, 1.0]))
        tensor(0.3500)
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """The hinge embedding loss: ``x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1`` (``x``
    usually a distance).

    Args:
        margin (float): the margin for the dissimilar pairs. Default: ``1.0``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> d = flow.tensor([0.3, 0.4, 1.5])
        >>> nn.HingeEmbeddingLoss()(d, flow.tensor([1.0, -1.0, -1.0]))
        tensor(0.3000)
    """

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """The cosine embedding loss: ``1 - cos(x1, x2)`` where ``y = 1``, ``max(0, cos(x1, x2) - margin)``
    where ``y = -1``.

    Args:
        margin (float): in ``[-1, 1]``; the similarity below which dissimilar pairs cost nothing.
            Default: ``0.0``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input1, Input2: ``(N, D)`` or ``(D,)``.
        - Target: ``(N,)`` or ``()``, values in ``{1, -1}``.
        - Output: a scalar; with ``reduction='none'``, ``(N,)``.

    Example::

        >>> a = flow.tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> b = flow.tensor([[1.0, 1.0], [0.0, 1.0]])
        >>> nn.CosineEmbeddingLoss()(a, b, flow.tensor([1.0, -1.0]))
        tensor(0.6464)
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """The negative log likelihood of a Poisson target: ``exp(x) - t * x`` (log-rate input) or ``x - t *
    log(x + eps)``.

    Args:
        log_input (bool): the input is the log of the rate. Default: ``True``.
        full (bool): add the Stirling approximation term ``t * log(t) - t + 0.5 * log(2 * pi * t)`` (for
            ``t > 1``). Default: ``False``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        eps (float): keeps ``log`` finite when ``log_input=False``. Default: ``1e-8``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(*)``, any shape.
        - Target: ``(*)``, the shape of the input.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> rate_log = flow.tensor([0.0, 1.0])
        >>> nn.PoissonNLLLoss()(rate_log, flow.tensor([1.0, 3.0]))
        tensor(0.3591)
    """

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The negative log likelihood of a Gaussian target: ``0.5 * (log(var) + (input - target) ** 2 /
    var)``.

    ``var`` may have one dimension less than the input, or a last dim of 1 (one variance per sample). A
    negative ``var`` raises ``ValueError``.

    Args:
        full (bool): add the constant ``0.5 * log(2 * pi)``. Default: ``False``.
        eps (float): ``var`` is clamped below at ``eps`` for stability. Default: ``1e-6``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(N, *)`` or ``(*)``.
        - Target: the shape of the input.
        - Var: the shape of the input, or with the last dim 1 or dropped.
        - Output: a scalar; with ``reduction='none'``, the shape of the input.

    Example::

        >>> mu, t = flow.tensor([[0.0, 1.0]]), flow.tensor([[0.5, 1.0]])
        >>> nn.GaussianNLLLoss()(mu, t, flow.ones(1, 2))
        tensor(0.0625)
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """The triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the p-norm pairwise distance.

    Args:
        margin (float): the required gap between the distances. Default: ``1.0``.
        p (float): the norm degree of the distance. Default: ``2.0``.
        eps (float): added to the difference before the norm, for stability. Default: ``1e-6``.
        swap (bool): use ``min(d(a, n), d(p, n))`` as the negative distance (distance swap). Default:
            ``False``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Anchor, Positive, Negative: ``(N, D)`` or ``(D,)``.
        - Output: a scalar; with ``reduction='none'``, ``(N,)``.

    Example::

        >>> a, p, n = flow.randn(4, 8), flow.randn(4, 8), flow.randn(4, 8)
        >>> nn.TripletMarginLoss()(a, p, n).shape
        monoflow.Size([])
    """

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss: per sample, ``sum over j != y of max(0, margin - x[y] + x[j]) ** p``
    divided by ``C``.

    Args:
        p (int): 1 or 2 (else ``ValueError``). Default: ``1``.
        margin (float): the required margin. Default: ``1.0``.
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(N, C)`` or ``(C,)``.
        - Target: ``(N,)`` or ``()``, class indices.
        - Output: a scalar; with ``reduction='none'``, ``(N,)``.

    Example::

        >>> x = flow.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> nn.MultiMarginLoss()(x, flow.tensor([3]))
        tensor(0.3250)
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss: the target classes of a sample are its target entries before the first
    -1; the loss sums ``max(0, 1 - (x[j] - x[i]))`` over target ``j`` and non-target ``i``, divided by
    ``C``.

    Args:
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(N, C)`` or ``(C,)``.
        - Target: the shape of the input, int64, padded with -1.
        - Output: a scalar; with ``reduction='none'``, ``(N,)``.

    Example::

        >>> x = flow.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> nn.MultiLabelMarginLoss()(x, flow.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """The multi-label one-versus-all logistic loss, averaged over the classes, for 0/1 targets.

    Args:
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(N, C)``.
        - Target: ``(N, C)`` of 0 and 1.
        - Output: a scalar; with ``reduction='none'``, ``(N,)``.

    Example::

        >>> x = flow.tensor([[2.0, -1.0, 0.5]])
        >>> nn.MultiLabelSoftMarginLoss()(x, flow.tensor([[1.0, 0.0, 1.0]]))
        tensor(0.3048)
    """

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """The triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with a distance function of your choice.

    Args:
        distance_function (callable, optional): ``(x1, x2) -> Tensor`` of distances; ``None`` uses
            :func:`~monoflow.nn.functional.pairwise_distance`. Default: ``None``.
        margin (float): the required gap; must be positive (else ``ValueError``). Default: ``1.0``.
        swap (bool): use ``min(d(a, n), d(p, n))`` as the negative distance. Default: ``False``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Anchor, Positive, Negative: ``(N, *)``, what ``distance_function`` accepts.
        - Output: a scalar; with ``reduction='none'``, ``(N,)``.

    Example::

        >>> loss = nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: 1 - F.cosine_similarity(x, y))
        >>> loss(flow.randn(4, 8), flow.randn(4, 8), flow.randn(4, 8)).shape
        monoflow.Size([])
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        self.distance_function = distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """torch's deprecated name of :class:`NLLLoss` for ``(N, C, H, W)`` inputs; the same loss.

    Args:
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        ignore_index (int): a target value that contributes neither to the loss nor to the mean's
            denominator. Default: ``-100``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(N, C, H, W)``.
        - Target: ``(N, H, W)``, int64.
        - Output: a scalar; with ``reduction='none'``, ``(N, H, W)``.

    Example::

        >>> logp = F.log_softmax(flow.randn(2, 3, 4, 4), dim=1)
        >>> nn.NLLLoss2d()(logp, flow.zeros(2, 4, 4, dtype=flow.int64)).shape
        monoflow.Size([])
    """
