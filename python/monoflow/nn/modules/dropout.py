"""Dropout layers (active in training mode only)."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes each element of the input with probability ``p`` during training.

    Active in training mode only (``module.train()``); in eval mode it returns the input. The kept
    elements are scaled by ``1 / (1 - p)`` so the expected value is unchanged. Masks come from
    monoflow's generator: ``flow.manual_seed`` makes them repeatable.

    Args:
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.
        generator (flow.Generator, optional): the generator the masks come from (OneFlow's
            argument); ``None`` uses the default generator. Default: ``None``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: the shape of the input.

    Example::

        >>> m = nn.Dropout(p=0.5)
        >>> y = m(flow.ones(1000))
        >>> ((y == 0) | (y == 2)).all()
        tensor(True)
        >>> m.eval()(flow.ones(3))
        tensor([1., 1., 1.])
    """

    def __init__(self, p=0.5, inplace=False, generator=None):
        super().__init__(p, inplace)
        # OneFlow's Dropout takes the generator its masks come from (None: the default one)
        self.generator = generator

    def forward(self, input, addend=None):
        # addend: OneFlow's fused residual, dropout(input) + addend
        if addend is not None:
            return F.dropout(input, self.p, self.training, self.inplace, generator=self.generator, addend=addend)
        if self.generator is None:
            return F.dropout(input, self.p, self.training, self.inplace)
        return F.dropout(input, self.p, self.training, self.inplace, generator=self.generator)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels during training: each ``(sample, channel)`` of a ``(N, C, L)`` input is
    dropped with probability ``p``, all its positions together.

    Active in training mode only (``module.train()``); in eval mode it returns the input. The kept
    elements are scaled by ``1 / (1 - p)`` so the expected value is unchanged. Masks come from
    monoflow's generator: ``flow.manual_seed`` makes them repeatable.

    Args:
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.

    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``; another rank raises ``RuntimeError``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.Dropout1d(0.5)
        >>> m(flow.ones(2, 4, 6)).shape
        monoflow.Size([2, 4, 6])
    """

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels during training: each ``(sample, channel)`` of a ``(N, C, H, W)`` input is
    dropped with probability ``p``, all its positions together.

    Active in training mode only (``module.train()``); in eval mode it returns the input. The kept
    elements are scaled by ``1 / (1 - p)`` so the expected value is unchanged. Masks come from
    monoflow's generator: ``flow.manual_seed`` makes them repeatable.

    Args:
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``; another rank raises ``RuntimeError``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.Dropout2d(0.5)
        >>> m(flow.ones(2, 4, 3, 3)).shape
        monoflow.Size([2, 4, 3, 3])
    """

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels during training: each ``(sample, channel)`` of a ``(N, C, D, H, W)`` input is
    dropped with probability ``p``, all its positions together.

    Active in training mode only (``module.train()``); in eval mode it returns the input. The kept
    elements are scaled by ``1 / (1 - p)`` so the expected value is unchanged. Masks come from
    monoflow's generator: ``flow.manual_seed`` makes them repeatable.

    Args:
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        inplace (bool): apply the mask to the input tensor itself. Default: ``False``.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``; another rank raises ``RuntimeError``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.Dropout3d(0.5)
        >>> m(flow.ones(2, 4, 2, 3, 3)).shape
        monoflow.Size([2, 4, 2, 3, 3])
    """

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout for SELU networks: dropped elements are set to SELU's negative saturation value and the
    result is affinely rescaled, so that zero mean and unit variance are kept.

    Active in training mode only.

    Args:
        p (float): the probability of zeroing an element. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        inplace (bool): accepted for torch compatibility; the module does not use it. Default:
            ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: the shape of the input.

    Example::

        >>> m = nn.AlphaDropout(0.2)
        >>> m(flow.randn(4, 5)).shape
        monoflow.Size([4, 5])
    """

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (``(N, C, *)`` inputs): a dropped channel takes SELU's negative
    saturation value everywhere, then the result is affinely rescaled to keep zero mean and unit variance.

    Active in training mode only.

    Args:
        p (float): the probability of dropping a channel. Must be in ``[0, 1]`` (else ``ValueError``).
            Default: ``0.5``.
        inplace (bool): write into the input tensor. Default: ``False``.

    Shape:
        - Input: ``(N, C, *)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.FeatureAlphaDropout(0.2)
        >>> m(flow.randn(2, 4, 5)).shape
        monoflow.Size([2, 4, 5])
    """

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)
