"""Classification losses with torch.nn.functional's signatures: cross_entropy
and nll_loss. Each is one recorded op of the C++ core (ops_loss.h); this
module only sorts out argument forms (reduction names, the legacy
size_average/reduce flags)."""
import warnings

from monoflow import _C, _autocast

__all__ = ["cross_entropy", "nll_loss"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _legacy_reduction(size_average, reduce):
    """torch's mapping of the deprecated size_average/reduce flags, with torch's warning."""
    size_average = _flag("size_average", size_average)
    reduction = "none" if not _flag("reduce", reduce) else "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=_C._caller_outside_package())
    return reduction


def _flag(name, v, none=True):
    # a bool flag (the legacy size_average/reduce, poisson_nll_loss's): None (`none`), a bool or any
    # one-element scalar; an array's truth value is ambiguous
    if v is None:
        return none
    if isinstance(v, int) or getattr(v, "ndim", None) == 0:
        return bool(v)
    raise TypeError(_C.name_op_in_progress(f"argument '{name}' must be bool, not {type(v).__name__}"))


def _reduction(op, reduction, size_average, reduce):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(f"{op}(): {reduction!r} is not a valid value for reduction (Reduction should be none, sum or mean.)")
    return _REDUCTIONS[reduction]


def _index(op, name, v):
    if not isinstance(v, bool) and hasattr(v, "__index__"):
        try:
            return v.__index__()
        except (TypeError, ValueError, RuntimeError):  # an array of several elements, a float tensor
            pass
    raise TypeError(f"{op}(): argument '{name}' must be int, not {type(v).__name__}")


@_autocast.fp32
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood loss of log-probabilities ``input`` for class-index targets (one fused op).
    See :class:`~monoflow.nn.NLLLoss`.

    Args:
        input (Tensor): log-probabilities ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target (Tensor): int64 class indices ``(N,)``, ``()`` or ``(N, d1, ...)``.
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        ignore_index (int): a target value that contributes neither to the loss nor to the mean's
            denominator. Default: ``-100``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> logp = F.log_softmax(flow.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]]), dim=1)
        >>> F.nll_loss(logp, flow.tensor([0, 1]))
        tensor(0.3964)
    """
    return _C.loss_nll(input, target, weight, _index("nll_loss", "ignore_index", ignore_index),
                       _reduction("nll_loss", reduction, size_average, reduce))


def _class_dim_squeezed(input, target):
    """OneFlow's rule for class indices given with a class dim of size 1 (``(N, 1)`` for an
    ``(N, C)`` input, ``(N, 1, d1, ...)`` for ``(N, C, d1, ...)``): they are the indices without it.
    (torch refuses such a target.)"""
    if (isinstance(input, _C.TensorBase) and isinstance(target, _C.TensorBase) and input.dim() >= 2
            and target.dim() == input.dim() and not target.dtype.is_floating_point and target.shape[1] == 1
            and input.shape[1] != 1 and tuple(target.shape[2:]) == tuple(input.shape[2:])):
        return target.squeeze(1)
    return target


@_autocast.fp32
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross entropy of logits and targets: ``nll_loss(log_softmax(input, 1), target)`` as one fused op,
    with optional label smoothing. See :class:`~monoflow.nn.CrossEntropyLoss`.

    ``input`` holds unnormalised scores (logits) with the classes at dim 1 (dim 0 for an unbatched
    ``(C,)`` input). ``target`` is either class indices (int64, without the class dim) or class
    probabilities (floating, the shape of ``input``). Computed as one fused op:
    ``nll_loss(log_softmax(input, 1), target)``.

    Args:
        input (Tensor): logits ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target (Tensor): int64 class indices (no class dim; as in OneFlow, a class dim of size 1 is
            accepted and dropped), or floating class probabilities of the input's shape.
        weight (Tensor, optional): a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average (bool, optional): deprecated (torch's legacy flag); when it or ``reduce`` is given
            it overrides ``reduction``: ``False`` sums instead of averaging. Default: ``None``.
        ignore_index (int): a target value that contributes neither to the loss nor to the mean's
            denominator. Default: ``-100``.
        reduce (bool, optional): deprecated legacy flag; ``False`` returns the per-element loss.
            Default: ``None``.
        reduction (str): ``'none'`` (the per-element loss), ``'mean'`` or ``'sum'``. Default:
            ``'mean'``.
        label_smoothing (float): in ``[0, 1]``. Default: ``0.0``.

    Example::

        >>> logits = flow.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]])
        >>> F.cross_entropy(logits, flow.tensor([0, 1]))
        tensor(0.3964)
        >>> F.cross_entropy(logits, flow.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
        tensor(0.3964)
    """
    if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, (int, float)):
        raise TypeError(f"cross_entropy(): argument 'label_smoothing' must be float, not "
                        f"{type(label_smoothing).__name__}")
    target = _class_dim_squeezed(input, target)
    return _C.loss_cross_entropy(input, target, weight, _index("cross_entropy", "ignore_index", ignore_index),
                                 _reduction("cross_entropy", reduction, size_average, reduce), float(label_smoothing))
