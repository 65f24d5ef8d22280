"""ctc_loss: the Connectionist Temporal Classification loss.

The forward (alpha) recursion runs in log space over the extended label sequence (a blank between
every label and at both ends), batched over the samples and stepped over time with monoflow's own
differentiable ops, so autograd gives the gradient. Impossible paths start at a large finite
negative value instead of -inf (logsumexp of all -inf has a nan gradient); a loss that stays at that
level is an impossible alignment and becomes inf (or 0 with zero_infinity=True), as in torch.

Note [CTC gradient as torch]: torch's (and OneFlow's) ctc_loss backward returns
``exp(log_probs) - exp(log_alpha + log_beta + nll - log_probs)`` (times the loss's gradient) for
the steps within a sample's input length: the derivative of the loss with respect to the logits
of a log_softmax, not to ``log_probs`` themselves. The two differ by ``exp(log_probs)`` per step,
which a log_softmax before the loss cancels, so training is unchanged either way; monoflow adds
that term (_TorchGradTerm: value 0, gradient ``exp(log_probs)``) so gradients equal torch's also
for inputs that are not normalised.
"""
import numpy as np

from monoflow import _C, _dtypes, ops_shape
from monoflow._creation import tensor as _tensor

__all__ = ["ctc_loss", "ctc_greedy_decoder"]

_REDUCTIONS = ("none", "mean", "sum")


class _TorchGradTerm:
    """A zero per sample whose gradient w.r.t. lp (T, N, C) is exp(lp) on steps t < input length
    (Note [CTC gradient as torch]); built lazily (monoflow.autograd imports nn)."""
    fn = None

    @classmethod
    def apply(cls, lp, mask):
        if cls.fn is None:
            from monoflow.autograd import Function

            class CtcTorchGradTerm(Function):
                @staticmethod
                def forward(ctx, lp, mask):
                    ctx.save_for_backward(lp, mask)
                    return _C._full((int(lp.shape[1]),), 0.0, lp.dtype, lp.device)

                @staticmethod
                def backward(ctx, g):
                    lp, mask = ctx.saved_tensors
                    return lp.detach().exp() * mask * g.reshape(1, -1, 1), None

            cls.fn = CtcTorchGradTerm
        return cls.fn.apply(lp, mask)


