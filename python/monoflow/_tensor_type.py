"""The metaclass of monoflow.Tensor: an unbound Tensor method written in
Python checks its `self`.

TensorBase's methods are C method descriptors, which CPython itself refuses
to call on a foreign object (``Tensor.sum(None)``: "descriptor 'sum' for
'monoflow._C.TensorBase' objects doesn't apply to a 'NoneType' object").
The methods written in Python (the ops_* mixins, _tensor.py) are plain
functions, which take any `self`, so ``Tensor.float(None)`` would fail deep
inside with an AttributeError, or hand the foreign object to the core. Taken
from the class, such a method is handed out wrapped in the same check, with
the same message; taken from a tensor (``x.float``, the hot path) it is the
plain function, so calls through instances cost nothing more.
"""
import functools
from types import FunctionType

from monoflow import _C

# (name, function) -> its checking wrapper, or the function itself when it
# takes no self; by name too, so that an alias (arccos = acos) names itself
_CHECKED = {}


def _type_name(obj):
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _foreign_self(name, obj):
    return TypeError(f"descriptor '{name}' for 'monoflow.Tensor' objects doesn't apply to a "
                     f"'{_type_name(obj)}' object")


def _checking(name, fn):
    @functools.wraps(fn)
    def method(*args, **kwargs):
        if args and not isinstance(args[0], _C.TensorBase):
            raise _foreign_self(name, args[0])
        return fn(*args, **kwargs)
    # (its frame names the op, for errors raised beneath: Note [Naming the op in progress], _args.pxi)
    method.__code__ = method.__code__.replace(co_name=name)
    return method


def _checking_getter(name, fget):
    # A property's getter, which Tensor.__dict__['mT'].__get__(np.ones(3)) (or
    # inspect's getattr_static) would hand any object: it checks its self as
    # the methods do. (Reads through a tensor pay one isinstance.)
    @functools.wraps(fget)
    def getter(self):
        if not isinstance(self, _C.TensorBase):
            raise _foreign_self(name, self)
        return fget(self)
    getter.__code__ = getter.__code__.replace(co_name=name)
    getter._checks_self = True
    return getter


def _check_properties(cls):
    # the properties monoflow's own classes (Tensor and its mixins) define
    for base in cls.__mro__:
        if not str(getattr(base, "__module__", "")).startswith("monoflow") or base is _C.TensorBase:
            continue
        for name, attr in list(vars(base).items()):
            if type(attr) is property and attr.fget is not None and not getattr(attr.fget, "_checks_self", False):
                setattr(base, name, property(_checking_getter(name, attr.fget), attr.fset, attr.fdel, attr.__doc__))


class TensorType(type):
    def __init__(cls, name, bases, namespace, **kwargs):
        super().__init__(name, bases, namespace, **kwargs)
        _check_properties(cls)

    def __call__(cls, *args, **kwargs):
        # OneFlow's flow.Tensor(data or sizes, placement=, sbp=) is a global
        # tensor: an object of the global class, not a handle set into this one
        if cls.__name__ == "Tensor" and ("placement" in kwargs or "sbp" in kwargs):
            from monoflow._legacy_tensor import legacy_new

            return legacy_new("Tensor", None, args, kwargs.pop("device", None), kwargs)
        return super().__call__(*args, **kwargs)

    def __getattribute__(cls, name):
        attr = type.__getattribute__(cls, name)
        if type(attr) is not FunctionType:
            return attr
        key = (name, attr)
        checked = _CHECKED.get(key)
        if checked is None:
            checked = attr
            for base in type.__getattribute__(cls, "__mro__"):
                raw = base.__dict__.get(name)
                if raw is not None:
                    # a plain function in the class body is a method; a
                    # staticmethod (or a function stored by other means) is not
                    if raw is attr:
                        checked = _checking(name, attr)
                    break
            _CHECKED[key] = checked
        return checked
