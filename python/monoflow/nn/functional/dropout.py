"""Dropout (torch.nn.functional.dropout / dropout1d / dropout2d / dropout3d).
The masks come from monoflow's generator, so manual_seed makes them repeatable
(activation checkpointing relies on that to recompute the same mask)."""
import warnings

from monoflow import _C, _composite

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _check_p(op, p):
    p = _C.check_float(p, op, "p", 2)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"{op} probability has to be between 0 and 1, but got {p}")


def _apply_mask(input, mask_shape, p, inplace, generator):
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    # One bernoulli(1 - p) sample per mask element, scaled so E[out] = input.
    mask = _C._empty(tuple(mask_shape), input.dtype, input.device)
    mask.bernoulli_(1.0 - p, generator=generator)
    mask.div_(1.0 - p)
    return input.mul_(mask) if inplace else input * mask


def dropout(input, p=0.5, training=True, inplace=False, generator=None, addend=None):
    """Zeroes each element with probability ``p`` and scales the others by ``1 / (1 - p)``. See
    :class:`~monoflow.nn.Dropout`.

    Args:
        input (Tensor): the input.
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        training (bool): apply dropout; when ``False`` the input is returned as is. Default: ``True``.
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.
        generator (monoflow.Generator, optional): the generator of the mask. Default: the device's
            default generator.
        addend (Tensor, optional): OneFlow's fused residual: added to the result (after the mask;
            also in eval mode), ``dropout(input) + addend``. Default: ``None``.

    Example::

        >>> y = F.dropout(flow.ones(8), p=0.5)
        >>> sorted(set(y.tolist())) in ([0.0, 2.0], [0.0], [2.0])
        True
        >>> F.dropout(flow.ones(3), training=False)
        tensor([1., 1., 1.])
    """
    _C.check_tensor(input, "dropout", "input", 1)
    _check_p("dropout", p)
    training, inplace = _flags("dropout", training, inplace)
    if addend is not None:
        addend = _C.check_tensor(addend, "dropout", "addend")
        out = input if not training or p == 0.0 else _apply_mask(input, input.shape, p, inplace, generator)
        return out.add_(addend) if inplace else out + addend
    if not training or p == 0.0:
        return input
    return _apply_mask(input, input.shape, p, inplace, generator)


def _deprecated_rank_dropout(op, input, p, training, inplace, spatial, generator):
    """dropout2d/dropout3d of another rank: torch warns and goes on (public scripts such as
    pytorch/examples mnist_rnn apply Dropout2d to (N, C) features), so monoflow does too, with
    torch's masks: dropout2d samples one value per (dim 0, dim 1) pair, dropout3d reads the input
    as unbatched (one value per dim-0 slice)."""
    warnings.warn(f"{op}: Received a {input.dim()}-D input to {op}, which is deprecated and will result in "
                  "an error in a future release. To retain the behavior and silence this warning, please use "
                  f"dropout instead. Note that {op} exists to provide channel-wise dropout on inputs with "
                  f"{spatial} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                  f"{spatial + 1}D or {spatial + 2}D inputs).", UserWarning, stacklevel=3)
    shape = list(input.shape)
    if spatial == 3:
        shape = [1] + shape  # read as unbatched
    if not training or p == 0.0:
        return input
    if p == 1.0:  # torch zeroes everything before it draws a mask, so a 1-D input passes too
        return input.mul_(0) if inplace else input * 0
    if len(shape) < 2:
        raise RuntimeError(f"{op}: Feature dropout requires at least 2 dimensions in the input")
    mask_shape = shape[:2] + [1] * (len(shape) - 2)
    if spatial == 3:
        mask_shape = mask_shape[1:]
    return _apply_mask(input, mask_shape, p, inplace, generator)


def _flags(op, training, inplace):
    # (an array's truth value would be asked: ValueError naming no op)
    return _composite.flag(None, "training", training), _composite.flag(None, "inplace", inplace)


def _channel_dropout(op, input, p, training, inplace, spatial, generator):
    _check_p(op, p)
    training, inplace = _flags(op, training, inplace)
    if input.dim() not in (spatial + 1, spatial + 2) and spatial > 1:
        return _deprecated_rank_dropout(op, input, p, training, inplace, spatial, generator)
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{op}: Expected {spatial + 1}D or {spatial + 2}D input, but received a {input.dim()}D "
                           f"input. Note that {op} exists to provide channel-wise dropout on inputs with "
                           f"{spatial} spatial dimension{'s' if spatial > 1 else ''}, a channel dimension, and an "
                           "optional batch dimension (i.e. "
                           f"{spatial + 1}D or {spatial + 2}D inputs).")
    if not training or p == 0.0:
        return input
    # One sample per (batch, channel): the spatial dims share it.
    lead = input.dim() - spatial
    shape = list(input.shape[:lead]) + [1] * spatial
    return _apply_mask(input, shape, p, inplace, generator)


