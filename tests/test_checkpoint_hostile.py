"""Hostile checkpoint files: every load ends in a result or CheckpointError
(naming the file), never in another exception, a hang, a huge allocation or
code execution. Hand-made attacks (overlapping zip members, name mismatches,
compression bombs, devices and FIFOs, malformed manifests and pickles) and a
generator of random mutations of valid checkpoints of every format flow.load
reads (hypothesis). Also: temporaries left by writers killed mid-save."""
import io
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import threading
import zipfile
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import monoflow as flow
from monoflow import nn, serialization
from helpers import TORCH

CheckpointError = serialization.CheckpointError


def saved_bytes(obj):
    buf = io.BytesIO()
    flow.save(obj, buf)
    return buf.getvalue()


def load_bytes(data, **kw):
    return flow.load(io.BytesIO(data), **kw)


def loads_or_fails_cleanly(data, **kw):
    """flow.load(data): a result, or a CheckpointError; anything else fails the test."""
    try:
        return load_bytes(data, **kw)
    except CheckpointError as exc:
        assert str(exc).startswith("flow.load: <BytesIO>"), str(exc)[:200]
        return exc


def read_members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def write_members(members, compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def raw_zip(entries):
    """A zip built by hand: entries are (central name, local name, data,
    local header index or None): an entry with an index reuses the local
    header (and data) of an earlier entry, as a hostile archive does."""
    out, locals_ = bytearray(), []
    for name, local_name, data, reuse in entries:
        if reuse is not None:
            locals_.append(locals_[reuse])
            continue
        ln = local_name.encode()
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, zlib.crc32(data), len(data), len(data),
                           len(ln), 0) + ln + data
        locals_.append((offset, zlib.crc32(data), len(data)))
    cd_start = len(out)
    for (name, _, _, _), (offset, crc, size) in zip(entries, locals_):
        n = name.encode()
        out += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, crc, size, size, len(n), 0, 0, 0,
                           0, 0, offset) + n
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(out) - cd_start, cd_start, 0)
    return bytes(out)

# ---------------------------------------------------------------- zip structure


def test_many_entries_pointing_at_one_member_are_refused():
    """The 1.4 MB file that loaded 1.5 GiB: 1,500 central entries, one member."""
    good = read_members(saved_bytes({"w": flow.zeros(250_000)}))  # 1 MB blob
    fmt, manifest = good["monoflow/format.json"], json.loads(good["monoflow/manifest.json"])
    manifest["root"] = {"t": "list", "v": [{**manifest["root"]["v"][0][1], "blob": i} for i in range(1500)]}
    manifest["blobs"] = manifest["blobs"] * 1500
    entries = [("monoflow/format.json", "monoflow/format.json", fmt, None),
               ("monoflow/manifest.json", "monoflow/manifest.json", json.dumps(manifest).encode(), None),
               ("monoflow/data/0", "monoflow/data/0", good["monoflow/data/0"], None)]
    entries += [(f"monoflow/data/{i}", None, None, 2) for i in range(1, 1500)]
    data = raw_zip(entries)
    assert len(data) < 2_000_000
    with pytest.raises(CheckpointError, match="local header names 'monoflow/data/0'.*central directory "
                                              "'monoflow/data/1'"):
        load_bytes(data)


def test_overlapping_members_with_matching_names_are_refused():
    # member B's data holds a complete member C (header and data); C's central entry points inside B
    inner = raw_zip([("monoflow/data/1", "monoflow/data/1", b"x" * 64, None)])
    inner_member = inner[:inner.index(b"PK\x01\x02")]
    entries = [("monoflow/format.json", "monoflow/format.json", b'{"format": "monoflow.checkpoint", '
                b'"version": [1, 0]}', None),
               ("monoflow/data/0", "monoflow/data/0", inner_member, None)]
    data = bytearray(raw_zip(entries))
    # add C's central entry, pointing at the copy of its local header inside B's data
    cd = data.index(b"PK\x01\x02")
    c_offset = data.index(inner_member)
    n = b"monoflow/data/1"
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, zlib.crc32(b"x" * 64), 64, 64,
                          len(n), 0, 0, 0, 0, 0, c_offset) + n
    eocd = data.index(b"PK\x05\x06")
    body = bytes(data[:eocd]) + central
    data = body + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 3, 3, len(body) - cd, cd, 0)
    with pytest.raises(CheckpointError, match="overlaps member 'monoflow/data/0'"):
        load_bytes(data)


def test_duplicate_member_names_are_refused():
    fmt = b'{"format": "monoflow.checkpoint", "version": [1, 0]}'
    data = raw_zip([("monoflow/format.json", "monoflow/format.json", fmt, None),
                    ("monoflow/format.json", "monoflow/format.json", fmt, None)])
    with pytest.raises(CheckpointError, match="lists this member twice"):
        load_bytes(data)


