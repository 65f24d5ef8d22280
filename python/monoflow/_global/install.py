"""Connecting the global layer to the Tensor API: GlobalTensor methods and
the free functions that have SBP rules go through dispatch.call."""
import functools

import monoflow
from monoflow._global import dispatch
from monoflow._global.signatures import RULES
from monoflow._global.tensor import GlobalTensor
from monoflow._tensor import Tensor

_OWN = set(vars(GlobalTensor))


def _method(name, fn):
    def method(self, *args, **kwargs):
        return dispatch.call(name, fn, [self, *args], kwargs)
    method.__name__ = name
    method.__qualname__ = f"GlobalTensor.{name}"
    return method


def _function(name, fn):
    @functools.wraps(fn)
    def function(*args, **kwargs):
        a0 = args[0] if args else None
        if isinstance(a0, GlobalTensor) or (isinstance(a0, (list, tuple)) and a0 and isinstance(a0[0], GlobalTensor)):
            return dispatch.call(name, fn, list(args), kwargs)
        return fn(*args, **kwargs)
    function.__wrapped_local__ = fn
    return function


def install():
    names = set(RULES) | set(dispatch.COMPOSITES)
    for name in names:
        attr = Tensor.__dict__.get(name)
        if attr is None:
            for base in Tensor.__mro__:
                if name in vars(base):
                    attr = vars(base)[name]
                    break
        if attr is not None and name not in _OWN:
            if isinstance(attr, property):
                getter = attr.fget
                setattr(GlobalTensor, name, property(lambda self, _n=name, _g=getter: dispatch.call(_n, _g, [self], {})))
            elif callable(attr):
                setattr(GlobalTensor, name, _method(name, getattr(Tensor, name)))
    from monoflow.nn import functional as F

    for module in (monoflow, F):
        for name in names:
            fn = getattr(module, name, None)
            if callable(fn) and not isinstance(fn, type) and not hasattr(fn, "__wrapped_local__"):
                setattr(module, name, _function(name, fn))
