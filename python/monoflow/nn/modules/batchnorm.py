"""BatchNorm1d/2d/3d and SyncBatchNorm: per-channel normalisation with running statistics."""
from monoflow._creation import tensor as _tensor
from monoflow._dtypes import float64, int64
from monoflow.autograd.grad_mode import no_grad
from monoflow._C import cat as flow_cat
from monoflow.nn import functional as F
from monoflow.nn.module import Module
from monoflow.nn.modules._factory import affine_parameters, empty, reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _BatchNorm(Module):
    _version = 2  # state dicts of version < 2 lack num_batches_tracked
    _expected_dims = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        affine_parameters(self, (num_features,), affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", empty(num_features, device=device, dtype=dtype).fill_(0.0))
            self.register_buffer("running_var", empty(num_features, device=device, dtype=dtype).fill_(1.0))
            self.register_buffer("num_batches_tracked", _tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.fill_(0.0)
            self.running_var.fill_(1.0)
            self.num_batches_tracked.fill_(0)

    def reset_parameters(self):
        self.reset_running_stats()
        reset_affine(self)

    def _check_input_dim(self, input):
        if input.dim() not in self._expected_dims:
            dims = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(f"expected {dims} input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else _tensor(0, dtype=int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over a 2-d or 3-d input: each channel is normalised with the statistics of the
    batch, then scaled and shifted: ``y = (x - mean) / sqrt(var + eps) * weight + bias``.

    In training the mean and the biased variance are computed over every dim but the channels; the
    running variance is updated with the unbiased one. In eval mode the running statistics are used.
    Another input rank raises ``ValueError``.

    Args:
        num_features (int): the number of channels ``C`` (dim 1 of the input).
        eps (float): added to the variance for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics' update
            ``running = (1 - momentum) * running + momentum * batch``; ``None`` uses a cumulative
            average. Default: ``0.1``.
        affine (bool): learn a per-channel scale ``weight`` (ones) and shift ``bias`` (zeros). Default:
            ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var`` (and ``num_batches_tracked``)
            and use them in eval mode; when ``False`` batch statistics are used in both modes. Default:
            ``True``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.
        bias (bool): with ``affine``, also learn the shift (keyword only). Default: ``True``.

    Shape:
        - Input: ``(N, C)`` or ``(N, C, L)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.BatchNorm1d(4)
        >>> y = m(flow.randn(8, 4) * 3 + 1)
        >>> y.shape
        monoflow.Size([8, 4])
        >>> m.running_mean.shape, int(m.num_batches_tracked)
        (monoflow.Size([4]), 1)
        >>> flow.allclose(y.mean(0), flow.zeros(4), atol=1e-5)
        True
    """
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over a 3-d input: each channel is normalised with the statistics of the batch,
    then scaled and shifted: ``y = (x - mean) / sqrt(var + eps) * weight + bias``.

    In training the mean and the biased variance are computed over every dim but the channels; the
    running variance is updated with the unbiased one. In eval mode the running statistics are used.
    Another input rank raises ``ValueError``.

    Args:
        num_features (int): the number of channels ``C`` (dim 1 of the input).
        eps (float): added to the variance for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics' update
            ``running = (1 - momentum) * running + momentum * batch``; ``None`` uses a cumulative
            average. Default: ``0.1``.
        affine (bool): learn a per-channel scale ``weight`` (ones) and shift ``bias`` (zeros). Default:
            ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var`` (and ``num_batches_tracked``)
            and use them in eval mode; when ``False`` batch statistics are used in both modes. Default:
            ``True``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.
        bias (bool): with ``affine``, also learn the shift (keyword only). Default: ``True``.

    Shape:
        - Input: ``(N, C, H, W)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.BatchNorm2d(4)
        >>> y = m(flow.randn(8, 4, 5, 5) * 3 + 1)
        >>> y.shape
        monoflow.Size([8, 4, 5, 5])
        >>> m.running_mean.shape, int(m.num_batches_tracked)
        (monoflow.Size([4]), 1)
    """
    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over a 4-d input: each channel is normalised with the statistics of the batch,
    then scaled and shifted: ``y = (x - mean) / sqrt(var + eps) * weight + bias``.

    In training the mean and the biased variance are computed over every dim but the channels; the
    running variance is updated with the unbiased one. In eval mode the running statistics are used.
    Another input rank raises ``ValueError``.

    Args:
        num_features (int): the number of channels ``C`` (dim 1 of the input).
        eps (float): added to the variance for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics' update
            ``running = (1 - momentum) * running + momentum * batch``; ``None`` uses a cumulative
            average. Default: ``0.1``.
        affine (bool): learn a per-channel scale ``weight`` (ones) and shift ``bias`` (zeros). Default:
            ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var`` (and ``num_batches_tracked``)
            and use them in eval mode; when ``False`` batch statistics are used in both modes. Default:
            ``True``.
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.
        bias (bool): with ``affine``, also learn the shift (keyword only). Default: ``True``.

    Shape:
        - Input: ``(N, C, D, H, W)``.
        - Output: the shape of the input.

    Example::

        >>> m = nn.BatchNorm3d(4)
        >>> y = m(flow.randn(2, 4, 3, 5, 5) * 3 + 1)
        >>> y.shape
        monoflow.Size([2, 4, 3, 5, 5])
        >>> m.running_mean.shape, int(m.num_batches_tracked)
        (monoflow.Size([4]), 1)
    """
    _expected_dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over ``(N, C, *)`` whose batch statistics are meant to span the processes of
    ``process_group``.

    In training with more than one process (``process_group``'s size > 1) the mean and variance are
    those of the union of the processes' batches, as if one process had seen them all; the gradients
    flow through that synchronisation. In one process, or in eval mode, it is plain batch norm. A rank
    started by a launcher (rank and world size in its environment) joins the job on first use without
    ``init_process_group``, as OneFlow's.
    :meth:`convert_sync_batchnorm` replaces the BatchNorm layers of a module.

    Args:
        num_features (int): the number of channels ``C`` (dim 1 of the input).
        eps (float): added to the variance for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics' update
            ``running = (1 - momentum) * running + momentum * batch``; ``None`` uses a cumulative
            average. Default: ``0.1``.
        affine (bool): learn a per-channel scale ``weight`` (ones) and shift ``bias`` (zeros). Default:
            ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var`` (and ``num_batches_tracked``)
            and use them in eval mode; when ``False`` batch statistics are used in both modes. Default:
            ``True``.
        process_group (optional): the group whose processes share statistics. Default: ``None`` (the
            world).
        device (optional): the device of the parameters and buffers. Default: the default device.
        dtype (optional): the dtype of the parameters and buffers. Default: the default floating dtype.

    Shape:
        - Input: ``(N, C, *)``, at least 2-d.
        - Output: the shape of the input.

    Example::

        >>> m = nn.SyncBatchNorm(4)
        >>> m(flow.randn(8, 4, 3)).shape
        monoflow.Size([8, 4, 3])
        >>> nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(4)))
        Sequential(
          (0): SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        )
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if self.training:
            from monoflow.distributed import cluster_env, process_group as pg

            if not pg.is_initialized() and cluster_env.launched() and cluster_env.world_size() > 1:
                pg.init_from_environment()  # OneFlow's rule: a launched rank needs no init_process_group
                # (a job of one process has nothing to share: no rendezvous for it)
            if pg.is_initialized() and pg.get_world_size(self.process_group) > 1:
                return self._synchronised(input)
        return super().forward(input)

    def _synchronised(self, input):
        # Batch statistics over every process's batch: one differentiable all-reduce of the per-channel
        # sums, sums of squares and counts, accumulated in float64 (where E[x^2] - E[x]^2 keeps its
        # digits); the normalisation itself runs in the input's dtype. Autograd then gives every rank
        # the gradient of the global normalisation.
        from monoflow.distributed.nn.functional import all_reduce

        c = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        count = _tensor([float(input.numel() // c)], dtype=float64, device=input.device)
        local = flow_cat([input.sum(dims, dtype=float64), (input * input).sum(dims, dtype=float64), count])
        total = all_reduce(local, group=self.process_group)
        n = total[2 * c]
        mean64 = total[:c] / n
        var64 = total[c:2 * c] / n - mean64 * mean64
        if self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked.item()) if self.momentum is None else self.momentum
            with no_grad():
                unbiased = var64 * (n / (n - 1)) if float(n) > 1 else var64
                self.running_mean.mul_(1 - factor).add_(factor * mean64.to(self.running_mean.dtype))
                self.running_var.mul_(1 - factor).add_(factor * unbiased.to(self.running_var.dtype))
        return F.batch_norm(input, mean64.to(input.dtype), var64.to(input.dtype), self.weight, self.bias, False,
                            0.0, self.eps)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*d replaced by a SyncBatchNorm holding its parameters and buffers."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group)
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            out.running_mean, out.running_var = module.running_mean, module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
