"""Checkpoints: ``flow.save`` and ``flow.load``.

The file is a zip archive in a documented format (docs/checkpoint_format.md)
that loading never executes: the object tree is JSON with a fixed set of node
tags, tensor data are raw little-endian blobs. There is no pickle anywhere, so
a checkpoint from an untrusted source can at worst fail to load.

What can be saved: tensors (any dtype, any layout; subclasses such as
``nn.Parameter`` are saved as plain tensors plus their ``requires_grad`` flag),
dict, OrderedDict (order kept), list, tuple, str, int, float, bool, None,
bytes, ``flow.dtype`` and ``flow.device``. Dict keys may be str, int, float,
bool, None or tuples of those. Anything else is a TypeError naming its type and
where it sits in the object (``obj['layers'][2]``), raised before anything is
written.

Tensors and storage: a tensor whose storage no other saved tensor uses is saved
by value (its elements in row-major order, whatever its strides were) and
loads as a contiguous tensor. Tensors that share one storage are saved once,
as the span of that storage they cover, and load as ``as_strided`` views of
one new storage, so aliasing (tied weights, a view and its base) survives the
round trip.

Note [Saving global tensors]
    A global tensor is saved as its logical value (gathered to broadcast
    over its placement), with its placement and SBP recorded in its node
    (format 1.1). Gathering is collective, so with global tensors in the
    object ``save`` is too: every rank calls it with the same object, and
    the gathers run in the same (walk) order everywhere. One rank writes a
    path: rank 0 of the job; the others wait until it reports that the file
    is complete (so a load right after ``save`` sees it on every rank of a
    shared file system), and raise if it failed. One writer, because N ranks
    replacing one path with the same bytes would cost N times the I/O and
    N temporary files for nothing. A file object belongs to its rank, so
    every rank writes its own.
    ``load`` gives local tensors holding the logical values, whatever the
    number of ranks now (``Module.load_state_dict`` and the optimizers lay
    them out as their global tensors); ``load(..., global_src_rank=r)`` reads
    the file on rank r only, shares it, and restores global tensors.
"""
import base64
import collections
import io
import json
import math
import os
import stat
import struct
import sys
import tempfile
import zipfile
import zlib

import numpy as np

from monoflow import _C

__all__ = ["save", "load", "CheckpointError", "FORMAT_NAME", "FORMAT_VERSION"]

FORMAT_NAME = "monoflow.checkpoint"
FORMAT_VERSION = (1, 1)  # (major, minor): readers refuse a newer major
# 1.1 adds placement/sbp to tensor nodes (global tensors); files without them
# are written as 1.0, byte for byte what 1.0 writers wrote.
_PLAIN_VERSION = (1, 0)

_FORMAT_MEMBER = "monoflow/format.json"
_MANIFEST_MEMBER = "monoflow/manifest.json"
_DATA_PREFIX = "monoflow/data/"
_DTYPES = {dt.name: dt for dt in _C.dtypes}
# Fixed timestamps make the archive a pure function of its contents.
_EPOCH = (1980, 1, 1, 0, 0, 0)
_BIG_ENDIAN = sys.byteorder == "big"


class CheckpointError(ValueError):
    """The file is not a (valid) monoflow checkpoint."""


# ---------------------------------------------------------------- save


def _plain_scalar_node(obj):
    """The node of a None/bool/int/float/str, or None if obj is not one.
    Exact types only: a subclass (IntEnum, a str subclass) would not come back
    as itself, so it is refused rather than silently changed."""
    t = type(obj)
    if obj is None:
        return {"t": "none"}
    if t is bool:
        return {"t": "bool", "v": obj}
    if t is int:
        return {"t": "int", "v": obj}
    if t is float:
        # strict JSON has no NaN/Infinity: non-finite values are strings
        return {"t": "float", "v": obj if math.isfinite(obj) else repr(obj)}
    if t is str:
        return {"t": "str", "v": obj}
    return None


