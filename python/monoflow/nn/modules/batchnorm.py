"""BatchNorm1d/2d/3d and SyncBatchNorm: per-channel normalisation with running statistics."""
from monoflow._creation import tensor as _tensor
from monoflow._dtypes import int64
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
    """Over (N, C) or (N, C, L) inputs."""
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Over (N, C, H, W) inputs."""
    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Over (N, C, D, H, W) inputs."""
    _expected_dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over (N, C, *) whose batch statistics would span all the
    processes of ``process_group``. In a single process that is plain
    batch norm; across processes the statistics are not synchronised yet, so
    training it with more than one process raises NotImplementedError rather
    than silently using per-process statistics."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        if self.training:
            from monoflow.distributed import process_group as pg

            if pg.is_initialized() and pg.get_world_size(self.process_group) > 1:
                raise NotImplementedError("SyncBatchNorm: synchronising batch statistics across processes is not "
                                          "supported; use BatchNorm (per-process statistics) instead")
        return super().forward(input)

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
