"""Memory formats (torch.memory_format): the tags, and tensors laid out in them.

A tensor's values do not depend on its format; the format is the order of
its strides. ``channels_last`` keeps an (N, C, H, W) tensor's shape and
stores it as (N, H, W, C) would be stored: strides (H*W*C, 1, W*C, C).
monoflow makes every new tensor row-major (``contiguous_format``); a tensor
in another format is a permuted view of a dense one, which every op reads.
"""
from monoflow import _C


class NamedTag:
    """A singleton tag shown and pickled by its module-level name (the memory
    formats here, ``monoflow.strided``)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"{_C.api_name()}.{self._name}"

    def __reduce__(self):
        return self._name  # pickled as the module-level singleton of that name


class memory_format(NamedTag):  # noqa: N801 (torch's name)
    """A memory-format tag (torch.memory_format): ``contiguous_format``, ``preserve_format``,
    ``channels_last``, ``channels_last_3d``. Pass one to ``Tensor.contiguous``, ``clone``, ``to``,
    ``is_contiguous`` and the ``*_like`` creation functions.

    Args:
        name (str): the tag's name.

    Example::

        >>> import monoflow as flow
        >>> x = flow.ones(2, 3, 4, 5).contiguous(memory_format=flow.channels_last)
        >>> x.stride(), x.is_contiguous(memory_format=flow.channels_last)
        ((60, 1, 15, 3), True)
    """


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

# the channels-last formats: the rank they need, the permutation that puts C last
_CHANNELS_LAST = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def check(fmt, op):
    """`fmt` itself; TypeError naming `op` when it is not a memory format."""
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")
    return fmt


def _strides(shape, order):
    # the strides of a dense tensor whose dims, outermost first, are `order`
    strides, step = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = step
        step *= shape[d]
    return strides


def _has_strides(t, order):
    want = _strides(t.shape, order)
    return all(size == 1 or s == w for size, s, w in zip(t.shape, t.stride(), want))


def is_contiguous(t, fmt, op="is_contiguous"):
    """Whether `t` is dense in format `fmt` (size-1 dims may have any stride)."""
    fmt = check(fmt, op)
    if fmt in _CHANNELS_LAST:
        rank, order = _CHANNELS_LAST[fmt]
        return t.dim() == rank and _has_strides(t, order)
    return _C.TensorBase.is_contiguous(t)


def suggest(t):
    """The format `t` is laid out in (preserve_format's answer)."""
    if not t.is_contiguous():
        for fmt, (rank, order) in _CHANNELS_LAST.items():
            if t.dim() == rank and _has_strides(t, order):
                return fmt
    return contiguous_format


def stride_order(t):
    """The dims of `t`, outermost (largest stride) first, when a copy preserving its layout
    (torch's preserve_format for a new tensor) differs from a row-major one; else None
    (contiguous, under two dims, or a broadcast dim of stride 0: those copy row-major)."""
    if t.dim() < 2 or _C.TensorBase.is_contiguous(t):
        return None
    shape, stride = t.shape, t.stride()
    if any(st == 0 and n > 1 for n, st in zip(shape, stride)):
        return None
    order = sorted(range(t.dim()), key=lambda d: (-stride[d], d))
    return None if order == list(range(t.dim())) else order


def laid_out(t, fmt, op, copy=False):
    """`t`'s values in format `fmt`: `t` itself when it is already (unless
    `copy`), else a new tensor (differentiable: a permuted dense copy)."""
    fmt = check(fmt, op)
    if fmt is preserve_format:
        order = stride_order(t)
        if order is not None:  # torch's rule: the copy keeps the stride order (channels-last among them)
            if not copy:
                return t
            back = sorted(range(len(order)), key=order.__getitem__)
            return _C.TensorBase.clone(t.permute(*order)).permute(*back)
        fmt = contiguous_format
    if fmt is contiguous_format:
        return _C.TensorBase.clone(t) if copy else _C.TensorBase.contiguous(t)
    rank, order = _CHANNELS_LAST[fmt]
    if t.dim() != rank:
        raise RuntimeError(f"{op}(): required rank {rank} tensor to use {fmt._name} format")
    if not copy and _has_strides(t, order):
        return t
    back = sorted(range(rank), key=order.__getitem__)
    return _C.TensorBase.clone(t.permute(*order)).permute(*back)


def like(out, input, fmt, op):
    """`out`, a new row-major tensor shaped as `input`, in format `fmt`
    (preserve_format, the default: the one `input` is in)."""
    if fmt is None or fmt is preserve_format:
        if input.is_contiguous():
            return out
        fmt = suggest(input)
    return laid_out(out, fmt, op)
