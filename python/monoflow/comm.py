"""monoflow.comm: OneFlow's names for the collectives (flow.comm.all_reduce ...).

They work on local tensors of the default process group, which they join
from the launcher's environment on first use (as OneFlow does).
"""
from monoflow import _creation, _dtypes
from monoflow import env as _env


def _dist():
    import monoflow.distributed as dist
    _env.init()
    return dist


def all_reduce(tensor):
    """Sums ``tensor`` over all ranks, in place (``monoflow.distributed.all_reduce`` with ``SUM``).

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        tensor (Tensor): the input and the output, the same shape on every rank.

    Example::

        >>> callable(flow.comm.all_reduce)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> t = flow.tensor([1.0, 2.0]) * (flow.env.get_rank() + 1)  # doctest: +SKIP
        >>> flow.comm.all_reduce(t)  # doctest: +SKIP
        >>> t  # doctest: +SKIP
        tensor([3., 6.])
    """
    _dist().all_reduce(tensor)


def all_gather(tensor_list, tensor):
    """Gathers every rank's ``tensor`` into ``tensor_list`` on every rank: ``tensor_list[r]`` gets rank ``r``'s.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        tensor_list (list of Tensor): the outputs, one per rank.
        tensor (Tensor): this rank's input.

    Example::

        >>> callable(flow.comm.all_gather)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> out = [flow.zeros(1), flow.zeros(1)]  # doctest: +SKIP
        >>> flow.comm.all_gather(out, flow.tensor([float(flow.env.get_rank())]))  # doctest: +SKIP
        >>> out  # doctest: +SKIP
        [tensor([0.]), tensor([1.])]
    """
    _dist().all_gather(tensor_list, tensor)


def all_gather_into_tensor(output_tensor, input_tensor):
    """Gathers every rank's ``input_tensor`` into ``output_tensor``, in rank order, on every rank.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        output_tensor (Tensor): the output, of ``world_size * input_tensor.numel()`` elements.
        input_tensor (Tensor): this rank's input.

    Example::

        >>> callable(flow.comm.all_gather_into_tensor)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> out = flow.zeros(2)  # doctest: +SKIP
        >>> flow.comm.all_gather_into_tensor(out, flow.tensor([float(flow.env.get_rank())]))  # doctest: +SKIP
        >>> out  # doctest: +SKIP
        tensor([0., 1.])
    """
    _dist().all_gather_into_tensor(output_tensor, input_tensor)


def broadcast(tensor, src):
    """Copies ``tensor`` of rank ``src`` into ``tensor`` on every rank.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        tensor (Tensor): the data on ``src``, the output elsewhere.
        src (int): the rank of the source.

    Example::

        >>> callable(flow.comm.broadcast)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> t = flow.arange(3) if flow.env.get_rank() == 0 else flow.zeros(3, dtype=flow.int64)  # doctest: +SKIP
        >>> flow.comm.broadcast(t, 0)  # doctest: +SKIP
        >>> t  # doctest: +SKIP
        tensor([0, 1, 2])
    """
    _dist().broadcast(tensor, src)


def reduce(tensor, dst):
    """Sums ``tensor`` over all ranks into ``tensor`` of rank ``dst``; the others are unchanged.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        tensor (Tensor): the input, and the output on ``dst``.
        dst (int): the rank that receives the sum.

    Example::

        >>> callable(flow.comm.reduce)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> t = flow.ones(2)  # doctest: +SKIP
        >>> flow.comm.reduce(t, 0)  # doctest: +SKIP
        >>> t  # on rank 0  # doctest: +SKIP
        tensor([2., 2.])
    """
    _dist().reduce(tensor, dst)


def reduce_scatter(output, input_list):
    """Sums the ranks' ``input_list`` element-wise and scatters it: rank ``r`` gets the sum of every rank's
    ``input_list[r]``.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        output (Tensor): this rank's result.
        input_list (list of Tensor): one tensor per rank.

    Example::

        >>> callable(flow.comm.reduce_scatter)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> out = flow.zeros(1)  # doctest: +SKIP
        >>> flow.comm.reduce_scatter(out, [flow.tensor([1.0]), flow.tensor([10.0])])  # doctest: +SKIP
        >>> out  # rank 0; rank 1 gets tensor([20.])  # doctest: +SKIP
        tensor([2.])
    """
    _dist().reduce_scatter(output, input_list)


def reduce_scatter_tensor(output, input):
    """Sums the ranks' ``input`` element-wise and scatters it in equal chunks: rank ``r`` gets chunk ``r``.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        output (Tensor): this rank's chunk of the sum.
        input (Tensor): ``world_size * output.numel()`` elements.

    Example::

        >>> callable(flow.comm.reduce_scatter_tensor)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> out = flow.zeros(2)  # doctest: +SKIP
        >>> flow.comm.reduce_scatter_tensor(out, flow.arange(4).float())  # doctest: +SKIP
        >>> out  # rank 0; rank 1 gets tensor([4., 6.])  # doctest: +SKIP
        tensor([0., 2.])
    """
    _dist().reduce_scatter_tensor(output, input)


def all_to_all(output_tensor_list, input_tensor_list):
    """Exchanges tensors between all ranks: ``output_tensor_list[r]`` receives rank ``r``'s ``input_tensor_list[this
    rank]``.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        output_tensor_list (list of Tensor): one output per rank.
        input_tensor_list (list of Tensor): one input per rank.

    Example::

        >>> callable(flow.comm.all_to_all)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> me = flow.env.get_rank()  # doctest: +SKIP
        >>> out = [flow.zeros(1), flow.zeros(1)]  # doctest: +SKIP
        >>> flow.comm.all_to_all(out, [flow.tensor([10.0 * me]), flow.tensor([10.0 * me + 1])])  # doctest: +SKIP
        >>> out  # rank 1  # doctest: +SKIP
        [tensor([1.]), tensor([11.])]
    """
    _dist().all_to_all(output_tensor_list, input_tensor_list)


