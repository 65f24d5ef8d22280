"""The native checkpoint format: ``flow.save`` and its reader.

The file is a zip archive in a documented format (docs/checkpoint_format.md).
Data is never pickled: the object tree is JSON with a fixed set of node tags,
tensor and numpy data are raw little-endian members, so a checkpoint of data
from an untrusted source can at worst fail to load (CheckpointError).

What is saved as data: tensors (any dtype, any layout; subclasses such as
``nn.Parameter`` are saved as plain tensors plus their ``requires_grad`` flag),
numpy arrays and scalars of numeric dtypes, dict, OrderedDict (order kept),
list, tuple, str, int, float, bool, None, bytes, ``flow.dtype`` and
``flow.device``. Dict keys may be str, int, float, bool, None or tuples of
those (anything else is a TypeError naming where it sits, e.g.
``obj['layers'][2]``, raised before anything is written). Any other value
takes the pickle path (pickled.py, Note [The pickle path]), which a load runs
only with weights_only=False or an allow-list.

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
import json
import math
import os
import sys
import zipfile

import numpy as np

from monoflow import _C

from . import _atomic, pickled
from ._archive import Source, file_name, in_directory, is_path
from ._errors import CheckpointError, type_name
from ._placement import UserError, contiguous_strides, restore

FORMAT_NAME = "monoflow.checkpoint"
FORMAT_VERSION = (2, 0)  # (major, minor): readers refuse a newer major
# Writers write the lowest version a file needs: 1.0 for plain data (byte for
# byte what 1.0 writers wrote), 1.1 with global tensors (placement/sbp), 2.0
# with numpy values or pickled objects (new node tags).
_PLAIN_VERSION = (1, 0)
_GLOBAL_VERSION = (1, 1)

FORMAT_MEMBER = "monoflow/format.json"
_MANIFEST_MEMBER = "monoflow/manifest.json"
_DATA_PREFIX = "monoflow/data/"
_ARRAY_PREFIX = "monoflow/arrays/"
_PICKLE_PREFIX = "monoflow/pickles/"
_DTYPES = {dt.name: dt for dt in _C.dtypes}
# numpy values saved as data (anything else numpy, e.g. object arrays, is pickled)
_NUMPY_DTYPES = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                           "float16", "float32", "float64", "complex64", "complex128"])
# Fixed timestamps make the archive a pure function of its contents.
_EPOCH = (1980, 1, 1, 0, 0, 0)
_BIG_ENDIAN = sys.byteorder == "big"


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


class _Saver:
    """Walks the object once, building the JSON tree and collecting tensors."""

    def __init__(self, pickle_module=None, pickle_protocol=2):
        self.tensors = []  # (node, tensor): blob fields are filled in by plan()
        self.globals = []  # indices into tensors of global ones (gathered before plan())
        self.arrays = []  # numpy arrays, member monoflow/arrays/<index>
        self.pickles = []  # pickle bytes, member monoflow/pickles/<index>
        self.pickle_module, self.pickle_protocol = pickle_module, pickle_protocol
        self.uses_v2 = False  # numpy or pickle nodes: format 2.0
        self._on_path = set()  # ids of the containers being walked: cycles

    @property
    def version(self):
        if self.uses_v2:
            return FORMAT_VERSION
        return _GLOBAL_VERSION if self.globals else _PLAIN_VERSION

    def key(self, k, path):
        node = _plain_scalar_node(k)
        if node is not None:
            return node
        if type(k) is tuple:
            return {"t": "tuple", "v": [self.key(x, path) for x in k]}
        raise TypeError(f"flow.save: cannot save a dict key of type {type_name(k)} at {path} "
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
        node = self.numpy_node(obj)
        if node is not None:
            return node
        if t not in (list, tuple, dict, collections.OrderedDict):
            # not data: pickled (Note [The pickle path] in pickled.py)
            data, refs = pickled.dumps(obj, path, self, self.pickle_module, self.pickle_protocol)
            self.pickles.append(data)
            self.uses_v2 = True
            return {"t": "pickle", "member": len(self.pickles) - 1, "refs": refs}
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

    def numpy_node(self, obj):
        """The node of a numpy array or scalar of a plain numeric dtype
        (saved as data), or None."""
        if isinstance(obj, np.ndarray) and type(obj) is np.ndarray and obj.dtype.name in _NUMPY_DTYPES \
                and obj.dtype.isnative:
            self.arrays.append(obj)
            self.uses_v2 = True
            return {"t": "ndarray", "array": len(self.arrays) - 1, "dtype": obj.dtype.name, "shape": list(obj.shape)}
        if isinstance(obj, np.generic) and type(obj) is np.dtype(type(obj)).type and obj.dtype.name in _NUMPY_DTYPES:
            self.uses_v2 = True
            raw = np.asarray(obj).astype(obj.dtype.newbyteorder("<")).tobytes()
            return {"t": "npscalar", "dtype": obj.dtype.name, "v": base64.b64encode(raw).decode("ascii")}
        return None

    def plan(self):
        """Assigns blobs: one per storage, covering the span its saved tensors use.
        Returns [(blob spec, tensor to copy from, element offset, numel)]."""
        groups = {}  # storage key -> [(node, tensor)]
        order = []
        for node, t in self.tensors:
            key = None
            if t.numel() > 0:
                # the storage's base address identifies it while the tensors are alive
                base = t._data_address() - t.storage_offset() * t.element_size()
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
                self._fill(node, t, len(blobs), shape, contiguous_strides(shape), 0)
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


class _HostBytes:
    """numpy's view of a host-memory tensor's bytes; keeps that memory alive."""

    __slots__ = ("keeper", "__array_interface__")

    def __init__(self, keeper, ptr, nbytes):
        self.keeper = keeper
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
        ptr, _, _, keeper = t._host_view_interface()  # (synchronises the device first)
        out = np.asarray(_HostBytes(keeper, ptr, nbytes))
    else:
        out = np.empty(nbytes, np.uint8)
        t._copy_to_host(out)
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


def _write_archive(fp, fmt_bytes, manifest_bytes, blobs, arrays=(), pickles=()):
    with zipfile.ZipFile(fp, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        zf.writestr(_zipinfo(FORMAT_MEMBER, len(fmt_bytes)), fmt_bytes)
        zf.writestr(_zipinfo(_MANIFEST_MEMBER, len(manifest_bytes)), manifest_bytes)
        for i, (spec, t, lo, numel) in enumerate(blobs):
            src = t if lo is None else t.as_strided((numel,), (1,), lo)
            data = _host_bytes(src)
            with zf.open(_zipinfo(f"{_DATA_PREFIX}{i}", data.nbytes), "w") as w:
                w.write(memoryview(data))
            del data, src
        for i, a in enumerate(arrays):
            data = _swap_if_big_endian(np.asarray(a, order="C").reshape(-1).view(np.uint8), a.dtype.itemsize)
            with zf.open(_zipinfo(f"{_ARRAY_PREFIX}{i}", data.nbytes), "w") as w:
                w.write(memoryview(data))
        for i, data in enumerate(pickles):
            zf.writestr(_zipinfo(f"{_PICKLE_PREFIX}{i}", len(data)), data)


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
            full = full.contiguous() if full is not None else _C._empty(tuple(t.shape), t.dtype, _C.device("cpu"))
            dist.broadcast(full, src=ranks[0], group=world)
        elif writer is not None and writer not in ranks:  # the placement's first rank sends it to the writer
            if me == ranks[0]:
                dist.send(full.contiguous(), writer, group=world)
            elif me == writer:
                full = _C._empty(tuple(t.shape), t.dtype, _C.device("cpu"))
                dist.recv(full, ranks[0], group=world)
    if full is None:
        full = _C._empty(tuple(t.shape), t.dtype, _C.device("cpu"))
    return full


def _after_global_write(world, writer, error):
    """Every rank learns whether the writer succeeded (and waits for it)."""
    import monoflow.distributed as dist

    flag = _C._full((1,), 0 if error is None else 1, _DTYPES["int32"], _C.device("cpu"))
    dist.broadcast(flag, src=writer, group=world)
    if error is not None:
        raise error
    if int(flag.item()):
        raise RuntimeError(f"flow.save: rank {writer}, which writes the checkpoint of global tensors, failed "
                           "(see its error)")


def _write_path(path, write):
    """Writes the file atomically, making its missing directories first (OneFlow's flow.save
    does: its pages save to paths such as "./1/model" in a fresh directory)."""
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    _atomic.atomic_write(path, write)


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False, *, save_as_external_data=False, global_dst_rank=None):
    """Saves ``obj`` (a tensor, a ``state_dict``, any container of them) to
    a file.

    Tensors, numpy arrays and scalars, containers and plain values are saved
    as data, which loading never executes. Any other object (a whole
    ``nn.Module``, an instance of your own class) is pickled, with the tensors
    and arrays it holds still saved as data; :func:`monoflow.load` rebuilds it
    only with ``weights_only=False`` or when its classes are allow-listed
    (``flow.serialization.add_safe_globals``). Tensors that share storage
    (views) are saved once and share it again after loading.

    Writing to a path is atomic: the checkpoint goes to a temporary file in the
    same directory, is fsynced, and replaces ``f`` only when complete, so a
    crash or an error leaves any previous checkpoint there intact (and a later
    save removes the temporaries that killed writers left). Writing to a file
    object starts at its current position; if an error occurs and the object
    is seekable, it is truncated back to where it was. Global tensors are
    saved with their logical value: every rank must call ``save``; to a path,
    rank 0 writes the file, to a file object, every rank writes its own.

    Args:
        obj (object): what to save.
        f (str or os.PathLike or file object): a path, or a writable binary
            file object. An existing directory (OneFlow saves checkpoints as
            directories) gets the checkpoint as a file inside it, which
            ``flow.load`` of the directory reads.
        pickle_module (module, optional): the pickler of the objects that are
            not data. Default: ``None``: the standard ``pickle``.
        pickle_protocol (int): the pickle protocol of those objects. Default: 2.
        _use_new_zipfile_serialization (bool): accepted for torch
            compatibility and ignored.
        _disable_byteorder_record (bool): accepted for torch compatibility and
            ignored.
        save_as_external_data (bool): OneFlow's directory form: ``f`` (a path)
            is made a directory (created if missing) and the checkpoint is
            written inside it; ``flow.load(f)`` reads it back. Default: ``False``.
        global_dst_rank (int, optional): OneFlow's: the rank that writes the
            whole global tensors (to a path or a file object); the other ranks
            do no I/O. Default: ``None``: rank 0 writes to a path, every rank
            to its own file object.

    Raises:
        TypeError: if ``obj`` holds something that cannot be saved (raised
            before anything is written).

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> flow.save({"w": flow.tensor([1.0, 2.0]), "step": 3}, buf)
        >>> _ = buf.seek(0)
        >>> flow.load(buf)
        {'w': tensor([1., 2.]), 'step': 3}
    """
    del _use_new_zipfile_serialization, _disable_byteorder_record
    if save_as_external_data:
        if not is_path(f):
            raise TypeError("save(): save_as_external_data=True needs a directory path, not a file object")
        os.makedirs(os.fsdecode(f), exist_ok=True)
    f = in_directory(f)
    if pickle_module is not None and not isinstance(getattr(pickle_module, "Pickler", None), type):
        raise AttributeError(f"save(): argument 'pickle_module' must be a module with a Pickler class (as pickle), "
                             f"not {type(pickle_module).__name__}")  # (torch's type: its lookup of Pickler fails)
    if getattr(type(obj), "_saved_as_state_dict", False):
        # OneFlow's flow.save(graph, path): an nn.Graph is saved as its state (its modules'
        # parameters and buffers); a plan is compiled again by the graph that loads it
        obj = obj.state_dict()
    saver = _Saver(pickle_module, pickle_protocol)
    root = saver.node(obj, "obj")  # every TypeError is raised here, before any output
    world = writer = None
    if saver.globals or global_dst_rank is not None:  # Note [Saving global tensors]
        from monoflow._global import groups

        world = groups.world_group()
        if global_dst_rank is not None:  # OneFlow's: that rank writes, the others do no I/O
            writer = _C.check_int(global_dst_rank, "save", "global_dst_rank")
            size = 1 if world is None else world.size()  # (None: a world of one)
            if not 0 <= writer < size:
                raise ValueError(f"save(): global_dst_rank {writer} is not a rank of this job of {size}")
        else:
            writer = 0 if is_path(f) else None  # a file object: every rank writes its own
        saver.gather_globals(writer)
    blobs = saver.plan()
    fmt = {"format": FORMAT_NAME, "version": list(saver.version), "byteorder": "little"}
    manifest = {"root": root, "blobs": [spec for spec, _, _, _ in blobs]}
    fmt_bytes = json.dumps(fmt).encode()
    manifest_bytes = json.dumps(manifest, separators=(",", ":"), allow_nan=False).encode()

    def write(fp):
        _write_archive(fp, fmt_bytes, manifest_bytes, blobs, saver.arrays, saver.pickles)

    if is_path(f):
        if world is None:
            _write_path(os.fsdecode(f), write)
            return
        error = None
        if world.rank() == writer:
            try:
                _write_path(os.fsdecode(f), write)
            except Exception as exc:  # noqa: BLE001 - re-raised after telling the others
                error = exc
        _after_global_write(world, writer, error)
        return
    if not hasattr(f, "write"):
        raise TypeError(f"flow.save: expected a path or a writable binary file object, got {type_name(f)}")
    if world is not None and writer is not None and world.rank() != writer:  # global_dst_rank: the others write nothing
        return
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


def _is_int(v, lo=0):
    return type(v) is int and v >= lo


class _Loader:
    def __init__(self, archive, map_location, weights_only=True, as_global=False):
        self.archive, self.fname = archive, archive.fname
        self.map_location = map_location
        self.weights_only = weights_only
        self.as_global = as_global
        self.blob_specs = []
        self.blob_tensors = {}  # blob index -> (base tensor, its "whole" node or None)
        self.member = None  # the member being interpreted, for error messages
        self._handlers = {  # the whole vocabulary: anything else is refused
            "none": self._none, "bool": self._bool, "int": self._int, "float": self._float,
            "str": self._str, "bytes": self._bytes, "dtype": self._dtype, "device": self._device,
            "list": self._list, "tuple": self._tuple, "dict": self._dict, "odict": self._dict,
            "tensor": self._tensor, "ndarray": self._ndarray, "npscalar": self._npscalar,
            "pickle": self._pickle,
        }

    def error(self, msg, member=None, cls=CheckpointError):
        return self.archive.error(msg, member or self.member, cls)

    # -- members
    def read_json(self, member):
        if self.archive.info(member) is None:
            raise self.error(f"not a monoflow checkpoint (the archive has no {member})")
        data = self.archive.read(member)
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise self.error(f"{member} is not valid JSON ({exc})", member) from None

    def check_format(self):
        fmt = self.read_json(FORMAT_MEMBER)
        self.member = FORMAT_MEMBER
        if not isinstance(fmt, dict) or fmt.get("format") != FORMAT_NAME:
            raise self.error(f"not a monoflow checkpoint ({FORMAT_MEMBER} does not name format {FORMAT_NAME!r})")
        version = fmt.get("version")
        if not (isinstance(version, list) and len(version) == 2 and all(_is_int(v) for v in version)):
            raise self.error(f"{FORMAT_MEMBER} has no valid version (got {version!r})")
        if version[0] > FORMAT_VERSION[0]:
            raise self.error(f"checkpoint format version {version[0]}.{version[1]} is newer than this monoflow "
                             f"reads ({FORMAT_VERSION[0]}.x); upgrade monoflow to load it")
        if version[0] < 1:
            raise self.error(f"unknown checkpoint format version {version[0]}.{version[1]}")
        if fmt.get("byteorder", "little") != "little":
            raise self.error(f"unsupported byte order {fmt.get('byteorder')!r}")

    def load(self):
        """The saved object. Every failure the file causes is a CheckpointError;
        an exception of the caller's map_location callable passes unchanged."""
        try:
            return self._load()
        except CheckpointError:
            raise
        except UserError as exc:
            raise exc.__cause__ from None
        except RecursionError:
            raise self.error("the object tree is nested too deeply") from None
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, RuntimeError,
                UnicodeError) as exc:
            # a manifest that passed the checks yet made an operation fail: still the file's fault
            raise self.error(f"malformed checkpoint ({type(exc).__name__}: {exc})") from exc

    def _load(self):
        self.check_format()
        manifest = self.read_json(_MANIFEST_MEMBER)
        self.member = _MANIFEST_MEMBER
        if not isinstance(manifest, dict) or "root" not in manifest or not isinstance(manifest.get("blobs"), list):
            raise self.error(f"{_MANIFEST_MEMBER} lacks 'root' or 'blobs'")
        for i, spec in enumerate(manifest["blobs"]):
            if not (isinstance(spec, dict) and type(spec.get("dtype")) is str and spec["dtype"] in _DTYPES
                    and _is_int(spec.get("numel")) and isinstance(spec.get("device"), str)):
                raise self.error(f"blob {i} has an invalid description {str(spec)[:80]}")
            self.blob_specs.append(spec)
        return self.build(manifest["root"], "obj")

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
        return _DTYPES[self.value(node, path, lambda v: type(v) is str and v in _DTYPES)]

    def _device(self, node, path):
        v = self.value(node, path, lambda v: type(v) is str)
        try:
            return _C.device(v)
        except Exception as exc:  # noqa: BLE001 - the device string came from the file
            raise self.error(f"cannot restore device {v!r} at {path}: {exc}") from None

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
                and all(_is_int(v) and v < 2 ** 62 for v in shape + stride + [offset])
                and math.prod(shape) < 2 ** 62):
            raise self.error(f"tensor at {path} has an invalid shape/stride/offset")
        if node.get("dtype") != spec["dtype"] or node.get("device") != spec["device"]:
            raise self.error(f"tensor at {path} disagrees with blob {blob} on dtype or device")
        if math.prod(shape) > 0 and offset + sum((n - 1) * s for n, s in zip(shape, stride)) >= spec["numel"]:
            raise self.error(f"tensor at {path} reaches past the end of blob {blob} ({spec['numel']} elements)")
        requires_grad = node.get("requires_grad", False)
        if type(requires_grad) is not bool:
            raise self.error(f"tensor at {path} has an invalid requires_grad")
        whole = offset == 0 and stride == contiguous_strides(shape) and math.prod(shape) == spec["numel"]
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
            try:
                ranks = np.asarray(pl["ranks"])
            except (ValueError, TypeError, OverflowError):  # ragged or odd nesting
                ranks = None
            ok = (ranks is not None and ranks.size > 0 and ranks.dtype.kind in "iu" and ranks.ndim == len(sbp)
                  and int(ranks.min()) >= 0 and int(ranks.max()) < 2 ** 31)
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
        info = self.archive.info(name)
        if info is None:
            raise self.error(f"the manifest refers to {name} (tensor at {path}), which is missing")
        if info.file_size != nbytes:
            raise self.error(f"holds {info.file_size} bytes, but the manifest's {spec['numel']} {dt.name} "
                             f"elements need {nbytes}", name)
        buf = np.empty(nbytes, np.uint8)
        if nbytes:
            self.archive.read_into(info, buf)
        buf = _swap_if_big_endian(buf, dt.itemsize)

        return restore(buf, shape, dt, spec["device"], self.map_location, self.error, path)

    def _ndarray(self, node, path):
        k, dtype, shape = node.get("array"), node.get("dtype"), node.get("shape")
        if not (_is_int(k) and type(dtype) is str and dtype in _NUMPY_DTYPES and type(shape) is list
                and all(_is_int(n) and n < 2 ** 62 for n in shape) and math.prod(shape) < 2 ** 62):
            raise self.error(f"invalid ndarray node at {path}: {str(node)[:80]}")
        name = f"{_ARRAY_PREFIX}{k}"
        info = self.archive.info(name)
        if info is None:
            raise self.error(f"the manifest refers to {name} (array at {path}), which is missing")
        dt = np.dtype(dtype)
        if info.file_size != math.prod(shape) * dt.itemsize:
            raise self.error(f"holds {info.file_size} bytes, but a {dtype} array of shape {tuple(shape)} "
                             f"needs {math.prod(shape) * dt.itemsize}", name)
        out = np.empty(shape, dt)
        if out.nbytes:
            self.archive.read_into(info, out.reshape(-1).view(np.uint8))
        _swap_if_big_endian(out.reshape(-1).view(np.uint8), dt.itemsize)  # (a no-op on little-endian hosts)
        if dtype == "bool" and out.size and out.view(np.uint8).max() > 1:
            raise self.error(f"the bool array at {path} holds values other than 0 and 1", name)
        return out

    def _npscalar(self, node, path):
        dtype = node.get("dtype")
        raw = self._bytes(node, path)
        if not (type(dtype) is str and dtype in _NUMPY_DTYPES and len(raw) == np.dtype(dtype).itemsize):
            raise self.error(f"invalid numpy scalar node at {path}: {str(node)[:80]}")
        if dtype == "bool" and raw not in (b"\x00", b"\x01"):
            raise self.error(f"invalid numpy bool at {path}")
        return np.frombuffer(raw, np.dtype(dtype).newbyteorder("<"))[0].astype(np.dtype(dtype))[()]

    def _pickle(self, node, path):
        k, refs = node.get("member"), node.get("refs")
        if not (_is_int(k) and type(refs) is list):
            raise self.error(f"invalid pickle node at {path}: {str(node)[:80]}")
        name = f"{_PICKLE_PREFIX}{k}"
        if self.archive.info(name) is None:
            raise self.error(f"the manifest refers to {name} (object at {path}), which is missing")
        built = {}

        def ref(i):
            if not (_is_int(i) and i < len(refs)):
                raise self.error(f"the pickle refers to data {i!r}, which its node does not list", name)
            if i not in built:
                built[i] = self.build(refs[i], f"{path}<data {i}>")
            return built[i]

        return pickled.loads(self.archive.read(name), ref, self.weights_only, self.error, name)


