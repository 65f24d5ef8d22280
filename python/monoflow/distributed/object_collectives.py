"""Collectives of picklable Python objects (torch.distributed's *_object functions).

Each object is pickled into a uint8 tensor and moved with the tensor
collectives: first the byte counts, then the bytes padded to the longest.

Security: the received bytes are unpickled with plain ``pickle.loads``, as
torch does, so every rank runs whatever code the sender's pickle names. Use
these functions only among processes that trust each other (one job: its
store is authenticated by the job secret, Note [TCPStore handshake]).
"""
import pickle

import numpy as np

from monoflow._creation import empty, tensor, zeros
from monoflow._dtypes import int64, uint8
from monoflow.distributed import collectives
from monoflow.distributed.process_group import _group
from monoflow.ops_shape import cat


def _to_bytes_tensor(obj):
    return tensor(np.frombuffer(pickle.dumps(obj), dtype=np.uint8))


def _from_bytes(part, size):
    return pickle.loads(part[:size].numpy().tobytes())


def _padded(part, length):
    out = zeros(length, dtype=uint8)
    out[:part.numel()] = part
    return out


def _bytes_buffer(n):
    return empty(n, dtype=uint8)


def _sizes(values):
    return tensor(list(values), dtype=int64)


def _root(g, global_rank, group_rank, what, name):
    """The global rank of the root, from `name` (global) or `group_name` (group-local); 0 by default."""
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"{what}: pass {name} or group_{name}, not both")
    if group_rank is not None:
        if not 0 <= group_rank < g.size():
            raise ValueError(f"{what}: group_{name} {group_rank} is out of range for a group of {g.size()}")
        return g.ranks[group_rank]
    return 0 if global_rank is None else global_rank


def _check_list(obj, what, name):
    if not isinstance(obj, list):
        raise TypeError(f"{what}(): argument '{name}' must be a list, not {type(obj).__name__}")


