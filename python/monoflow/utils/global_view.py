"""monoflow.utils.global_view: OneFlow's helpers for moving whole structures
(a state dict, a batch) between local and global tensors, and its global
mode, in which creation functions make global tensors (monoflow/_global/mode.py).

Example::

    >>> P = flow.placement("cpu", ranks=[0])
    >>> sd = flow.utils.global_view.to_global(nn.Linear(2, 1).state_dict(), P, flow.sbp.broadcast)
    >>> [v.is_global for v in sd.values()]
    [True, True]
    >>> with flow.utils.global_view.global_mode(True, placement=P, sbp=flow.sbp.broadcast):
    ...     flow.randn(2, 3).is_global
    True
"""
import inspect
import pickle
import warnings

from monoflow._global import groups as _groups
from monoflow._global import mode as _mode
from monoflow._global.placement import placement as _Placement
from monoflow._global.sbp import as_nd_sbp
from monoflow._tensor import Tensor
from monoflow.utils._pytree import tree_flatten, tree_map

__all__ = ["to_global", "to_local", "global_mode", "current_global_mode"]


def _map(value, fn, warn, what):
    """`value` with `fn` applied to each tensor in it (nested lists, tuples, dicts); other leaves kept."""
    def leaf(v):
        if isinstance(v, Tensor):
            return fn(v)
        if warn and v is not None:
            warnings.warn(f"{what}: a leaf of type {type(v).__name__} is not a tensor and is kept as it is",
                          stacklevel=5)
        return v
    return tree_map(leaf, value)


def _tensors(value):
    out = []
    tree_map(lambda v: out.append(v) if isinstance(v, Tensor) else None, value)
    return out


def _structure_from_first_rank(input, placement):
    """OneFlow's rule for a placement that leaves out some ranks: those ranks take the
    structure of the input of the placement's first rank, whatever they passed (None, often),
    so that every rank makes the same global tensors (one collective per tensor, on each
    rank); each tensor of it comes as an empty one of its dtype."""
    from monoflow import _creation, _oneflow_internal

    src, rank = placement.rank_list()[0], _groups.rank()
    if rank == src:
        skeleton = tree_map(lambda v: _creation.empty((0,), dtype=v.dtype) if isinstance(v, Tensor) else v, input)
        _oneflow_internal.cpu_broadcast(pickle.dumps(skeleton), src)
        return input
    got = _oneflow_internal.cpu_broadcast(None, src)
    if placement.coords(rank) is not None:
        return input
    skeleton = pickle.loads(got)
    # A rank outside the placement keeps its own input when it has the first rank's structure:
    # its global tensors must stay global (a graph's state dict: global parameters on every
    # rank beside a local step count), or it would make different collectives than the others.
    return input if input is not None and _shape_of(input) == _shape_of(skeleton) else skeleton


def _shape_of(value):
    """The structure of `value` with its tensors as one kind of leaf (what the ranks must agree on)."""
    leaves, spec = tree_flatten(value)
    return spec, [isinstance(v, Tensor) for v in leaves]


def _sbp_for(sbp, input, t):
    """The SBP of tensor `t`: ``sbp`` itself, or a function's answer: ``sbp(input, t)``
    (OneFlow's form, e.g. a state dict's ``get_sbp(state_dict, tensor)``) or ``sbp(t)``."""
    if not callable(sbp) or isinstance(sbp, (tuple, list)) or hasattr(sbp, "short"):
        return sbp
    try:
        two = len(inspect.signature(sbp).parameters) >= 2
    except (TypeError, ValueError):
        two = False
    return sbp(input, t) if two else sbp(t)


