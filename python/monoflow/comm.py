"""monoflow.comm: OneFlow's names for the collectives (flow.comm.all_reduce ...).

They work on local tensors of the default process group, which they join
from the launcher's environment on first use (as OneFlow does).
"""
import monoflow as flow
from monoflow import env as _env


def _dist():
    import monoflow.distributed as dist
    _env.init()
    return dist


def all_reduce(tensor):
    """In-place sum over all ranks."""
    _dist().all_reduce(tensor)


def all_gather(tensor_list, tensor):
    _dist().all_gather(tensor_list, tensor)


def all_gather_into_tensor(output_tensor, input_tensor):
    _dist().all_gather_into_tensor(output_tensor, input_tensor)


def broadcast(tensor, src):
    _dist().broadcast(tensor, src)


def reduce(tensor, dst):
    _dist().reduce(tensor, dst)


def reduce_scatter(output, input_list):
    _dist().reduce_scatter(output, input_list)


def reduce_scatter_tensor(output, input):
    _dist().reduce_scatter_tensor(output, input)


def all_to_all(output_tensor_list, input_tensor_list):
    _dist().all_to_all(output_tensor_list, input_tensor_list)


def scatter(tensor, scatter_list=None, src=0):
    _dist().scatter(tensor, scatter_list, src)


def gather(tensor, gather_list=None, dst=0):
    _dist().gather(tensor, gather_list, dst)


def barrier():
    _dist().barrier()


_MAX_DIMS = 8


def send(tensor, dst, send_meta=True):
    """Sends tensor to rank dst; with send_meta the receiver needs no shape/dtype."""
    dist = _dist()
    if send_meta:
        if tensor.dim() > _MAX_DIMS:
            raise ValueError(f"comm.send: send_meta supports up to {_MAX_DIMS} dims, got {tensor.dim()}")
        meta = [tensor.dim(), tensor.dtype._value] + list(tensor.shape) + [0] * (_MAX_DIMS - tensor.dim())
        dist.send(flow.tensor(meta, dtype=flow.int64), dst)
    dist.send(tensor, dst)


def recv(src, shape=None, dtype=None, device=None, out=None):
    """Receives a tensor from rank src. Without shape/dtype/out, the sender must
    have used send_meta=True."""
    dist = _dist()
    if out is None:
        if shape is None or dtype is None:
            meta = flow.zeros(2 + _MAX_DIMS, dtype=flow.int64)
            dist.recv(meta, src)
            m = meta.tolist()
            from monoflow._C import dtypes
            shape, dtype = tuple(int(s) for s in m[2:2 + int(m[0])]), dtypes[int(m[1])]
        out = flow.empty(shape, dtype=dtype)
    dist.recv(out, src)
    return out if device is None else out.to(device)
