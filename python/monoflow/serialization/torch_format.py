"""Reading PyTorch checkpoints (files torch.save wrote), without torch.

Both of torch's layouts: the zip format (torch >= 1.6: ``<name>/data.pkl``
plus one member per storage, ``<name>/data/<key>``) and the legacy format
(``_use_new_zipfile_serialization=False``: a magic number, a protocol
version and system info, the object pickle, the list of storage keys, then
each storage's bytes).

The pickle is never executed as such: it is read by a restricted unpickler
whose globals are stand-ins written here for the few torch names a
checkpoint of tensors needs (torch._utils._rebuild_tensor_v2 and friends,
the storage classes, dtypes, torch.Size, torch.device), plus the safe
defaults and the user's allow-list of the pickle path (pickled.py). Storages
come by persistent id and are read as raw bytes; tensors are views of one
monoflow storage per torch storage, so shared storages stay shared. Any
other global stops the load with torch's explanation, whatever
weights_only says: a PyTorch file's pickle is never run (allow-listing a
class with safe_globals is the way to rebuild it).
"""
import io
import math
import pickle
import pickletools
import struct

import numpy as np

from monoflow import _C

from . import pickled
from ._errors import CheckpointError, WeightsOnlyError
from ._placement import UserError, restore

_DTYPES = {dt.name: dt for dt in _C.dtypes}
_STORAGE_DTYPES = {  # torch's legacy storage class names (what its pickles name)
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
    "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
}
_TORCH_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
                 "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "int64": "int64",
                 "long": "int64", "int32": "int32", "int": "int32", "int16": "int16", "short": "int16",
                 "int8": "int8", "uint8": "uint8", "bool": "bool"}
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001


def is_legacy(head):
    """Whether a file starting with `head` is a legacy torch.save file (its
    first pickle is the magic number: PROTO 2, LONG1 of 10 bytes)."""
    return head.startswith(b"\x80\x02\x8a\x0a" + LEGACY_MAGIC.to_bytes(10, "little"))


def zip_prefix(archive):
    """The directory of data.pkl in a torch zip checkpoint, or None."""
    found = [n[:-len("data.pkl")] for n in archive.names() if n.endswith("/data.pkl") and n.count("/") == 1]
    return found[0] if len(found) == 1 else None


class _StorageType:
    """Stand-in for torch.FloatStorage & co. in a pickle: names a dtype."""

    def __init__(self, name):
        self.name = name
        self.dtype = _STORAGE_DTYPES[name]


class _Storage:
    """One torch storage: its dtype, size, and (once read) a monoflow tensor over its bytes."""

    def __init__(self, key, dtype, numel, location):
        self.key, self.dtype, self.numel, self.location = key, dtype, numel, location
        self.base = None


