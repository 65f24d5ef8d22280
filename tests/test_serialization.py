"""flow.save / flow.load: round trips of tensors and containers on every
device, shared storage, map_location, atomic writes, the on-disk format
(docs/checkpoint_format.md) and the errors bad files and bad objects raise."""
import base64
import collections
import io
import json
import math
import os
import pickle
import stat
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import given

import monoflow as flow
from monoflow import serialization
from helpers import DTYPES, FLOW, device_settings, tensor_specs, to_np

CheckpointError = serialization.CheckpointError


def roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    flow.save(obj, buf)
    buf.seek(0)
    return flow.load(buf, **load_kw)


def assert_same_tensor(got, want, device=None):
    assert isinstance(got, flow.Tensor)
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    assert str(got.device) == str(device or want.device)
    np.testing.assert_array_equal(to_np(got), to_np(want))  # NaNs compare equal


def read_members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def write_members(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def saved_bytes(obj):
    buf = io.BytesIO()
    flow.save(obj, buf)
    return buf.getvalue()


def with_manifest(data, edit):
    """The checkpoint `data` with its manifest replaced by edit(manifest)."""
    members = read_members(data)
    manifest = json.loads(members["monoflow/manifest.json"])
    members["monoflow/manifest.json"] = json.dumps(edit(manifest)).encode()
    return write_members(members)


def load_bytes(data, **kw):
    return flow.load(io.BytesIO(data), **kw)

# ---------------------------------------------------------------- tensors


@device_settings
@given(spec=tensor_specs(nan=True))
def test_tensor_roundtrip_any_dtype_shape_layout(device, spec):
    t = spec.make(device)
    got = roundtrip({"t": t})["t"]
    assert_same_tensor(got, t)
    assert got.is_contiguous()  # saved by value


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_through_a_file(tmp_path, device, name):
    dt = FLOW[name]
    vals = {"bool": [True, False, True], "uint8": [0, 255, 7], "int8": [-128, 127, 0],
            "int16": [-32768, 32767, 1], "int32": [-2 ** 31, 2 ** 31 - 1, 5], "int64": [-2 ** 63, 2 ** 63 - 1, 9],
            }.get(name, [-1.5, float("inf"), float("nan")])
    state = {
        "vec": flow.tensor(vals, dtype=dt, device=device),
        "scalar": flow.tensor(vals[1], dtype=dt, device=device),  # 0-dim
        "empty": flow.zeros(0, 3, dtype=dt, device=device),  # 0-size
        "t": flow.tensor([vals, vals[::-1]], dtype=dt, device=device).T,  # non-contiguous
    }
    path = tmp_path / "ckpt.mf"
    flow.save(state, path)
    got = flow.load(path)
    assert list(got) == ["vec", "scalar", "empty", "t"]
    for k, v in state.items():
        assert_same_tensor(got[k], v)
    assert got["scalar"].dim() == 0 and got["empty"].shape == (0, 3)


def test_large_values_are_exact_bit_patterns():
    # float64 values that a float32 detour would change, and int64 extremes
    t = flow.tensor([1 + 2 ** -52, -0.0, 5e-324], dtype=flow.float64)
    got = roundtrip(t)
    assert got.numpy().tobytes() == t.numpy().tobytes()
    b = flow.tensor([1.0, -2.5, 3.0e38], dtype=flow.bfloat16)
    assert to_np(roundtrip(b)).tobytes() == to_np(b).tobytes()

# ---------------------------------------------------------------- containers


def test_nested_containers_keep_types_order_and_keys():
    od = collections.OrderedDict([("z", 1), ("a", 2), ("m", 3)])
    od._metadata = {"": {"version": 1}}
    obj = {
        "od": od,
        "tuple": (1, 2.5, "x"), "list": [1, [2, (3,)]], "empty": ({}, [], ()),
        "scalars": [None, True, False, 0, -(2 ** 100), 1.0, -0.0, float("inf"), float("-inf"), "ünï"],
        "keys": {7: "int", 2.5: "float", None: "none", True: "bool", ("a", 1, (None,)): "tuple", "": "empty"},
        "misc": [b"\x00\xffraw", flow.float16, flow.device("cpu")],
        "nan": float("nan"),
        3: "int key at top",
    }
    got = roundtrip(obj)
    assert got == {k: v for k, v in obj.items() if k != "nan"} | {"nan": got["nan"]}
    assert math.isnan(got["nan"])
    assert type(got["od"]) is collections.OrderedDict and list(got["od"]) == ["z", "a", "m"]
    assert got["od"]._metadata == {"": {"version": 1}}
    assert type(got["tuple"]) is tuple and type(got["list"]) is list and type(got["list"][1][1]) is tuple
    assert type(got) is dict and list(got) == list(obj)
    sc = got["scalars"]
    assert [type(v) for v in sc] == [type(v) for v in obj["scalars"]]  # bools stay bools, ints ints
    assert math.copysign(1.0, sc[6]) == -1.0
    assert list(got["keys"]) == list(obj["keys"])
    assert got["misc"][1] is flow.float16 and got["misc"][2] == flow.device("cpu")


def test_state_dict_shapes_with_tensors(device):
    model = collections.OrderedDict(
        [(f"layer{i}.weight", flow.randn(3, 2, device=device)) for i in range(3)]
        + [("layer0.bias", flow.zeros(3, device=device))])
    optim = {"state": {0: {"momentum_buffer": flow.ones(3, 2, device=device), "step": 4}},
             "param_groups": [{"lr": 0.1, "params": [0, 1, 2, 3], "nesterov": False}]}
    got = roundtrip({"model": model, "optim": optim, "epoch": 7})
    assert list(got["model"]) == list(model)
    for k in model:
        assert_same_tensor(got["model"][k], model[k])
    assert_same_tensor(got["optim"]["state"][0]["momentum_buffer"], optim["state"][0]["momentum_buffer"])
    assert got["optim"]["param_groups"] == optim["param_groups"] and got["epoch"] == 7


def test_requires_grad_flag_is_saved():
    t = flow.ones(2)
    try:
        t.requires_grad = True  # a plain attribute until autograd lands
    except AttributeError:
        t.requires_grad_(True)
    data = saved_bytes([t, flow.ones(2)])
    nodes = json.loads(read_members(data)["monoflow/manifest.json"])["root"]["v"]
    assert [n["requires_grad"] for n in nodes] == [True, False]
    got = load_bytes(data)
    if hasattr(got[0], "requires_grad_"):
        assert got[0].requires_grad and not got[1].requires_grad

# ---------------------------------------------------------------- shared storage


def test_shared_storage_restores_views(device):
    base = flow.arange(24, dtype=flow.float32, device=device)
    grid = base.view(4, 6)
    views = [base, grid.T, grid[1:3, ::2], base[5:8].expand(2, 3), grid[2, 3]]
    lone = flow.ones(2, 2, device=device)[:, 1]  # not shared: saved by value
    got = roundtrip({"views": views, "lone": lone, "tied": (views[1], views[1])})
    out = got["views"]
    for g, w in zip(out, views):
        assert_same_tensor(g, w)
        assert g.stride() == w.stride()
        assert g._is_view_of(out[0])
    assert got["tied"][0]._is_view_of(out[0]) and got["tied"][1]._is_view_of(out[0])
    assert not got["lone"]._is_view_of(out[0]) and got["lone"].is_contiguous()
    # one blob for the storage, one for the lone tensor; the storage saved once
    manifest = json.loads(read_members(saved_bytes(views))["monoflow/manifest.json"])
    assert manifest["blobs"] == [{"dtype": "float32", "device": str(base.device), "numel": 24}]
    out[0].fill_(-1.0)  # aliasing survives: every view sees the write
    assert (to_np(out[2]) == -1).all() and float(out[4].item()) == -1.0


def test_shared_span_only_covers_what_is_saved():
    base = flow.arange(100, dtype=flow.int64)
    a, b = base[10:20], base[15:30:5]
    data = saved_bytes([a, b])
    manifest = json.loads(read_members(data)["monoflow/manifest.json"])
    assert manifest["blobs"][0]["numel"] == 16  # elements 10..25, not the whole storage
    got = load_bytes(data)
    assert got[0].tolist() == list(range(10, 20)) and got[1].tolist() == [15, 20, 25]
    assert got[1]._is_view_of(got[0])

# ---------------------------------------------------------------- files and streams


def test_bytesio_at_an_offset_and_unseekable_streams():
    buf = io.BytesIO()
    buf.write(b"header")
    flow.save({"x": flow.arange(5)}, buf)
    buf.seek(0)
    assert buf.read(6) == b"header"
    assert flow.load(buf)["x"].tolist() == [0, 1, 2, 3, 4]

    class Stream(io.RawIOBase):
        def __init__(self, data):
            self.inner = io.BytesIO(data)

        def readable(self):
            return True

        def seekable(self):
            return False

        def readinto(self, b):
            return self.inner.readinto(b)

    data = saved_bytes([flow.ones(3)])
    assert flow.load(Stream(data))[0].tolist() == [1.0, 1.0, 1.0]


def test_saving_is_deterministic_and_stored_uncompressed(tmp_path):
    obj = {"w": flow.tensor([1, 2, 3], dtype=flow.int32), "b": flow.tensor([1.0, 2.0], dtype=flow.bfloat16)}
    a, b = saved_bytes(obj), saved_bytes(obj)
    assert a == b
    with zipfile.ZipFile(io.BytesIO(a)) as zf:
        assert zf.namelist() == ["monoflow/format.json", "monoflow/manifest.json",
                                 "monoflow/data/0", "monoflow/data/1"]
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        assert json.loads(zf.read("monoflow/format.json")) == {
            "format": "monoflow.checkpoint", "version": [1, 0], "byteorder": "little"}
        assert zf.read("monoflow/data/0") == np.array([1, 2, 3], "<i4").tobytes()
        # bfloat16 = upper halves of the float32 bit patterns
        assert zf.read("monoflow/data/1") == (np.array([1.0, 2.0], "<f4").view("<u4") >> 16).astype("<u2").tobytes()
        root = json.loads(zf.read("monoflow/manifest.json"))["root"]
    assert root["t"] == "dict" and root["v"][0][1] == {
        "t": "tensor", "blob": 0, "dtype": "int32", "shape": [3], "stride": [1], "offset": 0,
        "device": "cpu:0", "requires_grad": False}


def test_new_file_permissions_follow_umask_and_symlinks_are_kept(tmp_path):
    old = os.umask(0o027)
    try:
        flow.save([1], tmp_path / "a.mf")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a.mf").st_mode) == 0o640
    os.symlink("a.mf", tmp_path / "latest")
    flow.save([2], tmp_path / "latest")
    assert os.path.islink(tmp_path / "latest") and flow.load(tmp_path / "a.mf") == [2]

# ---------------------------------------------------------------- map_location


def test_map_location_forms(device):
    state = {"a": flow.arange(6, device="cpu").view(2, 3), "b": flow.ones(2, dtype=flow.float16, device=device)}
    data = saved_bytes(state)
    got = load_bytes(data)  # None: as saved
    assert str(got["a"].device) == "cpu:0" and str(got["b"].device) == device
    for ml in (device, flow.device(device)):
        got = load_bytes(data, map_location=ml)
        assert_same_tensor(got["a"], state["a"], device)
        assert_same_tensor(got["b"], state["b"], device)
    got = load_bytes(data, map_location={"cpu:0": device, device: "cpu"})
    if device != "cpu:0":
        assert str(got["a"].device) == device and str(got["b"].device) == "cpu:0"
    got = load_bytes(data, map_location={"cpu": device})  # a bare device type as the key
    assert str(got["a"].device) == device
    calls = []

    def fn(t, saved):
        calls.append((saved, str(t.device), tuple(t.shape)))
        return t.to(device) if saved == "cpu:0" else None

    got = load_bytes(data, map_location=fn)
    assert sorted(calls) == sorted([("cpu:0", "cpu:0", (2, 3)), (device, "cpu:0", (2,))])
    assert_same_tensor(got["a"], state["a"], device)
    assert_same_tensor(got["b"], state["b"], device)


def test_map_location_views_follow_the_storage(device):
    base = flow.arange(6, dtype=flow.float32)
    got = roundtrip([base, base[2:]], map_location=lambda t, saved: t.to(device))
    assert str(got[1].device) == device and got[1]._is_view_of(got[0])
    assert to_np(got[1]).tolist() == [2, 3, 4, 5]


def test_unregistered_saved_device_is_a_clear_error():
    data = with_manifest(saved_bytes({"w": flow.ones(2)}),
                         lambda m: json.loads(json.dumps(m).replace('"cpu:0"', '"nosuchdev:0"')))
    with pytest.raises(RuntimeError, match="nosuchdev.*not registered.*map_location"):
        load_bytes(data)
    assert load_bytes(data, map_location="cpu")["w"].tolist() == [1.0, 1.0]
    assert load_bytes(data, map_location={"nosuchdev:0": "cpu"})["w"].tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="map_location"):
        load_bytes(saved_bytes([flow.ones(1)]), map_location=3)
    with pytest.raises(TypeError, match="map_location callable must return"):
        load_bytes(saved_bytes([flow.ones(2)]), map_location=lambda t, s: "oops")