def _lengths(op, name, value, n):
    if isinstance(value, _C.TensorBase):
        if value.dtype.is_floating_point:
            raise RuntimeError(f"{op}(): argument '{name}' must be an integer tensor, not {value.dtype}")
        value = value.reshape(-1).tolist()
    elif isinstance(value, (list, tuple)):
        value = list(value)
    elif isinstance(value, int) and n == 1:
        value = [value]
    else:
        raise TypeError(f"{op}(): argument '{name}' must be Tensor or tuple of ints, not {type(value).__name__}")
    if len(value) != n:
        raise RuntimeError(f"{op}(): Expected {name} to have size {n} (the batch size), but got {len(value)}")
    return [int(v) for v in value]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of ``log_probs`` (T, N, C) or (T, C) log-probabilities against ``targets``
    ((N, S) padded, or the 1-D concatenation of all targets).

    Args:
        log_probs (Tensor): log-softmax outputs, (T, N, C) or unbatched (T, C).
        targets (Tensor): (N, S) or (sum(target_lengths),) class indices; never ``blank``.
        input_lengths (Tensor or tuple): length of each input, each at most T.
        target_lengths (Tensor or tuple): length of each target.
        blank (int): the blank label. Default: ``0``.
        reduction (str): ``'none'``, ``'mean'`` (each loss divided by its target length, then the
            batch mean) or ``'sum'``. Default: ``'mean'``.
        zero_infinity (bool): make infinite losses (impossible alignments) 0 and their gradients 0.
            Default: ``False``.

    Example::

        >>> lp = flow.tensor([[0.9, 0.1], [0.2, 0.8]]).log().unsqueeze(1)  # (T=2, N=1, C=2)
        >>> round(F.ctc_loss(lp, flow.tensor([[1]]), (2,), (1,), reduction="sum").item(), 4)
        0.1985
    """
    op = "ctc_loss"
    _C.check_tensor(log_probs, op, "log_probs", 1)
    _C.check_tensor(targets, op, "targets", 2)
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(f"ctc_loss(): {reduction} is not a valid value for reduction")
    if not log_probs.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): expected log_probs to be a floating point tensor, got {log_probs.dtype}")
    unbatched = log_probs.dim() == 2
    if log_probs.dim() not in (2, 3):
        raise RuntimeError(f"{op}(): expected log_probs to be 2-D (T, C) or 3-D (T, N, C), got {log_probs.dim()}-D")
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    T, N, C = (int(s) for s in lp.shape)
    if not isinstance(blank, int) or not 0 <= blank < C:
        raise RuntimeError(f"{op}(): blank must be in label range [0, {C}), got {blank}")
    in_len = _lengths(op, "input_lengths", input_lengths, N)
    tg_len = _lengths(op, "target_lengths", target_lengths, N)
    tg = targets.detach().cpu().numpy().astype(np.int64)
    if unbatched and tg.ndim == 1:  # unbatched targets are one padded row
        tg = tg[None, :]
    if tg.ndim == 1:  # concatenated targets
        if tg.shape[0] != sum(tg_len):
            raise RuntimeError(f"{op}(): Expected tensor to have size at least {sum(tg_len)} at dimension 1, "
                               f"but got size {tg.shape[0]}")
        splits = np.cumsum([0] + tg_len)
        rows = [tg[splits[i]:splits[i + 1]] for i in range(N)]
    else:
        if tg.shape[0] != N:
            raise RuntimeError(f"{op}(): Expected targets to have batch size {N}, but got {tg.shape[0]}")
        rows = []
        for i in range(N):
            if tg_len[i] > tg.shape[1] or tg_len[i] < 0:
                raise RuntimeError(f"{op}(): Expected tensor to have size at least {tg_len[i]} at dimension 1, "
                                   f"but got size {tg.shape[1]} for targets (while checking arguments for ctc_loss)")
            rows.append(tg[i, :tg_len[i]])
    for i in range(N):
        if not 0 <= in_len[i] <= T:
            raise RuntimeError(f"{op}(): Expected input_lengths to have value at most {T}, but got value "
                               f"{in_len[i]} (while checking arguments for ctc_loss)")
        if len(rows[i]) and (rows[i].min() < 0 or rows[i].max() >= C):
            raise RuntimeError(f"{op}(): target index out of range [0, {C})")
    S = max([len(r) for r in rows] + [0])
    L = 2 * S + 1
    ext = np.full((N, L), blank, dtype=np.int64)
    for i, r in enumerate(rows):
        ext[i, 1:2 * len(r):2] = r
    allow2 = np.zeros((N, L), dtype=bool)
    allow2[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    valid = np.arange(L)[None, :] < (2 * np.array(tg_len)[:, None] + 1)

    dev, dt = lp.device, lp.dtype
    neg = -1e4 if dt in (_dtypes.float16, _dtypes.bfloat16) else -1e30  # within the dtype's range
    ext_t = _tensor(ext, device=dev)
    allow2_t = _tensor(allow2, device=dev)
    valid_t = _tensor(valid, device=dev)
    lp_ext = lp.gather(2, ext_t.unsqueeze(0).expand(T, N, L))  # (T, N, L)
    negs = _C._full((N, L), neg, dt, dev)
    neg1 = _C._full((N, 1), neg, dt, dev)
    neg2 = _C._full((N, 2), neg, dt, dev)
    start = np.zeros((N, L), dtype=bool)
    start[:, 0] = True
    if L > 1:
        start[:, 1] = np.array(tg_len) > 0
    start_t = _tensor(start, device=dev)
    alpha = _C._where(start_t, lp_ext[0], negs) if T > 0 else negs
    lens = _tensor(np.array(in_len, dtype=np.int64), device=dev).unsqueeze(1)
    for t in range(1, T):
        prev1 = ops_shape.cat([neg1, alpha[:, :-1]], 1)
        prev2 = _C._where(allow2_t, ops_shape.cat([neg2, alpha[:, :-2]], 1) if L > 2 else negs, negs)
        new = ops_shape.stack([alpha, prev1, prev2], 0).logsumexp(0) + lp_ext[t]
        new = _C._where(valid_t, new, negs)
        alpha = _C._where(lens > t, new, alpha)  # past its length a sample's alpha stays put
    last = _tensor(np.array([2 * n for n in tg_len], dtype=np.int64), device=dev).unsqueeze(1)
    prev = _tensor(np.array([max(2 * n - 1, 0) for n in tg_len], dtype=np.int64), device=dev).unsqueeze(1)
    has_label = _tensor(np.array(tg_len) > 0, device=dev)
    a_last = alpha.gather(1, last).squeeze(1)
    a_prev = _C._where(has_label, alpha.gather(1, prev).squeeze(1), _C._full((N,), neg, dt, dev))
    ll = ops_shape.stack([a_last, a_prev], 0).logsumexp(0)
    zero_len = _tensor(np.array(in_len) == 0, device=dev)
    # input length 0: only the empty target is possible (probability 1)
    ll = _C._where(zero_len, _C._where(has_label, _C._full((N,), neg, dt, dev), _C._full((N,), 0.0, dt, dev)), ll)
    loss = -ll
    if lp.requires_grad:
        steps = _tensor((np.arange(T)[:, None] < np.array(in_len)[None, :])[:, :, None], device=dev).to(dt)
        loss = loss + _TorchGradTerm.apply(lp, steps)
    impossible = loss > (-neg / 2)
    if zero_infinity:
        loss = _C._where(impossible, _C._full((N,), 0.0, dt, dev), loss)
    else:
        loss = _C._where(impossible, _C._full((N,), float("inf"), dt, dev), loss)
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    div = _tensor(np.maximum(np.array(tg_len), 1), device=dev).to(dt)
    return (loss / div).mean()


def ctc_greedy_decoder(log_probs, input_lengths, merge_repeated=True):
    """ctc_greedy_decoder(log_probs, input_lengths, merge_repeated=True) -> (Tensor, Tensor)

    OneFlow's greedy (best-path) CTC decoder: at each time step of each sample the most likely
    class; blanks dropped and, with ``merge_repeated``, repeats of the previous step's class
    merged. The blank is the *last* class (``C - 1``), as in OneFlow. Not differentiable.

    Args:
        log_probs (Tensor): ``(T, N, C)`` log-probabilities (or any scores; only their
            per-step maximum is used).
        input_lengths (Tensor or sequence of int): the ``N`` valid lengths (at most ``T``).
        merge_repeated (bool): merge consecutive repeats of a class. Default: ``True``.

    Returns:
        (Tensor, Tensor): the decoded labels, int64 of shape ``(N, T)`` padded with 0, and the
        negated sum of the chosen log-probabilities over each sample's steps, shape ``(N, 1)``.

    Example::

        >>> lp = flow.tensor([[[0.1, 0.7, 0.2]], [[0.1, 0.7, 0.2]], [[0.1, 0.2, 0.7]], [[0.6, 0.3, 0.1]]]).log()
        >>> decoded, neg_sum = flow.nn.functional.ctc_greedy_decoder(lp, flow.tensor([4]))
        >>> decoded
        tensor([[1, 0, 0, 0]])
        >>> neg_sum.shape
        monoflow.Size([1, 1])
    """
    log_probs = _C.check_tensor(log_probs, "ctc_greedy_decoder", "log_probs", 1)
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_greedy_decoder(): log_probs must be (T, N, C), got shape {list(log_probs.shape)}")
    steps, batch, classes = log_probs.shape
    lengths = _lengths("ctc_greedy_decoder", "input_lengths", input_lengths, batch)
    if any(n < 0 or n > steps for n in lengths):
        raise RuntimeError(f"ctc_greedy_decoder(): input_lengths must be in [0, {steps}], got {lengths}")
    lp = log_probs.detach().cpu().float().numpy() if log_probs.dtype == _dtypes.float16 or \
        log_probs.dtype == _dtypes.bfloat16 else log_probs.detach().cpu().numpy()
    best = lp.argmax(axis=2)                                     # (T, N)
    valid = np.arange(steps)[:, None] < np.asarray(lengths)[None, :]
    neg_sum = -np.where(valid, lp.max(axis=2), 0).sum(axis=0, keepdims=True).T.astype(lp.dtype)
    keep = valid & (best != classes - 1)
    if merge_repeated:  # the previous step's class, blank or not, as OneFlow's kernel compares
        keep[1:] &= best[1:] != best[:-1]
    decoded = np.zeros((batch, steps), dtype=np.int64)
    for b in range(batch):
        labels = best[keep[:, b], b]
        decoded[b, :labels.size] = labels
    return (_tensor(decoded, device=log_probs.device),
            _tensor(neg_sum, dtype=log_probs.dtype, device=log_probs.device))