def all_gather_object(object_list, obj, group=None):
    """Fills ``object_list`` (one slot per rank of the group) with every rank's `obj`.

    Args:
        object_list (list): ``len == world size``; slot r receives rank r's object.
        obj: any picklable object.
        group (ProcessGroup, optional): the default group when None.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.init_process_group("gloo", init_method="tcp://127.0.0.1:0", rank=0, world_size=1)
        >>> out = [None]
        >>> dist.all_gather_object(out, {"rank": 0}); out
        [{'rank': 0}]
        >>> dist.destroy_process_group()
    """
    _check_list(object_list, "all_gather_object", "object_list")
    g = _group(group, "all_gather_object")
    if g is None:
        return
    if len(object_list) != g.size():
        raise ValueError(f"all_gather_object(): object_list must have one slot per rank ({g.size()}), "
                         f"got {len(object_list)}")
    mine = _to_bytes_tensor(obj)
    sizes = [empty(1, dtype=int64) for _ in range(g.size())]
    collectives.all_gather(sizes, _sizes([mine.numel()]), group=group)
    counts = [int(s.item()) for s in sizes]
    longest = max(counts)
    parts = [_bytes_buffer(longest) for _ in range(g.size())]
    collectives.all_gather(parts, _padded(mine, longest), group=group)
    for r, (part, n) in enumerate(zip(parts, counts)):
        object_list[r] = _from_bytes(part, n)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces, on every rank, the items of ``object_list`` with those of rank `src`.

    Args:
        object_list (list): the objects on `src`; on the others a list of the same length.
        src (int, optional): global rank of the sender (0 by default).
        group (ProcessGroup, optional): the default group when None.
        device: accepted for torch's signature (the bytes travel on the CPU).
        group_src (int, optional): the sender as a rank of `group` instead of `src`.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes, after dist.init_process_group("gloo"):
        >>> objs = [{"lr": 0.1}, "run-7"] if dist.get_rank() == 0 else [None, None]  # doctest: +SKIP
        >>> dist.broadcast_object_list(objs, src=0)  # doctest: +SKIP
        >>> objs  # doctest: +SKIP
        [{'lr': 0.1}, 'run-7']
    """
    _check_list(object_list, "broadcast_object_list", "object_list")
    g = _group(group, "broadcast_object_list")
    if g is None:
        return
    root = _root(g, src, group_src, "broadcast_object_list", "src")
    is_root = g.ranks[g.rank()] == root
    if is_root:
        payloads = [_to_bytes_tensor(o) for o in object_list]
        sizes = _sizes([p.numel() for p in payloads])
    else:
        sizes = empty(len(object_list), dtype=int64)
    collectives.broadcast(sizes, src=root, group=group)
    counts = [int(v) for v in sizes.tolist()]
    if is_root:
        flat = cat(payloads) if payloads else _bytes_buffer(0)
    else:
        flat = _bytes_buffer(sum(counts))
    if flat.numel():
        collectives.broadcast(flat, src=root, group=group)
    if not is_root:
        offset = 0
        for i, n in enumerate(counts):
            object_list[i] = _from_bytes(flat[offset:offset + n], n)
            offset += n


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Gathers every rank's `obj` into ``object_gather_list`` on rank `dst`.

    Args:
        obj: any picklable object.
        object_gather_list (list, optional): on `dst`, one slot per rank; None elsewhere.
        dst (int, optional): global rank that receives (0 by default).
        group (ProcessGroup, optional): the default group when None.
        group_dst (int, optional): the receiver as a rank of `group` instead of `dst`.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes, after dist.init_process_group("gloo"):
        >>> out = [None, None] if dist.get_rank() == 0 else None  # doctest: +SKIP
        >>> dist.gather_object({"rank": dist.get_rank()}, out, dst=0)  # doctest: +SKIP
        >>> out  # on rank 0  # doctest: +SKIP
        [{'rank': 0}, {'rank': 1}]
    """
    g = _group(group, "gather_object")
    if g is None:
        return
    root = _root(g, dst, group_dst, "gather_object", "dst")
    is_root = g.ranks[g.rank()] == root
    if is_root:
        _check_list(object_gather_list, "gather_object", "object_gather_list")
        if len(object_gather_list) != g.size():
            raise ValueError(f"gather_object(): object_gather_list must have one slot per rank ({g.size()}), "
                             f"got {len(object_gather_list)}")
    elif object_gather_list is not None:
        raise ValueError("gather_object(): object_gather_list must be None on ranks other than dst")
    mine = _to_bytes_tensor(obj)
    sizes = [empty(1, dtype=int64) for _ in range(g.size())]
    collectives.all_gather(sizes, _sizes([mine.numel()]), group=group)  # every rank pads to the longest
    counts = [int(s.item()) for s in sizes]
    longest = max(counts)
    parts = [_bytes_buffer(longest) for _ in range(g.size())] if is_root else None
    collectives.gather(_padded(mine, longest), parts, dst=root, group=group)
    if is_root:
        for r, (part, n) in enumerate(zip(parts, counts)):
            object_gather_list[r] = _from_bytes(part, n)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Rank r receives ``scatter_object_input_list[r]`` of rank `src` in ``scatter_object_output_list[0]``.

    Args:
        scatter_object_output_list (list): at least one slot; slot 0 receives.
        scatter_object_input_list (list, optional): on `src`, one object per rank.
        src (int, optional): global rank that sends (0 by default).
        group (ProcessGroup, optional): the default group when None.
        group_src (int, optional): the sender as a rank of `group` instead of `src`.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes, after dist.init_process_group("gloo"):
        >>> out = [None]  # doctest: +SKIP
        >>> dist.scatter_object_list(out, ["a", "b"] if dist.get_rank() == 0 else None, src=0)  # doctest: +SKIP
        >>> out  # on rank 1  # doctest: +SKIP
        ['b']
    """
    _check_list(scatter_object_output_list, "scatter_object_list", "scatter_object_output_list")
    if len(scatter_object_output_list) < 1:
        raise ValueError("scatter_object_list(): scatter_object_output_list must have at least one slot")
    g = _group(group, "scatter_object_list")
    if g is None:
        return
    root = _root(g, src, group_src, "scatter_object_list", "src")
    is_root = g.ranks[g.rank()] == root
    if is_root:
        _check_list(scatter_object_input_list, "scatter_object_list", "scatter_object_input_list")
        if len(scatter_object_input_list) != g.size():
            raise ValueError(f"scatter_object_list(): scatter_object_input_list must have one object per rank "
                             f"({g.size()}), got {len(scatter_object_input_list)}")
        payloads = [_to_bytes_tensor(o) for o in scatter_object_input_list]
        sizes = _sizes([p.numel() for p in payloads])
    else:
        sizes = empty(g.size(), dtype=int64)
    collectives.broadcast(sizes, src=root, group=group)
    counts = [int(v) for v in sizes.tolist()]
    longest = max(counts)
    parts = [_padded(p, longest) for p in payloads] if is_root else None
    out = _bytes_buffer(longest)
    collectives.scatter(out, parts, src=root, group=group)
    scatter_object_output_list[0] = _from_bytes(out, counts[g.rank()])


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None, use_batch=False):
    """Sends the objects of ``object_list`` to rank `dst` (a matching recv_object_list receives them).

    Args:
        object_list (list): picklable objects.
        dst (int): global rank of the receiver.
        group (ProcessGroup, optional): the default group when None.
        device, use_batch: accepted for torch's signature.
        group_dst (int, optional): the receiver as a rank of `group` instead of `dst`.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes, after dist.init_process_group("gloo"):
        >>> if dist.get_rank() == 0:  # doctest: +SKIP
        ...     dist.send_object_list([{"step": 5}, "ok"], dst=1)
        ... else:
        ...     got = [None, None]
        ...     sender = dist.recv_object_list(got, src=0)
        >>> got  # on rank 1  # doctest: +SKIP
        [{'step': 5}, 'ok']
    """
    _check_list(object_list, "send_object_list", "object_list")
    g = _group(group, "send_object_list")
    if g is None:
        return
    if dst is None and group_dst is None:
        raise ValueError("send_object_list(): pass dst (or group_dst)")
    peer = _root(g, dst, group_dst, "send_object_list", "dst")
    payloads = [_to_bytes_tensor(o) for o in object_list]
    collectives.send(_sizes([p.numel() for p in payloads]), peer, group=group)
    flat = cat(payloads) if payloads else _bytes_buffer(0)
    if flat.numel():
        collectives.send(flat, peer, group=group)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None, use_batch=False):
    """Receives into ``object_list`` (as many slots as the sender sends) from rank `src`.

    Args:
        object_list (list): filled in place.
        src (int): global rank of the sender (receiving from any rank is not supported).
        group (ProcessGroup, optional): the default group when None.
        device, use_batch: accepted for torch's signature.
        group_src (int, optional): the sender as a rank of `group` instead of `src`.

    Returns:
        int: the sender's global rank.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> # in each of 2 processes, after dist.init_process_group("gloo"):
        >>> got = [None, None]  # doctest: +SKIP
        >>> # on rank 1, after rank 0's send_object_list([{"step": 5}, "ok"], dst=1):
        >>> dist.recv_object_list(got, src=0)  # doctest: +SKIP
        0
        >>> got  # doctest: +SKIP
        [{'step': 5}, 'ok']
    """
    _check_list(object_list, "recv_object_list", "object_list")
    g = _group(group, "recv_object_list")
    if g is None:
        return -1
    if src is None and group_src is None:
        raise ValueError("recv_object_list(): src=None (receive from any rank) is not supported; "
                         "pass the sender's rank")
    peer = _root(g, src, group_src, "recv_object_list", "src")
    sizes = empty(len(object_list), dtype=int64)
    collectives.recv(sizes, peer, group=group)
    counts = [int(v) for v in sizes.tolist()]
    flat = _bytes_buffer(sum(counts))
    if flat.numel():
        collectives.recv(flat, peer, group=group)
    offset = 0
    for i, n in enumerate(counts):
        object_list[i] = _from_bytes(flat[offset:offset + n], n)
        offset += n
    return peer