# ---------------------------------------------------------------- atomic writes


def _fail_on_second_blob(monkeypatch):
    real, calls = serialization.native._host_bytes, []

    def flaky(t):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(t)

    monkeypatch.setattr(serialization.native, "_host_bytes", flaky)


def _fail_fsync(monkeypatch):
    def boom(fd):
        raise OSError("fsync failed")

    monkeypatch.setattr(os, "fsync", boom)


def _fail_replace(monkeypatch):
    def boom(a, b):
        raise OSError("replace failed")

    monkeypatch.setattr(os, "replace", boom)


@pytest.mark.parametrize("inject", [_fail_on_second_blob, _fail_fsync, _fail_replace])
def test_failed_save_leaves_previous_checkpoint_untouched(tmp_path, monkeypatch, inject):
    path = tmp_path / "ckpt.mf"
    flow.save({"old": flow.arange(4)}, path)
    before = path.read_bytes()
    inject(monkeypatch)
    with pytest.raises((RuntimeError, OSError), match="fire|failed"):
        flow.save({"a": flow.ones(100), "b": flow.zeros(100)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.mf"]  # no temp file left behind
    assert flow.load(path)["old"].tolist() == [0, 1, 2, 3]


def test_failed_save_to_bytesio_is_rolled_back(monkeypatch):
    buf = io.BytesIO(b"keep")
    buf.seek(4)
    _fail_on_second_blob(monkeypatch)
    with pytest.raises(RuntimeError, match="fire"):
        flow.save([flow.ones(3), flow.ones(3)], buf)
    assert buf.getvalue() == b"keep"

# ---------------------------------------------------------------- unsupported objects


def test_objects_that_cannot_be_saved_name_the_type_and_path(tmp_path):
    """Objects that are not data are pickled (tests/test_checkpoint_interop.py);
    what pickle cannot take is a TypeError naming it, before anything is written."""
    class Local:  # a local class cannot be pickled
        pass

    path = tmp_path / "ckpt.mf"
    for bad, kind in ((lambda: 0, "function"), (Local(), "Local")):
        state = {"layers": [flow.ones(1), 2, bad], "lr": 0.1}
        with pytest.raises(TypeError, match=rf"{kind}.*obj\['layers'\]\[2\]"):
            flow.save(state, path)
        assert not os.listdir(tmp_path)  # nothing written, not even a temp file


def test_unsupported_keys_and_cycles():
    with pytest.raises(TypeError, match=r"dict key of type frozenset at obj\['a'\]"):
        flow.save({"a": {frozenset(): 1}}, io.BytesIO())
    loop = [1]
    loop.append({"self": loop})
    buf = io.BytesIO()
    with pytest.raises(ValueError, match=r"obj\[1\]\['self'\].*cycle"):
        flow.save(loop, buf)
    assert buf.getvalue() == b""
    with pytest.raises(TypeError, match="path or a writable"):
        flow.save([1], 42)

# ---------------------------------------------------------------- bad files


def test_foreign_and_corrupt_files(tmp_path):
    good = saved_bytes({"w": flow.arange(1000, dtype=flow.float32)})
    cases = {
        "random.bin": (os.urandom(4096), "not a monoflow checkpoint"),
        "empty.bin": (b"", "not a monoflow checkpoint"),
        "half.mf": (good[: len(good) // 2], "not a monoflow checkpoint"),
        "plain.zip": (write_members({"hello.txt": b"hi"}), "no monoflow/format.json"),
        "no_manifest.zip": (write_members({"monoflow/format.json": read_members(good)["monoflow/format.json"]}),
                            "no monoflow/manifest.json"),
        "other_format.zip": (write_members({"monoflow/format.json": b'{"format": "torch"}'}),
                             "does not name format"),
        "bad_json.zip": (write_members({**read_members(good), "monoflow/manifest.json": b"{not json"}),
                         "not valid JSON"),
    }
    for name, (data, msg) in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(CheckpointError, match=msg) as info:
            flow.load(p)
        assert name in str(info.value), name  # the error names the file
        assert isinstance(info.value, ValueError)


def test_flipped_blob_byte_fails_the_crc():
    good = saved_bytes({"w": flow.arange(1000, dtype=flow.float32)})
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        info = zf.getinfo("monoflow/data/0")
    name_len, extra_len = struct.unpack("<HH", good[info.header_offset + 26:info.header_offset + 30])
    pos = info.header_offset + 30 + name_len + extra_len + 2000  # inside the data
    bad = bytearray(good)
    bad[pos] ^= 0xFF
    with pytest.raises(CheckpointError, match="member 'monoflow/data/0': is corrupt"):
        load_bytes(bytes(bad))


def test_missing_or_wrong_sized_blobs():
    good = saved_bytes({"w": flow.arange(10, dtype=flow.int16)})
    members = read_members(good)
    del members["monoflow/data/0"]
    with pytest.raises(CheckpointError, match="monoflow/data/0.*missing"):
        load_bytes(write_members(members))
    members["monoflow/data/0"] = b"\x00" * 19
    with pytest.raises(CheckpointError, match="19 bytes.*10 int16 elements need 20"):
        load_bytes(write_members(members))


@pytest.mark.parametrize("edit, msg", [
    # (pickle nodes name a member of the archive: never inline bytes)
    (lambda m: {**m, "root": {"t": "pickle", "v": "gASVAAAAAAAAAAB9lC4="}}, "invalid pickle node at obj"),
    (lambda m: {**m, "root": {"t": "__reduce__", "v": ["os.system", ["true"]]}}, "unknown node type '__reduce__'"),
    (lambda m: {**m, "root": {"t": "list", "v": [{"t": "eval", "v": "1+1"}]}}, r"unknown node type 'eval' at obj\[0\]"),
    (lambda m: {**m, "root": {"v": 1}}, "malformed node"),
    (lambda m: {**m, "root": {"t": "tensor", "blob": 7}}, "refers to blob 7"),
    (lambda m: {**m, "root": {**m["root"], "offset": 5}}, "past the end of blob 0"),
    (lambda m: {**m, "root": {**m["root"], "dtype": "float64"}}, "disagrees with blob 0"),
    (lambda m: {**m, "blobs": [{"dtype": "complex32", "numel": 3, "device": "cpu:0"}]}, "invalid description"),
    (lambda m: {**m, "root": {"t": "dict", "v": [[{"t": "list", "v": []}, {"t": "none"}]]}}, "invalid dict key"),
    (lambda m: {"blobs": []}, "lacks 'root'"),
])
def test_malformed_manifests_are_rejected(edit, msg):
    good = saved_bytes(flow.arange(3))
    with pytest.raises(CheckpointError, match=msg):
        load_bytes(with_manifest(good, edit))


triggered = []


def _mark():
    triggered.append(True)


class Boom:
    def __reduce__(self):
        return (_mark, ())


def test_loading_never_executes_code(tmp_path):
    payload = pickle.dumps(Boom())
    good = saved_bytes([flow.ones(1)])
    # a node carrying a pickle, a torch-style archive, and a bare pickle file
    smuggled = with_manifest(good, lambda m: {**m, "root": {
        "t": "pickle", "v": base64.b64encode(payload).decode()}})
    torch_like = write_members({"archive/data.pkl": payload, "archive/version": b"3\n"})
    # (a pickle node names a member: this one has none; torch's layout is read by the restricted unpickler)
    for data in (smuggled, torch_like, payload):
        with pytest.raises(CheckpointError):
            load_bytes(data)
        with pytest.raises(CheckpointError):
            load_bytes(data, weights_only=False)  # not even then: none of these is a pickle monoflow wrote
    assert triggered == []
    pickle.loads(payload)  # the payload does fire when unpickled: the check above can fail
    assert triggered == [True]


def test_newer_major_version_is_refused():
    members = read_members(saved_bytes([1]))
    for version, ok in (([1, 7], True), ([2, 9], True), ([3, 0], False)):
        members["monoflow/format.json"] = json.dumps(
            {"format": "monoflow.checkpoint", "version": version}).encode()
        if ok:  # a newer minor of the same major still loads
            assert load_bytes(write_members(members)) == [1]
        else:
            with pytest.raises(CheckpointError, match="version 3.0 is newer"):
                load_bytes(write_members(members))