def _set_central_sizes(data, name, file_size):
    """`data` with the central directory's uncompressed size of `name` replaced."""
    n = name.encode()
    pos = data.index(b"PK\x01\x02")
    while True:
        pos = data.index(b"PK\x01\x02", pos)
        name_len = struct.unpack("<H", data[pos + 28:pos + 30])[0]
        if data[pos + 46:pos + 46 + name_len] == n:
            return data[:pos + 24] + struct.pack("<I", file_size) + data[pos + 28:]
        pos += 4


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_compression_bombs_are_refused_by_ratio(method):
    members = read_members(saved_bytes({"w": flow.zeros(4)}))
    data = write_members(members, method)
    bomb = _set_central_sizes(data, "monoflow/data/0", 2 ** 31)  # 2 GiB from a few bytes
    with pytest.raises(CheckpointError, match="member 'monoflow/data/0'.*zip bomb"):
        load_bytes(bomb)
    # bzip2 really compresses zeros beyond any honest ratio
    if method == zipfile.ZIP_BZIP2:
        zeros = write_members({**members, "monoflow/data/0": bytes(20_000_000)}, method)
        with pytest.raises(CheckpointError, match="zip bomb"):
            load_bytes(zeros)
    assert load_bytes(data)["w"].tolist() == [0.0] * 4  # honest compressed members load


def test_corrupt_compressed_members_raise_the_checkpoint_error():
    """Decompressors' own errors (LZMAError, zlib.error, OSError) arrive as CheckpointError."""
    members = read_members(saved_bytes({"w": flow.arange(1000, dtype=flow.float32)}))
    for method, marker in ((zipfile.ZIP_LZMA, "LZMAError"), (zipfile.ZIP_DEFLATED, "Error -3"),
                           (zipfile.ZIP_BZIP2, "Invalid data stream")):
        data = write_members(members, method)
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            info = zf.getinfo("monoflow/data/0")
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
        messages = []
        for i in range(start, start + 40):
            for bit in (0x01, 0x80, 0xFF):
                bad = bytearray(data)
                bad[i] ^= bit
                result = loads_or_fails_cleanly(bytes(bad))
                if isinstance(result, CheckpointError):
                    assert "member 'monoflow/data/0'" in str(result)
                    messages.append(str(result))
        assert any(marker in m for m in messages), (method, messages[:3])


def test_member_sizes_must_match_the_manifest():
    members = read_members(saved_bytes({"w": flow.arange(10, dtype=flow.float32)}))
    members["monoflow/data/0"] = members["monoflow/data/0"][:20]
    with pytest.raises(CheckpointError, match="member 'monoflow/data/0': holds 20 bytes.*need 40"):
        load_bytes(write_members(members))

# ---------------------------------------------------------------- sources that are not files


@pytest.mark.parametrize("dev", ["/dev/urandom", "/dev/zero", "/dev/null"])
def test_devices_are_refused(dev):
    if not os.path.exists(dev):
        pytest.skip(f"{dev} does not exist here")
    with pytest.raises(CheckpointError, match=f"'{dev}'.*not a regular file \\(a character device\\)"):
        flow.load(dev)
    with open(dev, "rb") as f:
        with pytest.raises(CheckpointError, match="not a regular file"):
            flow.load(f)


def test_fifo_and_directory_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match="not a regular file \\(a FIFO\\)"):
        flow.load(fifo)  # opening it for reading would wait for a writer
    with pytest.raises(CheckpointError, match="not a regular file \\(a directory\\)"):
        flow.load(tmp_path)
    with pytest.raises(FileNotFoundError):
        flow.load(tmp_path / "missing.pt")


def test_a_pipe_file_object_still_loads():
    r, w = os.pipe()
    data = saved_bytes({"w": flow.ones(3)})

    def feed():
        with os.fdopen(w, "wb") as f:
            f.write(data)

    threading.Thread(target=feed).start()
    with os.fdopen(r, "rb") as f:
        assert flow.load(f)["w"].tolist() == [1.0, 1.0, 1.0]

# ---------------------------------------------------------------- malformed content


def edited(obj, edit):
    members = read_members(saved_bytes(obj))
    manifest = json.loads(members["monoflow/manifest.json"])
    edit(manifest)
    members["monoflow/manifest.json"] = json.dumps(manifest).encode()
    return write_members(members)


def _blob_dtype_list(m):
    m["blobs"][0]["dtype"] = ["float32"]


def _node_dtype_dict(m):
    m["root"]["v"][0][1]["dtype"] = {"a": 1}


