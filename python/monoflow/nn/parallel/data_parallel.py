"""DataParallel (torch.nn.DataParallel): single-process replication across
devices. monoflow runs one device per process, so DataParallel keeps the
wrapper's interface (``.module``, "module."-prefixed state dicts, the
constructor's arguments) and runs the module on its own device; scripts
that wrap a model "in case there are several GPUs" run unchanged. Several
device_ids raise NotImplementedError: use DistributedDataParallel."""
from monoflow.nn.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """torch's single-process data parallelism, for one device: it calls the wrapped module as is.

    Programs written for ``nn.DataParallel`` run unchanged on one device; several ``device_ids`` raise
    ``NotImplementedError`` (use :class:`~monoflow.nn.parallel.DistributedDataParallel`, one process per
    device). The wrapped module is ``self.module`` (state dict keys get the ``module.`` prefix, as in
    torch).

    Args:
        module (Module): the module to wrap.
        device_ids (list of int or device, optional): at most one device. Default: ``None``.
        output_device (int or device, optional): kept for torch compatibility. Default: ``None``.
        dim (int): the batch dim the inputs would be scattered along. Default: ``0``.

    Example::

        >>> dp = nn.DataParallel(nn.Linear(4, 2))
        >>> dp(flow.randn(3, 4)).shape
        monoflow.Size([3, 2])
        >>> list(dp.state_dict())
        ['module.weight', 'module.bias']
    """

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


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The function form of :class:`DataParallel`: ``module(*inputs, **module_kwargs)`` on one device.

    Args:
        module (Module): the module to run.
        inputs (Tensor or tuple): its positional input(s).
        device_ids (list of int or device, optional): at most one device (several raise
            ``NotImplementedError``, as :class:`DataParallel`). Default: ``None``.
        output_device (int or device, optional): kept for torch compatibility. Default: ``None``.
        dim (int): the batch dim the inputs would be scattered along. Default: ``0``.
        module_kwargs (dict, optional): keyword arguments of the module. Default: ``None``.

    Example::

        >>> nn.parallel.data_parallel(nn.Linear(4, 2), flow.randn(3, 4)).shape
        monoflow.Size([3, 2])
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))
