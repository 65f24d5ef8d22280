"""DataParallel (torch.nn.DataParallel): single-process replication across
devices. monoflow runs one device per process, so DataParallel keeps the
wrapper's interface (``.module``, "module."-prefixed state dicts, the
constructor's arguments) and runs the module on its own device; scripts
that wrap a model "in case there are several GPUs" run unchanged. Several
device_ids raise NotImplementedError: use DistributedDataParallel."""
from monoflow.nn.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if device_ids is not None and len(list(device_ids)) > 1:
            raise NotImplementedError("DataParallel over several devices is not supported; use "
                                      "nn.parallel.DistributedDataParallel (one process per device)")
        self.module = module
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
