"""Opening a checkpoint source and reading zip archives that may be hostile.

Every loader reads through here. A path must name a regular file (a device
such as /dev/urandom would be read forever, a FIFO would block). A zip
archive is checked as a whole before any member is read: every member's
local header must exist and name the same file as the central directory,
the members' byte ranges must not overlap one another or the central
directory (many entries pointing at one member would otherwise multiply the
bytes a small file yields), and a compressed member may not claim more than
_MAX_RATIO times its compressed size. Together these bound what a load
allocates by a small multiple of the file's size.
"""
import io
import os
import stat
import struct
import zipfile
import zlib

from ._errors import CheckpointError, file_error

# deflate cannot exceed ~1032:1; a member claiming more is lying or a bomb
_MAX_RATIO = 1100
_CHUNK = 1 << 24


def is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


# OneFlow saves a checkpoint as a directory: flow.save(obj, "ckpt_dir") / flow.load("ckpt_dir").
# Given an existing directory, monoflow keeps its one-file checkpoint inside it under this name.
DIR_MEMBER = "monoflow_checkpoint.mf"


def in_directory(f, reading=False):
    """``f``, or the checkpoint file inside it when ``f`` is an existing directory (OneFlow's form);
    for ``reading``, only when that file is there (any other directory is refused as before)."""
    if is_path(f) and os.path.isdir(f):
        member = os.path.join(os.fsdecode(f), DIR_MEMBER)
        if not reading or os.path.isfile(member):
            return member
    return f


def file_name(f):
    if is_path(f):
        return repr(os.fsdecode(f))
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, str) else f"<{type(f).__name__}>"


def _kind(mode):
    for test, word in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return word
    return "not a regular file"


class Source:
    """`with Source(f) as fp:` a seekable binary file object for path or
    file object `f`; `size` is its length in bytes."""

    def __init__(self, f, fname=None):
        self.f, self.own, self.fname = f, is_path(f), fname or file_name(f)

    def __enter__(self):
        if self.own:
            # O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it
            flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
            fd = os.open(os.fsdecode(self.f), flags)
            try:
                mode = os.fstat(fd).st_mode
                if not stat.S_ISREG(mode):
                    raise file_error(self.fname, f"not a regular file ({_kind(mode)}); a checkpoint is a file")
                if hasattr(os, "set_blocking"):
                    os.set_blocking(fd, True)
                self.fp = os.fdopen(fd, "rb")
            except BaseException:
                os.close(fd)
                raise
        else:
            if not hasattr(self.f, "read"):
                raise TypeError(f"flow.load: expected a path or a readable binary file object, "
                                f"got {type(self.f).__name__}")
            self.fp = self.f
            try:
                mode = os.fstat(self.f.fileno()).st_mode
            except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
                mode = None
            if mode is not None and (stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISDIR(mode)):
                raise file_error(self.fname, f"not a regular file ({_kind(mode)}); a checkpoint is a file")
            if not (hasattr(self.f, "seekable") and self.f.seekable()):
                self.fp = io.BytesIO(self.f.read())  # a pipe: formats need random access
        try:
            pos = self.fp.tell()
            self.size = self.fp.seek(0, os.SEEK_END)
            self.fp.seek(pos)
        except (OSError, ValueError):
            self.size = float("inf")
        return self.fp

    def __exit__(self, *exc):
        if self.own:
            self.fp.close()


