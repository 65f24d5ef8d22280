"""monoflow._oneflow_internal: the few names of OneFlow's C++ extension module that
OneFlow's own test tooling reaches (its autotest harness registers its checker for
``flow._oneflow_internal.Tensor`` and broadcasts test inputs with ``cpu_broadcast``).
OneFlow's tests also call functional ops as ``flow._C.<op>`` (its C++ functional
API); :func:`functional_fallback` answers those from monoflow's own functions.
Everything else of OneFlow's internals is out of scope.
"""
import sys as _sys
import traceback as _traceback
import types as _types

from monoflow._tensor import Tensor

__all__ = ["Tensor", "TensorTuple", "cpu_broadcast", "exception", "GetCurrentStack"]

class _TensorTupleMeta(type):
    # OneFlow hands a module's backward hooks their gradients as a TensorTuple (its C++ sequence of
    # tensors); monoflow hands them a tuple, as torch does, so every tuple counts as one too
    # (``isinstance(grad_input, TensorTuple)`` holds).
    def __instancecheck__(cls, obj):
        return isinstance(obj, tuple) or type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, tuple) or type.__subclasscheck__(cls, sub)


class TensorTuple(list, metaclass=_TensorTupleMeta):
    """OneFlow's ``TensorTuple``: a growable sequence of tensors (``append``, ``extend``, indexing,
    ``len``), made empty or from an iterable of tensors; OneFlow's tests build one by hand and pass it
    to modules and graphs like a list. Every tuple also counts as a TensorTuple (``isinstance``), for
    the backward hooks' gradients.

    Args:
        tensors (iterable of Tensor, optional): the first items.

    Example::

        >>> import monoflow as flow
        >>> from monoflow._oneflow_internal import TensorTuple
        >>> tp = TensorTuple()
        >>> tp.append(flow.ones(2))
        >>> tp.append(flow.zeros(1))
        >>> len(tp), isinstance((flow.ones(1),), TensorTuple)
        (2, True)
    """

    def __init__(self, tensors=()):
        tensors = list(tensors)
        for t in tensors:
            self._check(t)
        super().__init__(tensors)

    @staticmethod
    def _check(t):
        if not isinstance(t, Tensor):
            raise TypeError(f"TensorTuple: expects tensors, got {type(t).__name__}")

    def append(self, t):
        self._check(t)
        super().append(t)

    def extend(self, tensors):
        tensors = list(tensors)
        for t in tensors:
            self._check(t)
        super().extend(tensors)

# OneFlow's ``_oneflow_internal.exception`` names the exception classes its C++ core raises; monoflow raises
# Python's built-in ones, so each name is the built-in class it stands for (``except
# flow._oneflow_internal.exception.TypeException`` catches monoflow's TypeError).
exception = _types.ModuleType(
    "monoflow._oneflow_internal.exception",
    "OneFlow's exception classes, as the built-in exceptions monoflow raises (TypeException is TypeError, ...).")
exception.Exception = Exception
for _name, _cls in (("Runtime", RuntimeError), ("Type", TypeError), ("Index", IndexError), ("Value", ValueError),
                    ("NotImplemented", NotImplementedError), ("Key", KeyError), ("Memory", MemoryError),
                    ("Overflow", OverflowError), ("ZeroDivision", ZeroDivisionError), ("Check", RuntimeError),
                    ("InvalidValue", ValueError), ("Unimplemented", NotImplementedError)):
    setattr(exception, _name + "Exception", _cls)
del _name, _cls


def GetCurrentStack():
    """Returns the caller's Python stack as text, innermost call last (OneFlow's stack getter, which its
    error messages quote).

    Example::

        >>> "GetCurrentStack" in flow._oneflow_internal.GetCurrentStack()
        True
    """
    return "".join(_traceback.format_stack(_sys._getframe(1)))


def cpu_broadcast(obj_bytes, src=0):
    """Returns rank `src`'s `obj_bytes` (a ``bytes`` object, ``None`` on the other ranks) on every rank.

    Under a launcher the job's process group is joined first (OneFlow needs no init call); without one (one
    process) the bytes come back unchanged.
    """
    if isinstance(src, bool) or not isinstance(src, int):
        raise TypeError(f"cpu_broadcast(): argument 'src' must be int, not {type(src).__name__}")
    from monoflow import distributed as dist
    from monoflow._global import groups

    groups.world_size()  # under a launcher the job's group starts on first use, as in OneFlow
    if not dist.is_initialized():
        if obj_bytes is None:
            raise ValueError("cpu_broadcast(): a single process must pass the bytes itself (got None)")
        return bytes(obj_bytes)
    box = [bytes(obj_bytes) if dist.get_rank() == src else None]
    dist.broadcast_object_list(box, src=src)
    return box[0]


def functional_fallback(name):
    """The module ``__getattr__`` installed on ``monoflow._C``: a name the
    core does not define (``flow._C.relu``, ``flow._C.softmax``) is looked up
    in ``monoflow._oneflow_c_api`` (OneFlow's signatures of names torch also has,
    such as ``smooth_l1_loss(input, target, beta, reduction)``), ``monoflow._oneflow_functional``
    (OneFlow's ``_C``-only functions, such as ``reduce_sum_like``), ``monoflow.nn.functional``,
    then ``monoflow``;
    otherwise AttributeError as usual."""
    import importlib

    if not name.startswith("_"):
        for namespace in ("monoflow._oneflow_c_api", "monoflow._oneflow_functional", "monoflow.nn.functional",
                          "monoflow"):
            fn = getattr(importlib.import_module(namespace), name, None)
            if callable(fn) and not getattr(fn, "__monoflow_not_implemented__", False):
                return fn
    raise AttributeError(f"module 'monoflow._C' has no attribute '{name}'")
