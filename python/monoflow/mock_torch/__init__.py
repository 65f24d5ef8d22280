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
            print(f'mock_torch: "{full}" is a placeholder (monoflow has no such name)')
        return _Dummy(full, self._mock_verbose)

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
            if name.startswith("__") and name.endswith("__"):
                raise
            full = f"{self._mock_module.__name__}.{name}"
            if self._mock_verbose:
                print(f'mock_torch: "{full}" is a placeholder (monoflow has no such name)')
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
                    print(f'mock_torch: "{spec.name}" is a placeholder (monoflow has no module {real})')
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


_state = {"finder": None, "stash": {}, "globals": None, "saved_globals": {}}


def is_enabled():
    """Whether ``import torch`` gives monoflow now."""
    return _state["finder"] is not None


def _owned(mapping):
    return [k for k in sys.modules if any(_matches(k, p) for p in mapping)]


class _Handle:
    """What :func:`enable` returns: usable as ``with mock.enable(): ...`` (disabled on exit)."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        disable(_globals=_state["globals"])
        return False


def enable(lazy=False, verbose=False, extra_dict=None, *, _globals=None):
    """Makes ``import torch`` (and ``torch.<sub>``) give monoflow until :func:`disable`.

    Real ``torch`` modules already imported are set aside (and restored by
    :func:`disable`); the name ``torch`` bound to the real package in the
    caller's globals is unbound, so that the next ``import torch`` there gives
    monoflow.

    Args:
        lazy (bool): a name monoflow does not have is a placeholder that fails when used, instead of
            an ImportError/AttributeError at once. Default: ``False``.
        verbose (bool): with ``lazy``, print each placeholder handed out. Default: ``False``.
        extra_dict (dict, optional): more ``{package: replacement}`` pairs mocked the same way.
            Default: ``None``.

    Returns:
        a handle that also works as a context manager (``with mock.enable(): ...``).

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
    if _state["finder"] is not None:
        disable(_globals=g)
    mapping = {"torch": "monoflow"}
    mapping.update(extra_dict or {})
    stash = {k: sys.modules.pop(k) for k in _owned(mapping)}
    stashed_ids = {id(m) for m in stash.values()}
    saved = {k: v for k, v in g.items() if k in mapping and id(v) in stashed_ids}
    for k in saved:
        del g[k]
    finder = _Finder(mapping, bool(lazy), bool(verbose))
    sys.meta_path.insert(0, finder)
    _state.update(finder=finder, stash=stash, globals=g, saved_globals=saved)
    return _Handle()


def disable(*, _globals=None):
    """Undoes :func:`enable`: ``import torch`` gives the real PyTorch again (the modules set aside
    are put back), and a ``torch`` the caller bound to the mocked module is unbound (or rebound to
    the real module it stood for)."""
    finder = _state["finder"]
    if finder is None:
        return
    g = _globals if _globals is not None else inspect.currentframe().f_back.f_globals
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    mocked = {k: sys.modules.pop(k) for k in _owned(finder.mapping)}
    mocked_ids = {id(m) for m in mocked.values()}
    for k in finder.mapping:  # `import torch` bound 'torch' (only the package names: `flow` stays)
        if k in g and id(g[k]) in mocked_ids:
            del g[k]
    sys.modules.update(_state["stash"])
    g.update(_state["saved_globals"])
    _state.update(finder=None, stash={}, globals=None, saved_globals={})
