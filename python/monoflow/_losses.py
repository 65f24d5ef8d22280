"""Classification losses with torch.nn.functional's signatures: cross_entropy
and nll_loss. Each is one recorded op of the C++ core (ops_loss.h); this
module only sorts out argument forms (reduction names, the legacy
size_average/reduce flags)."""
from monoflow import _C

__all__ = ["cross_entropy", "nll_loss"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _legacy_reduction(size_average, reduce):
    """torch's mapping of the deprecated size_average/reduce flags."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _reduction(op, reduction, size_average, reduce):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}(): {reduction!r} is not a valid value for reduction (expected 'none', 'mean' or 'sum')")
    return _REDUCTIONS[reduction]


def _index(op, name, v):
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(v).__name__}")
    return v.__index__()


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """The negative log likelihood loss of log-probabilities `input` [N, C, ...]
    (or [C]) for class indices `target` [N, ...] (or [])."""
    return _C.loss_nll(input, target, weight, _index("nll_loss", "ignore_index", ignore_index),
                       _reduction("nll_loss", reduction, size_average, reduce))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """nll_loss(log_softmax(input, class dim), target) with optional label
    smoothing; a floating `target` of the input's shape holds class probabilities."""
    if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, (int, float)):
        raise TypeError(f"cross_entropy(): argument 'label_smoothing' must be float, not "
                        f"{type(label_smoothing).__name__}")
    return _C.loss_cross_entropy(input, target, weight, _index("cross_entropy", "ignore_index", ignore_index),
                                 _reduction("cross_entropy", reduction, size_average, reduce), float(label_smoothing))
