"""How tensors cross process boundaries in monoflow.multiprocessing.

Registered with multiprocessing's ForkingPickler, which Queue, Pipe, the
arguments of a spawned Process and the DataLoader workers pickle with: a
host-memory tensor is moved into a shared memory segment in place (as
torch's reducer does) and travels as the segment's file descriptor plus its
layout, so both processes then read and write the same memory. Plain pickle
(and monoflow.save) keeps sending tensors by value (Tensor.__reduce__).

As with torch's file_descriptor strategy, a process that puts a tensor on a
Queue must stay alive until the receiver has taken it: the descriptor is
handed over by the sender (multiprocessing's resource sharer). A spawned
Process gets its arguments' descriptors directly when it starts.
"""
from multiprocessing.reduction import DupFd, ForkingPickler

from monoflow import _C, _dtypes
from monoflow._shared_memory import SharedSegment, share_in_place, tensor_over
from monoflow._tensor import Tensor
from monoflow.nn.parameter import Parameter


def _shareable(t):
    return not getattr(t, "is_global", False) and t.device.type == "cpu"


def _rebuild_shared(dupfd, nbytes, dtype_name, shape, strides, offset, requires_grad):
    seg = SharedSegment(nbytes, fd=dupfd.detach())
    out = tensor_over(seg, _dtypes.ALIASES[dtype_name], shape, strides, offset)
    return out.requires_grad_(True) if requires_grad else out


def _shared_args(t):
    seg = share_in_place(t)
    nbytes, offset, strides = _C.storage_layout(t)
    return (DupFd(seg.fd), nbytes, t.dtype.name, tuple(t.shape), strides, offset)


def reduce_tensor(t):
    if not _shareable(t):
        return t.__reduce_ex__(2)  # by value: not host memory a mapping can share
    return _rebuild_shared, _shared_args(t) + (bool(t.requires_grad) and t.is_leaf,)


def _rebuild_shared_parameter(dupfd, nbytes, dtype_name, shape, strides, offset, requires_grad):
    return Parameter(_rebuild_shared(dupfd, nbytes, dtype_name, shape, strides, offset, False), requires_grad)


def reduce_parameter(p):
    if not _shareable(p):
        return p.__reduce_ex__(2)
    return _rebuild_shared_parameter, _shared_args(p) + (bool(p.requires_grad),)


def init_reductions():
    ForkingPickler.register(Tensor, reduce_tensor)
    ForkingPickler.register(Parameter, reduce_parameter)