class _Reader:
    def __init__(self, error, map_location):
        self.error, self.map_location = error, map_location
        self.storages = {}
        self.member = None
        self.big_endian = False
        self.read_storage = None  # set by the layout: _Storage -> uint8 numpy buffer

    def fail(self, msg):
        return self.error(msg, self.member)

    # -- stand-ins for torch's globals
    def _globals(self):
        g = {f"torch.{name}": _StorageType(name) for name in _STORAGE_DTYPES}
        g.update({f"torch.{name}": _DTYPES[dt] for name, dt in _TORCH_DTYPES.items()})
        g.update({
            "torch._utils._rebuild_tensor_v2": self.rebuild_tensor_v2,
            "torch._utils._rebuild_tensor": self.rebuild_tensor,
            "torch._utils._rebuild_parameter": self.rebuild_parameter,
            "torch._utils._rebuild_parameter_with_state": self.rebuild_parameter,
            "torch._tensor._rebuild_from_type_v2": self.rebuild_from_type,
            "torch.nn.parameter.Parameter": _PARAMETER, "torch.Tensor": _TENSOR,
            "torch.Size": _size, "torch.device": _device,
        })
        return g

    def persistent_load(self, pid):
        if isinstance(pid, tuple) and len(pid) == 4 and pid[0] in ("module", b"module"):
            return pid[1]  # (legacy) a module class and its source: the class passed find_class already
        if not (isinstance(pid, tuple) and pid and pid[0] in ("storage", b"storage")):
            raise self.fail(f"unsupported persistent id {str(pid)[:60]}")
        if len(pid) == 5:  # zip format: (tag, storage type, key, location, numel)
            _, st, key, location, numel = pid
            view = None
        elif len(pid) == 6:  # legacy: (..., view metadata or None)
            _, st, key, location, numel, view = pid
        else:
            raise self.fail(f"unsupported persistent id {str(pid)[:60]}")
        if isinstance(location, bytes):
            location = location.decode("ascii", "replace")
        if not (isinstance(st, _StorageType) and isinstance(key, (str, int)) and isinstance(location, str)
                and type(numel) is int and 0 <= numel < 2 ** 62):
            raise self.fail(f"invalid storage reference {str(pid)[:80]}")
        key = str(key)
        storage = self.storages.get(key)
        if storage is None:
            storage = self.storages[key] = _Storage(key, st.dtype, numel, location)
        elif storage.dtype != st.dtype or storage.numel != numel:
            raise self.fail(f"storage {key} is referred to with two dtypes or sizes")
        if view is not None:  # (torch < 1.0) a view of the root storage: (view key, offset, size)
            if not (isinstance(view, tuple) and len(view) == 3 and all(type(v) is int for v in view[1:])
                    and 0 <= view[1] and view[1] + view[2] <= numel):
                raise self.fail(f"invalid storage view {str(view)[:80]}")
            return (storage, view[1], view[2])
        return (storage, 0, numel)

    def base(self, storage):
        if storage.base is None:
            dt = _DTYPES[storage.dtype]
            buf = self.read_storage(storage)
            if self.big_endian and dt.itemsize > 1:
                buf = buf.view(f">u{dt.itemsize}").astype(f"<u{dt.itemsize}").view(np.uint8)
            if storage.dtype == "bool" and buf.size and buf.max() > 1:
                raise self.fail(f"bool storage {storage.key} holds values other than 0 and 1")
            storage.base = restore(buf, [storage.numel], dt, storage.location, self.map_location, self.fail,
                                   f"storage {storage.key}")
        return storage.base

    def rebuild_tensor(self, storage, storage_offset, size, stride, *_):
        if not (isinstance(storage, tuple) and len(storage) == 3 and isinstance(storage[0], _Storage)):
            raise self.fail("a tensor is rebuilt from something that is not a storage")
        root, view_offset, view_numel = storage
        size, stride = tuple(size), tuple(stride)
        if not (type(storage_offset) is int and storage_offset >= 0 and len(size) == len(stride)
                and all(type(v) is int and 0 <= v < 2 ** 62 for v in size + stride)
                and math.prod(size) < 2 ** 62):
            raise self.fail(f"invalid tensor geometry: size {size}, stride {stride}, offset {storage_offset}")
        if math.prod(size) > 0 and storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) >= view_numel:
            raise self.fail(f"a tensor reaches past the end of storage {root.key} ({view_numel} elements)")
        base = self.base(root)
        return base.as_strided(size, stride, view_offset + storage_offset)

    def rebuild_tensor_v2(self, storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                          metadata=None):
        t = self.rebuild_tensor(storage, storage_offset, size, stride)
        if requires_grad is True:
            t.requires_grad_(True)
        return t

    def rebuild_parameter(self, data, requires_grad=True, backward_hooks=None, state=None):
        if not isinstance(data, _C.TensorBase) or type(requires_grad) is not bool:
            raise self.fail("a parameter is rebuilt from something that is not a tensor")
        return pickled._rebuild_parameter(data.detach(), requires_grad)

    def rebuild_from_type(self, func, new_type, args, state):
        if not (callable(func) and isinstance(args, tuple)):
            raise self.fail("invalid _rebuild_from_type_v2 call")
        t = func(*args)
        if new_type is _PARAMETER and isinstance(t, _C.TensorBase):
            return pickled._rebuild_parameter(t.detach(), bool(getattr(t, "requires_grad", True)))
        return t

    # -- unpickling
    def unpickle(self, data, member):
        self.member = member
        allowed = pickled.allowed_globals(self._globals())

        def refuse(key):
            note = ("PyTorch files are read without running their pickle, whatever weights_only says: only "
                    "tensors, containers, plain values and allow-listed globals are rebuilt")
            if key.split(".")[0] == "torch":
                note += " (this is a PyTorch object that monoflow does not rebuild)"
            return self.error(pickled.unsafe_global_message(key, note + "."), member, WeightsOnlyError)

        u = pickled.RestrictedUnpickler(data, allowed, self.persistent_load, refuse)
        return pickled.run_unpickler(u, self.error, member)


class _Marker:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


_PARAMETER, _TENSOR = _Marker("torch.nn.Parameter"), _Marker("torch.Tensor")


def _size(dims=()):
    return tuple(int(d) for d in dims)


def _device(kind, index=None):
    return str(kind) if index is None else f"{kind}:{int(index)}"


def _wrapped(reader, run):
    try:
        return run()
    except CheckpointError:
        raise
    except UserError as exc:
        raise exc.__cause__ from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, RuntimeError,
            struct.error) as exc:
        raise reader.fail(f"malformed PyTorch checkpoint ({type(exc).__name__}: {exc})") from exc


def load_zip(archive, map_location):
    """The object in a torch zip checkpoint (an Archive; zip_prefix(archive) is set)."""
    prefix = zip_prefix(archive)
    reader = _Reader(archive.error, map_location)
    order = archive.info(f"{prefix}byteorder")
    if order is not None:
        value = archive.read(order.filename, limit=16)
        if value not in (b"little", b"big"):
            raise archive.error(f"unknown byte order {value[:16]!r}", order.filename)
        reader.big_endian = value == b"big"

    def read_storage(storage):
        name = f"{prefix}data/{storage.key}"
        info = archive.info(name)
        if info is None:
            raise archive.error(f"the pickle refers to storage {storage.key!r}, which is missing", name)
        nbytes = storage.numel * _DTYPES[storage.dtype].itemsize
        if info.file_size != nbytes:
            raise archive.error(f"holds {info.file_size} bytes, but {storage.numel} {storage.dtype} elements "
                                f"need {nbytes}", name)
        buf = np.empty(nbytes, np.uint8)
        if nbytes:
            archive.read_into(info, buf)
        return buf

    reader.read_storage = read_storage
    data_pkl = f"{prefix}data.pkl"
    return _wrapped(reader, lambda: reader.unpickle(archive.read(data_pkl), data_pkl))


