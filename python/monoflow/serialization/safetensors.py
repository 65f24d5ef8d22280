"""safetensors files (https://github.com/huggingface/safetensors), read and
written by monoflow itself: the `safetensors` package is not needed (it is
the reference the tests compare with; the ``safetensors`` extra installs it).

The format: an 8-byte little-endian header length N, N bytes of JSON
(``{"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]},
"__metadata__": {"key": "value"}}``), then the tensors' bytes, each C-order
little-endian, at [begin, end) of that buffer. Reading checks everything a
hostile file could get wrong: the header's size and JSON, known dtypes,
offsets that tile the buffer exactly (no gaps, no overlap, nothing past the
end) and sizes that match the shapes.

API as safetensors.torch's: save(tensors, metadata=None) -> bytes,
save_file(tensors, filename, metadata=None), load(data, device="cpu"),
load_file(filename, device="cpu"). flow.load reads these files too.
"""
import io
import json
import math
import os

import numpy as np

from monoflow import _C

from . import _atomic
from ._archive import Source, file_name
from ._errors import file_error
from ._placement import restore

__all__ = ["save", "save_file", "load", "load_file"]

_DTYPES = {dt.name: dt for dt in _C.dtypes}
_CODES = {"BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64",
          "F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64"}
_NAMES = {v: k for k, v in _CODES.items()}
_RANK = {code: i for i, code in enumerate(["BOOL", "U8", "I8", "I16", "F16", "BF16", "I32", "F32", "F64", "I64"])}
MAX_HEADER = 100 * 1024 * 1024  # the reference implementation's limit


def looks_like(head, size):
    """Whether a file of `size` bytes starting with `head` is a safetensors file."""
    if len(head) < 9:
        return False
    n = int.from_bytes(head[:8], "little")
    return 2 <= n <= MAX_HEADER and n + 8 <= size and head[8:9] == b"{"


# ---------------------------------------------------------------- save


def _check_tensors(tensors, metadata, op):
    if not isinstance(tensors, dict):
        raise TypeError(f"{op}: argument 'tensors' must be a dict of str to Tensor, not {type(tensors).__name__}")
    for k, v in tensors.items():
        if type(k) is not str:
            raise TypeError(f"{op}: tensor names must be str, got {type(k).__name__} ({k!r:.40})")
        if k == "__metadata__":
            raise ValueError(f"{op}: '__metadata__' is reserved and cannot name a tensor")
        if not isinstance(v, _C.TensorBase):
            raise TypeError(f"{op}: tensors[{k!r}] must be a Tensor, not {type(v).__name__}")
        if getattr(v, "is_global", False):
            raise TypeError(f"{op}: tensors[{k!r}] is a global tensor; save its local value "
                            f"(.to_local() or its logical value) instead")
    if metadata is not None and not (isinstance(metadata, dict)
                                     and all(type(k) is str and type(v) is str for k, v in metadata.items())):
        raise TypeError(f"{op}: argument 'metadata' must be a dict of str to str")


def _host_bytes(t):
    from .native import _host_bytes as host_bytes

    return host_bytes(t.detach())


def _encode(tensors, metadata):
    """(header bytes, [data bytes in order])."""
    header, chunks, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = dict(metadata)
    # the reference's order (its dtype enum, descending, then the name): larger items first, aligned
    for name in sorted(tensors, key=lambda n: (-_RANK[_NAMES[tensors[n].dtype.name]], n)):
        t = tensors[name]
        data = _host_bytes(t)
        header[name] = {"dtype": _NAMES[t.dtype.name], "shape": list(t.shape),
                        "data_offsets": [offset, offset + data.nbytes]}
        chunks.append(data)
        offset += data.nbytes
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # the data start 8-aligned, as the reference writes
    return len(raw).to_bytes(8, "little") + raw, chunks


def save(tensors, metadata=None):
    """The bytes of a safetensors file holding `tensors` (name -> Tensor).
    Tensors are saved by value (shared storage is not kept)."""
    _check_tensors(tensors, metadata, "safetensors.save")
    header, chunks = _encode(tensors, metadata)
    return header + b"".join(memoryview(c) for c in chunks)