_SBP_RE = __import__("re").compile(r"B|P|S\([0-9]{1,3}\)")


def _flat(ranks):
    for r in ranks:
        if isinstance(r, list):
            yield from _flat(r)
        else:
            yield r


def read_on_rank(f, src):
    """The bytes of `f`, read on rank `src` only and broadcast to every rank
    (load(..., global_src_rank=src)): the file need only exist there."""
    import monoflow.distributed as dist
    from monoflow._global import groups

    world = groups.world_group()
    me = groups.rank()
    data, error = b"", None
    if me == src or world is None:
        try:
            with Source(f) as fp:
                data = fp.read()
        except Exception as exc:  # noqa: BLE001 - re-raised after telling the others
            error = exc
    if world is None:
        if error is not None:
            raise error
        return data
    i64, u8, cpu = _DTYPES["int64"], _DTYPES["uint8"], _C.device("cpu")
    size = _C._full((1,), -1 if error is not None else len(data), i64, cpu)
    dist.broadcast(size, src=src, group=world)
    n = int(size.item())
    if n < 0:
        if error is not None:
            raise error
        raise RuntimeError(f"flow.load: rank {src} (global_src_rank) could not read {file_name(f)}")
    buf = np.frombuffer(data, np.uint8).copy() if me == src else np.empty(n, np.uint8)
    t = _C._borrow_host_memory(buf, buf.ctypes.data, n, [n], [1], u8)
    dist.broadcast(t, src=src, group=world)
    return buf.tobytes()


def load_archive(archive, map_location=None, weights_only=True, as_global=False):
    """The object in a checked monoflow archive (see flow.load)."""
    return _Loader(archive, map_location, weights_only, as_global).load()
