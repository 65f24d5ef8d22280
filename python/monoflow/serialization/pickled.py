"""The pickle path: objects that are not checkpoint data.

Note [The pickle path]
    ``flow.save`` stores data (tensors, numpy values, containers, plain
    values) as data. Anything else, typically a whole ``nn.Module`` or an
    instance of the user's own class, is pickled into a member of its own,
    as torch.save would, except that the tensors, numpy arrays, dtypes and
    devices inside it are not pickled: the pickler gives each a persistent id
    that refers to an ordinary data node saved beside the pickle (its
    "refs"), so their bytes stay raw and sharing with the rest of the file is
    kept. ``nn.Parameter`` pickles itself as (rebuild function, plain tensor,
    requires_grad), so parameters come back as parameters.

    Loading follows torch (2.6 and later): ``weights_only=True`` (the
    default) unpickles with an allow-list, the few harmless globals in
    _DEFAULT_SAFE plus what ``add_safe_globals`` / ``safe_globals`` added;
    any other global stops the load with WeightsOnlyError, whose message
    says how to opt in. Allow-listed names are matched as strings and never
    imported. ``weights_only=False`` is full unpickling, which can run any
    code: only for files from a trusted source.
"""
import _compat_pickle
import collections
import contextlib
import io
import pickle
import threading

import numpy as np

from monoflow import _C

from ._errors import CheckpointError, WeightsOnlyError, type_name

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals"]

_lock = threading.Lock()
_user_safe = []  # what add_safe_globals added: objects, or (object, "module.name") pairs


def _qualified(obj):
    module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not (isinstance(module, str) and isinstance(name, str)):
        raise TypeError(f"add_safe_globals: {obj!r} has no __module__/__qualname__; pass (obj, 'module.name')")
    return f"{module}.{name}"


def _check_entry(entry):
    if isinstance(entry, tuple):
        if not (len(entry) == 2 and isinstance(entry[1], str)):
            raise TypeError(f"add_safe_globals: a tuple entry must be (object, 'module.name'), got {entry!r}")
        return entry
    _qualified(entry)
    return entry


def add_safe_globals(safe_globals):
    """Lets ``weights_only=True`` loads rebuild these classes/functions (a
    list of objects, or of (object, "module.name") pairs for objects saved
    under another name). As torch.serialization.add_safe_globals: only for
    classes you trust, since unpickling calls them."""
    if not isinstance(safe_globals, (list, tuple)):
        raise TypeError(f"add_safe_globals: expected a list of classes or functions, "
                        f"got {type(safe_globals).__name__}")
    entries = [_check_entry(e) for e in safe_globals]
    with _lock:
        _user_safe.extend(entries)


def get_safe_globals():
    """The user's allow-list (what add_safe_globals added)."""
    with _lock:
        return list(_user_safe)


def clear_safe_globals():
    with _lock:
        _user_safe.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """``with flow.serialization.safe_globals([MyClass]): flow.load(...)``:
    the allow-list extended for the block only."""
    with _lock:
        before = list(_user_safe)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        with _lock:
            _user_safe[:] = before


def _latin1_encode(text, encoding="latin1"):
    """_codecs.encode as protocol-2 pickles use it for bytes, nothing else."""
    if not (isinstance(text, str) and encoding in ("latin1", "latin-1")):
        raise pickle.UnpicklingError("_codecs.encode is allowed for latin1 bytes only")
    return text.encode("latin1")


def _rebuild_parameter(data, requires_grad=True):
    from monoflow.nn.parameter import _rebuild_parameter as rebuild  # (nn sits above this layer)

    return rebuild(data, requires_grad)


_DEFAULT_SAFE = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "builtins.set": set,
    "builtins.frozenset": frozenset,
    "builtins.bytearray": bytearray,
    "builtins.complex": complex,
    "builtins.slice": slice,
    "builtins.range": range,
    "_codecs.encode": _latin1_encode,
    "monoflow.nn.parameter._rebuild_parameter": _rebuild_parameter,
}


def allowed_globals(extra=None):
    """name -> object for a weights_only unpickler: `extra` (a format's own
    stand-ins), the defaults and the user's allow-list."""
    out = dict(extra or {})
    out.update(_DEFAULT_SAFE)
    for entry in get_safe_globals():
        if isinstance(entry, tuple):
            out[entry[1]] = entry[0]
        else:
            out[_qualified(entry)] = entry
    return out


_OPT_OUT = ("flow.load defaults to weights_only=True (as torch.load does since PyTorch 2.6). Re-running "
            "`flow.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary "
            "code execution. Do it only if you got the file from a trusted source.")