def save_file(tensors, filename, metadata=None):
    """Writes `tensors` to the safetensors file `filename`, atomically (as flow.save)."""
    _check_tensors(tensors, metadata, "safetensors.save_file")
    header, chunks = _encode(tensors, metadata)

    def write(fp):
        fp.write(header)
        for c in chunks:
            fp.write(memoryview(c))

    _atomic.atomic_write(os.fsdecode(filename), write)


# ---------------------------------------------------------------- load


def read(fp, fname, size, map_location=None):
    """name -> Tensor from the safetensors file open as fp (see module doc)."""
    def error(msg):
        return file_error(fname, f"not a valid safetensors file: {msg}")

    head = fp.read(8)
    if len(head) != 8:
        raise error("shorter than its 8-byte header length")
    n = int.from_bytes(head, "little")
    if not 2 <= n <= MAX_HEADER or n + 8 > size:
        raise error(f"header length {n} is out of range")
    raw = fp.read(n)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise error(f"the header is not valid JSON ({exc})") from None
    if not isinstance(header, dict):
        raise error("the header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict)
                                     and all(type(v) is str for v in metadata.values())):
        raise error("__metadata__ must map str to str")
    data_start, data_size = 8 + n, size - 8 - n
    spans = []
    for name, spec in header.items():
        if not isinstance(spec, dict):
            raise error(f"tensor {name!r}: its entry is not an object")
        code, shape, offsets = spec.get("dtype"), spec.get("shape"), spec.get("data_offsets")
        if not (type(code) is str and code in _CODES):
            raise error(f"tensor {name!r}: dtype {str(code)[:20]!r} is not one monoflow has "
                        f"({', '.join(_CODES)})")
        if not (type(shape) is list and all(type(d) is int and 0 <= d < 2 ** 62 for d in shape)
                and math.prod(shape) < 2 ** 62):
            raise error(f"tensor {name!r}: invalid shape {str(shape)[:60]}")
        if not (type(offsets) is list and len(offsets) == 2 and all(type(o) is int for o in offsets)
                and 0 <= offsets[0] <= offsets[1] <= data_size):
            raise error(f"tensor {name!r}: invalid data_offsets {str(offsets)[:60]} (the data are {data_size} bytes)")
        nbytes = math.prod(shape) * _DTYPES[_CODES[code]].itemsize
        if offsets[1] - offsets[0] != nbytes:
            raise error(f"tensor {name!r}: {offsets[1] - offsets[0]} bytes for a {code} tensor of shape "
                        f"{tuple(shape)}, which needs {nbytes}")
        spans.append((offsets[0], offsets[1], name))
    spans.sort()
    pos = 0
    for begin, end, name in spans:
        if begin != pos:
            raise error(f"tensor {name!r}: its data do not start where the previous tensor's end "
                        f"(gaps and overlaps are invalid)")
        pos = end
    if pos != data_size:
        raise error(f"the tensors cover {pos} of the {data_size} data bytes")
    out = {}
    for name, spec in header.items():  # in the file's order
        begin, end = spec["data_offsets"]
        dt = _DTYPES[_CODES[spec["dtype"]]]
        buf = np.empty(end - begin, np.uint8)
        fp.seek(data_start + begin)
        if fp.readinto(memoryview(buf)) != buf.nbytes:
            raise error(f"tensor {name!r} is truncated")
        if dt.itemsize > 1 and np.little_endian is False:
            buf = buf.view(f"<u{dt.itemsize}").astype(f"=u{dt.itemsize}").view(np.uint8)
        if dt.name == "bool" and buf.size and buf.max() > 1:
            raise error(f"tensor {name!r}: bool values other than 0 and 1")
        out[name] = restore(buf, spec["shape"], dt, "cpu", map_location,
                            lambda msg: file_error(fname, msg), f"[{name!r}]")
    return out


def load(data, device="cpu"):
    """name -> Tensor from the bytes of a safetensors file."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"safetensors.load: argument 'data' must be bytes, not {type(data).__name__}")
    return read(io.BytesIO(bytes(data)), "<bytes>", len(data), str(device))


def load_file(filename, device="cpu"):
    """name -> Tensor from the safetensors file `filename`, on `device`."""
    with Source(filename) as fp:
        return read(fp, file_name(filename), os.fstat(fp.fileno()).st_size, str(device))
