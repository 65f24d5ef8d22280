"""OneFlow's ``oneflow._C`` functions whose names monoflow also has under torch's signatures
(``one_hot``, ``pixel_shuffle``, ``smooth_l1_loss``, ``mse_loss``, ``cross_entropy``, ``normalize``,
``slice`` ...), under OneFlow's signatures (its ``functional_api.yaml``): ``monoflow._C`` answers these
names from here before ``monoflow.nn.functional`` (see ``_oneflow_internal.functional_fallback``).
They are compositions of monoflow ops."""
from monoflow import _C, _dtypes

__all__ = ["one_hot", "pixel_shuffle", "smooth_l1_loss", "mse_loss", "l1_loss", "cross_entropy", "nll_loss",
           "kl_div_loss", "binary_cross_entropy_loss", "binary_cross_entropy_with_logits_loss", "normalize", "slice",
           "normalization", "arg_sort", "ctc_loss", "margin_ranking_loss", "softshrink", "argmax", "argmin",
           "argwhere", "dim_gather", "grid_sample", "reduce_sum", "reduce_max", "reduce_min", "vector_norm",
           "identity", "expand_dims", "unfold_tensor", "softmax_cross_entropy", "softmax_cross_entropy_grad",
           "reciprocal_no_nan",
           "sqrt_square_sum"]

_core_one_hot = _C.one_hot  # torch's one_hot(x, num_classes) of the core; monoflow._C.one_hot becomes one_hot below


def one_hot(input, num_classes=-1, on_value=1, off_value=0):
    """``oneflow._C.one_hot``: a new last dim of ``num_classes`` holding ``on_value`` at each
    index of ``input`` and ``off_value`` elsewhere (``monoflow.nn.functional.one_hot``).

    Args:
        input (Tensor): the integer class indices.
        num_classes (int): the size of the new dim; ``-1``: ``input.max() + 1``. Default: ``-1``.
        on_value (number): the value at the hot entries. Default: ``1``.
        off_value (number): the value elsewhere. Default: ``0``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.one_hot(flow.tensor([0, 2]), 3, 5, -1)
        tensor([[ 5, -1, -1],
                [-1, -1,  5]])
    """
    input = _C.check_tensor(input, "one_hot", "input", 1)
    if input.dtype.is_floating_point or input.dtype.is_complex or input.dtype.name == "bool":
        raise RuntimeError(f"one_hot is only applicable to index tensor. (one_hot(): got input of dtype {input.dtype})")
    out = _core_one_hot(input, num_classes)
    if (on_value, off_value) == (1, 0) and not isinstance(on_value, float) and not isinstance(off_value, float):
        return out
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (on_value, off_value))
    dtype = out.dtype if ints else _C.get_default_dtype()
    return _C._where(out.bool(), _C._full((), on_value, dtype, out.device), _C._full((), off_value, dtype, out.device))


