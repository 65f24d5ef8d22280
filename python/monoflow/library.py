"""monoflow.library: torch.library's operator registry for Python-defined operators.

An operator is named ``"namespace::name"`` and declared by a schema
(``Library(ns, "DEF").define("myop(Tensor x, float alpha=1.0) -> Tensor")``);
kernels are registered per dispatch key with ``Library.impl`` or
:func:`impl` (``"CPU"``, ``"CUDA"``, ``"Meta"``, ``"AutocastCPU"``, or the
device-independent ``"CompositeExplicitAutograd"`` /
``"CompositeImplicitAutograd"``), a fake (meta) kernel with
:func:`register_fake`, and a backward formula with :func:`register_autograd`.
Defined operators are called as ``monoflow.ops.<namespace>.<name>(...)``.
Registrations last for the life of the process (torch drops a Library's when
the Library object is collected).

Note [How an operator call is dispatched]
    One call walks the keys torch's dispatcher walks, in its order: the
    autocast kernel of the inputs' device type when autocast is on for it
    (and the key is not excluded by ``_C._ExcludeDispatchKeyGuard``), then a
    registered backward (when grad mode is on and an input requires grad: the
    kernel runs under no_grad inside an autograd Function), then the device
    kernel (``"Meta"`` is the fake kernel for meta inputs), then the
    composite kernels. An operator with no kernel for the inputs raises
    NotImplementedError naming the operator and the backend, as torch does.
    Registering anything for an operator that was never defined raises
    RuntimeError ``operator ns::name does not exist``, so code that
    registers fake kernels only for the operators it loaded sees what it
    would see on torch.
"""
import importlib

from . import _dispatch_keys
from . import autograd as _autograd

__all__ = ["Library", "define", "impl", "register_fake", "impl_abstract", "register_autograd", "get_kernel"]

_PROVIDERS = {"torchvision": "._vision_ops"}  # namespace -> the monoflow module defining its operators (on first use)
_ops = {}  # "ns::name" -> _Operator (one per overload name: "ns::name" is the default overload)
_impls = set()  # "ns/name/key" registered from Python, to refuse a second one as torch does


class _Operator:
    def __init__(self, qualname, schema):
        self.qualname, self.schema = qualname, schema
        self.arg_names, self.defaults = _parse_args(schema)
        self.kernels = {}
        self.autograd = None  # (backward, setup_context)

    def bind(self, args, kwargs):
        args = list(args)
        for name in self.arg_names[len(args):]:
            if name in kwargs:
                args.append(kwargs.pop(name))
            elif name in self.defaults:
                args.append(self.defaults[name])
            else:
                raise RuntimeError(f"{self.qualname}() is missing value for argument '{name}'. Declaration: "
                                f"{self.qualname}{self.schema[self.schema.index('('):]}")
        if kwargs:
            raise RuntimeError(f"Unknown keyword argument '{next(iter(kwargs))}' for operator '{self.qualname}'")
        if len(args) > len(self.arg_names):
            raise RuntimeError(f"{self.qualname}() expected at most {len(self.arg_names)} argument(s) but received "
                            f"{len(args)} argument(s)")
        return args


def _split_top(text):
    depth, start, parts = 0, 0, []
    for i, ch in enumerate(text):
        depth += ch in "([" and 1 or (ch in ")]" and -1 or 0)
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def _parse_default(text):
    consts = {"True": True, "False": False, "None": None}
    if text in consts:
        return consts[text]
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text.strip("'\"")


def _parse_args(schema):
    """('x', 'alpha'), {'alpha': 1.0} from 'name(Tensor x, float alpha=1.0) -> Tensor'."""
    open_, close = schema.find("("), schema.rfind(")", 0, schema.rfind("->"))
    if open_ <= 0 or close < open_ or "->" not in schema:
        raise RuntimeError(f"library.define(): the schema '{schema}' is not 'name(type arg, ...) -> return type'")
    names, defaults = [], {}
    for part in _split_top(schema[open_ + 1:close]):
        if part == "*":
            continue
        decl, eq, default = part.partition("=")
        pieces = decl.split()
        if len(pieces) != 2:
            raise RuntimeError(f"library.define(): the schema argument '{part}' is not 'type name'")
        names.append(pieces[1])
        if eq:
            defaults[pieces[1]] = _parse_default(default.strip())
    return names, defaults