def load_legacy(fp, error, map_location):
    """The object in a legacy torch.save file (see is_legacy)."""
    reader = _Reader(error, map_location)

    def next_pickle(what):
        """The bytes of the next pickle in fp (found by parsing its opcodes, executing nothing)."""
        start = fp.tell()
        try:
            for op, _, _ in pickletools.genops(fp):
                if op.name == "STOP":
                    break
            else:
                raise ValueError("no STOP opcode")
        except Exception as exc:  # noqa: BLE001 - genops raises ValueError, EOFError, struct.error...
            raise error(f"the legacy PyTorch file is corrupt ({what}: {type(exc).__name__}: {exc})") from None
        end = fp.tell()
        fp.seek(start)
        return fp.read(end - start)

    def plain(what):
        return pickled.run_unpickler(
            pickled.RestrictedUnpickler(next_pickle(what), {}, _no_persistent(error),
                                        lambda key: error(f"unexpected global {key} in the {what}")),
            error, None)

    def run():
        if plain("magic number") != LEGACY_MAGIC:
            raise error("not a PyTorch file (bad magic number)")
        if plain("protocol version") != _LEGACY_PROTOCOL:
            raise error("unsupported legacy PyTorch protocol version")
        info = plain("system info")
        if not isinstance(info, dict):
            raise error("invalid system info in the legacy PyTorch file")
        reader.big_endian = info.get("little_endian", True) is False
        main = next_pickle("object pickle")
        keys = plain("storage keys")
        if not (isinstance(keys, list) and all(isinstance(k, (str, int)) for k in keys)):
            raise error("invalid storage key list in the legacy PyTorch file")
        # the storages' bytes follow, in key order: each an int64 element count, then the elements;
        # the element sizes come from the storage types the object pickle names
        if keys:
            _scan_storages(main, reader)
        lengths = {}
        pos = fp.tell()
        for key in map(str, keys):
            storage = reader.storages.get(key)
            if storage is None or key in lengths:
                raise error(f"storage {key} is listed twice, or no tensor uses it")
            fp.seek(pos)
            head = fp.read(8)
            if len(head) != 8:
                raise error(f"storage {key} is truncated")
            numel = struct.unpack(">q" if reader.big_endian else "<q", head)[0]
            if numel < 0:
                raise error(f"invalid storage record {key}")
            lengths[key] = (pos + 8, numel)
            pos += 8 + numel * _DTYPES[storage.dtype].itemsize
        reader.read_storage = lambda s: _read_legacy_storage(fp, s, lengths, error)
        return reader.unpickle(main, None)

    return _wrapped(reader, run)


def _scan_storages(main, reader):
    """Records the storages the object pickle refers to, executing nothing:
    every global it names is _Inert, which builds nothing."""
    class Scan(pickle.Unpickler):
        def find_class(self, module, name):
            key = f"{module}.{name}"
            if key.startswith("torch.") and key[6:] in _STORAGE_DTYPES:
                return _StorageType(key[6:])
            return _Inert

        def persistent_load(self, pid):
            found = reader.persistent_load(pid)
            return found if found is _Inert else None  # (a legacy module class id gives its class)

    try:
        Scan(io.BytesIO(main)).load()
    except CheckpointError:
        raise
    except Exception as exc:  # noqa: BLE001 - a hostile pickle can make anything fail
        raise reader.fail(f"cannot read the object pickle ({type(exc).__name__}: {exc})") from None


class _Inert:
    """What the scan's pickle builds in place of any global: takes any
    arguments, state and items, and does nothing."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return self

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def __getattr__(self, name):  # append, extend, ...
        return self


def _no_persistent(error):
    def persistent(pid):
        raise error("unexpected persistent id")

    return persistent


def _read_legacy_storage(fp, storage, lengths, error):
    if storage.key not in lengths:
        raise error(f"storage {storage.key} has no data record")
    start, numel = lengths[storage.key]
    if numel != storage.numel:
        raise error(f"storage {storage.key} holds {numel} elements, its tensors expect {storage.numel}")
    nbytes = numel * _DTYPES[storage.dtype].itemsize
    fp.seek(start)
    buf = np.empty(nbytes, np.uint8)
    view, pos = memoryview(buf), 0
    while pos < nbytes:
        n = fp.readinto(view[pos:])
        if not n:
            raise error(f"storage {storage.key} is truncated (read {pos} of {nbytes} bytes)")
        pos += n
    return buf
