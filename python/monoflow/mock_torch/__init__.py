"""mock_torch: ``import torch`` gives monoflow (OneFlow's ``oneflow.mock_torch``).

Three ways, as OneFlow's documentation ("Mocking PyTorch with OneFlow") gives them::

    import monoflow.mock_torch as mock
    with mock.enable():              # or mock.enable() ... mock.disable()
        import torch                 # monoflow; torch.nn is monoflow.nn, ...
    import torch                     # the real PyTorch again (if installed)

    eval $(python -m monoflow.mock_torch)            # every Python started from this shell
    eval $(python -m monoflow.mock_torch disable)

``enable(lazy=True)`` makes a module or attribute monoflow does not have a
placeholder that only fails when it is called (``verbose=True`` prints each
one as it is handed out), so a third-party library that merely imports a
missing name still loads. ``extra_dict`` maps other packages the same way
(``{"torchvision": "flowvision"}``).

Note [How the mock works]
    A finder first on ``sys.meta_path`` answers every import of ``torch`` or
    ``torch.<sub>`` with the module ``monoflow.<sub>`` itself (so
    ``isinstance(torch.zeros(1), monoflow.Tensor)`` holds). The import system
    stamps its own spec on a module it loads; the finder puts monoflow's spec
    back, so monoflow's modules keep their identity. Enabling takes the real
    ``torch*`` entries out of ``sys.modules`` (and a ``torch`` bound in the
    caller's globals) and disabling puts them back, so both can be used in
    turn in one process.
"""
import importlib
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
import types

__all__ = ["enable", "disable", "is_enabled"]

_ERROR = (" is not implemented in monoflow; mock_torch.enable(lazy=True) gives a placeholder that fails only "
          "when it is used")


def _matches(name, prefix):
    return name == prefix or name.startswith(prefix + ".")


class _Dummy(types.ModuleType):
    """lazy=True: a placeholder for a module or attribute monoflow does not have."""

    def __init__(self, name, verbose):
        super().__init__(name)
        self.__dict__["_mock_verbose"] = verbose

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"
        if self._mock_verbose:
            print(f"mock_torch: {full} is not found in monoflow, use a placeholder as fallback")
        return _Dummy(full, self._mock_verbose)

    def __mro_entries__(self, bases):  # class C(torch.missing.Base): ... derives from nothing
        return ()

    def __iter__(self):  # for _ in torch.missing: ... runs no iteration
        return iter(())

    def __getitem__(self, key):
        if isinstance(key, int):
            raise IndexError(f"{self.__name__}[{key}]: a mock_torch placeholder is empty")
        return _Dummy(f"{self.__name__}[{key!r}]", self._mock_verbose)

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(self.__name__ + _ERROR)

    def __instancecheck__(self, instance):  # isinstance(x, torch.missing.Class) is False
        return False

    def __subclasscheck__(self, cls):
        return False

    def __bool__(self):
        return False

    def __repr__(self):
        return f"<mock_torch placeholder '{self.__name__}'>"


class _Lazy(types.ModuleType):
    """lazy=True: a monoflow module whose missing attributes are placeholders."""

    def __init__(self, module, verbose):
        super().__init__(module.__name__)
        self.__dict__.update(_mock_module=module, _mock_verbose=verbose, __path__=getattr(module, "__path__", []),
                             __file__=getattr(module, "__file__", None), __doc__=module.__doc__)

    def __getattr__(self, name):
        try:
            value = getattr(self._mock_module, name)
        except AttributeError:
            if (name.startswith("__") and name.endswith("__")) or name in _BLOCKED:
                raise
            full = f"{self._mock_module.__name__}.{name}"
            if self._mock_verbose:
                print(f"mock_torch: {full} is not found in monoflow, use a placeholder as fallback")
            return _Dummy(full, self._mock_verbose)
        if isinstance(value, types.ModuleType) and not isinstance(value, (_Lazy, _Dummy)):
            return _Lazy(value, self._mock_verbose)
        return value

    def __dir__(self):
        return dir(self._mock_module)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, mapping, lazy, verbose):
        self.mapping = mapping  # {"torch": "monoflow", ...}
        self.lazy = lazy
        self.verbose = verbose
        self.specs = {}  # id(module) -> the module's own spec, put back after the import system's stamp

    def _target(self, fullname):
        for prefix, target in self.mapping.items():
            if _matches(fullname, prefix):
                return target + fullname[len(prefix):]
        return None

    def find_spec(self, fullname, path=None, target=None):
        if self._target(fullname) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        real = self._target(spec.name)
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name is None or not _matches(real, e.name):  # a module missing inside the real one
                raise
            if self.lazy:
                if self.verbose:
                    print(f"mock_torch: {real} is not found in monoflow, use a placeholder as fallback ({spec.name})")
                return _Dummy(spec.name, self.verbose)
            raise ModuleNotFoundError(f"No module named '{spec.name}': {real}" + _ERROR, name=spec.name) from None
        if self.lazy:
            module = _Lazy(module, self.verbose)
        else:
            self.specs[id(module)] = module.__dict__.get("__spec__")
        return module

    def exec_module(self, module):
        if id(module) in self.specs:
            module.__spec__ = self.specs.pop(id(module))