def unsafe_global_message(name, option1=_OPT_OUT):
    """torch's explanation of a refused global, in monoflow's terms."""
    return (f"Weights only load failed. This file can still be loaded, to do so you have two options, do those "
            f"steps only if you trust the source of the checkpoint.\n"
            f"\t(1) {option1}\n"
            f"\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the "
            f"following error message.\n"
            f"\tWeightsUnpickler error: Unsupported global: GLOBAL {name} was not an allowed global by default. "
            f"Please use `flow.serialization.add_safe_globals([{name}])` or the "
            f"`flow.serialization.safe_globals([{name}])` context manager to allowlist this global if you "
            f"trust this class/function.")


class RestrictedUnpickler(pickle.Unpickler):
    """Resolves only the globals in `allowed` (matched by name, never
    imported); persistent ids go to persistent(pid)."""

    def __init__(self, data, allowed, persistent, refuse):
        super().__init__(io.BytesIO(data))
        self.allowed, self.persistent, self.refuse = allowed, persistent, refuse

    def find_class(self, module, name):
        # protocol < 3 pickles name Python 2 modules (__builtin__.set): map them as pickle does
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        key = f"{module}.{name}"
        if key in self.allowed:
            return self.allowed[key]
        raise self.refuse(key)

    def persistent_load(self, pid):
        return self.persistent(pid)


class _FullUnpickler(pickle.Unpickler):
    def __init__(self, data, persistent):
        super().__init__(io.BytesIO(data))
        self.persistent = persistent

    def persistent_load(self, pid):
        return self.persistent(pid)


def run_unpickler(unpickler, error, member):
    """unpickler.load(), with every failure the data causes as CheckpointError."""
    try:
        return unpickler.load()
    except CheckpointError:
        raise
    except RecursionError:
        raise error("the pickle is nested too deeply", member) from None
    except Exception as exc:  # noqa: BLE001 - a hostile pickle can make anything fail
        raise error(f"cannot unpickle ({type(exc).__name__}: {exc})", member) from exc


# ---------------------------------------------------------------- save


def _persistent_tensor(obj):
    """A tensor that is saved as data: any but a type that pickles itself
    (nn.Parameter reduces to a plain tensor, which then is one)."""
    from monoflow._tensor import Tensor

    return isinstance(obj, _C.TensorBase) and type(obj).__reduce_ex__ is Tensor.__reduce_ex__


def dumps(obj, path, saver, pickle_module=None, protocol=2):
    """(pickle bytes of obj, [ref node, ...]): tensors and numpy values inside
    obj become refs, saved as data by `saver` (Note [The pickle path])."""
    refs, index = [], {}
    module = pickle_module if pickle_module is not None else pickle

    class Pickler(module.Pickler):
        def persistent_id(self, x):
            if not (_persistent_tensor(x) or type(x) in (_C.dtype, _C.device)
                    or isinstance(x, (np.ndarray, np.generic))):
                return None
            if id(x) in index:
                return index[id(x)][0]
            node = saver.node(x, f"{path}<{type(x).__name__}>") if not isinstance(x, (np.ndarray, np.generic)) \
                else saver.numpy_node(x)
            if node is None:  # a numpy value that is not plain data (object arrays): pickled
                return None
            refs.append(node)
            index[id(x)] = (len(refs) - 1, x)  # (x kept alive so that its id stays unique)
            return len(refs) - 1

    buf = io.BytesIO()
    try:
        Pickler(buf, protocol=protocol).dump(obj)
    except RecursionError:
        raise ValueError(f"flow.save: the object at {path} is nested too deeply to pickle") from None
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise TypeError(f"flow.save: cannot save an object of type {type_name(obj)} at {path}: it is not "
                        f"checkpoint data (tensors, numpy values, dict/list/tuple, str, int, float, bool, None, "
                        f"bytes, flow.dtype, flow.device), and pickling it failed: {exc}") from exc
    return buf.getvalue(), refs


def loads(data, ref, weights_only, error, member):
    """The object pickled in `data`; ref(i) builds its i-th ref."""
    def persistent(pid):
        if type(pid) is not int:
            raise error(f"invalid persistent id {str(pid)[:40]!r}", member)
        return ref(pid)

    if weights_only:
        unpickler = RestrictedUnpickler(data, allowed_globals(), persistent,
                                        lambda key: error(unsafe_global_message(key), member, WeightsOnlyError))
    else:
        unpickler = _FullUnpickler(data, persistent)
    return run_unpickler(unpickler, error, member)
