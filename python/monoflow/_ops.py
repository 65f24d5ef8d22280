"""torch.ops: the operators monoflow.library defines, as ``ops.<namespace>.<name>(...)``.

``ops.<namespace>`` is a namespace object for any name (as torch's); looking up
an operator that is not defined raises AttributeError, which is how code that
probes for an optional extension's operators (``hasattr(torch.ops.ns, "op")``)
learns it is absent. ``ops.load_library`` cannot load a C++ extension built
against libtorch (monoflow does not run libtorch's operator registrations), so
it raises OSError as torch does for a library it cannot load. The namespace
``torchvision`` holds the few torchvision operators monoflow implements itself
(see _vision_ops), defined when the namespace is first looked up (library.find)."""
import importlib
import types

from . import library

__all__ = ["ops"]


class OpOverload:
    """One overload of an operator (``ops.ns.name.default``)."""

    def __init__(self, op, overload):
        self._op, self._overloadname = op, overload
        self._qualname = op.qualname
        self.__name__ = f"{op.qualname.partition('::')[2]}.{overload}"

    @property
    def _schema(self):
        return f"{self._op.qualname.partition('::')[0]}::{self._op.schema}"

    def name(self):
        return self._op.qualname + ("" if self._overloadname == "default" else "." + self._overloadname)

    def __call__(self, *args, **kwargs):
        return library.call(self._op, args, kwargs)

    def __repr__(self):
        return f"<OpOverload(op='{self._op.qualname.replace('::', '.')}', overload='{self._overloadname}')>"


class OpOverloadPacket:
    """An operator with its overloads (``ops.ns.name``); calling it calls the default overload."""

    def __init__(self, qualname):
        self._qualname = qualname
        self.__name__ = qualname.partition("::")[2]
        self.default = OpOverload(library.find(qualname), "default")

    @property
    def _schema(self):
        return self.default._schema

    def overloads(self):
        return ["default"]

    def __getattr__(self, name):
        op = library.find(f"{self._qualname}.{name}")
        if op is None or name.startswith("__"):
            raise AttributeError(f"The underlying op of '{self._qualname.replace('::', '.')}' has no overload name "
                                 f"'{name}'")
        return OpOverload(op, name)

    def __call__(self, *args, **kwargs):
        return self.default(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._qualname.replace('::', '.')}')>"


class _OpNamespace(types.ModuleType):
    """``ops.<namespace>``: attribute lookup finds the namespace's defined operators."""

    def __init__(self, name):
        super().__init__("torch.ops." + name)
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        if library.find(f"{self.name}::{op_name}") is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        return OpOverloadPacket(f"{self.name}::{op_name}")


class _Ops(types.ModuleType):
    __file__ = "_ops.py"

    def __init__(self):
        super().__init__("torch.ops")
        self.loaded_libraries = set()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace

    def load_library(self, path):
        """Would load a C++ extension's operator registrations; monoflow cannot run libtorch code, so this raises
        OSError (torch's error for a library it cannot load)."""
        raise OSError(f"Could not load this library: {path}: monoflow cannot load a C++ operator library built "
                      "against libtorch; define the operators with monoflow.library instead")

    def import_module(self, module):
        importlib.import_module(module)


ops = _Ops()