_HAZARDS = ("_distutils_hack", "importlib", "regex", "tokenizers", "safetensors")  # never re-imported
_BLOCKED = ("scaled_dot_product_attention",)  # lazy: missing -> AttributeError, not a placeholder (see enable)

_state = {"finder": None, "enabled": False, "lazy": False, "verbose": False, "extra": None,
          "on_cache": {}, "off_cache": {}, "on_lazy": None, "before": set(),
          "pre_bound": {}}


def _flag(*names):
    for name in names:
        v = os.environ.get(name)
        if v is not None:
            return v.strip().lower() not in ("0", "", "false", "off", "no")
    return None


def is_enabled():
    """Whether ``import torch`` gives monoflow now."""
    return _state["enabled"]


def _owned(mapping):
    return [k for k in sys.modules if any(_matches(k, p) for p in mapping)]


def _aliases(g, module):
    return [a for a, v in list(g.items()) if v is module]


def _stash(names, g, cache, unbind=True, keep=None):
    for k in names:
        v = sys.modules.pop(k)
        aliases = [a for a in _aliases(g, v) if keep is None or not keep(a, v)]
        cache[k] = (v, aliases)
        if unbind:
            for a in aliases:
                del g[a]


def _restore(cache, g):
    for k, (v, aliases) in cache.items():
        sys.modules[k] = v
        for a in aliases:
            g[a] = v
    cache.clear()


def _uses_mock(module, mocked_ids):
    """A module imported while mocking that bound a mocked module (``import torch`` in a third-party file)."""
    d = getattr(module, "__dict__", None)
    return isinstance(d, dict) and any(id(v) in mocked_ids for v in list(d.values()) if isinstance(v, types.ModuleType))


class _Handle:
    """What :func:`enable` and :func:`disable` return; as a context manager it puts the previous mode back on exit."""

    def __init__(self, g, was_enabled, restore):
        self._g, self._was, self._restore = g, was_enabled, restore

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        if self._restore is not None:
            self._restore(self._g, self._was)
        return False


def _switch_on(g, lazy, verbose, extra_dict):
    mapping = {"torch": "monoflow"}
    mapping.update(extra_dict or {})
    _stash(_owned(mapping), g, _state["off_cache"])
    if _state["on_lazy"] is not None and _state["on_lazy"] != bool(lazy):  # cached for the other laziness
        cache = _state["on_cache"]
        for k, (v, aliases) in list(cache.items()):
            if isinstance(v, _Dummy):
                del cache[k]
            elif isinstance(v, _Lazy):
                cache[k] = (v._mock_module, aliases)
            elif lazy and any(_matches(k, p) for p in mapping):
                cache[k] = (_Lazy(v, bool(verbose)), aliases)
    _state["before"] = set(sys.modules)
    # names bound to monoflow modules before the switch (`flow` of `import monoflow as flow`) are the
    # caller's own, not the mock's: disabling leaves them bound (Note [How the mock works])
    _state["pre_bound"][id(g)] = {a: id(v) for a, v in list(g.items()) if isinstance(v, types.ModuleType)}
    _restore(_state["on_cache"], g)
    finder = _Finder(mapping, bool(lazy), bool(verbose))
    sys.meta_path.insert(0, finder)
    _state.update(finder=finder, enabled=True, lazy=bool(lazy), verbose=bool(verbose), extra=extra_dict,
                  on_lazy=bool(lazy))