def scatter(tensor, scatter_list=None, src=0):
    """Scatters ``scatter_list`` of rank ``src``: ``tensor`` on rank ``r`` receives ``scatter_list[r]``.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        tensor (Tensor): this rank's output.
        scatter_list (list of Tensor, optional): on ``src``, one tensor per rank; ``None``
            elsewhere. Default: ``None``.
        src (int): the rank that sends. Default: ``0``.

    Example::

        >>> callable(flow.comm.scatter)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> t = flow.zeros(1)  # doctest: +SKIP
        >>> parts = [flow.tensor([5.0]), flow.tensor([7.0])] if flow.env.get_rank() == 0 else None  # doctest: +SKIP
        >>> flow.comm.scatter(t, parts, src=0)  # doctest: +SKIP
        >>> t  # rank 1  # doctest: +SKIP
        tensor([7.])
    """
    _dist().scatter(tensor, scatter_list, src)


def gather(tensor, gather_list=None, dst=0):
    """Gathers every rank's ``tensor`` into ``gather_list`` on rank ``dst``.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        tensor (Tensor): this rank's input.
        gather_list (list of Tensor, optional): on ``dst``, one output per rank; ``None``
            elsewhere. Default: ``None``.
        dst (int): the rank that receives. Default: ``0``.

    Example::

        >>> callable(flow.comm.gather)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> out = [flow.zeros(1), flow.zeros(1)] if flow.env.get_rank() == 0 else None  # doctest: +SKIP
        >>> flow.comm.gather(flow.tensor([float(flow.env.get_rank())]), out, dst=0)  # doctest: +SKIP
        >>> out  # on rank 0  # doctest: +SKIP
        [tensor([0.]), tensor([1.])]
    """
    _dist().gather(tensor, gather_list, dst)


def barrier():
    """Blocks until every rank has entered the barrier.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Example::

        >>> callable(flow.comm.barrier)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> flow.comm.barrier()  # doctest: +SKIP
    """
    _dist().barrier()


_MAX_DIMS = 8


def send(tensor, dst, send_meta=True):
    """Sends ``tensor`` to rank ``dst``; with ``send_meta`` its shape and dtype go first, so the receiver needs neither.

    It joins the default process group from the launcher's environment on first use, as OneFlow does.

    Args:
        tensor (Tensor): the data (up to 8 dimensions with ``send_meta``).
        dst (int): the rank of the receiver.
        send_meta (bool): send the shape and dtype before the data. Default: ``True``.

    Example::

        >>> callable(flow.comm.send)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> if flow.env.get_rank() == 0:  # doctest: +SKIP
        >>>     flow.comm.send(flow.tensor([1.0, 2.0]), dst=1)  # doctest: +SKIP
        >>> else:  # doctest: +SKIP
        >>>     flow.comm.recv(0)  # doctest: +SKIP
        tensor([1., 2.])
    """
    dist = _dist()
    if send_meta:
        if tensor.dim() > _MAX_DIMS:
            raise ValueError(f"comm.send: send_meta supports up to {_MAX_DIMS} dims, got {tensor.dim()}")
        meta = [tensor.dim(), tensor.dtype._value] + list(tensor.shape) + [0] * (_MAX_DIMS - tensor.dim())
        dist.send(_creation.tensor(meta, dtype=_dtypes.int64), dst)
    dist.send(tensor, dst)


def recv(src, shape=None, dtype=None, device=None, out=None):
    """Receives a tensor from rank ``src`` and returns it.

    Without ``shape`` and ``dtype`` (or ``out``), the sender must have used
    ``send(..., send_meta=True)``, which sends them first. It joins the default process group from the launcher's
    environment on first use, as OneFlow does.

    Args:
        src (int): the rank of the sender.
        shape (tuple of int, optional): the shape of the tensor, with ``dtype``. Default: ``None``.
        dtype (monoflow.dtype, optional): its dtype, with ``shape``. Default: ``None``.
        device (str or device, optional): move the result there. Default: ``None`` (CPU).
        out (Tensor, optional): receive into this tensor. Default: ``None``.

    Example::

        >>> callable(flow.comm.recv)
        True
        >>> # in each of 2 processes started by python -m monoflow.distributed.launch --nproc-per-node 2:
        >>> flow.comm.recv(0)  # on rank 1, after rank 0's flow.comm.send(flow.tensor([1.0, 2.0]), 1)  # doctest: +SKIP
        tensor([1., 2.])
        >>> flow.comm.recv(0, shape=(2,), dtype=flow.float32)  # after send(..., send_meta=False)  # doctest: +SKIP
        tensor([1., 2.])
    """
    dist = _dist()
    if out is None:
        if shape is None or dtype is None:
            meta = _creation.zeros(2 + _MAX_DIMS, dtype=_dtypes.int64)
            dist.recv(meta, src)
            m = meta.tolist()
            from monoflow._C import dtypes
            shape, dtype = tuple(int(s) for s in m[2:2 + int(m[0])]), dtypes[int(m[1])]
        out = _creation.empty(shape, dtype=dtype)
    dist.recv(out, src)
    return out if device is None else out.to(device)
