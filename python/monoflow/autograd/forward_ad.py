"""``monoflow.autograd.forward_ad``: torch's forward-mode AD interface (``dual_level``, ``make_dual``,
``unpack_dual``) on top of reverse mode.

monoflow has no forward-mode engine. ``make_dual`` returns a fresh leaf that records the operations applied
to it (reverse mode), and ``unpack_dual`` computes the tangent of a result as a Jacobian-vector product: the
derivative, in the direction of the tangents, of the vector-Jacobian product ``u -> J^T u`` (two backward
passes). The tangents are torch's; the costs are those of reverse mode, and results computed from dual
tensors inside a level report ``requires_grad=True`` (torch's do not). Custom ``Function.jvp`` rules are not
used (their ``backward`` is)."""
import collections

from monoflow import _C

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]

_levels = []

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = """``(primal, tangent)`` of :func:`unpack_dual` (``tangent`` is None for a tensor
without one).

Example::

    >>> from monoflow.autograd.forward_ad import UnpackedDualTensor
    >>> UnpackedDualTensor(flow.ones(1), None).tangent is None
    True
"""


def enter_dual_level():
    """Opens a new forward-AD level and returns its index (prefer the :class:`dual_level` context manager).

    Example::

        >>> import monoflow.autograd.forward_ad as fwAD
        >>> level = fwAD.enter_dual_level()
        >>> fwAD.exit_dual_level(level=level)
    """
    _levels.append({})
    return len(_levels) - 1


def exit_dual_level(*, level=None):
    """Closes the innermost forward-AD level (``level``: its index, as :func:`enter_dual_level` returned);
    the tangents made in it are dropped.

    Example::

        >>> import monoflow.autograd.forward_ad as fwAD
        >>> fwAD.exit_dual_level(level=fwAD.enter_dual_level())
    """
    if not _levels:
        raise RuntimeError("exit_dual_level(): there is no forward AD level to exit")
    if level is not None and level != len(_levels) - 1:
        raise RuntimeError(f"exit_dual_level(): trying to exit level {level} but the current level is "
                           f"{len(_levels) - 1}")
    _levels.pop()


class dual_level:
    """Context manager of a forward-AD level: the dual tensors made inside belong to it and lose their
    tangents when it ends.

    Example::

        >>> import monoflow.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     x = fwAD.make_dual(flow.tensor([1.0, 2.0]), flow.tensor([1.0, 0.0]))
        ...     fwAD.unpack_dual(x * x).tangent
        tensor([2., 0.])
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def _level(level, op):
    if not _levels:
        raise RuntimeError(f"{op}(): no forward AD level is active: enter one with `with dual_level():`")
    if level is None:
        return _levels[-1]
    if not 0 <= level < len(_levels):
        raise RuntimeError(f"{op}(): level {level} is not an active forward AD level")
    return _levels[level]


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: ``tensor``'s values carrying the direction ``tangent`` (same shape, floating point).

    Args:
        tensor (Tensor): the primal.
        tangent (Tensor): the tangent, of ``tensor``'s shape.
        level (int, optional): the level (default: the innermost).

    Example::

        >>> import monoflow.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(flow.tensor([3.0]), flow.tensor([1.0]))
        ...     fwAD.unpack_dual(d.sin()).tangent
        tensor([-0.9900])
    """
    lvl = _level(level, "make_dual")
    if not isinstance(tensor, _C.TensorBase) or not isinstance(tangent, _C.TensorBase):
        raise TypeError("make_dual(): expected Tensors for the primal and the tangent")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError(f"make_dual(): Trying to set a forward gradient that has a different size than that of "
                           f"the original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
                           f"while the given forward gradient is of size {list(tangent.shape)}.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"make_dual(): expected a floating point or complex primal, got {tensor.dtype}")
    from monoflow.autograd.grad_mode import enable_grad

    with enable_grad():
        dual = tensor.detach().requires_grad_()
    lvl[id(dual)] = (dual, tangent.detach())
    return dual


def unpack_dual(tensor, *, level=None):
    """``UnpackedDualTensor(primal, tangent)`` of a tensor computed from dual tensors (``tangent`` None when it
    does not depend on any).

    Args:
        tensor (Tensor): a dual tensor or a result computed from some.
        level (int, optional): the level (default: the innermost).

    Example::

        >>> import monoflow.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     x = fwAD.make_dual(flow.tensor([2.0]), flow.tensor([1.0]))
        ...     fwAD.unpack_dual(x ** 3)
        UnpackedDualTensor(primal=tensor([8.]), tangent=tensor([12.]))
    """
    if not _levels or not isinstance(tensor, _C.TensorBase):
        return UnpackedDualTensor(tensor, None)
    lvl = _level(level, "unpack_dual")
    own = lvl.get(id(tensor))
    if own is not None and own[0] is tensor:
        return UnpackedDualTensor(tensor.detach(), own[1])
    if not tensor.requires_grad or tensor.grad_fn is None or not lvl:
        return UnpackedDualTensor(tensor, None)
    from monoflow import _creation
    from monoflow.autograd import grad
    from monoflow.autograd.grad_mode import enable_grad

    duals = list(lvl.values())
    with enable_grad():
        u = _creation.zeros_like(tensor).requires_grad_()
        vjp = grad([tensor], [d for d, _ in duals], [u], create_graph=True, allow_unused=True)
        pairs = [(g, t) for g, (_, t) in zip(vjp, duals) if g is not None]
        if not pairs:
            return UnpackedDualTensor(tensor.detach(), None)
        live = [(g, t) for g, t in pairs if g.requires_grad]
        jv = grad([g for g, _ in live], [u], [t for _, t in live], allow_unused=True)[0] if live else None
    return UnpackedDualTensor(tensor.detach(), _creation.zeros_like(tensor) if jv is None else jv)