def to_global(input, placement=None, sbp=None, warn_on_non_tensor_leaf=True, **kwargs):
    """Converts a tensor, or the tensors in a list, tuple or dict (nested), to global tensors, as
    :meth:`Tensor.to_global` does each one. Local tensors need both ``placement`` and ``sbp``.

    Args:
        input (Tensor, list, tuple, dict or None): what to convert.
        placement (monoflow.placement, optional): the placement. Default: ``None`` (a global tensor's own).
        sbp (sbp, tuple of sbp, or callable, optional): the SBP, or a function giving each tensor's:
            ``sbp(input, tensor)`` (OneFlow's form) or ``sbp(tensor)``. Default: ``None`` (a global
            tensor's own). When ``placement`` leaves out some ranks and the input holds local tensors,
            every rank takes the structure of the placement's first rank's input (the others may pass
            ``None``), as in OneFlow.
        warn_on_non_tensor_leaf (bool): warn about leaves that are not tensors (kept as they are).
            Default: ``True``.
        kwargs: passed on to :meth:`Tensor.to_global`.

    Example::

        >>> t = flow.utils.global_view.to_global([flow.ones(2)], flow.placement("cpu", ranks=[0]),
        ...                                      flow.sbp.broadcast)
        >>> t[0].placement
        monoflow.placement(type="cpu", ranks=[0])
    """
    if (placement is not None and _groups.world_size() > 1 and len(placement.rank_list()) < _groups.world_size()
            and not (_tensors(input) and all(t.is_global for t in _tensors(input)))):  # (None: not global)
        input = _structure_from_first_rank(input, placement)
        if not _tensors(input) and input is not None:  # (nothing to convert: every rank still agreed)
            return input

    def convert(t):
        s = _sbp_for(sbp, input, t)
        if not t.is_global and (placement is None or s is None):
            raise ValueError("to_global: a local tensor needs both placement= and sbp=")
        return t.to_global(placement=placement, sbp=s, **kwargs)
    return _map(input, convert, warn_on_non_tensor_leaf, "to_global")


def to_local(input, *, copy=False):
    """This rank's part of a global tensor, or of each tensor in a list, tuple or dict (nested);
    local tensors are kept (copied with ``copy=True``).

    Args:
        input (Tensor, list, tuple, dict or None): what to convert.
        copy (bool): return copies rather than views of the shards. Default: ``False``.

    Example::

        >>> g = flow.ones(2, placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)
        >>> flow.utils.global_view.to_local({"w": g})["w"].is_global
        False
    """
    def convert(t):
        out = t.to_local() if t.is_global else t
        return out.clone() if copy else out
    return _map(input, convert, False, "to_local")


class global_mode:  # noqa: N801 - OneFlow's name
    """A region in which creation functions called without ``placement=`` (``flow.randn``,
    ``flow.zeros``, ``flow.tensor`` ...) make global tensors on ``placement`` with ``sbp``
    (a ``device=`` of another device type keeps a call local). Regions nest; ``enabled=False``
    turns the mode off inside an enabled one.

    Args:
        enabled (bool): whether the mode is on.
        placement (monoflow.placement, optional): required when enabled.
        sbp (sbp or tuple of sbp, optional): required when enabled.

    Example::

        >>> P = flow.placement("cpu", ranks=[0])
        >>> with flow.utils.global_view.global_mode(True, placement=P, sbp=flow.sbp.split(0)):
        ...     x = flow.zeros(4, 2)
        >>> x.sbp
        (monoflow.sbp.split(dim=0),)
    """

    def __init__(self, enabled, placement=None, sbp=None):
        self.enabled = bool(enabled)
        if self.enabled:
            if not isinstance(placement, _Placement) or sbp is None:
                raise ValueError("global_mode: an enabled global mode needs placement= (a monoflow.placement) "
                                 "and sbp=")
            sbp = as_nd_sbp(sbp, len(placement.hierarchy), "global_mode")
        self.placement, self.sbp = placement, sbp

    def __enter__(self):
        _mode.stack().append((self.placement, self.sbp) if self.enabled else None)
        return self

    def __exit__(self, *exc):
        _mode.stack().pop()
        return False


class current_global_mode:  # noqa: N801 - OneFlow's name
    """The innermost :class:`global_mode` region's settings: ``is_enabled``, ``placement`` and ``sbp``
    (a tuple).

    Example::

        >>> flow.utils.global_view.current_global_mode().is_enabled
        False
    """

    def __init__(self):
        mode = _mode.current()
        self.is_enabled = mode is not None
        self.placement, self.sbp = mode if mode is not None else (None, None)
