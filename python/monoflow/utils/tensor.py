"""OneFlow's ``oneflow.utils.tensor``: tensors to and from PyTorch, sharing memory (through DLPack)."""

__all__ = ["from_torch", "to_torch"]


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("from_torch/to_torch need PyTorch (pip install torch)") from None
    return torch


def from_torch(torch_tensor):
    """A monoflow tensor sharing ``torch_tensor``'s memory (writes to one show in the other).

    The result does not require grad (autograd histories are not shared); its dtype, shape and
    strides are the torch tensor's.

    Args:
        torch_tensor (torch.Tensor): a tensor on a device this monoflow has (the CPU here).

    Example::

        >>> import torch, monoflow as flow
        >>> t = torch.tensor([[1, 2, 3], [4, 5, 6]])
        >>> f = flow.utils.tensor.from_torch(t)
        >>> f[0, 0] = 10
        >>> t[0, 0].item(), f.dtype
        (10, monoflow.int64)
    """
    torch = _torch()
    if not isinstance(torch_tensor, torch.Tensor):
        raise TypeError(f"from_torch(): argument 'torch_tensor' must be a torch.Tensor, not "
                        f"{type(torch_tensor).__name__}")
    from monoflow import from_dlpack

    return from_dlpack(torch_tensor.detach())


def to_torch(flow_tensor):
    """A ``torch.Tensor`` sharing ``flow_tensor``'s memory (writes to one show in the other).

    Args:
        flow_tensor (Tensor): a local monoflow tensor in host memory.

    Example::

        >>> import torch, monoflow as flow
        >>> f = flow.ones(2, 3)
        >>> t = flow.utils.tensor.to_torch(f)
        >>> t[0, 0] = 5
        >>> f[0, 0].item(), t.dtype
        (5.0, torch.float32)
    """
    torch = _torch()
    from monoflow import _C

    flow_tensor = _C.check_tensor(flow_tensor, "to_torch", "flow_tensor", 1)
    return torch.from_dlpack(flow_tensor.detach())
