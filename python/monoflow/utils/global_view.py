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
import warnings

from monoflow._global import mode as _mode
from monoflow._global.placement import placement as _Placement
from monoflow._global.sbp import as_nd_sbp
from monoflow._tensor import Tensor
from monoflow.utils._pytree import tree_map

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


def to_global(input, placement=None, sbp=None, warn_on_non_tensor_leaf=True, **kwargs):
    """Converts a tensor, or the tensors in a list, tuple or dict (nested), to global tensors, as
    :meth:`Tensor.to_global` does each one. Local tensors need both ``placement`` and ``sbp``.

    Args:
        input (Tensor, list, tuple, dict or None): what to convert.
        placement (monoflow.placement, optional): the placement. Default: ``None`` (a global tensor's own).
        sbp (sbp, tuple of sbp, or callable, optional): the SBP, or ``sbp(tensor)`` giving each
            tensor's. Default: ``None`` (a global tensor's own).
        warn_on_non_tensor_leaf (bool): warn about leaves that are not tensors (kept as they are).
            Default: ``True``.
        kwargs: passed on to :meth:`Tensor.to_global`.

    Example::

        >>> t = flow.utils.global_view.to_global([flow.ones(2)], flow.placement("cpu", ranks=[0]),
        ...                                      flow.sbp.broadcast)
        >>> t[0].placement
        monoflow.placement(type="cpu", ranks=[0])
    """
    def convert(t):
        s = sbp(t) if callable(sbp) and not isinstance(sbp, (tuple, list)) and not hasattr(sbp, "short") else sbp
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