def pixel_shuffle(input, h_upscale_factor, w_upscale_factor):
    """``oneflow._C.pixel_shuffle``: ``(N, C * h * w, H, W) -> (N, C, H * h, W * w)`` with separate
    height and width factors ``h`` and ``w`` (``nn.PixelShuffle`` is the case ``h == w``).

    Args:
        input (Tensor): a 4-D tensor ``(N, C * h * w, H, W)``.
        h_upscale_factor (int): ``h``, the height factor.
        w_upscale_factor (int): ``w``, the width factor.

    Example::

        >>> import monoflow as flow
        >>> flow._C.pixel_shuffle(flow.zeros(1, 6, 2, 2), 2, 3).shape
        monoflow.Size([1, 1, 4, 6])
    """
    input = _C.check_tensor(input, "pixel_shuffle", "input", 1)
    h = _C.check_int(h_upscale_factor, "pixel_shuffle", "h_upscale_factor", 2)
    w = _C.check_int(w_upscale_factor, "pixel_shuffle", "w_upscale_factor", 3)
    if input.dim() != 4:
        raise RuntimeError(f"pixel_shuffle(): Only Accept 4D Tensor, got a tensor of {input.dim()} dims")
    if h <= 0 or w <= 0:
        raise RuntimeError(f"pixel_shuffle(): the upscale factors must be positive, got {h} and {w}")
    n, c, hh, ww = input.shape
    if c % (h * w):
        raise RuntimeError("pixel_shuffle(): The channels of input tensor must be divisible by (upscale_factor * "
                           f"upscale_factor) or (h_upscale_factor * w_upscale_factor), got {c} channels for {h} * {w}")
    x = input.reshape(n, c // (h * w), h, w, hh, ww).permute(0, 1, 4, 2, 5, 3)
    return x.reshape(n, c // (h * w), hh * h, ww * w)


def _same_dtype(op, input, target, names=("input", "target")):
    if input.dtype != target.dtype:
        raise TypeError(f"{op}(): {names[0]} and {names[1]} are expected to have the same dtype, but found "
                        f"{input.dtype} and {target.dtype}")


def _check_reduction(op, reduction):
    if reduction not in ("none", "sum", "mean"):
        raise RuntimeError(f'{op}(): Check failed: reduction == "none" || reduction == "sum" || reduction == "mean" '
                         f"Reduction should be none, sum or mean. (got {reduction!r})")


def smooth_l1_loss(input, target, beta=1.0, reduction="mean"):
    """``oneflow._C.smooth_l1_loss``: the smooth L1 loss in OneFlow's argument order
    (``F.smooth_l1_loss(input, target, reduction=reduction, beta=beta)``).

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target, of ``input``'s shape and dtype.
        beta (float): the end of the quadratic part, at least 0. Default: ``1.0``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.smooth_l1_loss(flow.tensor([0.5, 2.0, -1.0]), flow.tensor([1.0, 0.0, -1.0]), 1.0, "sum")
        tensor(1.6250)
    """
    _check_reduction("smooth_l1_loss", reduction)
    from monoflow.nn import functional as F

    input = _C.check_tensor(input, "smooth_l1_loss", "input", 1)
    target = _C.check_tensor(target, "smooth_l1_loss", "target", 2)
    _same_dtype("smooth_l1_loss", input, target)
    if _C.check_float(beta, "smooth_l1_loss", "beta", 3) < 0:
        raise RuntimeError(f"smooth_l1_loss(): beta must be greater than or equal to 0, but got {beta}")
    if input.shape != target.shape:
        raise RuntimeError(f"smooth_l1_loss(): The size of input {tuple(input.shape)} must match the size of "
                           f"target {tuple(target.shape)}")
    return F.smooth_l1_loss(input, target, reduction=reduction, beta=beta)


def mse_loss(input, target, reduction="mean"):
    """``oneflow._C.mse_loss``: the mean squared error, ``reduction`` third and positional.

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.mse_loss(flow.tensor([1.0, 3.0]), flow.tensor([0.0, 0.0]), "sum")
        tensor(10.)
    """
    _check_reduction("mse_loss", reduction)
    from monoflow.nn import functional as F

    return F.mse_loss(input, target, reduction=reduction)


def l1_loss(input, target, reduction="mean"):
    """``oneflow._C.l1_loss``: the mean absolute error, ``reduction`` third and positional.

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.l1_loss(flow.tensor([1.0, -3.0]), flow.tensor([0.0, 0.0]), "mean")
        tensor(2.)
    """
    _check_reduction("l1_loss", reduction)
    from monoflow.nn import functional as F

    return F.l1_loss(input, target, reduction=reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """``oneflow._C.cross_entropy``: ``F.cross_entropy`` with OneFlow's positional order
    ``(input, target, weight, ignore_index, reduction, label_smoothing)``.

    Args:
        input (Tensor): the logits ``(N, C, ...)``.
        target (Tensor): class indices ``(N, ...)`` or probabilities of ``input``'s shape.
        weight (Tensor, optional): a weight per class. Default: ``None``.
        ignore_index (int): a target index that adds nothing. Default: ``-100``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        label_smoothing (float): the smoothing in ``[0, 1]``. Default: ``0.0``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.cross_entropy(flow.tensor([[0.0, 0.0]]), flow.tensor([1]), None, -100, "sum")
        tensor(0.6931)
    """
    from monoflow.nn import functional as F

    _check_reduction("cross_entropy", reduction)
    return F.cross_entropy(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
                           label_smoothing=label_smoothing)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """``oneflow._C.nll_loss``: ``F.nll_loss`` with OneFlow's positional order
    ``(input, target, weight, ignore_index, reduction)``.

    Args:
        input (Tensor): log-probabilities ``(N, C, ...)``.
        target (Tensor): class indices ``(N, ...)``.
        weight (Tensor, optional): a weight per class. Default: ``None``.
        ignore_index (int): a target index that adds nothing. Default: ``-100``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.nll_loss(flow.tensor([[-1.0, -2.0]]), flow.tensor([1]), None, -100, "none")
        tensor([2.])
    """
    from monoflow.nn import functional as F

    _check_reduction("nll_loss", reduction)
    return F.nll_loss(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)


def kl_div_loss(input, target, log_target=False, reduction="mean"):
    """``oneflow._C.kl_div_loss``: ``F.kl_div`` with OneFlow's order ``(input, target, log_target, reduction)``.

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities when ``log_target``).
        log_target (bool): whether ``target`` holds logs. Default: ``False``.
        reduction (str): ``'none'``, ``'mean'``, ``'sum'`` or ``'batchmean'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.kl_div_loss(flow.tensor([0.0]), flow.tensor([1.0]), False, "sum")
        tensor(0.)
    """
    _check_reduction("kl_div_loss", reduction)
    from monoflow.nn import functional as F

    return F.kl_div(input, target, reduction=reduction, log_target=log_target)


def binary_cross_entropy_loss(input, target, weight=None, reduction="mean"):
    """``oneflow._C.binary_cross_entropy_loss``: ``F.binary_cross_entropy`` with OneFlow's order
    ``(input, target, weight, reduction)``.

    Args:
        input (Tensor): probabilities in ``[0, 1]``.
        target (Tensor): the targets, of ``input``'s shape.
        weight (Tensor, optional): a rescaling weight. Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.binary_cross_entropy_loss(flow.tensor([0.5]), flow.tensor([1.0]), None, "sum")
        tensor(0.6931)
    """
    _check_reduction("binary_cross_entropy_loss", reduction)
    from monoflow.nn import functional as F

    return F.binary_cross_entropy(input, target, weight=weight, reduction=reduction)


def binary_cross_entropy_with_logits_loss(input, target, weight=None, pos_weight=None, reduction="mean"):
    """``oneflow._C.binary_cross_entropy_with_logits_loss``: ``F.binary_cross_entropy_with_logits``
    with OneFlow's order ``(input, target, weight, pos_weight, reduction)``.

    Args:
        input (Tensor): the logits.
        target (Tensor): the targets, of ``input``'s shape.
        weight (Tensor, optional): a rescaling weight. Default: ``None``.
        pos_weight (Tensor, optional): a weight of the positive examples. Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.binary_cross_entropy_with_logits_loss(flow.tensor([0.0]), flow.tensor([1.0]), None, None, "sum")
        tensor(0.6931)
    """
    _check_reduction("binary_cross_entropy_with_logits_loss", reduction)
    from monoflow.nn import functional as F

    return F.binary_cross_entropy_with_logits(input, target, weight=weight, pos_weight=pos_weight,
                                              reduction=reduction)


def normalize(input, p=2.0, dim=1, eps=1e-12, use_l2_norm_kernel=True, *, epsilon=None):
    """``oneflow._C.normalize``: ``input / max(||input||_p, eps)`` along ``dim``
    (``F.normalize``). With ``use_l2_norm_kernel`` and ``p == 2`` (OneFlow's L2-normalize kernel)
    ``dim`` must lie in ``[-ndim, ndim)``, checked as OneFlow does.

    Args:
        input (Tensor): the input.
        p (float): the norm degree. Default: ``2.0``.
        dim (int): the dim of the norm. Default: ``1``.
        eps (float): the lower bound of the norm. Default: ``1e-12``.
        use_l2_norm_kernel (bool): whether OneFlow would use its L2 kernel (the result is the same).
            Default: ``True``.
        epsilon (float, optional): another name of ``eps``. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.normalize(flow.tensor([[3.0, 4.0]]), 2.0, 1, 1e-12, True)
        tensor([[0.6000, 0.8000]])
    """
    from monoflow.nn import functional as F

    input = _C.check_tensor(input, "normalize", "input", 1)
    if epsilon is not None:
        eps = epsilon
    if use_l2_norm_kernel and float(p) == 2.0 and isinstance(dim, int):
        nd = max(input.dim(), 1)
        axis = dim + nd if dim < 0 else dim
        if axis >= nd:
            raise RuntimeError(f"normalize(): Axis should < {nd} but axis is {axis} now.")
        if axis < 0:
            raise RuntimeError(f"normalize(): Axis should >=0 but axis is {axis} now.")
    return F.normalize(input, p=p, dim=dim, eps=eps)


def slice(x, start, stop, step, enable_view_slice=None):
    """``oneflow._C.slice``: ``x[start[0]:stop[0]:step[0], start[1]:stop[1]:step[1], ...]`` from three
    lists of non-negative ints, one entry per leading dim (``monoflow.slice`` takes the same as
    ``(start, stop, step)`` triples).

    Args:
        x (Tensor): the tensor to slice.
        start (list of int): the first index per dim (``>= 0``).
        stop (list of int): the end per dim (``>= start``; clipped to the dim's size).
        step (list of int): the step per dim (``> 0``).
        enable_view_slice (bool, optional): accepted for OneFlow's signature; the result is a view
            either way. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.slice(flow.arange(12).reshape(3, 4), [0, 1], [3, 4], [2, 2])
        tensor([[ 1,  3],
                [ 9, 11]])
    """
    x = _C.check_tensor(x, "slice", "x", 1)
    lists = []
    for name, pos, v in (("start", 2, start), ("stop", 3, stop), ("step", 4, step)):
        if not isinstance(v, (list, tuple)) or not all(isinstance(e, int) and not isinstance(e, bool) for e in v):
            raise TypeError(f"slice(): argument '{name}' (position {pos}) must be a list of ints, "
                            f"not {type(v).__name__}")
        lists.append(list(v))
    start, stop, step = lists
    if not len(start) == len(stop) == len(step):
        raise RuntimeError(f"slice(): start, stop and step must have the same length, got {len(start)}, "
                           f"{len(stop)} and {len(step)}")
    if len(start) > x.dim():
        raise RuntimeError(f"slice(): {len(start)} slices for a tensor of {x.dim()} dims")
    from monoflow.ops_extra_names import check_slice_elements

    check_slice_elements("slice", start, stop, step)
    import builtins

    return x[tuple(builtins.slice(a, b, s) for a, b, s in zip(start, stop, step))]


def normalization(x, moving_mean=None, moving_variance=None, gamma=None, beta=None, axis=1, epsilon=1e-5,
                  momentum=0.9, is_training=False):
    """``oneflow._C.normalization``: batch normalization over every dim but ``axis``
    (``F.batch_norm``). In training it normalizes with the batch's statistics and, when given,
    updates ``moving_mean``/``moving_variance`` in place with OneFlow's ``momentum``
    (``moving = momentum * moving + (1 - momentum) * batch``); in eval it uses them.

    Args:
        x (Tensor): the input, at least 2-D.
        moving_mean (Tensor, optional): the running mean, of size ``x.shape[axis]``. Default: ``None``.
        moving_variance (Tensor, optional): the running variance. Default: ``None``.
        gamma (Tensor, optional): the scale. Default: ``None``.
        beta (Tensor, optional): the shift. Default: ``None``.
        axis (int): the channel dim. Default: ``1``.
        epsilon (float): added to the variance. Default: ``1e-5``.
        momentum (float): OneFlow's momentum, the weight of the old running value. Default: ``0.9``.
        is_training (bool): batch statistics (True) or the running ones (False). Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> x = flow.tensor([[1.0], [3.0]])
        >>> flow._C.normalization(x, None, None, None, None, 1, 0.0, 0.9, True)
        tensor([[-1.],
                [ 1.]])
    """
    from monoflow.nn import functional as F

    x = _C.check_tensor(x, "normalization", "x", 1)
    if x.dim() < 2:
        raise RuntimeError(f"normalization(): NumAxes of x should be greater or equal than 2. (got {x.dim()})")
    if (moving_mean is None) != (moving_variance is None):
        raise RuntimeError("normalization(): Both moving_mean and moving_variance should be None or Tensor.")
    if not is_training and moving_mean is None:
        raise RuntimeError("normalization(): Must have moving_mean and moving_variance in eval mode.")
    axis = axis + x.dim() if axis < 0 else axis
    moved = axis != 1
    if moved:
        x = x.movedim(axis, 1)
    out = F.batch_norm(x, moving_mean, moving_variance, gamma, beta, training=bool(is_training),
                       momentum=1.0 - momentum, eps=epsilon)
    return out.movedim(1, axis) if moved else out


def arg_sort(input, direction):
    """``oneflow._C.arg_sort``: the indices that sort ``input`` along its last dim, as int32,
    ``direction`` ``"ASCENDING"`` or ``"DESCENDING"``.

    Args:
        input (Tensor): the tensor to sort.
        direction (str): ``"ASCENDING"`` or ``"DESCENDING"``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.arg_sort(flow.tensor([3.0, 1.0, 2.0]), "DESCENDING")
        tensor([0, 2, 1], dtype=monoflow.int32)
    """
    from monoflow import _creation as _cr  # noqa: F401

    input = _C.check_tensor(input, "arg_sort", "input", 1)
    if direction not in ("ASCENDING", "DESCENDING"):
        raise RuntimeError(f'arg_sort(): expected the input direction parameter value is "ASCENDING" or '
                           f'"DESCENDING", but found the value is {direction}')  # (OneFlow's wording)
    return _C.check_tensor(input, "arg_sort", "in", 1).argsort(dim=-1, descending=direction == "DESCENDING").to(
        _dtypes.int32)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, max_target_length, blank=0, zero_infinity=False,
             reduction="mean"):
    """``oneflow._C.ctc_loss``: the CTC loss in OneFlow's order ``(log_probs, targets, input_lengths,
    target_lengths, max_target_length, blank, zero_infinity, reduction)`` (``F.ctc_loss``; the padded
    targets' width ``max_target_length`` is implied by ``targets`` and not needed).

    Args:
        log_probs (Tensor): ``(T, N, C)`` log-probabilities.
        targets (Tensor): ``(N, S)`` padded targets, or their 1-D concatenation.
        input_lengths (Tensor): ``(N,)`` lengths of the inputs.
        target_lengths (Tensor): ``(N,)`` lengths of the targets.
        max_target_length (int): the longest target (OneFlow's kernel argument).
        blank (int): the blank label. Default: ``0``.
        zero_infinity (bool): zero the infinite losses and their gradients. Default: ``False``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> lp = flow.zeros(3, 1, 2).log_softmax(2)
        >>> flow._C.ctc_loss(lp, flow.tensor([[1]]), flow.tensor([3]), flow.tensor([1]), 1, 0, False, "sum")
        tensor(0.2877)
    """
    from monoflow.nn import functional as F

    _check_reduction("ctc_loss", reduction)
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=blank, reduction=reduction,
                      zero_infinity=zero_infinity)


def margin_ranking_loss(input_1, input_2, target, margin=0.0, reduction="mean"):
    """``oneflow._C.margin_ranking_loss``: ``max(0, -target * (input_1 - input_2) + margin)``, in OneFlow's
    order ``(input_1, input_2, target, margin, reduction)``.

    Args:
        input_1 (Tensor): the first scores.
        input_2 (Tensor): the second scores.
        target (Tensor): ``1`` where ``input_1`` should rank higher, ``-1`` where lower.
        margin (float): the margin. Default: ``0.0``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.margin_ranking_loss(flow.tensor([1.0]), flow.tensor([2.0]), flow.tensor([1.0]), 0.5, "sum")
        tensor(1.5000)
    """
    from monoflow.nn import functional as F

    _check_reduction("margin_ranking_loss", reduction)
    return F.margin_ranking_loss(input_1, input_2, target, margin=margin, reduction=reduction)


def softshrink(x, *, alpha=0.5, inplace=False):
    """``oneflow._C.softshrink``: ``x - alpha`` above ``alpha``, ``x + alpha`` below ``-alpha``, 0 between
    (OneFlow names the threshold ``alpha``; ``F.softshrink``'s ``lambd``).

    Args:
        x (Tensor): the input.
        alpha (float): the threshold, at least 0. Default: ``0.5``.
        inplace (bool): write the result into ``x``. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.softshrink(flow.tensor([-1.0, 0.2, 2.0]), alpha=0.5)
        tensor([-0.5000,  0.0000,  1.5000])
    """
    from monoflow.nn import functional as F

    out = F.softshrink(x, alpha)
    return x.copy_(out) if inplace else out


def _arg_extreme(op, x, dim, keepdim, dtype):
    x = _C.check_tensor(x, op, "x", 1)
    out = getattr(x, op)(dim=dim, keepdim=bool(keepdim)) if dim is not None else getattr(x, op)()
    return out if dtype is None else out.to(dtype)


def argmax(x, dim=None, keepdim=None, *, dtype=None):
    """``oneflow._C.argmax``: the index of the largest value (along ``dim``, else of the flattened tensor),
    with OneFlow's ``dtype`` of the result.

    Args:
        x (Tensor): the input.
        dim (int, optional): the dim to reduce. Default: ``None`` (all).
        keepdim (bool, optional): keep ``dim`` with size 1. Default: ``None`` (no).
        dtype (monoflow.dtype, optional): the integer dtype of the result. Default: ``None`` (int64).

    Example::

        >>> import monoflow as flow
        >>> flow._C.argmax(flow.tensor([[1.0, 3.0], [4.0, 2.0]]), dim=1, dtype=flow.int32)
        tensor([1, 0], dtype=monoflow.int32)
    """
    return _arg_extreme("argmax", x, dim, keepdim, dtype)


def argmin(x, dim=None, keepdim=None, *, dtype=None):
    """``oneflow._C.argmin``: the index of the smallest value (along ``dim``, else of the flattened tensor),
    with OneFlow's ``dtype`` of the result.

    Args:
        x (Tensor): the input.
        dim (int, optional): the dim to reduce. Default: ``None`` (all).
        keepdim (bool, optional): keep ``dim`` with size 1. Default: ``None`` (no).
        dtype (monoflow.dtype, optional): the integer dtype of the result. Default: ``None`` (int64).

    Example::

        >>> import monoflow as flow
        >>> flow._C.argmin(flow.tensor([[1.0, 3.0], [4.0, 2.0]]), dim=1, keepdim=True)
        tensor([[0],
                [1]])
    """
    return _arg_extreme("argmin", x, dim, keepdim, dtype)


def argwhere(x, dtype=None):
    """``oneflow._C.argwhere``: the indices of the non-zero elements, one row each, of OneFlow's ``dtype``.

    Args:
        x (Tensor): the input.
        dtype (monoflow.dtype, optional): the integer dtype of the result. Default: ``None`` (int64).

    Example::

        >>> import monoflow as flow
        >>> flow._C.argwhere(flow.tensor([0.0, 2.0, 3.0]), dtype=flow.int32)
        tensor([[1],
                [2]], dtype=monoflow.int32)
    """
    out = _C.check_tensor(x, "argwhere", "x", 1).argwhere()
    return out if dtype is None else out.to(dtype)


def dim_gather(input, dim, index, sparse_grad=False):
    """``oneflow._C.dim_gather``: ``out[i][j] = input[index[i][j]][j]`` along ``dim`` (``monoflow.gather``).

    Args:
        input (Tensor): the source.
        dim (int): the dim indexed.
        index (Tensor): the integer indices, of ``input``'s number of dims.
        sparse_grad (bool): accepted for OneFlow's signature (the gradient is dense). Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.dim_gather(flow.tensor([[1, 2], [3, 4]]), 1, flow.tensor([[1], [0]]))
        tensor([[2],
                [3]])
    """
    return _C.check_tensor(input, "dim_gather", "input", 1).gather(dim, index)


def grid_sample(input, grid, *, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
    """``oneflow._C.grid_sample``: ``F.grid_sample`` with OneFlow's keyword ``interpolation_mode``.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        grid (Tensor): the sampling locations in ``[-1, 1]``.
        interpolation_mode (str): ``'bilinear'``, ``'nearest'`` or ``'bicubic'``. Default: ``'bilinear'``.
        padding_mode (str): ``'zeros'``, ``'border'`` or ``'reflection'``. Default: ``'zeros'``.
        align_corners (bool): whether -1 and 1 are the corner pixels' centres. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.grid_sample(flow.ones(1, 1, 2, 2), flow.zeros(1, 1, 1, 2), interpolation_mode="nearest",
        ...                     padding_mode="zeros", align_corners=False)
        tensor([[[[1.]]]])
    """
    from monoflow.nn import functional as F

    return F.grid_sample(input, grid, mode=interpolation_mode, padding_mode=padding_mode, align_corners=align_corners)


def _reduce(op, x, dim, keepdim):
    x = _C.check_tensor(x, "reduce_" + op, "x", 1)
    if dim is None:
        return getattr(x, op)() if op in ("sum", "all", "any") else getattr(x, "a" + op)()
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if op in ("sum", "all", "any"):
        if op == "sum":
            return x.sum(dim=dims, keepdim=bool(keepdim))
        out = x
        for d in sorted((d % max(x.dim(), 1) for d in dims), reverse=True):
            out = getattr(out, op)(dim=d, keepdim=bool(keepdim))
        return out
    return getattr(x, "a" + op)(dim=dims, keepdim=bool(keepdim))


def reduce_sum(x, dim=None, keepdim=False):
    """``oneflow._C.reduce_sum``: the sum over ``dim`` (a dim or a list), or of all elements.

    Args:
        x (Tensor): the input.
        dim (int or list of int, optional): the dims summed. Default: ``None`` (all).
        keepdim (bool): keep the summed dims with size 1. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.reduce_sum(flow.ones(2, 3), [1], False)
        tensor([3., 3.])
    """
    return _reduce("sum", x, dim, keepdim)


def reduce_max(x, axis=None, keepdim=False):
    """``oneflow._C.reduce_max``: the largest value over ``axis`` (a dim or a list), or of all elements.

    Args:
        x (Tensor): the input.
        axis (int or list of int, optional): the dims reduced. Default: ``None`` (all).
        keepdim (bool): keep the reduced dims with size 1. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.reduce_max(flow.tensor([[1.0, 5.0], [3.0, 2.0]]), [0], True)
        tensor([[3., 5.]])
    """
    return _reduce("max", x, axis, keepdim)


def reduce_min(x, axis=None, keepdim=False):
    """``oneflow._C.reduce_min``: the smallest value over ``axis`` (a dim or a list), or of all elements.

    Args:
        x (Tensor): the input.
        axis (int or list of int, optional): the dims reduced. Default: ``None`` (all).
        keepdim (bool): keep the reduced dims with size 1. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.reduce_min(flow.tensor([[1.0, 5.0], [3.0, 2.0]]), [1])
        tensor([1., 2.])
    """
    return _reduce("min", x, axis, keepdim)


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """``oneflow._C.vector_norm``: ``monoflow.linalg.vector_norm`` with OneFlow's positional order.

    Args:
        input (Tensor): the input.
        ord (float): the norm's order. Default: ``2``.
        dim (int or list of int, optional): the dims of the norm. Default: ``None`` (all).
        keepdim (bool): keep the dims with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype computed in. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.vector_norm(flow.tensor([[3.0, 4.0]]), 2, [1], False)
        tensor([5.])
    """
    from monoflow.linalg import vector_norm as _vector_norm

    return _vector_norm(input, ord, dim, keepdim, dtype=dtype)


def identity(x):
    """``oneflow._C.identity``: a copy of ``x`` (differentiable, the gradient passed through).

    Args:
        x (Tensor): the input.

    Example::

        >>> import monoflow as flow
        >>> flow._C.identity(flow.tensor([1.0, 2.0]))
        tensor([1., 2.])
    """
    return _C.check_tensor(x, "identity", "x", 1).clone()


def expand_dims(input, dim):
    """``oneflow._C.expand_dims``: ``input`` with a new dim of size 1 at ``dim`` (``unsqueeze``).

    Args:
        input (Tensor): the input.
        dim (int): where the new dim goes.

    Example::

        >>> import monoflow as flow
        >>> flow._C.expand_dims(flow.ones(2, 3), 1).shape
        monoflow.Size([2, 1, 3])
    """
    return _C.check_tensor(input, "expand_dims", "input", 1).unsqueeze(dim)


def unfold_tensor(x, dimension, size, step):
    """``oneflow._C.unfold_tensor``: the windows of ``size`` every ``step`` along ``dimension``
    (``Tensor.unfold``).

    Args:
        x (Tensor): the input.
        dimension (int): the dim windowed.
        size (int): the window's size.
        step (int): the step between windows.

    Example::

        >>> import monoflow as flow
        >>> flow._C.unfold_tensor(flow.arange(5.0), 0, 2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    return _C.check_tensor(x, "unfold_tensor", "x", 1).unfold(dimension, size, step)


def softmax_cross_entropy(logits, label):
    """``oneflow._C.softmax_cross_entropy``: ``-sum(label * log_softmax(logits))`` over the last dim,
    one loss per row (``label`` holds probabilities).

    Args:
        logits (Tensor): ``(..., C)`` scores.
        label (Tensor): ``(..., C)`` probabilities.

    Example::

        >>> import monoflow as flow
        >>> flow._C.softmax_cross_entropy(flow.zeros(1, 2), flow.tensor([[0.0, 1.0]]))
        tensor([0.6931])
    """
    logits = _C.check_tensor(logits, "softmax_cross_entropy", "logits", 1)
    label = _C.check_tensor(label, "softmax_cross_entropy", "label", 2)
    # (OneFlow's checks and wording; its kernel calls the logits the prediction)
    if logits.dim() < 2:
        raise RuntimeError(f"softmax_cross_entropy: The dimension of prediction must greater than or equal to 2, "
                           f"but got {logits.dim()}")
    _same_sizes("softmax_cross_entropy", label, "label", logits, "prediction")
    _same_dtype("softmax_cross_entropy", label, logits, ("label", "prediction"))
    return -(label * logits.log_softmax(-1)).sum(-1)


def softmax_cross_entropy_grad(dy, label, prob):
    """``oneflow._C.softmax_cross_entropy_grad``: the gradient of :func:`softmax_cross_entropy` with
    respect to the logits, ``dy[..., None] * (prob - label)``.

    Args:
        dy (Tensor): ``(...)``, the gradient of the per-row losses.
        label (Tensor): ``(..., C)`` probabilities.
        prob (Tensor): ``(..., C)``, the softmax of the logits.

    Example::

        >>> import monoflow as flow
        >>> flow._C.softmax_cross_entropy_grad(flow.ones(1), flow.tensor([[0.0, 1.0]]), flow.tensor([[0.5, 0.5]]))
        tensor([[ 0.5000, -0.5000]])
    """
    name = "softmax_cross_entropy_grad"
    dy = _C.check_tensor(dy, name, "dy", 1)
    label = _C.check_tensor(label, name, "label", 2)
    prob = _C.check_tensor(prob, name, "prob", 3)
    if prob.dim() < 2:
        raise RuntimeError(f"{name}: The dimension of prob must greater than or equal to 2, but got {prob.dim()}")
    if dy.dim() != prob.dim() - 1:
        raise RuntimeError(f"{name}: The dimension of dy is expected to be less than that of prob by 1, but found "
                           f"{dy.dim()} and {prob.dim()}")
    _same_sizes(name, label, "label", prob, "prob")
    for i in range(dy.dim()):
        if dy.shape[i] != label.shape[i]:
            raise RuntimeError(f"{name}: The size of dy ({dy.shape[i]}) at dimension {i} must match the size of "
                               f"label ({label.shape[i]})")
    _same_dtype(name, label, prob, ("label", "prob"))
    _same_dtype(name, dy, prob, ("dy", "prob"))
    return dy.unsqueeze(-1) * (prob - label)


def _same_sizes(op, a, a_name, b, b_name):
    if a.shape != b.shape:
        i = next((i for i in range(min(a.dim(), b.dim())) if a.shape[i] != b.shape[i]), min(a.dim(), b.dim()))
        raise RuntimeError(f"{op}: The shape of {a_name} {tuple(a.shape)} must match the shape of {b_name} "
                           f"{tuple(b.shape)}: the size of {a_name} at dimension {i} must match the size of {b_name}")


def reciprocal_no_nan(x):
    """``oneflow._C.reciprocal_no_nan``: ``1 / x``, with 0 where ``x`` is 0.

    Args:
        x (Tensor): the input.

    Example::

        >>> import monoflow as flow
        >>> flow._C.reciprocal_no_nan(flow.tensor([2.0, 0.0]))
        tensor([0.5000, 0.0000])
    """
    x = _C.check_tensor(x, "reciprocal_no_nan", "x", 1)
    zero = x == 0
    return (1 / x.masked_fill(zero, 1)).masked_fill(zero, 0)


def sqrt_square_sum(x):
    """``oneflow._C.sqrt_square_sum``: ``sqrt(sum(x ** 2))`` over all elements (the 2-norm).

    Args:
        x (Tensor): the input.

    Example::

        >>> import monoflow as flow
        >>> flow._C.sqrt_square_sum(flow.tensor([3.0, 4.0]))
        tensor(5.)
    """
    x = _C.check_tensor(x, "sqrt_square_sum", "x", 1)
    return (x * x).sum().sqrt()
