"""pixel_shuffle / pixel_unshuffle: moving r*r channels into an r-times
finer spatial grid and back; channel_shuffle: interleaving channel groups.
Each is a reshape, a permute and a reshape."""
from monoflow import _C


__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


def _check(input, op, factor, what):
    _C.check_tensor(input, op, "input", 1)
    if not isinstance(factor, int) or isinstance(factor, bool):
        raise TypeError(f"{op}(): argument '{what}' must be int, not {type(factor).__name__}")
    if factor <= 0:
        raise RuntimeError(f"{op} expects a positive {what}, but got {factor}")
    if input.dim() < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")


def pixel_shuffle(input, upscale_factor):
    """``(*, C * r * r, H, W) -> (*, C, H * r, W * r)``, ``r = upscale_factor``. See
    :class:`~monoflow.nn.PixelShuffle`.

    Args:
        input (Tensor): ``(*, C * r * r, H, W)``.
        upscale_factor (int): ``r``.

    Example::

        >>> F.pixel_shuffle(flow.randn(1, 8, 3, 3), 2).shape
        monoflow.Size([1, 2, 6, 6])
    """
    _check(input, "pixel_shuffle", upscale_factor, "upscale_factor")
    r = upscale_factor
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H * r, W * r) -> (*, C * r * r, H, W)``, ``r = downscale_factor``. See
    :class:`~monoflow.nn.PixelUnshuffle`.

    Args:
        input (Tensor): ``(*, C, H * r, W * r)``.
        downscale_factor (int): ``r``.

    Example::

        >>> F.pixel_unshuffle(flow.randn(1, 2, 6, 6), 2).shape
        monoflow.Size([1, 8, 3, 3])
    """
    _check(input, "pixel_unshuffle", downscale_factor, "downscale_factor")
    r = downscale_factor
    *batch, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but "
                           f"got height={h}, width={w}, downscale_factor={r}")
    n = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """Interleaves ``groups`` channel groups: ``(N, g * k, *) -> (N, k * g, *)``, channel ``c`` of group
    ``i`` moves to ``c * g + i``. ``native_channel_shuffle`` is the same function. See
    :class:`~monoflow.nn.ChannelShuffle`.

    Args:
        input (Tensor): ``(N, C, *)``.
        groups (int): a positive divisor of ``C``.

    Example::

        >>> F.channel_shuffle(flow.arange(6.0).reshape(1, 6, 1), 3).flatten()
        tensor([0., 2., 4., 1., 3., 5.])
    """
    _C.check_tensor(input, "channel_shuffle", "input", 1)
    groups = _C.check_int(groups, "channel_shuffle", "groups", 2)
    if groups <= 0:
        raise RuntimeError(f"channel_shuffle(): Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle(): expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    n, c = input.shape[0], input.shape[1]
    if c % groups:
        raise RuntimeError(f"channel_shuffle(): Number of channels must be divisible by groups. Got {c} channels and "
                           f"{groups} groups.")
    rest = tuple(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle
