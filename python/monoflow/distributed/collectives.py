"""The collectives on tensors, with torch.distributed's signatures.

Note [Staging]
  The engines see contiguous buffers in their own memory. A tensor that is
  not contiguous, lives on a device the engine cannot read (Gloo reads host
  memory), or is float16/bfloat16 in a reduction (reduced through float32) is
  copied into a staging buffer; results are copied back into the caller's
  tensor when the operation finishes (synchronous ops before they return,
  async ones in Work.wait()). Buffers stay referenced by their Work, and by
  the group's in-flight list, until the engine is done with them.

Note [Collectives inside graph traces]
  A graph trace records kernel launches, and a collective is not one. So each
  collective called while a trace records (directly, or through a global
  tensor's boxing) also records a host node into the trace (_record below,
  Note [Host nodes] in core/include/monoflow/graph/host_node.h): the buffers
  the engine reads and writes, and a closure that enqueues the same
  collective at every replay. It is recorded just before it is enqueued, so
  the staging copies before it and the write-back copies after it (kernels)
  are ordered around it by the plan's dependencies. The trace still runs the
  collective eagerly (a trace executes what it records), so the traced
  function sees real values.
"""
from monoflow import _C, _creation, _dtypes, ops_shape
from monoflow._tensor import Tensor
from monoflow.autograd import no_grad
from monoflow.distributed.process_group import _group
from monoflow.distributed.reduce_op import ReduceOp
from monoflow.distributed.work import Work

_HALF = (_dtypes.float16, _dtypes.bfloat16)
_inflight = {}  # id(ProcessGroup) -> [Work]: keeps buffers of unwaited handles alive


def _check_tensor(t, what, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {name} must be a monoflow Tensor, got {type(t).__name__}")


def _check_list(ts, what, name, n):
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{what}: {name} must be a list of tensors, got {type(ts).__name__}")
    for t in ts:
        _check_tensor(t, what, name + " element")
    if n is not None and len(ts) != n:
        raise ValueError(f"{what}: {name} must hold one tensor per rank of the group ({n}), got {len(ts)}")


def _op(op, what, dtype):
    try:
        op = ReduceOp(op)
    except ValueError:
        raise ValueError(f"{what}: unknown reduce op {op!r}") from None
    if op == ReduceOp.AVG and not dtype.is_floating_point:
        raise ValueError(f"{what}: ReduceOp.AVG needs a floating-point tensor, got {dtype.name}")
    return op


class _Staged:
    """A contiguous host buffer standing for tensor `t` (Note [Staging])."""

    def __init__(self, t, reduce=False):
        self.t = t
        buf = t.detach() if t.requires_grad else t
        if buf.device.type != "cpu":
            buf = buf.to("cpu")
        if reduce and buf.dtype in _HALF:
            buf = buf.to(_dtypes.float32)
        if not buf.is_contiguous():
            buf = buf.contiguous()
        self.buf = buf
        self.staged = buf is not t and buf._data_address() != t._data_address()
        self.code = buf.dtype._value
        self.device = str(buf.device)

    @property
    def ptr(self):
        return self.buf._data_address()

    def write_back(self):
        if self.staged:
            with no_grad():
                self.t.copy_(self.buf.reshape(self.t.shape))


def _flat_empty(n, dtype):
    return _creation.empty((n,), dtype=dtype)


def _launch(g, cwork, keep, finish, async_op, result=None):
    w = Work(cwork, keep, finish, result)
    pending = _inflight.setdefault(id(g), [])
    pending[:] = [p for p in pending if not p._done and not p.is_completed()]
    if async_op:
        pending.append(w)
        return w
    w.wait()
    return None


def _record(g, kind, reads, writes, device="cpu:0", **spec):
    """While a graph trace records: the host node of this collective
    (Note [Collectives inside graph traces])."""
    if not _C._graph_tracing():
        return
    label = f"{kind}[group ranks {','.join(str(r) for r in g.ranks)}]"
    for key in ("root", "peer"):
        if key in spec:
            label = label[:-1] + f"; {key} {g.ranks[spec[key]]}]"
    capsule = g._c.traced_op(kind, label, device, **spec)
    _C._graph_record_host(capsule, [t for t in reads if t is not None], [t for t in writes if t is not None])


def _drain(g):
    for w in _inflight.pop(id(g), []):
        try:
            w.wait()
        except RuntimeError:
            pass


def _copy_parts(flat, tensors):
    with no_grad():
        off = 0
        for t in tensors:
            n = t.numel()
            t.copy_(flat[off:off + n].reshape(t.shape))
            off += n


def _concat(tensors, dtype):
    if not tensors:
        return _flat_empty(0, dtype)
    parts = [(t.detach() if t.requires_grad else t).to("cpu").to(dtype).reshape(-1) for t in tensors]
    return ops_shape.cat(parts).contiguous()


# --------------------------------------------------------------- collectives

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` across the ranks of the group, in place: every rank gets the result.

    A non-contiguous tensor, or a float16/bfloat16 one (reduced through
    float32), is staged through a buffer and the result copied back.

    Args:
        tensor (Tensor): the input and the output, the same shape and dtype on every rank.
        op (ReduceOp): the reduction: ``SUM``, ``PRODUCT``, ``MIN``, ``MAX`` or ``AVG``
            (``AVG`` needs a floating-point tensor). Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Raises:
        RuntimeError: when the default group is not initialized, or a peer fails or
            does not arrive within the group's timeout.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> t = flow.tensor([1.0, 2.0]) * (dist.get_rank() + 1)  # doctest: +SKIP
        >>> dist.all_reduce(t)  # doctest: +SKIP
        >>> t  # doctest: +SKIP
        tensor([3., 6.])
    """
    _check_tensor(tensor, "all_reduce")
    g = _group(group, "all_reduce")
    if g is None:
        return None
    op = _op(op, "all_reduce", tensor.dtype)
    s = _Staged(tensor, reduce=True)
    _record(g, "all_reduce", [s.buf], [s.buf], s.device, dtype=s.code, op=int(op), count=s.buf.numel())
    c = g._c.all_reduce(s.ptr, s.buf.numel(), s.code, int(op), s.device)
    return _launch(g, c, s, s.write_back, async_op)


def broadcast(tensor, src=0, group=None, async_op=False):
    """Copies ``tensor`` of rank ``src`` into ``tensor`` on every other rank of the group.

    Args:
        tensor (Tensor): the data on ``src``, the output elsewhere (same shape and dtype).
        src (int): the global rank of the source. Default: ``0``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> t = flow.arange(3) if dist.get_rank() == 0 else flow.zeros(3, dtype=flow.int64)  # doctest: +SKIP
        >>> dist.broadcast(t, src=0)  # doctest: +SKIP
        >>> t  # doctest: +SKIP
        tensor([0, 1, 2])
    """
    _check_tensor(tensor, "broadcast")
    g = _group(group, "broadcast")
    if g is None:
        return None
    root = g.group_rank(src, "broadcast")
    s = _Staged(tensor)
    _record(g, "broadcast", [s.buf], [s.buf], s.device, dtype=s.code, root=root, count=s.buf.numel())
    c = g._c.broadcast(s.ptr, s.buf.numel(), s.code, root, s.device)
    return _launch(g, c, s, s.write_back, async_op)


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` across the group into ``tensor`` of rank ``dst``; other ranks' tensors are unchanged.

    Args:
        tensor (Tensor): the input on every rank, and the output on ``dst``.
        dst (int): the global rank that receives the result. Default: ``0``.
        op (ReduceOp): the reduction: ``SUM``, ``PRODUCT``, ``MIN``, ``MAX`` or ``AVG``
            (``AVG`` needs a floating-point tensor). Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> t = flow.tensor([1.0, 2.0]) * (dist.get_rank() + 1)  # doctest: +SKIP
        >>> dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)  # doctest: +SKIP
        >>> t  # on rank 0  # doctest: +SKIP
        tensor([2., 4.])
    """
    _check_tensor(tensor, "reduce")
    g = _group(group, "reduce")
    if g is None:
        return None
    root = g.group_rank(dst, "reduce")
    op = _op(op, "reduce", tensor.dtype)
    s = _Staged(tensor, reduce=True)
    _record(g, "reduce", [s.buf], [s.buf], s.device, dtype=s.code, op=int(op), root=root, count=s.buf.numel())
    c = g._c.reduce(s.ptr, s.buf.numel(), s.code, int(op), root, s.device)
    finish = s.write_back if g.rank() == root else None
    return _launch(g, c, s, finish, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gathers every rank's ``tensor`` into ``tensor_list`` on every rank: ``tensor_list[r]`` gets rank ``r``'s.

    The ranks' tensors may differ in size; ``tensor_list[r]`` must have rank
    ``r``'s number of elements.

    Args:
        tensor_list (list of Tensor): the outputs, one per rank of the group.
        tensor (Tensor): this rank's input.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True`` (its ``result()`` is
        ``tensor_list``), else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> out = [flow.zeros(2) for _ in range(2)]  # doctest: +SKIP
        >>> dist.all_gather(out, flow.full((2,), float(dist.get_rank())))  # doctest: +SKIP
        >>> out  # doctest: +SKIP
        [tensor([0., 0.]), tensor([1., 1.])]
    """
    _check_tensor(tensor, "all_gather")
    g = _group(group, "all_gather")
    if g is None:
        return None
    _check_list(tensor_list, "all_gather", "tensor_list", g.size())
    if tensor_list[g.rank()].numel() != tensor.numel():
        raise ValueError(f"all_gather: tensor_list[{g.rank()}] has {tensor_list[g.rank()].numel()} elements but "
                         f"this rank's tensor has {tensor.numel()}")
    s = _Staged(tensor)
    counts = [t.numel() for t in tensor_list]
    out = _flat_empty(sum(counts), tensor.dtype)
    _record(g, "all_gather", [s.buf], [out], s.device, dtype=s.code, counts=counts)
    c = g._c.all_gather(s.ptr, out._data_address(), counts, s.code, s.device)
    return _launch(g, c, (s, out), lambda: _copy_parts(out, tensor_list), async_op, tensor_list)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's ``input_tensor`` into one tensor, in rank order, on every rank.

    Args:
        output_tensor (Tensor): the output, of ``world_size * input_tensor.numel()``
            elements and the input's dtype (e.g. the inputs stacked or concatenated).
        input_tensor (Tensor): this rank's input, the same size on every rank.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> out = flow.zeros(4)  # doctest: +SKIP
        >>> dist.all_gather_into_tensor(out, flow.full((2,), float(dist.get_rank())))  # doctest: +SKIP
        >>> out  # doctest: +SKIP
        tensor([0., 0., 1., 1.])
    """
    _check_tensor(output_tensor, "all_gather_into_tensor", "output_tensor")
    _check_tensor(input_tensor, "all_gather_into_tensor", "input_tensor")
    g = _group(group, "all_gather_into_tensor")
    if g is None:
        return None
    if output_tensor.numel() != input_tensor.numel() * g.size():
        raise ValueError(f"all_gather_into_tensor: output_tensor must have world_size * input numel = "
                         f"{input_tensor.numel() * g.size()} elements, got {output_tensor.numel()}")
    if output_tensor.dtype != input_tensor.dtype:
        raise TypeError(f"all_gather_into_tensor: dtypes differ ({output_tensor.dtype.name} vs "
                        f"{input_tensor.dtype.name})")
    s_in, s_out = _Staged(input_tensor), _Staged(output_tensor)
    _record(g, "all_gather", [s_in.buf], [s_out.buf], s_in.device, dtype=s_in.code,
            counts=[input_tensor.numel()] * g.size())
    c = g._c.all_gather(s_in.ptr, s_out.ptr, [input_tensor.numel()] * g.size(), s_in.code, s_in.device)
    return _launch(g, c, (s_in, s_out), s_out.write_back, async_op)


def _reduce_scatter_flat(g, what, out_s, flat_in, counts, op, async_op):
    _record(g, "reduce_scatter", [flat_in], [out_s.buf], out_s.device, dtype=out_s.code, op=int(op), counts=counts)
    c = g._c.reduce_scatter(flat_in._data_address(), out_s.ptr, counts, out_s.code, int(op), out_s.device)
    return _launch(g, c, (out_s, flat_in), out_s.write_back, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces the ranks' ``input_list`` element-wise and scatters the result: rank ``r`` gets the reduction of
    every rank's ``input_list[r]``.

    Args:
        output (Tensor): this rank's result.
        input_list (list of Tensor): one tensor per rank of the group;
            ``input_list[r]`` has the number of elements of rank ``r``'s output.
        op (ReduceOp): the reduction: ``SUM``, ``PRODUCT``, ``MIN``, ``MAX`` or ``AVG``
            (``AVG`` needs a floating-point tensor). Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> out = flow.zeros(1)  # doctest: +SKIP
        >>> dist.reduce_scatter(out, [flow.tensor([1.0]), flow.tensor([10.0])])  # doctest: +SKIP
        >>> out  # rank 0; rank 1 gets tensor([20.])  # doctest: +SKIP
        tensor([2.])
    """
    _check_tensor(output, "reduce_scatter", "output")
    g = _group(group, "reduce_scatter")
    if g is None:
        return None
    _check_list(input_list, "reduce_scatter", "input_list", g.size())
    op = _op(op, "reduce_scatter", output.dtype)
    if input_list[g.rank()].numel() != output.numel():
        raise ValueError(f"reduce_scatter: input_list[{g.rank()}] has {input_list[g.rank()].numel()} elements, "
                         f"output has {output.numel()}")
    s = _Staged(output, reduce=True)
    flat = _concat(input_list, s.buf.dtype)
    return _reduce_scatter_flat(g, "reduce_scatter", s, flat, [t.numel() for t in input_list], op, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces the ranks' ``input`` element-wise and scatters it in equal chunks: rank ``r`` gets chunk ``r``.

    Args:
        output (Tensor): this rank's chunk of the result.
        input (Tensor): ``world_size * output.numel()`` elements, the same on every rank.
        op (ReduceOp): the reduction: ``SUM``, ``PRODUCT``, ``MIN``, ``MAX`` or ``AVG``
            (``AVG`` needs a floating-point tensor). Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> out = flow.zeros(2)  # doctest: +SKIP
        >>> dist.reduce_scatter_tensor(out, flow.arange(4).float())  # doctest: +SKIP
        >>> out  # rank 0; rank 1 gets tensor([4., 6.])  # doctest: +SKIP
        tensor([0., 2.])
    """
    _check_tensor(output, "reduce_scatter_tensor", "output")
    _check_tensor(input, "reduce_scatter_tensor", "input")
    g = _group(group, "reduce_scatter_tensor")
    if g is None:
        return None
    op = _op(op, "reduce_scatter_tensor", output.dtype)
    if input.numel() != output.numel() * g.size():
        raise ValueError(f"reduce_scatter_tensor: input must have world_size * output numel = "
                         f"{output.numel() * g.size()} elements, got {input.numel()}")
    s = _Staged(output, reduce=True)
    flat = _concat([input], s.buf.dtype)
    return _reduce_scatter_flat(g, "reduce_scatter_tensor", s, flat, [output.numel()] * g.size(), op, async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Gathers every rank's ``tensor`` into ``gather_list`` on rank ``dst``.

    Args:
        tensor (Tensor): this rank's input, the same size on every rank.
        gather_list (list of Tensor, optional): on ``dst``, one output per rank; must be
            ``None`` (or empty) on the other ranks. Default: ``None``.
        dst (int): the global rank that receives. Default: ``0``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> out = [flow.zeros(1), flow.zeros(1)] if dist.get_rank() == 0 else None  # doctest: +SKIP
        >>> dist.gather(flow.tensor([float(dist.get_rank())]), out, dst=0)  # doctest: +SKIP
        >>> out  # on rank 0  # doctest: +SKIP
        [tensor([0.]), tensor([1.])]
    """
    _check_tensor(tensor, "gather")
    g = _group(group, "gather")
    if g is None:
        return None
    root = g.group_rank(dst, "gather")
    s = _Staged(tensor)
    out = None
    if g.rank() == root:
        _check_list(gather_list, "gather", "gather_list", g.size())
        for t in gather_list:
            if t.numel() != tensor.numel():
                raise ValueError("gather: every tensor of gather_list must have the input's number of elements")
        out = _flat_empty(tensor.numel() * g.size(), tensor.dtype)
    elif gather_list:
        raise ValueError("gather: gather_list must be given on the destination rank only")
    _record(g, "gather", [s.buf], [out], s.device, dtype=s.code, root=root, count=tensor.numel())
    c = g._c.gather(s.ptr, out._data_address() if out is not None else 0, tensor.numel(), s.code, root, s.device)
    finish = (lambda: _copy_parts(out, gather_list)) if out is not None else None
    return _launch(g, c, (s, out), finish, async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Scatters ``scatter_list`` of rank ``src``: ``tensor`` on rank ``r`` receives ``scatter_list[r]``.

    Args:
        tensor (Tensor): this rank's output.
        scatter_list (list of Tensor, optional): on ``src``, one tensor per rank, each
            of ``tensor``'s size; ``None`` (or empty) on the other ranks. Default: ``None``.
        src (int): the global rank that sends. Default: ``0``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> t = flow.zeros(1)  # doctest: +SKIP
        >>> parts = [flow.tensor([5.0]), flow.tensor([7.0])] if dist.get_rank() == 0 else None  # doctest: +SKIP
        >>> dist.scatter(t, parts, src=0)  # doctest: +SKIP
        >>> t  # rank 1  # doctest: +SKIP
        tensor([7.])
    """
    _check_tensor(tensor, "scatter")
    g = _group(group, "scatter")
    if g is None:
        return None
    root = g.group_rank(src, "scatter")
    s = _Staged(tensor)
    flat = None
    if g.rank() == root:
        _check_list(scatter_list, "scatter", "scatter_list", g.size())
        for t in scatter_list:
            if t.numel() != tensor.numel():
                raise ValueError("scatter: every tensor of scatter_list must have the output's number of elements")
        flat = _concat(scatter_list, s.buf.dtype)
    elif scatter_list:
        raise ValueError("scatter: scatter_list must be given on the source rank only")
    _record(g, "scatter", [flat], [s.buf], s.device, dtype=s.code, root=root, count=tensor.numel())
    c = g._c.scatter(flat._data_address() if flat is not None else 0, s.ptr, tensor.numel(), s.code, root, s.device)
    return _launch(g, c, (s, flat), s.write_back, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Exchanges tensors between all ranks: ``output_tensor_list[r]`` receives rank ``r``'s ``input_tensor_list[this
    rank]``.

    Args:
        output_tensor_list (list of Tensor): one output per rank of the group.
        input_tensor_list (list of Tensor): one input per rank, the same dtype;
            ``input_tensor_list[r]`` goes to rank ``r``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True`` (its ``result()`` is
        ``output_tensor_list``), else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> me = dist.get_rank()  # doctest: +SKIP
        >>> out = [flow.zeros(1), flow.zeros(1)]  # doctest: +SKIP
        >>> dist.all_to_all(out, [flow.tensor([10.0 * me]), flow.tensor([10.0 * me + 1])])  # doctest: +SKIP
        >>> out  # rank 1  # doctest: +SKIP
        [tensor([1.]), tensor([11.])]
    """
    g = _group(group, "all_to_all")
    if g is None:
        return None
    _check_list(output_tensor_list, "all_to_all", "output_tensor_list", g.size())
    _check_list(input_tensor_list, "all_to_all", "input_tensor_list", g.size())
    dtype = input_tensor_list[0].dtype
    flat_in = _concat(input_tensor_list, dtype)
    ocounts = [t.numel() for t in output_tensor_list]
    out = _flat_empty(sum(ocounts), dtype)
    _record(g, "all_to_all", [flat_in], [out], "cpu:0", dtype=dtype._value,
            counts=[t.numel() for t in input_tensor_list], out_counts=ocounts)
    c = g._c.all_to_all(flat_in._data_address(), [t.numel() for t in input_tensor_list], out._data_address(), ocounts,
                        dtype._value, "cpu:0")
    return _launch(g, c, (flat_in, out), lambda: _copy_parts(out, output_tensor_list), async_op,
                   output_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Splits ``input`` along dimension 0, sends part ``r`` to rank ``r``, and concatenates what arrives into
    ``output``.

    Args:
        output (Tensor): the received parts, concatenated along dimension 0.
        input (Tensor): the parts to send, along dimension 0.
        output_split_sizes (list of int, optional): rows received from each rank;
            ``None`` splits ``output`` equally. Default: ``None``.
        input_split_sizes (list of int, optional): rows sent to each rank; ``None``
            splits ``input`` equally (``ValueError`` when not divisible). Default: ``None``.
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> out = flow.zeros(2)  # doctest: +SKIP
        >>> dist.all_to_all_single(out, flow.tensor([0.0, 1.0]) + 10 * dist.get_rank())  # doctest: +SKIP
        >>> out  # rank 0; rank 1 gets tensor([ 1., 11.])  # doctest: +SKIP
        tensor([ 0., 10.])
    """
    _check_tensor(output, "all_to_all_single", "output")
    _check_tensor(input, "all_to_all_single", "input")
    g = _group(group, "all_to_all_single")
    if g is None:
        return None
    n = g.size()

    def counts(t, splits, name):
        rows = t.shape[0] if t.dim() else 1
        row = t.numel() // rows if rows else 0
        if splits is None:
            if rows % n:
                raise ValueError(f"all_to_all_single: {name}'s first dimension ({rows}) is not divisible by the "
                                 f"group size ({n}); pass {name}_split_sizes")
            return [rows // n * row] * n
        splits = list(splits)
        if len(splits) != n or sum(splits) != rows:
            raise ValueError(f"all_to_all_single: {name}_split_sizes {splits} must have {n} entries summing to "
                             f"{rows}")
        return [s * row for s in splits]

    ic, oc = counts(input, input_split_sizes, "input"), counts(output, output_split_sizes, "output")
    s_in, s_out = _Staged(input), _Staged(output)
    _record(g, "all_to_all", [s_in.buf], [s_out.buf], s_in.device, dtype=s_in.code, counts=ic, out_counts=oc)
    c = g._c.all_to_all(s_in.ptr, ic, s_out.ptr, oc, s_in.code, s_in.device)
    return _launch(g, c, (s_in, s_out), s_out.write_back, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Blocks until every rank of the group has entered the barrier.

    Args:
        group (ProcessGroup, optional): the group to work in; ``None`` is the default
            group. On a rank outside the group the call does nothing and returns ``None``.
        async_op (bool): return a :class:`Work` handle at once instead of waiting; the
            results are in the tensors once its ``wait()`` returns. Default: ``False``.
        device_ids (list of int, optional): accepted for torch compatibility and
            ignored. Default: ``None``.

    Returns:
        Work or None: a handle with ``async_op=True``, else ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> dist.barrier()  # doctest: +SKIP
    """
    g = _group(group, "barrier")
    if g is None:
        return None
    _record(g, "barrier", [], [])
    c = g._c.barrier()
    return _launch(g, c, None, None, async_op)


# --------------------------------------------------------- point to point

def isend(tensor, dst, group=None, tag=0):
    """Starts sending ``tensor`` to rank ``dst`` and returns at once; ``wait()`` on the handle.

    Args:
        tensor (Tensor): the data; keep it unchanged until the send completes.
        dst (int): the global rank of the receiver (not this rank).
        group (ProcessGroup, optional): the group; ``None`` is the default group.
        tag (int): matches this send with the ``irecv`` of the same tag. Default: ``0``.

    Returns:
        Work: the handle (``None`` on a rank outside ``group``).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> if dist.get_rank() == 0:  # doctest: +SKIP
        ...     work = dist.isend(flow.tensor([1.0, 2.0]), dst=1)
        ... else:
        ...     buf = flow.zeros(2)
        ...     work = dist.irecv(buf, src=0)
        >>> work.wait()  # doctest: +SKIP
        True
    """
    _check_tensor(tensor, "isend")
    g = _group(group, "isend")
    if g is None:
        return None
    peer = g.group_rank(dst, "isend")
    if peer == g.rank():
        raise ValueError("isend: cannot send to this rank itself")
    s = _Staged(tensor)
    _record(g, "send", [s.buf], [], s.device, dtype=s.code, peer=peer, tag=int(tag), count=s.buf.numel())
    c = g._c.send(s.ptr, s.buf.numel(), s.code, peer, int(tag), s.device)
    return _launch(g, c, s, None, True)


def irecv(tensor, src=None, group=None, tag=0):
    """Starts receiving into ``tensor`` from rank ``src`` and returns at once; ``wait()`` on the handle.

    Args:
        tensor (Tensor): the output, of the sent tensor's size and dtype.
        src (int): the global rank of the sender; ``None`` (any rank, in torch) raises
            ``ValueError`` here.
        group (ProcessGroup, optional): the group; ``None`` is the default group.
        tag (int): matches this receive with the ``isend`` of the same tag. Default: ``0``.

    Returns:
        Work: the handle (``None`` on a rank outside ``group``).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> buf = flow.zeros(2)  # doctest: +SKIP
        >>> work = dist.irecv(buf, src=0)  # on rank 1  # doctest: +SKIP
        >>> work.wait()  # doctest: +SKIP
        True
        >>> buf  # doctest: +SKIP
        tensor([1., 2.])
    """
    _check_tensor(tensor, "irecv")
    g = _group(group, "irecv")
    if g is None:
        return None
    if src is None:
        raise ValueError("irecv: src=None (receive from any rank) is not supported; pass the sender's rank")
    peer = g.group_rank(src, "irecv")
    if peer == g.rank():
        raise ValueError("irecv: cannot receive from this rank itself")
    s = _Staged(tensor)
    _record(g, "recv", [], [s.buf], s.device, dtype=s.code, peer=peer, tag=int(tag), count=s.buf.numel())
    c = g._c.recv(s.ptr, s.buf.numel(), s.code, peer, int(tag), s.device)
    return _launch(g, c, s, s.write_back, True)


def send(tensor, dst, group=None, tag=0):
    """Sends ``tensor`` to rank ``dst`` and waits until it is sent.

    Args:
        tensor (Tensor): the data.
        dst (int): the global rank of the receiver (not this rank).
        group (ProcessGroup, optional): the group; ``None`` is the default group.
        tag (int): matches this send with the ``recv`` of the same tag. Default: ``0``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> if dist.get_rank() == 0:  # doctest: +SKIP
        ...     dist.send(flow.tensor([1.0, 2.0]), dst=1)
        ... else:
        ...     buf = flow.zeros(2)
        ...     sender = dist.recv(buf, src=0)
    """
    w = isend(tensor, dst, group, tag)
    if w is not None:
        w.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receives into ``tensor`` from rank ``src`` and waits until it has arrived.

    Args:
        tensor (Tensor): the output, of the sent tensor's size and dtype.
        src (int): the global rank of the sender; ``None`` (any rank, in torch) raises
            ``ValueError`` here.
        group (ProcessGroup, optional): the group; ``None`` is the default group.
        tag (int): matches this receive with the ``send`` of the same tag. Default: ``0``.

    Returns:
        int: the sender's global rank.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> buf = flow.zeros(2)  # doctest: +SKIP
        >>> dist.recv(buf, src=0)  # on rank 1  # doctest: +SKIP
        0
        >>> buf  # doctest: +SKIP
        tensor([1., 2.])
    """
    w = irecv(tensor, src, group, tag)
    if w is not None:
        w.wait()
    return src


class P2POp:
    """One point-to-point operation for :func:`batch_isend_irecv`.

    Args:
        op (function): ``monoflow.distributed.isend`` or ``monoflow.distributed.irecv``;
            anything else raises ``ValueError``.
        tensor (Tensor): the tensor to send, or to receive into.
        peer (int): the global rank of the other side.
        group (ProcessGroup, optional): the group; ``None`` is the default group.
        tag (int): the tag that matches a send with its receive. Default: ``0``.

    Example::

        >>> import monoflow.distributed as dist
        >>> op = dist.P2POp(dist.isend, flow.ones(2), peer=1)
        >>> op.peer, op.tag
        (1, 0)
    """

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if op not in (isend, irecv):
            raise ValueError("P2POp: op must be monoflow.distributed.isend or irecv")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Starts every :class:`P2POp` of the list and returns their handles, to ``wait()`` on.

    Args:
        p2p_op_list (list of P2POp): the sends and receives, in the order they start.

    Returns:
        list of Work: one handle per operation.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> me, peer = dist.get_rank(), 1 - dist.get_rank()  # doctest: +SKIP
        >>> buf = flow.zeros(1)  # doctest: +SKIP
        >>> ops = [dist.P2POp(dist.isend, flow.tensor([float(me)]), peer),  # doctest: +SKIP
        ...        dist.P2POp(dist.irecv, buf, peer)]
        >>> for work in dist.batch_isend_irecv(ops):  # doctest: +SKIP
        ...     _ = work.wait()
        >>> buf  # on rank 0  # doctest: +SKIP
        tensor([1.])
    """
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


# ----------------------------------------------------------- traffic counters

def get_comm_stats(group=None):
    """This rank's traffic in `group` since the group was made or last reset:
    {"bytes": bytes received from peers, "calls": calls}.

    Counts the collectives, sends/recvs and barriers that have completed (an
    async op counts once it is done: wait() for it first). The bytes are a
    property of the call, the traffic of a ring algorithm: for a buffer of N
    bytes in a group of n ranks, all_reduce 2*(n-1)*N//n, broadcast N (0 on
    the source), all_gather the output minus this rank's input, reduce_scatter
    the input minus this rank's output, all_to_all what arrives from the other
    ranks, recv N, send and barrier 0 (Note [Traffic counters] in
    collective/include/monoflow/collective/communicator.h lists them all).
    N is the buffer the engine moves: float16/bfloat16 reductions are staged
    through float32 (Note [Staging]) and count 4 bytes per element.
    A rank outside `group` gets zeros.

    Args:
        group (ProcessGroup, optional): the group; ``None`` is the default group.

    Returns:
        dict: ``{"bytes": int, "calls": int}``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> dist.reset_comm_stats()  # doctest: +SKIP
        >>> dist.all_reduce(flow.zeros(1024))  # 4 KiB of float32  # doctest: +SKIP
        >>> dist.get_comm_stats()  # doctest: +SKIP
        {'bytes': 4096, 'calls': 1}
    """
    g = _group(group, "get_comm_stats")
    if g is None:
        return {"bytes": 0, "calls": 0}
    nbytes, calls = g._c.comm_stats()
    return {"bytes": nbytes, "calls": calls}


def reset_comm_stats(group=None):
    """Sets the traffic counters of :func:`get_comm_stats` for ``group`` on this rank to zero.

    Operations still in flight count when they finish.

    Args:
        group (ProcessGroup, optional): the group; ``None`` is the default group.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes (python -m monoflow.distributed.launch --nproc-per-node 2 ...),
        >>> # after dist.init_process_group("gloo"):
        >>> dist.reset_comm_stats()  # doctest: +SKIP
        >>> dist.get_comm_stats()  # doctest: +SKIP
        {'bytes': 0, 'calls': 0}
    """
    g = _group(group, "reset_comm_stats")
    if g is not None:
        g._c.reset_comm_stats()