def dropout1d(input, p=0.5, training=True, inplace=False, *, generator=None):
    """Channel dropout for 1-d spatial data: zeroes whole ``(sample, channel)`` slices of a ``(N, C, L)``
    or ``(C, L)`` input with probability ``p``. See :class:`~monoflow.nn.Dropout1d`.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``; another rank raises ``RuntimeError``.
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        training (bool): apply dropout. Default: ``True``.
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.
        generator (monoflow.Generator, optional): the generator of the mask. Default: the device's
            default generator.

    Example::

        >>> F.dropout1d(flow.ones(2, 4, 6), 0.5).shape
        monoflow.Size([2, 4, 6])
    """
    _C.check_tensor(input, "dropout1d", "input", 1)
    return _channel_dropout("dropout1d", input, p, training, inplace, 1, generator)


def dropout2d(input, p=0.5, training=True, inplace=False, *, generator=None):
    """Channel dropout for 2-d spatial data: zeroes whole ``(sample, channel)`` slices of a ``(N, C, H,
    W)`` or ``(C, H, W)`` input with probability ``p``. See :class:`~monoflow.nn.Dropout2d`.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``; another rank warns (deprecated, as
            in torch) and is masked by torch's rule for it; a 1-D input raises ``RuntimeError`` unless
            ``p`` is 0 or 1 (as in torch).
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        training (bool): apply dropout. Default: ``True``.
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.
        generator (monoflow.Generator, optional): the generator of the mask. Default: the device's
            default generator.

    Example::

        >>> F.dropout2d(flow.ones(2, 4, 3, 3), 0.5).shape
        monoflow.Size([2, 4, 3, 3])
    """
    _C.check_tensor(input, "dropout2d", "input", 1)
    return _channel_dropout("dropout2d", input, p, training, inplace, 2, generator)


def dropout3d(input, p=0.5, training=True, inplace=False, *, generator=None):
    """Channel dropout for 3-d spatial data: zeroes whole ``(sample, channel)`` slices of a ``(N, C, D, H,
    W)`` or ``(C, D, H, W)`` input with probability ``p``. See :class:`~monoflow.nn.Dropout3d`.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``; another rank warns (deprecated, as
            in torch) and is masked by torch's rule for it; a 1-D input raises ``RuntimeError``.
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        training (bool): apply dropout. Default: ``True``.
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.
        generator (monoflow.Generator, optional): the generator of the mask. Default: the device's
            default generator.

    Example::

        >>> F.dropout3d(flow.ones(2, 4, 2, 3, 3), 0.5).shape
        monoflow.Size([2, 4, 2, 3, 3])
    """
    _C.check_tensor(input, "dropout3d", "input", 1)
    return _channel_dropout("dropout3d", input, p, training, inplace, 3, generator)


def alpha_dropout(input, p=0.5, training=False, inplace=False, *, generator=None):
    """Alpha dropout (for SELU networks): keeps zero mean and unit variance. See
    :class:`~monoflow.nn.AlphaDropout`.

    Args:
        input (Tensor): the input.
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        training (bool): apply dropout. Default: ``False`` (as torch).
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.
        generator (monoflow.Generator, optional): the generator of the mask. Default: the device's
            default generator.

    Example::

        >>> F.alpha_dropout(flow.randn(4, 5), 0.2, training=True).shape
        monoflow.Size([4, 5])
    """
    _C.check_tensor(input, "alpha_dropout", "input", 1)
    return _alpha_dropout("alpha_dropout", input, p, training, inplace, tuple(input.shape), generator)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False, *, generator=None):
    """Alpha dropout of whole channels: every element of a dropped ``(sample, channel)`` pair takes the
    same value. See :class:`~monoflow.nn.FeatureAlphaDropout`.

    Args:
        input (Tensor): ``(N, C, *)``.
        p (float): the probability of dropping a channel. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        training (bool): apply dropout. Default: ``False`` (as torch).
        inplace (bool): write into the input tensor. Default: ``False``.
        generator (monoflow.Generator, optional): the generator of the mask. Default: the device's
            default generator.

    Example::

        >>> F.feature_alpha_dropout(flow.randn(2, 3, 4), 0.5, training=True).shape
        monoflow.Size([2, 3, 4])
    """
    _C.check_tensor(input, "feature_alpha_dropout", "input", 1)
    if input.dim() < 2:
        raise RuntimeError(f"feature_alpha_dropout: expected an input of at least 2 dimensions (N, C, *), got "
                           f"{input.dim()}")
    mask_shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    return _alpha_dropout("feature_alpha_dropout", input, p, training, inplace, mask_shape, generator)


def _alpha_dropout(op, input, p, training, inplace, mask_shape, generator):
    _C.check_tensor(input, op, "input", 1)
    _check_p(op, p)
    training, inplace = _flags(op, training, inplace)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    alpha_p = -1.7580993408473766  # -scale * alpha of SELU
    keep = _C._empty(mask_shape, input.dtype, input.device)
    keep.bernoulli_(1.0 - p, generator=generator)
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    out = (input * keep + (1 - keep) * alpha_p) * a + b
    return input.copy_(out) if inplace else out