def _ragged_ranks(m):
    m["root"]["v"][0][1].update(placement={"type": "cpu", "ranks": [[0, 1], [2]]}, sbp=["B", "B"])


def _dtype_node_list(m):
    m["root"]["v"][0][1] = {"t": "dtype", "v": ["x"]}


def _huge_shape(m):
    m["root"]["v"][0][1].update(shape=[2 ** 61, 2 ** 61], stride=[0, 0])


def _npscalar_bad_length(m):
    m["root"]["v"][0][1] = {"t": "npscalar", "dtype": "float64", "v": "AAAA"}


def _ndarray_object_dtype(m):
    m["root"]["v"][0][1] = {"t": "ndarray", "array": 0, "dtype": "object", "shape": [1]}


def _pickle_missing(m):
    m["root"]["v"][0][1] = {"t": "pickle", "member": 7, "refs": []}


@pytest.mark.parametrize("edit", [_blob_dtype_list, _node_dtype_dict, _ragged_ranks, _dtype_node_list, _huge_shape,
                                  _npscalar_bad_length, _ndarray_object_dtype, _pickle_missing])
def test_malformed_manifests_raise_the_checkpoint_error(edit):
    data = edited({"w": flow.ones(2)}, edit)
    with pytest.raises(CheckpointError, match="member 'monoflow/manifest.json'"):
        load_bytes(data)


@pytest.mark.parametrize("payload", [
    b"\x80\x04\xff\xfe.",  # invalid opcodes
    b"\x80\x04]\x94(K\x01",  # truncated
    b"\x80\x04}\x94(]\x94K\x01s.",  # a list as a dict key: TypeError: unhashable type
    b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00\x8c\x01a\x94h\x07.",  # memo lookup past the end
    b"\x80\x04Q.",  # persistent id from an empty stack
    b"\x80\x04K\x05Q.",  # persistent id the node does not list
    b"\x80\x04\x8c\x05posix\x8c\x06system\x93.",  # STACK_GLOBAL of a refused name
])
def test_hostile_pickle_members_raise_the_checkpoint_error(payload):
    members = read_members(saved_bytes({"obj": Opaque()}))
    members["monoflow/pickles/0"] = payload
    data = write_members(members)
    for weights_only in (True, False):
        if weights_only is False and b"system" in payload:
            continue  # weights_only=False runs what the file says, by definition
        with pytest.raises(CheckpointError, match="member 'monoflow/pickles/0'"):
            load_bytes(data, weights_only=weights_only)


class Opaque:
    pass

def safetensors_file(header, data):
    raw = json.dumps(header).encode()
    return len(raw).to_bytes(8, "little") + raw + data


