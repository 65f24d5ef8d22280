"""Placement: the device type and the ranks a global tensor lives on, as a
1-D list or an n-D hierarchy (a nested list such as [[0, 1], [2, 3]])."""
import numpy as np


class placement:
    __module__ = "monoflow"

    def __init__(self, type, ranks):
        if isinstance(ranks, dict):  # OneFlow's older form: {node id: device ids on that node}
            ranks = _ranks_of_node_devices(ranks)
        if not isinstance(type, str):
            raise TypeError(f"placement: type must be a device type string such as 'cpu', got {type!r}")
        if ":" in type:
            raise ValueError(f"placement: type must be a device type without an index, got '{type}'")
        arr = np.asarray(ranks)
        if arr.size == 0:
            from monoflow._C import ValueRuntimeError  # ValueError as before, RuntimeError as OneFlow (its wording)
            raise ValueRuntimeError("placement: ranks must not be empty (placement ranks shoule be an array of long int)")
        if arr.dtype.kind not in "iu":
            raise TypeError(f"placement: ranks must be integers (a list or a nested list), got {ranks!r}")
        if (arr < 0).any():
            raise ValueError(f"placement: ranks must be non-negative, got {ranks!r}")
        flat = arr.reshape(-1).tolist()
        if len(set(flat)) != len(flat):
            raise ValueError(f"placement: ranks must be distinct, got {ranks!r}")
        self._type = type
        self._ranks = arr.astype(np.int64)
        self._ranks.setflags(write=False)
        self._key = (type, self._ranks.shape, tuple(flat))

    @classmethod
    def all(cls, type):
        """All ranks of the job, as a 1-D placement."""
        from monoflow._global import groups

        return cls(type, list(range(groups.world_size())))

    @property
    def type(self):
        return self._type

    @property
    def ranks(self):
        return self._ranks

    @property
    def hierarchy(self):
        """The shape of the rank hierarchy, e.g. (2, 2)."""
        return tuple(self._ranks.shape)

    def rank_list(self):
        return list(self._key[2])

    def coords(self, rank):
        """The hierarchy coordinates of `rank`, or None when it is not in the placement."""
        hit = np.argwhere(self._ranks == rank)
        return None if hit.size == 0 else tuple(int(c) for c in hit[0])

    def __eq__(self, other):
        return isinstance(other, placement) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f'monoflow.placement(type="{self._type}", ranks={self._ranks.tolist()})'

    def __reduce__(self):
        return (placement, (self._type, self._ranks.tolist()))


def _ranks_of_node_devices(node_devices):
    """{node: device or [devices]} (OneFlow's machine_device_ids) -> global ranks, node by node:
    node * devices per node + device; devices per node from LOCAL_WORLD_SIZE, else the largest device id + 1."""
    import os

    lists = {}
    for node, devs in node_devices.items():
        devs = [devs] if isinstance(devs, int) else list(devs)
        if not isinstance(node, int) or not all(isinstance(d, int) for d in devs):
            raise TypeError(f"placement: {{node: devices}} must map integers to integers, got {node_devices!r}")
        lists[node] = devs
    per_node = int(os.environ.get("LOCAL_WORLD_SIZE") or 0) or max((max(d) + 1 for d in lists.values() if d),
                                                                   default=1)
    return [node * per_node + d for node in sorted(lists) for d in lists[node]]
