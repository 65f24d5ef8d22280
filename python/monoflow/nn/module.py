"""nn.Module: the base class of layers and models (torch.nn.Module's API).

A module keeps its parameters, buffers and submodules in three ordered dicts
that attribute assignment fills (`self.fc = Linear(...)` registers a child,
`self.w = Parameter(...)` a parameter); everything that walks a model
(parameters(), state_dict(), to(), train()) walks these dicts.
"""
import itertools
import typing
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import numpy as np

from monoflow import _C, _dtypes
from monoflow._creation import empty_like as _empty_like
from monoflow._creation import tensor as _tensor_from_data
from monoflow._tensor import _parse_to_args
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn import _global_layout as _gl
from monoflow.nn.parameter import Parameter

__all__ = ["Module", "RemovableHandle", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]

# Hooks every module runs (torch.nn.modules.module.register_module_*_hook): profilers and
# parameter counters install them once instead of walking a model.
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()

# The per-module hook tables beyond the forward/backward ones: __init__ makes them, __setstate__
# adds them to modules pickled before they existed.
_STATE_HOOK_TABLES = ("_state_dict_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                      "_load_state_dict_post_hooks", "_backward_pre_hooks")


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by the register_*_hook methods; ``remove()`` unregisters. ``hooks_dict_ref()``
    is the table the hook is in (as torch's and OneFlow's handles)."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)

    def remove(self):
        hooks = self.hooks_dict_ref()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _run_registration_hooks(hooks, module, name, value):
    for hook in hooks.values():
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def _add_hook(table, hook, prepend=False):
    handle = RemovableHandle(table)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook):
    """Registers ``hook(module, args)`` to run before every module's forward (all modules, not one)."""
    return _add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, always_call=False):
    """Registers ``hook(module, args, output)`` to run after every module's forward."""
    return _add_hook(_global_forward_hooks, hook)


def register_module_full_backward_hook(hook):
    """Registers ``hook(module, grad_input, grad_output)`` for every module's backward."""
    return _add_hook(_global_backward_hooks, hook)


register_module_backward_hook = register_module_full_backward_hook