def _qualname(op, ns=None):
    name = getattr(op, "_qualname", op)
    if not isinstance(name, str):
        raise TypeError(f"library: expected an operator name 'namespace::name' or an operator, got {type(op).__name__}")
    if "::" not in name:
        if ns is None:
            raise ValueError(f"library: the operator name '{name}' needs its namespace, as 'namespace::{name}'")
        name = f"{ns}::{name}"
    return name[:-len(".default")] if name.endswith(".default") else name


def _existing(qualname, what):
    op = find(qualname)
    if op is None:
        raise RuntimeError(f"{what}: operator {qualname} does not exist")
    return op


def find(qualname):
    """The defined operator ``qualname`` or None (what torch.ops looks up)."""
    provider = _PROVIDERS.pop(qualname.partition("::")[0], None)
    if provider is not None:
        importlib.import_module(provider, __package__)
    return _ops.get(qualname)


class Library:
    """torch.library.Library: a handle for defining operators of namespace ``ns`` (``kind="DEF"``) or adding
    kernels to them (``"IMPL"``, ``"FRAGMENT"``).

    Args:
        ns (str): the namespace.
        kind (str): ``"DEF"``, ``"IMPL"`` or ``"FRAGMENT"``.
        dispatch_key (str): the key ``impl`` uses when it is given none.

    Example::

        >>> lib = flow.library.Library("doc_lib", "DEF")
        >>> lib.define("twice(Tensor x) -> Tensor")
        'twice'
        >>> lib.impl("twice", lambda x: x * 2, "CompositeExplicitAutograd")
        >>> flow.ops.doc_lib.twice(flow.tensor([1.0, 2.0]))
        tensor([2., 4.])
    """

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError(f"Library(): kind must be 'DEF', 'IMPL' or 'FRAGMENT', got {kind!r}")
        if not isinstance(ns, str) or not ns.isidentifier():
            raise ValueError(f"Library(): the namespace must be an identifier, got {ns!r}")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined = []

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Declares the operator ``schema`` names (``"name(Tensor x) -> Tensor"``) and returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError(f"Library.define(): a Library of kind 'IMPL' cannot define operators (ns {self.ns})")
        name = schema[:schema.find("(")].strip() if "(" in schema else schema
        qualname = f"{self.ns}::{name}"
        if qualname in _ops:
            raise RuntimeError(f"Library.define(): operator {qualname} is already defined")
        _ops[qualname] = _Operator(qualname, schema)
        self._defined.append(qualname)
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Registers ``fn`` as the ``dispatch_key`` kernel of the operator ``op_name``."""
        if not callable(fn):
            raise TypeError(f"Library.impl(): fn must be callable, got {type(fn).__name__}")
        qualname = _qualname(op_name, self.ns)
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        _dispatch_keys.check_key(key, "Library.impl()")
        op = _existing(qualname, "Library.impl()")
        tag = f"{qualname.replace('::', '/')}/{key}"
        if tag in _impls and not allow_override:
            raise RuntimeError(f"Library.impl(): a kernel for {qualname} and dispatch key {key} is already "
                               "registered from Python")
        if with_keyset:
            inner = fn
            fn = lambda *args: inner(_dispatch_keys.DispatchKeySet(key), *args)  # noqa: E731
        op.kernels[key] = fn
        _impls.add(tag)


def define(qualname, schema, *, lib=None, tags=()):
    """torch.library.define: declares the operator ``qualname`` with the argument/return part of ``schema``.

    Args:
        qualname (str): ``"namespace::name"``.
        schema (str): ``"(Tensor x, float alpha=1.0) -> Tensor"``.
        lib (Library, optional): the library to define it in (a new FRAGMENT of the namespace if None).
        tags: accepted for torch's signature; monoflow has no operator tags.

    Example::

        >>> flow.library.define("doc_lib::plus", "(Tensor x, float a=1.0) -> Tensor")
        >>> flow.ops.doc_lib.plus._schema
        'doc_lib::plus(Tensor x, float a=1.0) -> Tensor'
    """
    ns, sep, name = qualname.partition("::")
    if not sep:
        raise ValueError(f"library.define(): expected 'namespace::name', got {qualname!r}")
    (lib or Library(ns, "FRAGMENT")).define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """torch.library.impl: registers ``func`` as the kernel of ``qualname`` for the device type(s) ``types``
    (``"cpu"``, ``"cuda"``, ``"default"`` for every device) or a dispatch key name; used as a decorator when
    ``func`` is None.

    Args:
        qualname (str): ``"namespace::name"`` of a defined operator.
        types (str or sequence of str): device types or dispatch keys.
        func (callable, optional): the kernel.
        lib (Library, optional): accepted for torch's signature.

    Example::

        >>> flow.library.define("doc_lib::neg2", "(Tensor x) -> Tensor")
        >>> @flow.library.impl("doc_lib::neg2", "cpu")
        ... def neg2(x):
        ...     return -2 * x
        >>> flow.ops.doc_lib.neg2(flow.tensor([1.0]))
        tensor([-2.])
    """
    keys = [types] if isinstance(types, str) else list(types)

    def register(fn):
        for t in keys:
            key = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "default": "CompositeExplicitAutograd"}.get(t, t)
            Library(_qualname(qualname).partition("::")[0], "FRAGMENT").impl(qualname, fn, key, allow_override=True)
        return fn

    return register if func is None else register(func)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """torch.library.register_fake: the kernel that gives the output's shape and dtype without computing it; it
    runs for meta-device inputs. The operator must be defined.

    Args:
        op (str): ``"namespace::name"``.
        func (callable, optional): the fake kernel (a decorator is returned when None).
        lib (Library, optional): accepted for torch's signature.
        allow_override (bool): replace a fake kernel registered before.

    Raises:
        RuntimeError: ``operator ns::name does not exist`` when it was never defined.

    Example::

        >>> flow.library.define("doc_lib::rowsum", "(Tensor x) -> Tensor")
        >>> @flow.library.register_fake("doc_lib::rowsum")
        ... def _(x):
        ...     return x.new_empty(x.shape[0])
        >>> flow.ops.doc_lib.rowsum(flow.empty(3, 4, device="meta")).shape
        monoflow.Size([3])
    """
    qualname = _qualname(op)

    def register(fn):
        target = _existing(qualname, "register_fake(...)")
        if "Meta" in target.kernels and not allow_override:
            raise RuntimeError(f"register_fake(...): the operator {qualname} already has a fake implementation")
        target.kernels["Meta"] = fn
        return fn

    return register if func is None else register(func)


impl_abstract = register_fake  # torch's earlier name


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """torch.library.register_autograd: the backward formula of a defined operator. ``setup_context(ctx, inputs,
    output)`` saves what ``backward(ctx, *grads)`` needs; backward returns one gradient per input (None for a
    non-tensor input).

    Args:
        op (str): ``"namespace::name"``.
        backward (callable): ``backward(ctx, *grad_outputs)``.
        setup_context (callable, optional): ``setup_context(ctx, inputs, output)``.
        lib (Library, optional): accepted for torch's signature.

    Example::

        >>> flow.library.define("doc_lib::sq", "(Tensor x) -> Tensor")
        >>> flow.library.impl("doc_lib::sq", "default", lambda x: x * x)
        <function <lambda> at ...>
        >>> def setup(ctx, inputs, output):
        ...     ctx.save_for_backward(inputs[0])
        >>> flow.library.register_autograd("doc_lib::sq", lambda ctx, g: 2 * ctx.saved_tensors[0] * g,
        ...                                setup_context=setup)
        >>> x = flow.tensor([3.0], requires_grad=True)
        >>> flow.ops.doc_lib.sq(x).sum().backward()
        >>> x.grad
        tensor([6.])
    """
    if not callable(backward):
        raise TypeError(f"register_autograd(): backward must be callable, got {type(backward).__name__}")
    _existing(_qualname(op), "register_autograd(...)").autograd = (backward, setup_context)


def get_kernel(op, dispatch_key):
    """torch.library.get_kernel: the kernel registered for ``dispatch_key`` (RuntimeError when there is none).

    Args:
        op (str): ``"namespace::name"``.
        dispatch_key (str or DispatchKey): the key.

    Example::

        >>> flow.library.define("doc_lib::ident", "(Tensor x) -> Tensor")
        >>> flow.library.impl("doc_lib::ident", "cpu", lambda x: x.clone())
        <function <lambda> at ...>
        >>> flow.library.get_kernel("doc_lib::ident", "CPU")(flow.tensor([1.0]))
        tensor([1.])
    """
    qualname = _qualname(op)
    key = getattr(dispatch_key, "name", dispatch_key)
    kernel = _existing(qualname, "get_kernel()").kernels.get(key)
    if kernel is None:
        raise RuntimeError(f"get_kernel(): operator {qualname} has no kernel for dispatch key {key}")
    return kernel


# -- calling ---------------------------------------------------------------------------------------------------

def _tensors(args):
    from ._tensor import Tensor
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, Tensor))


def _device_type(args):
    for t in _tensors(args):
        return t.device.type
    return "cpu"


def _backend_key(device_type):
    return {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}.get(device_type, device_type.upper())


def call(op, args, kwargs):
    """Runs the operator ``op`` (an _Operator) on the bound arguments, as Note [How an operator call is dispatched]."""
    from .amp import autocast_mode
    args = op.bind(args, dict(kwargs))
    device_type = _device_type(args)
    excluded = _dispatch_keys.excluded()
    autocast_key = "AutocastCUDA" if device_type == "cuda" else "Autocast" + _backend_key(device_type)
    if (autocast_key in op.kernels and autocast_key not in excluded
            and autocast_mode.is_autocast_enabled(device_type)):
        return op.kernels[autocast_key](*args)
    if op.autograd is not None and _autograd.is_grad_enabled() and any(t.requires_grad for t in _tensors(args)):
        return _with_backward(op, args)
    return _backend_kernel(op, device_type)(*args)


def _backend_kernel(op, device_type):
    for key in (_backend_key(device_type), "CompositeExplicitAutograd", "CompositeImplicitAutograd"):
        if key in op.kernels and not (device_type != "meta" and key == "Meta"):
            return op.kernels[key]
    raise NotImplementedError(f"Could not run '{op.qualname}' with arguments from the '{_backend_key(device_type)}' "
                              f"backend: it has kernels for {sorted(op.kernels) or 'no dispatch key'}")


def _with_backward(op, args):
    backward, setup_context = op.autograd
    kernel = _backend_kernel(op, _device_type(args))
    from ._tensor import Tensor
    tensor_at = [i for i, a in enumerate(args) if isinstance(a, Tensor)]

    class _OpFunction(_autograd.Function):
        @staticmethod
        def forward(ctx, *tensors):
            full = list(args)
            for i, t in zip(tensor_at, tensors):
                full[i] = t
            with _autograd.no_grad():
                out = kernel(*full)
            if setup_context is not None:
                setup_context(ctx, tuple(full), out)
            return out

        @staticmethod
        def backward(ctx, *grads):
            got = backward(ctx, *grads)
            got = got if isinstance(got, (tuple, list)) else (got,)
            if len(got) != len(args):
                raise RuntimeError(f"{op.qualname}: the registered backward returned {len(got)} gradient(s), "
                                   f"expected one per input ({len(args)})")
            return tuple(got[i] for i in tensor_at)

    _OpFunction.__name__ = op.qualname.replace("::", "_") + "Backward"
    return _OpFunction.apply(*(args[i] for i in tensor_at))