def _describe(obj):
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class _Saver:
    """Walks the object once, building the JSON tree and collecting tensors."""

    def __init__(self):
        self.tensors = []  # (node, tensor): blob fields are filled in by plan()
        self.globals = []  # indices into tensors of global ones (gathered before plan())
        self._on_path = set()  # ids of the containers being walked: cycles

    def key(self, k, path):
        node = _plain_scalar_node(k)
        if node is not None:
            return node
        if type(k) is tuple:
            return {"t": "tuple", "v": [self.key(x, path) for x in k]}
        raise TypeError(f"flow.save: cannot save a dict key of type {_describe(k)} at {path} "
                        f"(keys may be str, int, float, bool, None or tuples of those)")

    def node(self, obj, path):
        node = _plain_scalar_node(obj)
        if node is not None:
            return node
        t = type(obj)
        if isinstance(obj, _C.TensorBase):
            node = {"t": "tensor"}
            if getattr(obj, "is_global", False):
                self.globals.append(len(self.tensors))
            self.tensors.append((node, obj))
            return node
        if t is bytes:
            return {"t": "bytes", "v": base64.b64encode(obj).decode("ascii")}
        if t is _C.dtype:
            return {"t": "dtype", "v": obj.name}
        if t is _C.device:
            return {"t": "device", "v": str(obj)}
        if t not in (list, tuple, dict, collections.OrderedDict):
            raise TypeError(f"flow.save: cannot save an object of type {_describe(obj)} at {path} "
                            f"(checkpoints hold tensors, dict/OrderedDict/list/tuple, str, int, float, bool, "
                            f"None, bytes, flow.dtype and flow.device; convert it to one of those first)")
        if id(obj) in self._on_path:
            raise ValueError(f"flow.save: the object contains itself at {path} (a reference cycle)")
        self._on_path.add(id(obj))
        try:
            if t is list or t is tuple:
                items = [self.node(x, f"{path}[{i}]") for i, x in enumerate(obj)]
                return {"t": t.__name__, "v": items}
            items = [[self.key(k, path), self.node(v, f"{path}[{k!r}]")] for k, v in obj.items()]
            node = {"t": "dict" if t is dict else "odict", "v": items}
            # Module.state_dict() may hang per-module metadata on the OrderedDict (as torch does)
            meta = getattr(obj, "_metadata", None) if t is collections.OrderedDict else None
            if meta is not None:
                node["metadata"] = self.node(meta, f"{path}._metadata")
            return node
        finally:
            self._on_path.discard(id(obj))

    def plan(self):
        """Assigns blobs: one per storage, covering the span its saved tensors use.
        Returns [(blob spec, tensor to copy from, element offset, numel)]."""
        groups = {}  # storage key -> [(node, tensor)]
        order = []
        for node, t in self.tensors:
            key = None
            if t.numel() > 0:
                # the storage's base address identifies it while the tensors are alive
                base = t.data_ptr() - t.storage_offset() * t.element_size()
                key = (str(t.device), t.dtype.name, base)
                if key in groups and not t._is_view_of(groups[key][0][1]):
                    key = None  # (cannot happen for live storages; be safe)
            if key is None or key not in groups:
                key = key if key is not None else ("unshared", id(node))
                groups[key] = []
                order.append(key)
            groups[key].append((node, t))
        blobs = []
        for key in order:
            members = groups[key]
            first = members[0][1]
            spec = {"dtype": first.dtype.name, "device": str(first.device)}
            if len(members) == 1:
                # by value: the elements in row-major order
                node, t = members[0]
                shape = list(t.shape)
                spec["numel"] = t.numel()
                self._fill(node, t, len(blobs), shape, _contiguous_strides(shape), 0)
                blobs.append((spec, t, None, t.numel()))
                continue
            lo = min(t.storage_offset() for _, t in members)
            hi = max(t.storage_offset() + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
                     for _, t in members) + 1
            spec["numel"] = hi - lo
            for node, t in members:
                self._fill(node, t, len(blobs), list(t.shape), list(t.stride()), t.storage_offset() - lo)
            blobs.append((spec, first, lo, hi - lo))
        return blobs

    @staticmethod
    def _fill(node, t, blob, shape, stride, offset):
        requires_grad = node.pop("requires_grad", bool(getattr(t, "requires_grad", False)))
        layout = {k: node.pop(k) for k in ("placement", "sbp") if k in node}
        node.update(blob=blob, dtype=t.dtype.name, shape=shape, stride=stride, offset=offset,
                    device=str(t.device), requires_grad=requires_grad, **layout)

    def gather_globals(self, writer):
        """Replaces each global tensor by its logical value, as a local tensor
        on rank `writer` (Note [Saving global tensors]); records its layout."""
        for i in self.globals:
            node, t = self.tensors[i]
            node["requires_grad"] = bool(t.requires_grad)
            node["placement"] = {"type": t.placement.type, "ranks": t.placement.ranks.tolist()}
            node["sbp"] = [s.short() for s in t.sbp]
            self.tensors[i] = (node, _logical_value(t, writer))


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return strides[::-1]