def register_module_full_backward_pre_hook(hook):
    """Registers ``hook(module, grad_output)`` to run before every module's input gradients are computed."""
    return _add_hook(_global_backward_pre_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """Registers ``hook(module, name, buffer)``, run when any module registers a buffer; a result replaces it."""
    return _add_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """Registers ``hook(module, name, submodule)``, run when any module registers a child; a result replaces it."""
    return _add_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """Registers ``hook(module, name, param)``, run when any module registers a parameter; a result replaces it."""
    return _add_hook(_global_parameter_registration_hooks, hook)


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _tensor_type_name(value):
    return repr(value.dtype) if isinstance(value, _C.TensorBase) else type(value).__name__


class Module:
    """Base class of every layer and model: subclass it, create parameters and submodules in ``__init__``
    (after ``super().__init__()``) and write ``forward``.

    Attributes that are :class:`Parameter` or Module are registered as they are assigned, so
    :meth:`parameters`, :meth:`state_dict`, :meth:`to` and :meth:`train`/:meth:`eval` reach them. Call
    the module (``m(x)``), not ``forward``: the call runs the forward pre-hooks and hooks around it.
    ``Module()`` takes no arguments (others raise ``TypeError``).

    Args:
        args: none are accepted.
        kwargs: none are accepted.

    Example::

        >>> class MLP(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc1 = nn.Linear(4, 8)
        ...         self.fc2 = nn.Linear(8, 2)
        ...     def forward(self, x):
        ...         return self.fc2(F.relu(self.fc1(x)))
        >>> model = MLP()
        >>> model(flow.randn(3, 4)).shape
        monoflow.Size([3, 2])
        >>> [name for name, _ in model.named_parameters()]
        ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
        >>> list(model.state_dict())[:2], model.eval().training
        (['fc1.weight', 'fc1.bias'], False)
    """

    __module__ = "monoflow.nn"
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments: "
                            f"{args!r} {kwargs!r}")
        s = object.__setattr__
        s(self, "training", True)
        s(self, "_parameters", {})
        s(self, "_buffers", {})
        s(self, "_non_persistent_buffers_set", set())
        s(self, "_modules", {})
        s(self, "_forward_pre_hooks", OrderedDict())
        s(self, "_forward_pre_hooks_with_kwargs", set())
        s(self, "_forward_hooks", OrderedDict())
        s(self, "_forward_hooks_with_kwargs", set())
        s(self, "_backward_hooks", OrderedDict())
        for table in _STATE_HOOK_TABLES:
            s(self, table, OrderedDict())

    def forward(self, *args, **kwargs):
        """The computation of the module, to be overridden by every subclass; call the module itself (``m(x)``)
        so that hooks run.
        """
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration
    def _check_name(self, name, what):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{what} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{what} name can\'t be empty string ""')

    def register_parameter(self, name, param):
        """Adds `param` (a Parameter, or None for an absent one) under `name`."""
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_tensor_type_name(param)}' object to parameter '{name}' "
                            "(monoflow.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             "created explicitly. To express '{name}' as a function of another Tensor, compute "
                             "the value in the forward() method.")
        self._parameters[name] = _run_registration_hooks(_global_parameter_registration_hooks, self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a tensor that is state but not a parameter (running means);
        non-persistent buffers stay out of the state dict."""
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, _C.TensorBase):
            raise TypeError(f"cannot assign '{_tensor_type_name(tensor)}' object to buffer '{name}' "
                            "(monoflow Tensor or None required)")
        self._buffers[name] = _run_registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Adds a child module (or None) under `name`."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = _run_registration_hooks(_global_module_registration_hooks, self, name, module)

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")

        def drop(*dicts):
            for x in dicts:
                x.pop(name, None)

        if isinstance(value, (Parameter, Module)) and params is not None:
            _C._bump_tensor_layout_epoch()  # (compiled graphs look at their modules again: Note [Stale plans])
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            drop(d, self._buffers, self._modules)
            self._non_persistent_buffers_set.discard(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_tensor_type_name(value)}' as parameter '{name}' "
                                "(monoflow.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            drop(d, params, self._buffers)
            self._non_persistent_buffers_set.discard(name)
            self._modules[name] = _run_registration_hooks(_global_module_registration_hooks, self, name, value)
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_tensor_type_name(value)}' as child module '{name}' "
                                "(monoflow.nn.Module or None expected)")
            self._modules[name] = value
        elif params is not None and getattr(value, "_is_buffer", False) and isinstance(value, _C.TensorBase):
            # nn.Buffer(t, persistent=...): registered as register_buffer does
            drop(d, params, self._modules)
            self._buffers[name] = value
            if value.persistent:
                self._non_persistent_buffers_set.discard(name)
            else:
                self._non_persistent_buffers_set.add(name)
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, _C.TensorBase):
                raise TypeError(f"cannot assign '{_tensor_type_name(value)}' as buffer '{name}' "
                                "(monoflow.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            table = d.get(key)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for key in ("_parameters", "_buffers", "_modules"):
            table = self.__dict__.get(key)
            if table is not None and name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        for table in _STATE_HOOK_TABLES:  # a module pickled before these tables existed
            self.__dict__.setdefault(table, OrderedDict())

    # ---- traversal
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        """Yields this module and every descendant, depth first (each module once)."""
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """Yields ``(name, module)`` for each direct child (each module once)."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        """Yields each direct child module (each once)."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, table, prefix, recurse, remove_duplicate):
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        seen = set()
        for mod_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yields ``(dotted name, parameter)`` for the parameters of this module and, with ``recurse``, of its
        descendants.

        ``prefix`` is prepended to every name; ``remove_duplicate`` yields a shared parameter once.
        """
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """Yields the parameters of this module and, with ``recurse`` (default), of its descendants; e.g. for
        an optimizer.
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Yields ``(dotted name, buffer)`` for the buffers of this module and, with ``recurse``, of its
        descendants.

        ``prefix`` is prepended to every name; ``remove_duplicate`` yields a shared buffer once.
        """
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """Yields the buffers (e.g. BatchNorm's running statistics) of this module and, with ``recurse``, of
        its descendants.
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` (``''`` is this module); a missing one raises
        ``AttributeError``.
        """
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Puts ``module`` at the dotted path ``target``; the parents must exist, and with ``strict`` so must
        the replaced submodule."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter at the dotted path ``target`` (``'encoder.fc.weight'``); a missing one raises
        ``AttributeError``.
        """
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._parameters:
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return mod._parameters[name]

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``; a missing one raises ``AttributeError``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    def apply(self, fn):
        """Calls fn on every submodule (children first), then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- modes and gradients
    def train(self, mode=True):
        """Sets training mode (``mode=True``) or evaluation mode on this module and every descendant; returns
        ``self``.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Sets evaluation mode (``train(False)``): dropout off, batch norm on running statistics; returns
        ``self``.
        """
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets ``requires_grad`` of every parameter (e.g. ``False`` to freeze the module); returns ``self``."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Resets the gradients of every parameter: to ``None`` with ``set_to_none`` (default), else to zeros."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                _gl.zero_grad_(p.grad)

    # ---- conversions: parameters keep their identity (optimizers hold them)
    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)
        for p in self._parameters.values():
            if p is None:
                continue
            with no_grad():
                new = fn(p)
            changed = new.dtype != p.dtype or new.device != p.device
            p.data = new
            if p.grad is not None:
                with no_grad():
                    g = fn(p.grad)
                if changed:
                    p.grad = None
                    p.grad = g
                else:
                    p.grad.data = g
        for name, b in self._buffers.items():
            if b is not None:
                self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(device, dtype), to(tensor): moves and casts
        parameters and buffers in place (floating-point ones only for dtype)."""
        kwargs.pop("memory_format", None)
        if "copy" in kwargs:
            raise TypeError("to() got unexpected keyword arguments ['copy']")
        device, dtype, _ = _parse_to_args(args, kwargs)  # (a bool is non_blocking here)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")

        def convert(t):
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None)

        return self._apply(convert)

    def _cast(self, dtype):
        return self._apply(lambda t: t.to(dtype=dtype) if t.is_floating_point() else t)

    def cpu(self):
        """Moves every parameter and buffer to the CPU; returns ``self``."""
        return self._apply(lambda t: t.to(device="cpu"))

    def type(self, dst_type):
        """Casts every parameter and buffer to ``dst_type``; returns ``self``."""
        return self._apply(lambda t: t.to(dtype=dst_type))

    def float(self):
        """Casts the floating-point parameters and buffers to ``float32``; returns ``self``."""
        return self._cast(_dtypes.float32)

    def double(self):
        """Casts the floating-point parameters and buffers to ``float64``; returns ``self``."""
        return self._cast(_dtypes.float64)

    def half(self):
        """Casts the floating-point parameters and buffers to ``float16``; returns ``self``."""
        return self._cast(_dtypes.float16)

    def bfloat16(self):
        """Casts the floating-point parameters and buffers to ``bfloat16``; returns ``self``."""
        return self._cast(_dtypes.bfloat16)

    def share_memory(self):
        """Moves parameters, their gradients and buffers into shared memory in
        place, so that processes given this module (monoflow.multiprocessing)
        update one set of weights (Hogwild)."""
        for t in itertools.chain(self.parameters(), self.buffers()):
            t.share_memory_()
            if t.grad is not None:
                t.grad.share_memory_()
        return self

    def make_contiguous_params_group(self):
        """OneFlow's ``Module.make_contiguous_params_group()``: lays this module's parameters and
        their gradients out in contiguous buffers, one per dtype and device (see
        :class:`~monoflow.nn.utils.parameters_grouping.ContiguousParamsGroup`), kept as
        ``self.cpg``; the parameters become views of the buffers. Returns ``self``.

        Example::

            >>> import monoflow as flow
            >>> m = flow.nn.Linear(2, 1).make_contiguous_params_group()
            >>> [b.shape for b in m.cpg.grouped_parameters]
            [monoflow.Size([3])]
        """
        from monoflow.nn.utils.parameters_grouping import ContiguousParamsGroup

        self.cpg = ContiguousParamsGroup(list(self.parameters()), group_on_current_buffer=False)
        return self

    def cuda(self, device=None):
        """Moves parameters and buffers to a CUDA device; raises when none is loaded."""
        return self._apply(lambda t: t.cuda(device))

    def xpu(self, device=None):
        """Moves parameters and buffers to an XPU device; raises when none is loaded."""
        return self._apply(lambda t: t.to(device="xpu" if device is None else device))

    def ipu(self, device=None):
        """Moves parameters and buffers to an IPU device; raises when none is loaded."""
        return self._apply(lambda t: t.to(device="ipu" if device is None else device))

    def mtia(self, device=None):
        """Moves parameters and buffers to an MTIA device; raises when none is loaded."""
        return self._apply(lambda t: t.to(device="mtia" if device is None else device))

    def to_empty(self, *, device=None, recurse=True):
        """Replaces every parameter and buffer by an uninitialised tensor of the same shape and dtype on
        ``device`` (default: where it is); returns ``self``."""
        return self._apply(lambda t: _empty_like(t, device=device), recurse=recurse)

    # ---- global tensors
    def to_global(self, placement=None, sbp=None):
        """Makes every parameter and buffer global on `placement`, laid out as
        `sbp` (one SBP, or a tuple with one per hierarchy axis, for all of
        them; or a callable ``sbp(name, tensor)`` giving each its own). The
        logical value of a local tensor is the one on the placement's first
        rank (broadcast, so ranks that initialised differently agree); global
        ones are boxed. A split axis a tensor lacks (0-d counters) becomes
        broadcast. Every rank of the job makes the same call.

        Parameters become new GlobalParameter objects (a Python object cannot
        turn global in place): make the optimizer after this call. Tied
        parameters stay tied."""
        from monoflow._global.placement import placement as Placement
        from monoflow._global.sbp import sbp as SBP

        if not isinstance(placement, Placement):
            raise TypeError(f"to_global: placement must be a monoflow.placement, got {type(placement).__name__}")
        if sbp is None:
            raise ValueError("to_global: sbp= is required (e.g. flow.sbp.broadcast)")
        # (an SBP is callable too: flow.sbp.broadcast() is flow.sbp.broadcast)
        pick = sbp if callable(sbp) and not isinstance(sbp, SBP) else (lambda name, t: sbp)
        todo = []
        for prefix, module in self.named_modules(remove_duplicate=True):
            for table in ("_parameters", "_buffers"):
                for key, t in getattr(module, table).items():
                    if t is not None:
                        name = prefix + ("." if prefix else "") + key
                        nd = _gl.nd_sbp_for(t, placement, pick(name, t), f"to_global ({name})")
                        todo.append((module, table, key, t, nd, name))
        _gl.check_same_everywhere(f"{type(self).__name__}.to_global", placement,
                                  [(name, tuple(t.shape), t.dtype.name, nd, _gl.is_global(t))
                                   for _, _, _, t, nd, name in todo])
        done = {}  # id(old) -> new: tied tensors stay one tensor
        for module, table, key, t, nd, _ in todo:
            new = done.get(id(t))
            if new is None:
                new = _gl.to_layout(t, placement, nd)
                if table == "_parameters":
                    grad = t.grad
                    new = Parameter(new, t.requires_grad)
                    if grad is not None:
                        new.grad = _gl.to_layout(grad, placement, nd)
                done[id(t)] = new
            getattr(module, table)[key] = new
        return self

    def to_local(self):
        """Makes every global parameter and buffer local: this rank's shard (OneFlow's ``Module.to_local``).

        Parameters become new Parameter objects (make the optimizer after this call); tied parameters
        stay tied; local tensors are kept. Every rank of the job makes the same call.

        Example::

            >>> m = flow.nn.Linear(2, 3).to_global(flow.placement("cpu", ranks=[0]), flow.sbp.split(0))
            >>> m.to_local().weight.is_global
            False
        """
        done = {}  # id(old) -> new: tied tensors stay one tensor
        for _, module in self.named_modules(remove_duplicate=True):
            for table in ("_parameters", "_buffers"):
                for key, t in list(getattr(module, table).items()):
                    if t is None or not t.is_global:
                        continue
                    new = done.get(id(t))
                    if new is None:
                        new = t.detach().to_local()
                        if table == "_parameters":
                            grad = t.grad
                            new = Parameter(new, t.requires_grad)
                            if grad is not None:
                                new.grad = grad.to_global(sbp=t.sbp).to_local()
                        done[id(t)] = new
                    getattr(module, table)[key] = new
        return self

    # ---- state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def get_extra_state(self):
        """State beyond parameters and buffers that ``state_dict`` saves under ``'_extra_state'``; override it
        together with :meth:`set_extra_state` (any picklable object)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. "
                           "Override get_extra_state() in the module to return its extra state.")

    def set_extra_state(self, state):
        """Restores what :meth:`get_extra_state` returned, when ``load_state_dict`` finds it."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. "
                           "Override set_extra_state() in the module to load its extra state.")

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by dotted
        name (detached aliases unless keep_vars)."""
        if args:  # the deprecated positional form state_dict(destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        meta = getattr(destination, "_metadata", None)
        local_metadata = {"version": self._version}
        if meta is not None:
            meta[prefix[:-1]] = local_metadata
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        local = {k: v for k, v in self._parameters.items() if v is not None}
        local.update((k, v) for k, v in self._buffers.items()
                     if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if isinstance(value, (np.ndarray, np.generic)):  # OneFlow programs load numpy state dicts
                value = _tensor_from_data(value, dtype=param.dtype,
                                          device=None if _gl.is_global(param) else param.device)
            if not isinstance(value, _C.TensorBase):
                error_msgs.append(f'While copying the parameter named "{key}", expected Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(value)}")
                continue
            if tuple(value.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if _gl.is_global(param) and not (_gl.is_global(value) and value.placement == param.placement
                                                         and value.sbp == param.sbp):
                            value = _gl.relayout_like(value, param)
                        if isinstance(param, Parameter):
                            new = value if isinstance(value, Parameter) else Parameter(value, param.requires_grad)
                            self._parameters[name] = new
                        else:
                            self._buffers[name] = value
                    elif _gl.is_global(param):
                        _gl.copy_into(param, value)  # re-laid out as the model's tensor
                    elif _gl.is_global(value):
                        param.copy_(_gl.logical_value(value))  # the whole value, into a local model
                    else:
                        param.copy_(value)
            except Exception as ex:  # noqa: BLE001 - reported like torch, with the key
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.shape} and whose dimensions in the checkpoint are {value.shape}, an "
                                  f"exception occurred : {ex.args}.")
        has_extra_state = type(self).set_extra_state is not Module.set_extra_state
        if has_extra_state:
            key = prefix + _EXTRA_STATE_KEY_SUFFIX
            if key in state_dict:
                self.set_extra_state(state_dict[key])
            elif strict:
                missing_keys.append(key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix):
                    head = key[len(prefix):].split(".", 1)[0]
                    if head not in self._modules and head not in local and not (
                            has_extra_state and head == _EXTRA_STATE_KEY_SUFFIX):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies the values of `state_dict` into this module's parameters and
        buffers (in place, under no_grad). Returns (missing_keys,
        unexpected_keys); with strict, any of them or a size mismatch raises."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, prefix):
            local_meta = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_meta["assign_to_params_buffers"] = True
            for hook in module._load_state_dict_pre_hooks.values():
                hook(module, state_dict, prefix, local_meta, True, missing, unexpected, errors)
            module._load_from_state_dict(state_dict, prefix, local_meta, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")
            incompatible = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                       "expected to return new values, if incompatible_keys need to be modified,"
                                       "it should be done inplace.")

        load(self, "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ---- hooks and calling
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) (or (module, args, kwargs) with_kwargs) runs before
        forward; a non-None result replaces the arguments."""
        handle = _add_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) runs after forward; a non-None result
        replaces the output."""
        handle = _add_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) runs when the gradients with
        respect to the module's tensor inputs have been computed; a non-None
        result replaces grad_input."""
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """OneFlow's and torch's older name: registered as :meth:`register_full_backward_hook` (torch's
        deprecated form hooked the last op inside forward only, which is rarely what was meant)."""
        return self.register_full_backward_hook(hook)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) runs when the gradients of the module's outputs are known, before
        its input gradients are computed; a non-None result replaces grad_output."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) runs before :meth:`state_dict` collects this module."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) runs after :meth:`state_dict` collected this
        module and its children; it edits ``state_dict`` in place."""
        def post_hook(module, state_dict, prefix, local_metadata):
            if hook(module, state_dict, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")

        return _add_hook(self._state_dict_hooks, post_hook)

    def _register_state_dict_hook(self, hook):
        # torch's private form, still used by libraries: a non-None result replaces the state dict
        return _add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs) runs before :meth:`load_state_dict` loads this module; it may edit ``state_dict``."""
        return _add_hook(self._load_state_dict_pre_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        # torch's private form: without with_module the hook does not get the module first
        if with_module:
            return self.register_load_state_dict_pre_hook(hook)
        return self.register_load_state_dict_pre_hook(lambda module, *args: hook(*args))

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) runs after :meth:`load_state_dict` loaded this module and its
        children; it may remove entries of ``incompatible_keys.missing_keys``/``unexpected_keys``."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    def compile(self, *args, **kwargs):
        """torch's ``model.compile()``: compiles this module's calls in place and returns None. As
        :func:`monoflow.compile`, it runs eagerly (a UserWarning says so once)."""
        from monoflow import _compile

        _compile.compile(self, *args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks
                or _global_forward_hooks or _global_backward_hooks or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(_global_forward_pre_hooks.values()):
            res = hook(self, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        backward_hooks = list(_global_backward_hooks.values()) + list(self._backward_hooks.values())
        backward_pre_hooks = (list(_global_backward_pre_hooks.values())
                              + list(self._backward_pre_hooks.values()))
        if backward_hooks or backward_pre_hooks:
            from monoflow.nn._backward_hook import BackwardHook

            bw = BackwardHook(self, backward_hooks, backward_pre_hooks)
            args = bw.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
        else:
            bw = None
            result = self.forward(*args, **kwargs)
        for hook in list(_global_forward_hooks.values()):
            res = hook(self, args, result)
            if res is not None:
                result = res
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
        if bw is not None:
            result = bw.setup_output_hook(result)
        return result

    __call__ = _call_impl
    _wrapped_call_impl = _call_impl
    _compiled_call_impl = None
    dump_patches = False
    T_destination = typing.TypeVar("T_destination", bound=typing.Dict[str, typing.Any])

    def _slow_forward(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # ---- printing
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The module-specific part of repr (one line per item)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        s = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                s += extra_lines[0]
            else:
                s += "\n  " + "\n  ".join(lines) + "\n"
        return s + ")"