class Archive:
    """A zip archive checked as a whole (see the module docstring). Members
    are read with read() / read_into(); every failure is a CheckpointError
    naming the file and the member."""

    def __init__(self, fp, fname, size):
        self.fp, self.fname = fp, fname
        try:
            self.zf = zipfile.ZipFile(fp, "r")
        except Exception as exc:  # noqa: BLE001 - zipfile raises many types on garbage
            raise file_error(fname, f"not a monoflow checkpoint (not a readable zip archive: {exc})") from None
        self.data_start = {}
        try:
            self._check(size)
        except BaseException:
            self.zf.close()
            raise

    def error(self, msg, member=None, cls=CheckpointError):
        return file_error(self.fname, msg, member, cls)

    def _check(self, size):
        infos = self.zf.infolist()
        end_of_members = self.zf.start_dir
        if end_of_members > size:
            raise self.error("the zip central directory lies past the end of the file")
        spans, names = [], set()
        for info in infos:
            name = info.filename
            if name in names:
                raise self.error("the archive lists this member twice", name)
            names.add(name)
            if info.flag_bits & 0x1:
                raise self.error("encrypted members are not supported", name)
            if info.compress_type == zipfile.ZIP_STORED:
                if info.compress_size != info.file_size:
                    raise self.error("a stored member whose sizes disagree", name)
            elif info.compress_type in (zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
                if info.file_size > max(info.compress_size, 1) * _MAX_RATIO:
                    raise self.error(f"claims {info.file_size} bytes from {info.compress_size} compressed bytes "
                                     f"(a ratio over {_MAX_RATIO}:1: refused as a zip bomb)", name)
            else:
                raise self.error(f"unsupported compression method {info.compress_type}", name)
            start = info.header_offset
            if not 0 <= start <= end_of_members - 30:
                raise self.error("its local header lies outside the archive", name)
            self.fp.seek(start)
            header = self.fp.read(30)
            if len(header) != 30 or header[:4] != b"PK\x03\x04":
                raise self.error("bad local file header (the file is corrupt)", name)
            name_len, extra_len = struct.unpack("<HH", header[26:30])
            local_name = self.fp.read(name_len)
            encoding = "utf-8" if info.flag_bits & 0x800 else "cp437"
            try:
                local_name = local_name.decode(encoding)
            except UnicodeDecodeError:
                local_name = None
            if local_name != info.orig_filename:
                raise self.error(f"the local header names {local_name!r}, the central directory {name!r}", name)
            data = start + 30 + name_len + extra_len
            end = data + info.compress_size
            if end > end_of_members:
                raise self.error("its data runs into the central directory or past the end of the file", name)
            self.data_start[name] = data
            spans.append((start, end, name))
        spans.sort()
        for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
            if start < end:
                raise self.error(f"overlaps member {a!r} (members must not share bytes)", b)

    def names(self):
        return list(self.data_start)

    def info(self, name):
        try:
            return self.zf.getinfo(name)
        except KeyError:
            return None

    def read(self, name, limit=None):
        """The bytes of member `name`; `limit` caps the size accepted."""
        info = self.zf.getinfo(name)
        if limit is not None and info.file_size > limit:
            raise self.error(f"{info.file_size} bytes is more than such a member may hold ({limit})", name)
        buf = bytearray(info.file_size)
        self.read_into(info, buf)
        return bytes(buf)

    def read_into(self, info, buf):
        """Fills `buf` (exactly info.file_size bytes) with the member's bytes."""
        name = info.filename
        view, pos = memoryview(buf).cast("B"), 0
        if len(view) != info.file_size:
            raise self.error(f"holds {info.file_size} bytes, {len(view)} were expected", name)
        if info.compress_type != zipfile.ZIP_STORED:
            try:  # not written by monoflow, but a valid zip: decompress in chunks
                with self.zf.open(info) as r:
                    while pos < len(view):
                        chunk = r.read(min(_CHUNK, len(view) - pos))
                        if not chunk:
                            break
                        view[pos:pos + len(chunk)] = chunk
                        pos += len(chunk)
            except Exception as exc:  # noqa: BLE001 - zlib/bz2/lzma errors, BadZipFile, EOFError
                raise self.error(f"cannot be decompressed ({type(exc).__name__}: {exc})", name) from None
            if pos != len(view):
                raise self.error("is truncated", name)
            return
        self.fp.seek(self.data_start[name])
        while pos < len(view):
            n = self.fp.readinto(view[pos:])
            if not n:
                raise self.error(f"is truncated (read {pos} of {len(view)} bytes)", name)
            pos += n
        if zlib.crc32(view) != info.CRC:
            raise self.error("is corrupt (CRC-32 mismatch)", name)

    def close(self):
        self.zf.close()


def sniff(fp):
    """The first 16 bytes of fp (its position is kept)."""
    pos = fp.tell()
    head = fp.read(16)
    fp.seek(pos)
    return head
