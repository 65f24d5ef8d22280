"""InstanceNorm1d/2d/3d: each (sample, channel) normalised over its own
spatial positions, with optional affine parameters and running statistics."""
from monoflow import _creation
from monoflow._dtypes import int64
from monoflow.nn import functional as F
from monoflow.nn.module import Module
from monoflow.nn.modules._factory import affine_parameters, reset_affine

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(Module):
    _spatial = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        affine_parameters(self, (num_features,), affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, **kw))
            self.register_buffer("running_var", _creation.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", _creation.zeros((), dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        reset_affine(self)

    def forward(self, input):
        name = type(self).__name__
        if input.dim() not in (self._spatial + 1, self._spatial + 2):
            raise ValueError(f"{name}: expected {self._spatial + 1}D or {self._spatial + 2}D input "
                             f"(got {input.dim()}D input)")
        unbatched = input.dim() == self._spatial + 1
        if unbatched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.num_features and self.affine:
            raise ValueError(f"{name}: expected input's size at dim=1 to match num_features ({self.num_features}), "
                             f"but got: {input.shape[1]}.")
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation: each (sample, channel) of a ``(N, C, L)`` input is normalised over its own
    spatial positions.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance for stability. Default: ``1e-5``.
        momentum (float): the update weight of the running statistics. Default: ``0.1``.
        affine (bool): learn a per-channel ``weight`` and ``bias``. Default: ``False`` (unlike
            BatchNorm).
        track_running_stats (bool): keep running statistics and use them in eval mode. Default:
            ``False``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.InstanceNorm1d(4)
        >>> y = m(flow.randn(2, 4, 10))
        >>> y.shape
        monoflow.Size([2, 4, 10])
        >>> flow.allclose(y.mean(-1), flow.zeros(2, 4), atol=1e-5)
        True
    """

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation: each (sample, channel) of a ``(N, C, H, W)`` input is normalised over its
    own spatial positions.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance for stability. Default: ``1e-5``.
        momentum (float): the update weight of the running statistics. Default: ``0.1``.
        affine (bool): learn a per-channel ``weight`` and ``bias``. Default: ``False`` (unlike
            BatchNorm).
        track_running_stats (bool): keep running statistics and use them in eval mode. Default:
            ``False``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.InstanceNorm2d(4)
        >>> y = m(flow.randn(2, 4, 5, 5))
        >>> y.shape
        monoflow.Size([2, 4, 5, 5])
        >>> flow.allclose(y.mean((2, 3)), flow.zeros(2, 4), atol=1e-5)
        True
    """

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation: each (sample, channel) of a ``(N, C, D, H, W)`` input is normalised over its
    own spatial positions.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance for stability. Default: ``1e-5``.
        momentum (float): the update weight of the running statistics. Default: ``0.1``.
        affine (bool): learn a per-channel ``weight`` and ``bias``. Default: ``False`` (unlike
            BatchNorm).
        track_running_stats (bool): keep running statistics and use them in eval mode. Default:
            ``False``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.InstanceNorm3d(4)
        >>> y = m(flow.randn(2, 4, 3, 5, 5))
        >>> y.shape
        monoflow.Size([2, 4, 3, 5, 5])
        >>> flow.allclose(y.mean((2, 3, 4)), flow.zeros(2, 4), atol=1e-5)
        True
    """

    _spatial = 3
