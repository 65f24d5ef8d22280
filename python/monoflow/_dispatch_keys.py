"""torch._C's dispatch key names (DispatchKey, DispatchKeySet, _ExcludeDispatchKeyGuard) for monoflow.library.

monoflow has no C++ dispatcher: these keys name the kernels a Python-defined
operator holds (see monoflow.library), and the guard excludes keys from that
operator dispatch only (torchvision's autocast kernels exclude the autocast
keys while they call the operator again)."""
import enum
import threading


class DispatchKey(enum.Enum):
    """The dispatch keys monoflow.library dispatches on (torch's names)."""
    Undefined = 0
    CPU = 1
    CUDA = 2
    XPU = 3
    Meta = 4
    AutogradCPU = 5
    AutogradCUDA = 6
    AutogradXPU = 7
    Autograd = 8
    AutocastCPU = 9
    AutocastCUDA = 10
    AutocastXPU = 11
    CompositeExplicitAutograd = 12
    CompositeImplicitAutograd = 13
    Python = 14


def check_key(name, where):
    if name not in DispatchKey.__members__:
        raise ValueError(f"{where}: unknown dispatch key {name!r}; monoflow's keys are {list(DispatchKey.__members__)}")


class DispatchKeySet:
    """A set of dispatch keys: ``DispatchKeySet(DispatchKey.CPU) | DispatchKeySet(DispatchKey.Meta)``."""

    def __init__(self, *keys):
        self._keys = frozenset(DispatchKey[k] if isinstance(k, str) else DispatchKey(k) for k in keys)

    @classmethod
    def _of(cls, keys):
        out = cls()
        out._keys = frozenset(keys)
        return out

    def __or__(self, other):
        return self._of(self._keys | other._keys)

    def __and__(self, other):
        return self._of(self._keys & other._keys)

    def __sub__(self, other):
        return self._of(self._keys - other._keys)

    def __eq__(self, other):
        return isinstance(other, DispatchKeySet) and self._keys == other._keys

    def __hash__(self):
        return hash(self._keys)

    def has(self, key):
        return (DispatchKey[key] if isinstance(key, str) else key) in self._keys

    def empty(self):
        return not self._keys

    def __repr__(self):
        return "DispatchKeySet(" + ", ".join(sorted(k.name for k in self._keys)) + ")"


_tls = threading.local()


def excluded():
    """The names of the keys excluded on this thread."""
    return getattr(_tls, "excluded", frozenset())


class _ExcludeDispatchKeyGuard:
    """``with _ExcludeDispatchKeyGuard(keyset):`` operator calls inside skip the kernels of these keys."""

    def __init__(self, keyset):
        if not isinstance(keyset, DispatchKeySet):
            raise TypeError(f"_ExcludeDispatchKeyGuard(): expected a DispatchKeySet, got {type(keyset).__name__}")
        self._names = frozenset(k.name for k in keyset._keys)

    def __enter__(self):
        self._saved = excluded()
        _tls.excluded = self._saved | self._names
        return self

    def __exit__(self, *exc):
        _tls.excluded = self._saved
        return False
