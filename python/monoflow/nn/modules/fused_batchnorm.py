"""OneFlow's FusedBatchNorm1d/2d/3d: ``relu(batch_norm(x) + addend)`` in one module."""
from monoflow.nn import functional as F
from monoflow.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d

__all__ = ["FusedBatchNorm1d", "FusedBatchNorm2d", "FusedBatchNorm3d"]

_ARGS = """
    Args:
        num_features (int): the number of channels ``C`` (dim 1 of the input).
        eps (float): added to the variance for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics' update;
            ``None`` uses a cumulative average. Default: ``0.1``.
        affine (bool): learn a per-channel scale ``weight`` (ones) and shift ``bias`` (zeros).
            Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var`` and use them in eval mode;
            when ``False`` batch statistics are used in both modes. Default: ``True``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.
        bias (bool): with ``affine``, also learn the shift (keyword only). Default: ``True``.

    ``forward(x, addend=None)``: ``addend`` (a tensor of ``x``'s shape, optional) is added to the
    normalised ``x`` before the ReLU. Gradients, running statistics and eval mode are those of the
    unfused ``BatchNorm`` followed by ``+ addend`` and ``relu``.
"""


class _FusedBatchNorm:
    def forward(self, x, addend=None):
        y = super().forward(x)
        if addend is not None:
            y = y + addend
        return F.relu(y)


class FusedBatchNorm1d(_FusedBatchNorm, BatchNorm1d):
    __doc__ = """Fused batch normalisation, add and ReLU over a 2-d or 3-d input:
    ``out = relu(BatchNorm1d(x) + addend)`` (OneFlow's fused module; computed unfused here).
""" + _ARGS + """
    Example::

        >>> m = nn.FusedBatchNorm1d(4)
        >>> x, a = flow.randn(8, 4), flow.randn(8, 4)
        >>> bn = nn.BatchNorm1d(4)
        >>> flow.allclose(m(x, a), flow.relu(bn(x) + a), atol=1e-6)
        True
    """


class FusedBatchNorm2d(_FusedBatchNorm, BatchNorm2d):
    __doc__ = """Fused batch normalisation, add and ReLU over a 4-d input:
    ``out = relu(BatchNorm2d(x) + addend)`` (OneFlow's fused module; computed unfused here).
""" + _ARGS + """
    Example::

        >>> m = nn.FusedBatchNorm2d(2)
        >>> y = m(flow.randn(4, 2, 3, 3), addend=None)
        >>> y.shape, bool((y >= 0).all())
        (monoflow.Size([4, 2, 3, 3]), True)
    """


class FusedBatchNorm3d(_FusedBatchNorm, BatchNorm3d):
    __doc__ = """Fused batch normalisation, add and ReLU over a 5-d input:
    ``out = relu(BatchNorm3d(x) + addend)`` (OneFlow's fused module; computed unfused here).
""" + _ARGS + """
    Example::

        >>> m = nn.FusedBatchNorm3d(2)
        >>> x = flow.randn(3, 2, 2, 3, 2)
        >>> m(x, flow.ones_like(x)).shape
        monoflow.Size([3, 2, 2, 3, 2])
    """