class _HostBytes:
    """numpy's view of a host-memory tensor's bytes; keeps the tensor alive."""

    __slots__ = ("tensor", "__array_interface__")

    def __init__(self, tensor, ptr, nbytes):
        self.tensor = tensor
        self.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1", "data": (ptr, True)}


def _host_bytes(t):
    """The elements of `t` in row-major order as little-endian bytes (a uint8
    array). A contiguous host-memory tensor is viewed, not copied; anything
    else is copied exactly once (on its device, or from it to the host)."""
    nbytes = t.numel() * t.element_size()
    if nbytes == 0:
        return np.empty(0, np.uint8)
    if _C.device_info(t.device.type)["host_memory"]:
        t = t.contiguous()
        ptr, _, _ = t._host_view_interface()  # (synchronises the device first)
        out = np.asarray(_HostBytes(t, ptr, nbytes))
    else:
        out = np.empty(nbytes, np.uint8)
        t._copy_to_host(out.ctypes.data)
    return _swap_if_big_endian(out, t.element_size())


def _swap_if_big_endian(buf, itemsize):
    if not _BIG_ENDIAN or itemsize == 1:
        return buf
    u = np.dtype(f"u{itemsize}")
    return buf.view(u).byteswap().view(np.uint8)


def _zipinfo(name, size):
    zi = zipfile.ZipInfo(name, date_time=_EPOCH)
    zi.compress_type = zipfile.ZIP_STORED  # tensor bytes stay readable in place
    zi.file_size = size  # lets zipfile pick zip64 for blobs over 4 GiB
    zi.external_attr = 0o644 << 16
    return zi


