"""The process groups global tensors talk through.

Global code is SPMD: every rank runs the same program. A job started by the
launcher joins its default group on first use (no init_process_group call
needed, as in OneFlow); a plain single process is a world of one. Groups over
a subset of ranks are named after their ranks, so only their members take
part in making them, in whatever order they first need them.
"""
import os

from monoflow.distributed import cluster_env as _cluster_env
from monoflow.distributed import process_group as _pg

_by_ranks = {}


def _ensure_world():
    # Any scheduler's variables (torchrun, srun, mpirun, PMI: distributed/cluster_env.py) start the job's group;
    # the backend is MONOFLOW_GLOBAL_BACKEND's or the best engine present.
    if not _pg.is_initialized() and _cluster_env.world_size() > 1:
        _pg.init_process_group(os.environ.get("MONOFLOW_GLOBAL_BACKEND") or None)


def world_size():
    _ensure_world()
    return _pg.get_world_size() if _pg.is_initialized() else 1


def rank():
    _ensure_world()
    return _pg.get_rank() if _pg.is_initialized() else 0


def world_group():
    """The default group, or None in a world of one."""
    _ensure_world()
    return _pg._state.world if _pg.is_initialized() else None


def group(ranks):
    """The group of exactly `ranks` (global ranks, in this order); None when
    it has one member (nothing to communicate). The caller must be a member."""
    ranks = tuple(int(r) for r in ranks)
    if len(ranks) == 1:
        return None
    g = _by_ranks.get(ranks)
    if g is not None and g._c is not None and _pg._state.world is not None:
        return g
    world = world_group()
    if world is None:
        raise RuntimeError(f"global tensors: ranks {list(ranks)} need a multi-process job "
                           "(start it with python -m monoflow.distributed.launch)")
    if ranks == tuple(world.ranks):
        g = world
    else:
        name = "global-" + "-".join(map(str, ranks))
        g = _pg._connect(world.backend(), name, _pg._state.store, ranks.index(world.rank()), ranks,
                         world.timeout_s)
        _pg._state.groups.append(g)
    _by_ranks[ranks] = g
    return g


def axis_ranks(placement, coords, axis):
    """The ranks that share every hierarchy coordinate with `coords` except
    along `axis`: the group a 1-D boxing along that axis runs in."""
    index = list(coords)
    index[axis] = slice(None)
    return [int(r) for r in placement.ranks[tuple(index)]]