@pytest.mark.parametrize("header, data, msg", [
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
      "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, bytes(12), "gaps and overlaps"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, bytes(8), "gaps and overlaps"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, bytes(8), "cover 4 of the 8"),
    ({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, bytes(8), "needs 12"),
    ({"a": {"dtype": "F32", "shape": [2 ** 40], "data_offsets": [0, 2 ** 42]}}, bytes(8), "invalid data_offsets"),
    ({"a": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, bytes(8), "dtype 'C64'"),
    ({"a": {"dtype": ["F32"], "shape": [1], "data_offsets": [0, 4]}}, bytes(4), "dtype"),
    ({"a": {"dtype": "BOOL", "shape": [1], "data_offsets": [0, 1]}}, b"\x07", "bool values"),
    ({"__metadata__": {"k": 1}}, b"", "__metadata__"),
    ({"a": [1]}, b"", "not an object"),
])
def test_hostile_safetensors_files(header, data, msg):
    with pytest.raises(CheckpointError, match=msg):
        load_bytes(safetensors_file(header, data))


def test_safetensors_header_length_is_bounded():
    huge = (2 ** 40).to_bytes(8, "little") + b"{}"  # claims a 1 TiB header
    with pytest.raises(CheckpointError):
        load_bytes(huge)

# ---------------------------------------------------------------- mutations of valid files


def _valid_checkpoints():
    model = nn.Linear(3, 2)
    cases = {
        "native": saved_bytes({"w": flow.arange(12, dtype=flow.float32).reshape(3, 4), "i": 3,
                               "nested": [{"s": "x", "b": b"\x00"}, (1.5, None)]}),
        "native_v2": saved_bytes({"a": np.arange(5, dtype=np.int16), "s": np.float32(2.5), "m": model}),
        "safetensors": serialization.safetensors.save({"a": flow.ones(3, 2), "b": flow.arange(4)}),
    }
    if TORCH is not None:
        for legacy in (False, True):
            buf = io.BytesIO()
            sd = TORCH.nn.Linear(3, 2).state_dict()
            sd["shared"] = sd["weight"][0]
            TORCH.save({"sd": sd, "n": [1, (2, "x")]}, buf, _use_new_zipfile_serialization=not legacy)
            cases["torch_legacy" if legacy else "torch_zip"] = buf.getvalue()
    return cases


VALID = _valid_checkpoints()
# five times the profile's example count: cheap cases, and the point of this file
mutation_settings = settings(max_examples=settings.default.max_examples * 5, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow])


@st.composite
def mutations(draw, data):
    """`data` with a few random edits: byte flips, inserted or deleted runs, truncation."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate"]))
        if not out:
            kind = "insert"
        pos = draw(st.integers(0, max(len(out) - 1, 0)))
        if kind == "flip":
            out[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set":
            out[pos] = draw(st.sampled_from([0x00, 0xFF, 0x7F, 0x80]))
        elif kind == "insert":
            out[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del out[pos:pos + draw(st.integers(1, 8))]
        else:
            del out[pos:]
    return bytes(out)


@pytest.mark.parametrize("kind", sorted(VALID))
@mutation_settings
@given(data=st.data())
def test_random_byte_mutations(kind, data):
    mutated = data.draw(mutations(VALID[kind]))
    for weights_only in (True,):  # (False would run what a mutated pickle says)
        loads_or_fails_cleanly(mutated, weights_only=weights_only)


@pytest.mark.parametrize("kind", ["native", "native_v2", "torch_zip"])
@mutation_settings
@given(data=st.data())
def test_random_mutations_of_member_contents(kind, data):
    """Mutations inside members, with the zip (and its CRCs) rebuilt around
    them, so that they reach the manifest, pickle and tensor readers."""
    if kind not in VALID:
        pytest.skip("torch is not installed")
    members = read_members(VALID[kind])
    name = data.draw(st.sampled_from(sorted(members)))
    members[name] = data.draw(mutations(members[name])) if members[name] else b"\x00"
    loads_or_fails_cleanly(write_members(members))


def json_values():
    return st.recursive(st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=5),
                        lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids,
                                                                                     max_size=3), max_leaves=8)


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


@mutation_settings
@given(data=st.data())
def test_random_manifest_values(data):
    """Any JSON value anywhere in a valid manifest: a result or CheckpointError."""
    members = read_members(VALID["native_v2"] if data.draw(st.booleans()) else VALID["native"])
    manifest = json.loads(members["monoflow/manifest.json"])
    path = data.draw(st.sampled_from(list(_paths(manifest))[1:]))
    target = manifest
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = data.draw(json_values())
    members["monoflow/manifest.json"] = json.dumps(manifest).encode()
    loads_or_fails_cleanly(write_members(members))

# ---------------------------------------------------------------- temporaries of killed writers


def _tag():
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temporaries_of_dead_writers_are_removed(tmp_path):
    target = tmp_path / "ckpt.mf"
    dead = tmp_path / f".ckpt.mf.{_tag()}.{_dead_pid()}.abc123.tmp"
    mine = tmp_path / f".ckpt.mf.{_tag()}.{os.getpid()}.abc123.tmp"  # a live writer (this process)
    other_host = tmp_path / f".ckpt.mf.some-other-host.{_dead_pid()}.abc123.tmp"
    other_target = tmp_path / f".other.mf.{_tag()}.{_dead_pid()}.abc123.tmp"
    for p in (dead, mine, other_host, other_target):
        p.write_bytes(b"partial")
    flow.save({"w": flow.ones(1)}, target)
    assert sorted(os.listdir(tmp_path)) == sorted(["ckpt.mf", mine.name, other_host.name, other_target.name])


def test_a_writer_killed_mid_save_leaves_nothing_after_the_next_save(tmp_path):
    target = tmp_path / "ckpt.mf"
    script = textwrap.dedent(f"""
        import time
        import monoflow as flow
        from monoflow.serialization import native
        def slow(t):
            print("writing", flush=True)
            time.sleep(600)
        native._host_bytes = slow
        flow.save({{"w": flow.ones(1000)}}, {str(target)!r})
    """)
    for _ in range(3):
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        assert child.stdout.readline() == b"writing\n"  # it is inside save, its temporary open
        child.send_signal(signal.SIGKILL)
        child.wait()
        # each new writer removed its dead predecessor's temporary: one is left, the last one's
        temps = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        assert len(temps) == 1 and f".{child.pid}." in temps[0] and not target.exists()
    flow.save({"w": flow.ones(2)}, target)
    assert os.listdir(tmp_path) == ["ckpt.mf"]
    assert flow.load(target)["w"].tolist() == [1.0, 1.0]
