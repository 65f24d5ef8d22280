"""Connecting the global layer to the Tensor API: GlobalTensor methods and
the free functions that have SBP rules go through dispatch.call.

Free functions are replaced in every module that defines or re-exports them
(monoflow, monoflow.nn.functional and the modules they import from), because
compositions without a rule of their own call their building blocks through
those modules (F.smooth_l1_loss calls ops_math.where), and so work on global
tensors op by op. The wrapper hands local arguments straight to the original
function.
"""
import functools
import sys

from monoflow import _C
from monoflow._global import dispatch
from monoflow._global.signatures import RULES
from monoflow._global.tensor import GlobalTensor
from monoflow._tensor import Tensor

_OWN = set(vars(GlobalTensor))

# where free functions live; a module added here gets its rule-bearing
# functions wrapped
_MODULES = ("monoflow", "monoflow._functional", "monoflow._creation", "monoflow._activations", "monoflow._losses",
            "monoflow.ops_math", "monoflow.ops_reduce", "monoflow.ops_shape", "monoflow.ops_linalg",
            "monoflow.ops_random",
            "monoflow.nn.functional")


def _method(name, fn):
    def method(self, *args, **kwargs):
        return dispatch.call(name, fn, [self, *args], kwargs, method=True)
    method.__name__ = name
    method.__qualname__ = f"GlobalTensor.{name}"
    method.__doc__ = getattr(fn, "__doc__", None)
    method.__code__ = method.__code__.replace(co_name=name)  # errors beneath name the op (_args.pxi)
    return method


class _Only:
    """A module seen through the names it lends to the global layer."""

    def __init__(self, module, names):
        self._module, self._names, self.__name__ = module, names, module.__name__

    def vars(self):
        return {n: v for n, v in vars(self._module).items() if n in self._names}


def _vars(module):
    return module.vars() if isinstance(module, _Only) else vars(module)


def _setattr(module, name, value):
    setattr(module._module if isinstance(module, _Only) else module, name, value)


def _function(name, fn):
    has_global = _C._has_global  # a C loop over the arguments' shard marks: cheap on every local call

    like = name in dispatch.LIKE

    @functools.wraps(fn)
    def function(*args, **kwargs):
        if like and (kwargs.get("placement") is not None or kwargs.get("sbp") is not None):
            return dispatch.like_with_placement(name, args, kwargs)  # OneFlow's zeros_like(x, placement=, sbp=)
        if has_global(args, kwargs):
            return dispatch.call(name, fn, list(args), kwargs)
        return fn(*args, **kwargs)
    function.__wrapped_local__ = fn
    # (the frame, too, names the op, for errors raised beneath: Note [Naming the op in progress], _args.pxi)
    function.__code__ = function.__code__.replace(co_name=name)
    return function


def _modules():
    import monoflow.nn.functional  # noqa: F401 - imported for its submodules

    mods = [sys.modules[m] for m in _MODULES if m in sys.modules]
    # linalg: only vector_norm (a composite); linalg.norm reaches it through
    # the module, and linalg's other names (norm, matmul) mean other ops
    import monoflow.linalg
    mods.append(_Only(monoflow.linalg, ("vector_norm",)))
    mods += [m for n, m in sorted(sys.modules.items()) if n.startswith("monoflow.nn.functional.")]
    return mods


def install():
    names = set(RULES) | set(dispatch.COMPOSITES)
    for name in names:
        attr = None
        for base in Tensor.__mro__:
            if name in vars(base):
                attr = vars(base)[name]
                break
        if attr is not None and name not in _OWN:
            if isinstance(attr, property):
                getter = attr.fget
                setattr(GlobalTensor, name,
                        property(lambda self, _n=name, _g=getter: dispatch.call(_n, _g, [self], {}, method=True)))
            elif callable(attr):
                setattr(GlobalTensor, name, _method(name, getattr(Tensor, name)))
    # type_as(other) is to(other.dtype): other (local or global) only lends its dtype
    GlobalTensor.type_as = lambda self, other: self.to(other.dtype)
    GlobalTensor.as_strided = _refuse("as_strided", "strides address one rank's shard, not the logical tensor")
    # methods without a rule: refused by name here rather than by the core
    # guard, which would name the kernel they reach
    for name in _NO_RULE:
        if name not in vars(GlobalTensor):
            setattr(GlobalTensor, name, _refuse(name, "no SBP rule"))
    wrappers = {}  # one wrapper per function and name, shared by the modules re-exporting it
    for module in _modules():
        functional = module.__name__.startswith("monoflow.nn.functional")
        for name in names:
            fn = _vars(module).get(name)
            if not callable(fn) or isinstance(fn, type) or hasattr(fn, "__wrapped_local__"):
                continue
            # nn.functional's unfold is another op than Tensor.unfold: its own rule
            rule_name = _FUNCTIONAL_RULES.get(name, name) if functional else name
            key = (id(fn), rule_name)  # aliases (cat, concat) keep their own names in messages
            if key not in wrappers:
                wrappers[key] = _function(rule_name, fn)
            _setattr(module, name, wrappers[key])


# nn.functional names whose op differs from the Tensor method of that name:
# {name: the rule for the functional one}
_FUNCTIONAL_RULES = {"unfold": "im2col"}


# Tensor methods that reach the core without a rule: their results have
# data-dependent shapes (masked_select) or scatter across pieces
_NO_RULE = ("masked_select", "scatter", "scatter_", "scatter_add", "scatter_add_", "index_put",
            "index_put_")


def _refuse(name, why):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"{name}: not supported on global tensors ({why}); use .to_local() to work on this "
                           "rank's shard")
    method.__name__ = name
    return method


def wrapped_names():
    """{name: [where]}: the entry points that reach dispatch (for tests)."""
    out = {}
    for name in RULES:
        where = []
        if name in vars(GlobalTensor):
            where.append("Tensor")
        for module in _modules():
            fn = _vars(module).get(name)
            if hasattr(fn, "__wrapped_local__"):
                where.append(module.__name__)
        out[name] = where
    return out