def _switch_off(g):
    finder = _state["finder"]
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    mocked = _owned(finder.mapping)
    mocked_ids = {id(sys.modules[k]) for k in mocked}
    # third-party modules imported under the mock that hold a mocked module are set aside with it, so that
    # importing them again without the mock gives ones built on the real package
    third = [k for k in sys.modules if k not in _state["before"] and k not in mocked
             and k.split(".")[0] not in _HAZARDS and k.split(".")[0] not in ("monoflow", "oneflow")
             and _uses_mock(sys.modules[k], mocked_ids)]
    _stash(third, g, _state["on_cache"], unbind=False)
    pre = _state["pre_bound"].get(id(g))
    if pre is None:  # disabled from other globals than enabled: only the package names are the mock's
        keep = lambda a, v: a not in finder.mapping  # noqa: E731
    else:
        keep = lambda a, v: pre.get(a) == id(v)  # noqa: E731
    _stash(mocked, g, _state["on_cache"], keep=keep)
    _restore(_state["off_cache"], g)
    _state.update(finder=None, enabled=False)


def enable(lazy=None, verbose=None, extra_dict=None, *, _globals=None):
    """Makes ``import torch`` (and ``torch.<sub>``) give monoflow until :func:`disable`.

    The two modes keep their own ``torch*`` entries of ``sys.modules`` and of the
    caller's global scope, swapped on each switch (OneFlow's semantics): a
    ``torch`` bound to the real package is unbound (and rebound on
    :func:`disable`); a ``torch`` imported under an earlier mock comes back.
    Setting ``ONEFLOW_DISABLE_MOCK_TORCH=1`` (or ``MONOFLOW_DISABLE_MOCK_TORCH``)
    makes this a no-op.

    Args:
        lazy (bool, optional): a name monoflow does not have is a placeholder that fails when called, instead
            of an ImportError/AttributeError at once (except ``scaled_dot_product_attention``, whose absence
            libraries test with ``hasattr``). Default: ``ONEFLOW_MOCK_TORCH_LAZY`` or ``False``.
        verbose (bool, optional): with ``lazy``, print each placeholder handed out.
            Default: ``ONEFLOW_MOCK_TORCH_VERBOSE`` or ``False``.
        extra_dict (dict, optional): more ``{package: replacement}`` pairs mocked the same way.
            Default: ``None``.

    Returns:
        a handle that also works as a context manager (``with mock.enable(): ...`` gives the previous mode back
        on exit).

    Example::

        >>> import monoflow.mock_torch as mock
        >>> with mock.enable():
        ...     import torch
        ...     isinstance(torch.zeros(2), flow.Tensor)
        True
        >>> mock.is_enabled()
        False
    """
    g = _globals if _globals is not None else inspect.currentframe().f_back.f_globals
    was = _state["enabled"]
    if _flag("ONEFLOW_DISABLE_MOCK_TORCH", "MONOFLOW_DISABLE_MOCK_TORCH"):
        return _Handle(g, was, None)
    if lazy is None:
        lazy = bool(_flag("ONEFLOW_MOCK_TORCH_LAZY", "MONOFLOW_MOCK_TORCH_LAZY"))
    if verbose is None:
        verbose = bool(_flag("ONEFLOW_MOCK_TORCH_VERBOSE", "MONOFLOW_MOCK_TORCH_VERBOSE"))
    if was:
        if (bool(lazy), bool(verbose), extra_dict) == (_state["lazy"], _state["verbose"], _state["extra"]):
            return _Handle(g, was, None)
        _switch_off(g)
    _switch_on(g, lazy, verbose, extra_dict)

    def back(g2, was_enabled):
        if not was_enabled and _state["enabled"]:
            _switch_off(g2)
    return _Handle(g, was, back)


def disable(*, _globals=None):
    """Undoes :func:`enable`: ``import torch`` gives the real PyTorch again (the modules and global
    names set aside are put back; the mocked ones are kept for the next :func:`enable`).

    Returns:
        a handle that also works as a context manager (``with mock.disable(): ...`` enables the mock again on
        exit if it was enabled)."""
    g = _globals if _globals is not None else inspect.currentframe().f_back.f_globals
    was = _state["enabled"]
    if not was:
        return _Handle(g, was, None)
    args = (_state["lazy"], _state["verbose"], _state["extra"])
    _switch_off(g)

    def back(g2, was_enabled):
        if was_enabled and not _state["enabled"]:
            _switch_on(g2, *args)
    return _Handle(g, was, back)