def _write_archive(fp, fmt_bytes, manifest_bytes, blobs):
    with zipfile.ZipFile(fp, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        zf.writestr(_zipinfo(_FORMAT_MEMBER, len(fmt_bytes)), fmt_bytes)
        zf.writestr(_zipinfo(_MANIFEST_MEMBER, len(manifest_bytes)), manifest_bytes)
        for i, (spec, t, lo, numel) in enumerate(blobs):
            src = t if lo is None else t.as_strided((numel,), (1,), lo)
            data = _host_bytes(src)
            with zf.open(_zipinfo(f"{_DATA_PREFIX}{i}", data.nbytes), "w") as w:
                w.write(memoryview(data))
            del data, src


def _new_file_mode(path):
    """The permissions open(path, 'w') would give: the old file's, or 0o666 & ~umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        pass
    umask = None
    try:  # Linux: read it without changing it (os.umask() is process-wide)
        with open("/proc/self/status") as s:
            for line in s:
                if line.startswith("Umask:"):
                    umask = int(line.split()[1], 8)
    except OSError:
        pass
    if umask is None:
        umask = os.umask(0o022)
        os.umask(umask)
    return 0o666 & ~umask


def _fsync_dir(d):
    if os.name != "posix":
        return
    fd = os.open(d, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic_write(path, write):
    # resolve symlinks so that a link keeps pointing at the (replaced) checkpoint,
    # as with open(path, "wb")
    path = os.path.realpath(path)
    directory, name = os.path.split(path)
    mode = _new_file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fp:
            write(fp)
            fp.flush()
            os.fsync(fp.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)  # makes the rename itself durable


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


def _logical_value(t, writer):
    """The whole value of global `t` on rank `writer` (None: on every rank);
    an empty tensor of its shape on ranks that will not write."""
    import monoflow.distributed as dist
    from monoflow._global import groups
    from monoflow._global.sbp import broadcast
    from monoflow._global.tensor import global_to_global
    from monoflow.autograd.grad_mode import no_grad

    me, world = groups.rank(), groups.world_group()
    ranks = t.placement.rank_list()
    with no_grad():
        full = None
        if me in ranks:  # every rank of the placement takes part in the gather
            b = global_to_global(t.detach(), t.placement, (broadcast,) * len(t.sbp), check_meta=False)
            full = b.to_local().detach()
        if writer is None and len(ranks) < groups.world_size():  # ranks outside the placement write too
            full = full.contiguous() if full is not None else _C.empty(tuple(t.shape), t.dtype, _C.device("cpu"))
            dist.broadcast(full, src=ranks[0], group=world)
        elif writer is not None and writer not in ranks:  # the placement's first rank sends it to the writer
            if me == ranks[0]:
                dist.send(full.contiguous(), writer, group=world)
            elif me == writer:
                full = _C.empty(tuple(t.shape), t.dtype, _C.device("cpu"))
                dist.recv(full, ranks[0], group=world)
    if full is None:
        full = _C.empty(tuple(t.shape), t.dtype, _C.device("cpu"))
    return full


def _after_global_write(world, writer, error):
    """Every rank learns whether the writer succeeded (and waits for it)."""
    import monoflow.distributed as dist

    flag = _C.full((1,), 0 if error is None else 1, _DTYPES["int32"], _C.device("cpu"))
    dist.broadcast(flag, src=writer, group=world)
    if error is not None:
        raise error
    if int(flag.item()):
        raise RuntimeError(f"flow.save: rank {writer}, which writes the checkpoint of global tensors, failed "
                           "(see its error)")


def save(obj, f):
    """Saves `obj` (tensors, state dicts, nested containers) to `f`: a path or a
    writable binary file object.

    Writing to a path is atomic: the checkpoint goes to a temporary file in the
    same directory, is fsynced, and replaces `f` only when complete, so a crash
    or an error leaves any previous checkpoint there intact. Writing to a file
    object starts at its current position; if an error occurs and the object is
    seekable, it is truncated back to where it was.
    """
    saver = _Saver()
    root = saver.node(obj, "obj")  # every TypeError is raised here, before any output
    world = writer = None
    if saver.globals:  # Note [Saving global tensors]
        from monoflow._global import groups

        world = groups.world_group()
        writer = 0 if _is_path(f) else None  # a file object: every rank writes its own
        saver.gather_globals(writer)
    blobs = saver.plan()
    version = FORMAT_VERSION if saver.globals else _PLAIN_VERSION
    fmt = {"format": FORMAT_NAME, "version": list(version), "byteorder": "little"}
    manifest = {"root": root, "blobs": [spec for spec, _, _, _ in blobs]}
    fmt_bytes = json.dumps(fmt).encode()
    manifest_bytes = json.dumps(manifest, separators=(",", ":"), allow_nan=False).encode()

    def write(fp):
        _write_archive(fp, fmt_bytes, manifest_bytes, blobs)

    if _is_path(f):
        if world is None:
            _atomic_write(os.fsdecode(f), write)
            return
        error = None
        if world.rank() == writer:
            try:
                _atomic_write(os.fsdecode(f), write)
            except Exception as exc:  # noqa: BLE001 - re-raised after telling the others
                error = exc
        _after_global_write(world, writer, error)
        return
    if not hasattr(f, "write"):
        raise TypeError(f"flow.save: expected a path or a writable binary file object, got {_describe(f)}")
    start = None
    try:
        if f.seekable():
            start = f.tell()
    except (AttributeError, OSError):
        pass
    try:
        write(f)
        if hasattr(f, "flush"):
            f.flush()
    except BaseException:
        if start is not None:
            try:
                f.seek(start)
                f.truncate()
            except (OSError, ValueError):
                pass
        raise


# ---------------------------------------------------------------- load


def _file_name(f):
    if _is_path(f):
        return repr(os.fsdecode(f))
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, str) else f"<{type(f).__name__}>"


def _is_int(v, lo=0):
    return type(v) is int and v >= lo


class _Loader:
    def __init__(self, zf, fp, fname, archive_size, map_location, as_global=False):
        self.zf, self.fp, self.fname, self.archive_size = zf, fp, fname, archive_size
        self.map_location = map_location
        self.as_global = as_global
        self.blob_specs = []
        self.blob_tensors = {}  # blob index -> (base tensor, its "whole" node or None)
        self._handlers = {  # the whole vocabulary: anything else is refused
            "none": self._none, "bool": self._bool, "int": self._int, "float": self._float,
            "str": self._str, "bytes": self._bytes, "dtype": self._dtype, "device": self._device,
            "list": self._list, "tuple": self._tuple, "dict": self._dict, "odict": self._dict,
            "tensor": self._tensor,
        }

    def error(self, msg):
        return CheckpointError(f"flow.load: {self.fname}: {msg}")

    # -- members
    def read_json(self, member):
        try:
            info = self.zf.getinfo(member)
        except KeyError:
            raise self.error(f"not a monoflow checkpoint (the archive has no {member})") from None
        if info.file_size > self.archive_size:
            raise self.error(f"{member} claims {info.file_size} bytes, more than the whole file")
        try:
            data = self.zf.read(info)
        except (zipfile.BadZipFile, EOFError, OSError, zlib.error, NotImplementedError) as exc:
            raise self.error(f"cannot read {member}: {exc}") from None
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise self.error(f"{member} is not valid JSON ({exc})") from None

    def check_format(self):
        fmt = self.read_json(_FORMAT_MEMBER)
        if not isinstance(fmt, dict) or fmt.get("format") != FORMAT_NAME:
            raise self.error(f"not a monoflow checkpoint ({_FORMAT_MEMBER} does not name format {FORMAT_NAME!r})")
        version = fmt.get("version")
        if not (isinstance(version, list) and len(version) == 2 and all(_is_int(v) for v in version)):
            raise self.error(f"{_FORMAT_MEMBER} has no valid version (got {version!r})")
        if version[0] > FORMAT_VERSION[0]:
            raise self.error(f"checkpoint format version {version[0]}.{version[1]} is newer than this monoflow "
                             f"reads ({FORMAT_VERSION[0]}.x); upgrade monoflow to load it")
        if version[0] < 1:
            raise self.error(f"unknown checkpoint format version {version[0]}.{version[1]}")
        if fmt.get("byteorder", "little") != "little":
            raise self.error(f"unsupported byte order {fmt.get('byteorder')!r}")

    def load(self):
        self.check_format()
        manifest = self.read_json(_MANIFEST_MEMBER)
        if not isinstance(manifest, dict) or "root" not in manifest or not isinstance(manifest.get("blobs"), list):
            raise self.error(f"{_MANIFEST_MEMBER} lacks 'root' or 'blobs'")
        for i, spec in enumerate(manifest["blobs"]):
            if not (isinstance(spec, dict) and spec.get("dtype") in _DTYPES and _is_int(spec.get("numel"))
                    and isinstance(spec.get("device"), str)):
                raise self.error(f"blob {i} has an invalid description {spec!r}")
            self.blob_specs.append(spec)
        try:
            return self.build(manifest["root"], "obj")
        except RecursionError:
            raise self.error("the object tree is nested too deeply") from None

    # -- nodes
    def build(self, node, path):
        if not isinstance(node, dict) or type(node.get("t")) is not str:
            raise self.error(f"malformed node at {path}: {str(node)[:80]}")
        handler = self._handlers.get(node["t"])
        if handler is None:
            raise self.error(f"unknown node type {node['t'][:40]!r} at {path} (this monoflow reads checkpoint "
                             f"format {FORMAT_VERSION[0]}.{FORMAT_VERSION[1]}; it never runs code from a file)")
        return handler(node, path)

    def value(self, node, path, check):
        v = node.get("v")
        if not check(v):
            raise self.error(f"invalid {node['t']} value {str(v)[:80]!r} at {path}")
        return v

    def _none(self, node, path):
        return None

    def _bool(self, node, path):
        return self.value(node, path, lambda v: type(v) is bool)

    def _int(self, node, path):
        return self.value(node, path, lambda v: type(v) is int)

    def _float(self, node, path):
        v = self.value(node, path, lambda v: type(v) in (int, float) or v in ("nan", "inf", "-inf"))
        return float(v)

    def _str(self, node, path):
        return self.value(node, path, lambda v: type(v) is str)

    def _bytes(self, node, path):
        v = self.value(node, path, lambda v: type(v) is str)
        try:
            return base64.b64decode(v.encode("ascii"), validate=True)
        except ValueError:
            raise self.error(f"invalid base64 in bytes node at {path}") from None

    def _dtype(self, node, path):
        return _DTYPES[self.value(node, path, lambda v: v in _DTYPES)]

    def _device(self, node, path):
        v = self.value(node, path, lambda v: type(v) is str)
        try:
            return _C.device(v)
        except Exception as exc:
            raise RuntimeError(f"flow.load: {self.fname}: cannot restore device {v!r} at {path}: {exc}") from None

    def _list(self, node, path):
        items = self.value(node, path, lambda v: type(v) is list)
        return [self.build(x, f"{path}[{i}]") for i, x in enumerate(items)]

    def _tuple(self, node, path):
        return tuple(self._list(node, path))

    def _key(self, node, path):
        if isinstance(node, dict) and node.get("t") in ("none", "bool", "int", "float", "str", "tuple"):
            if node["t"] == "tuple":
                items = self.value(node, path, lambda v: type(v) is list)
                return tuple(self._key(x, path) for x in items)
            return self.build(node, path)
        raise self.error(f"invalid dict key node at {path}: {str(node)[:80]}")

    def _dict(self, node, path):
        items = self.value(node, path, lambda v: type(v) is list)
        out = {} if node["t"] == "dict" else collections.OrderedDict()
        for item in items:
            if not (type(item) is list and len(item) == 2):
                raise self.error(f"malformed dict item at {path}")
            k = self._key(item[0], path)
            if k in out:
                raise self.error(f"duplicate dict key {k!r} at {path}")
            out[k] = self.build(item[1], f"{path}[{k!r}]")
        if "metadata" in node and node["t"] == "odict":
            out._metadata = self.build(node["metadata"], f"{path}._metadata")
        return out

    def _tensor(self, node, path):
        blob = node.get("blob")
        if not (_is_int(blob) and blob < len(self.blob_specs)):
            raise self.error(f"tensor at {path} refers to blob {blob!r}, which the manifest does not describe")
        spec = self.blob_specs[blob]
        shape, stride, offset = node.get("shape"), node.get("stride"), node.get("offset")
        if not (type(shape) is list and type(stride) is list and len(shape) == len(stride)
                and all(_is_int(v) and v < 2 ** 62 for v in shape + stride + [offset])):
            raise self.error(f"tensor at {path} has an invalid shape/stride/offset")
        if node.get("dtype") != spec["dtype"] or node.get("device") != spec["device"]:
            raise self.error(f"tensor at {path} disagrees with blob {blob} on dtype or device")
        if math.prod(shape) > 0 and offset + sum((n - 1) * s for n, s in zip(shape, stride)) >= spec["numel"]:
            raise self.error(f"tensor at {path} reaches past the end of blob {blob} ({spec['numel']} elements)")
        requires_grad = node.get("requires_grad", False)
        if type(requires_grad) is not bool:
            raise self.error(f"tensor at {path} has an invalid requires_grad")
        whole = offset == 0 and stride == _contiguous_strides(shape) and math.prod(shape) == spec["numel"]
        if blob not in self.blob_tensors:
            base = self.read_blob(blob, shape if whole else [spec["numel"]], path)
            self.blob_tensors[blob] = (base, whole)
            t = base if whole else None
        else:
            base, _ = self.blob_tensors[blob]
            t = None
        if t is None:  # another view of the blob's storage
            t = base.as_strided(shape, stride, base.storage_offset() + offset)
        layout = self._layout(node, path)
        if self.as_global:
            t = self._globalize(t, layout, node["device"])
        if requires_grad and hasattr(t, "requires_grad_"):
            t.requires_grad_(True)
        return t

    def _layout(self, node, path):
        """(placement type, ranks, [sbp strings]) of a saved global tensor, or None."""
        if "placement" not in node and "sbp" not in node:
            return None
        pl, sbp = node.get("placement"), node.get("sbp")
        ok = (isinstance(pl, dict) and type(pl.get("type")) is str and isinstance(pl.get("ranks"), list)
              and isinstance(sbp, list) and all(type(x) is str and _SBP_RE.fullmatch(x) for x in sbp))
        if ok:
            import numpy as np

            ranks = np.asarray(pl["ranks"])
            ok = ranks.size > 0 and ranks.dtype.kind in "iu" and ranks.ndim == len(sbp)
        if not ok:
            raise self.error(f"tensor at {path} has an invalid placement/sbp")
        return pl["type"], pl["ranks"], sbp

    @staticmethod
    def _globalize(t, layout, device):
        """The loaded logical value `t` (the same on every rank) as a global
        tensor: in its saved layout when this job has those ranks, else
        broadcast over every rank. No communication: each rank cuts its shard."""
        from monoflow._global import groups
        from monoflow._global.placement import placement as Placement
        from monoflow._global.sbp import broadcast, partial_sum, split
        from monoflow._global.tensor import wrap
        from monoflow.nn._global_layout import cut

        world = groups.world_size()
        if layout is not None and max(int(r) for r in _flat(layout[1])) < world and layout[0] in _C.device_types():
            p = Placement(layout[0], layout[1])
            nd = tuple(broadcast if x == "B" else partial_sum if x == "P" else split(int(x[2:-1]))
                       for x in layout[2])
            if any(x.is_split() and x.dim >= t.dim() for x in nd):
                p, nd = Placement.all(device.split(":")[0]), (broadcast,)
        else:
            p, nd = Placement.all(device.split(":")[0]), (broadcast,)
        return wrap(cut(t.detach(), p, nd), p, nd, tuple(t.shape))

    # -- tensor data
    def read_blob(self, i, shape, path):
        spec = self.blob_specs[i]
        dt = _DTYPES[spec["dtype"]]
        name = f"{_DATA_PREFIX}{i}"
        nbytes = spec["numel"] * dt.itemsize
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise self.error(f"the manifest refers to {name} (tensor at {path}), which is missing") from None
        if info.file_size != nbytes:
            raise self.error(f"{name} holds {info.file_size} bytes, but {spec['numel']} {dt.name} elements "
                             f"need {nbytes}")
        if nbytes > self.archive_size:
            raise self.error(f"{name} claims {nbytes} bytes, more than the whole file")
        buf = np.empty(nbytes, np.uint8)
        if nbytes:
            self._read_member_into(info, buf)
        buf = _swap_if_big_endian(buf, dt.itemsize)

        saved = spec["device"]
        ml = self.map_location
        if callable(ml) and not isinstance(ml, (str, _C.device, dict)):
            cpu = _C.borrow_host_memory(buf, buf.ctypes.data, nbytes, shape, _contiguous_strides(shape), dt)
            out = ml(cpu, saved)
            if out is None:  # as in torch: None means "restore as usual"
                out = self._restore(buf, shape, dt, self._target(saved, None, path))
            elif not isinstance(out, _C.TensorBase) or list(out.shape) != list(shape) or out.dtype != dt:
                raise TypeError(f"flow.load: map_location callable must return a {dt.name} tensor of shape "
                                f"{tuple(shape)} (or None), got {out!r:.80}")
            return out.contiguous()  # views are made with as_strided over it
        return self._restore(buf, shape, dt, self._target(saved, ml, path))

    def _read_member_into(self, info, buf):
        """Reads a stored member straight into buf (no intermediate bytes)."""
        name = info.filename
        if info.compress_type != zipfile.ZIP_STORED:
            # not written by monoflow, but a valid zip: decompress in chunks
            try:
                with self.zf.open(info) as r:
                    view, pos = memoryview(buf), 0
                    while pos < len(buf):
                        chunk = r.read(min(1 << 24, len(buf) - pos))
                        if not chunk:
                            break
                        view[pos:pos + len(chunk)] = chunk
                        pos += len(chunk)
            except (zipfile.BadZipFile, EOFError, OSError, zlib.error, NotImplementedError) as exc:
                raise self.error(f"cannot read {name}: {exc}") from None
            if pos != len(buf):
                raise self.error(f"{name} is truncated")
            return
        fp = self.fp
        fp.seek(info.header_offset)
        header = fp.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise self.error(f"{name}: bad local file header (the file is corrupt)")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        fp.seek(info.header_offset + 30 + name_len + extra_len)
        view, pos = memoryview(buf), 0
        while pos < len(buf):
            n = fp.readinto(view[pos:])
            if not n:
                raise self.error(f"{name} is truncated (read {pos} of {len(buf)} bytes)")
            pos += n
        if zlib.crc32(view) != info.CRC:
            raise self.error(f"{name} is corrupt (CRC-32 mismatch)")

    def _target(self, saved, ml, path):
        """The device string a blob saved on `saved` goes to."""
        if ml is None:
            target = saved
        elif isinstance(ml, (str, _C.device)):
            target = str(ml)
        elif isinstance(ml, dict):
            target = ml.get(saved, ml.get(saved.split(":")[0], saved))
            target = str(target)
        else:
            raise TypeError(f"flow.load: map_location must be None, a device, a str, a dict or a callable, "
                            f"got {_describe(ml)}")
        dev_type = target.split(":")[0]
        if dev_type not in _C.device_types():
            raise RuntimeError(f"flow.load: {self.fname}: the tensor at {path} was saved on {saved!r} and would be "
                               f"restored on {target!r}, but device type {dev_type!r} is not registered here "
                               f"(available: {', '.join(_C.device_types())}); pass map_location, e.g. "
                               f"map_location='cpu'")
        try:
            dev = _C.device(target)
        except Exception as exc:
            raise RuntimeError(f"flow.load: {self.fname}: cannot restore the tensor at {path} on "
                               f"{target!r}: {exc}") from None
        count = _C.device_count(dev.type)
        if dev.index >= count:
            raise RuntimeError(f"flow.load: {self.fname}: the tensor at {path} would be restored on {target!r}, "
                               f"but only {count} {dev.type} device(s) exist; pass map_location")
        return dev

    @staticmethod
    def _restore(buf, shape, dt, dev):
        if dev.type == "cpu":  # the tensor takes over the buffer: no second copy
            return _C.borrow_host_memory(buf, buf.ctypes.data, buf.nbytes, shape, _contiguous_strides(shape), dt)
        return _C.from_host_buffer(buf.ctypes.data, shape, dt, dev)


_SBP_RE = __import__("re").compile(r"B|P|S\([0-9]{1,3}\)")


def _flat(ranks):
    for r in ranks:
        if isinstance(r, list):
            yield from _flat(r)
        else:
            yield r


def _read_on_rank(f, src):
    """The bytes of `f`, read on rank `src` only and broadcast to every rank
    (load(..., global_src_rank=src)): the file need only exist there."""
    import monoflow.distributed as dist
    from monoflow._global import groups

    world = groups.world_group()
    me = groups.rank()
    data, error = b"", None
    if me == src or world is None:
        try:
            with _ReadSource(f) as fp:
                data = fp.read()
        except Exception as exc:  # noqa: BLE001 - re-raised after telling the others
            error = exc
    if world is None:
        if error is not None:
            raise error
        return data
    i64, u8, cpu = _DTYPES["int64"], _DTYPES["uint8"], _C.device("cpu")
    size = _C.full((1,), -1 if error is not None else len(data), i64, cpu)
    dist.broadcast(size, src=src, group=world)
    n = int(size.item())
    if n < 0:
        if error is not None:
            raise error
        raise RuntimeError(f"flow.load: rank {src} (global_src_rank) could not read {_file_name(f)}")
    buf = np.frombuffer(data, np.uint8).copy() if me == src else np.empty(n, np.uint8)
    t = _C.borrow_host_memory(buf, buf.ctypes.data, n, [n], [1], u8)
    dist.broadcast(t, src=src, group=world)
    return buf.tobytes()


class _ReadSource:
    """Opens a path, or checks a file object, for zipfile."""

    def __init__(self, f):
        self.f, self.own = f, _is_path(f)

    def __enter__(self):
        if self.own:
            self.fp = open(self.f, "rb")
        else:
            if not hasattr(self.f, "read"):
                raise TypeError(f"flow.load: expected a path or a readable binary file object, "
                                f"got {_describe(self.f)}")
            self.fp = self.f
            if not (hasattr(self.f, "seekable") and self.f.seekable()):
                self.fp = io.BytesIO(self.f.read())  # zip needs random access
        return self.fp

    def __exit__(self, *exc):
        if self.own:
            self.fp.close()


def load(f, map_location=None, *, weights_only=True, global_src_rank=None):
    """Loads what ``flow.save`` wrote to `f` (a path or a readable binary file object).

    map_location says where tensors go, as in torch:
      * None: the device each tensor was saved on (an error if that device
        type is not registered in this process);
      * a str or ``flow.device``: every tensor goes there;
      * a dict mapping saved device strings ("testdev:0", or a bare type
        "testdev") to target devices; unmapped devices stay as saved;
      * a callable ``fn(tensor, saved_device_str)``, called once per stored
        blob with a CPU tensor holding it; it returns the tensor to use, or
        None for the default placement.

    Global tensors (Note [Saving global tensors]) load as local tensors
    holding their logical value. With `global_src_rank` (OneFlow's), only
    that rank reads `f` and shares its bytes, and every tensor loads as a
    global tensor: in its saved placement and SBP where this job has those
    ranks, broadcast over all ranks otherwise. Every rank must call it.

    Loading executes nothing from the file (there is no pickle);
    `weights_only` is accepted for torch compatibility and has no effect.
    Invalid files raise CheckpointError (a ValueError) naming the file.
    """
    del weights_only
    fname = _file_name(f)
    as_global = global_src_rank is not None
    if as_global:
        f = io.BytesIO(_read_on_rank(f, int(global_src_rank)))
    with _ReadSource(f) as fp:
        try:
            pos = fp.tell()
            size = fp.seek(0, os.SEEK_END)
            fp.seek(pos)
        except (OSError, ValueError):
            size = float("inf")
        try:
            zf = zipfile.ZipFile(fp, "r")
        except (zipfile.BadZipFile, EOFError, ValueError, struct.error) as exc:
            raise CheckpointError(f"flow.load: {fname}: not a monoflow checkpoint "
                                  f"(not a readable zip archive: {exc})") from None
        with zf:
            return _Loader(zf, fp, fname, size, map_location, as_global).load()
