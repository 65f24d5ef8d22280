"""Checkpoints that move between frameworks: numpy values as data, the pickle
path (whole modules, weights_only, safe globals), PyTorch .pt/.pth files read
without torch's pickle (checked against files the real torch wrote), and
safetensors files (checked against the `safetensors` package)."""
import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from monoflow import nn, serialization
from helpers import to_np

CheckpointError = serialization.CheckpointError
WeightsOnlyError = serialization.WeightsOnlyError


def roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    flow.save(obj, buf)
    buf.seek(0)
    return flow.load(buf, **load_kw)


def format_version(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return json.loads(zf.read("monoflow/format.json"))["version"]


def saved_bytes(obj):
    buf = io.BytesIO()
    flow.save(obj, buf)
    return buf.getvalue()

# ---------------------------------------------------------------- numpy values as data


NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"]


@given(a=hnp.arrays(st.sampled_from(NUMPY_DTYPES), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                                    max_side=4)),
       transpose=st.booleans())
def test_numpy_arrays_round_trip_as_data(a, transpose):
    a = a.T if transpose else a  # non-contiguous input
    data = saved_bytes({"a": a})
    got = flow.load(io.BytesIO(data))["a"]  # weights_only=True: numpy is data, not pickle
    assert type(got) is np.ndarray and got.dtype == a.dtype and got.shape == a.shape
    np.testing.assert_array_equal(got, a)
    assert got.flags.writeable
    assert format_version(data) == [2, 0]
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert not any(n.startswith("monoflow/pickles/") for n in zf.namelist())


@pytest.mark.parametrize("value", [np.float32(1.5), np.float64(-0.0), np.float16(65504), np.int64(-2 ** 63),
                                   np.uint64(2 ** 64 - 1), np.bool_(True), np.int8(-7), np.complex64(1 - 2j),
                                   np.float32("nan")])
def test_numpy_scalars_round_trip_bit_exactly(value):
    got = roundtrip({"v": value, "in_list": [value]})
    for v in (got["v"], got["in_list"][0]):
        assert type(v) is type(value)
        assert np.asarray(v).tobytes() == np.asarray(value).tobytes()


def test_plain_files_keep_their_old_version():
    assert format_version(saved_bytes({"w": flow.ones(2), "n": 3})) == [1, 0]


def test_object_arrays_take_the_pickle_path():
    obj = np.array([{"a": 1}, None], dtype=object)
    data = saved_bytes({"o": obj})
    with pytest.raises(WeightsOnlyError, match="numpy"):
        flow.load(io.BytesIO(data))
    got = flow.load(io.BytesIO(data), weights_only=False)["o"]
    assert got.dtype == object and got[0] == {"a": 1} and got[1] is None


def test_load_state_dict_accepts_numpy_values():
    model = nn.Linear(3, 2)
    w = np.arange(6, dtype=np.float64).reshape(2, 3)  # OneFlow programs pass numpy (any float dtype)
    b = np.array([0.5, -1.0], dtype=np.float32)
    model.load_state_dict({"weight": w, "bias": b})
    assert model.weight.dtype == flow.float32 and isinstance(model.weight, nn.Parameter)
    np.testing.assert_array_equal(to_np(model.weight), w.astype(np.float32))
    np.testing.assert_array_equal(to_np(model.bias), b)
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        model.load_state_dict({"weight": np.zeros((3, 3), np.float32), "bias": b})
    model.load_state_dict({"weight": w, "bias": b}, assign=True)
    assert isinstance(model.weight, nn.Parameter) and model.weight.dtype == flow.float32

# ---------------------------------------------------------------- the pickle path


class Config:  # a user's own class, saved beside the weights
    def __init__(self, lr, tensor):
        self.lr, self.tensor = lr, tensor


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2)
        self.register_buffer("steps", flow.zeros(1, dtype=flow.int64))

    def forward(self, x):
        return self.fc2(flow.relu(self.fc1(x)))


def test_whole_module_needs_weights_only_false(tmp_path):
    model = Net()
    path = tmp_path / "model.pt"
    flow.save(model, path)  # torch.save(model, 'model.pt')
    with pytest.raises(WeightsOnlyError) as info:
        flow.load(path)  # the default weights_only=True refuses, explaining how to opt in
    msg = str(info.value)
    assert isinstance(info.value, pickle.UnpicklingError) and isinstance(info.value, CheckpointError)
    assert "model.pt" in msg and "Weights only load failed" in msg and "`weights_only` set to `False`" in msg
    assert "test_checkpoint_interop.Net" in msg and "flow.serialization.add_safe_globals" in msg
    got = flow.load(path, weights_only=False)
    assert type(got) is Net and got is not model
    x = flow.randn(5, 4)
    np.testing.assert_array_equal(to_np(got(x).detach()), to_np(model(x).detach()))
    assert isinstance(got.fc1.weight, nn.Parameter) and got.fc1.weight.requires_grad
    assert [n for n, _ in got.named_parameters()] == [n for n, _ in model.named_parameters()]
    assert got.steps.dtype == flow.int64
    # the tensors are data members, not pickled bytes
    with zipfile.ZipFile(path) as zf:
        assert len([n for n in zf.namelist() if n.startswith("monoflow/data/")]) == 5
        assert len(zf.read("monoflow/pickles/0")) < 2000


def test_safe_globals_allow_listed_classes():
    model = Net()
    data = saved_bytes({"model": model, "epoch": 3})
    classes = [Net, nn.Linear]
    with serialization.safe_globals(classes):
        got = flow.load(io.BytesIO(data))
    assert type(got["model"]) is Net and got["epoch"] == 3
    with pytest.raises(WeightsOnlyError):  # the context manager's list is gone again
        flow.load(io.BytesIO(data))
    serialization.add_safe_globals(classes)
    try:
        assert serialization.get_safe_globals() == classes
        assert type(flow.load(io.BytesIO(data))["model"]) is Net
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(TypeError, match="add_safe_globals"):
        serialization.add_safe_globals(Net)


def test_user_objects_share_tensors_with_the_data_tree():
    w = flow.arange(6, dtype=flow.float32)
    cfg = Config(0.1, w[2:4])
    got = roundtrip({"w": w, "cfg": cfg, "set": {1, 2}, "c": 1 + 2j}, weights_only=False)
    assert type(got["cfg"]) is Config and got["cfg"].lr == 0.1
    assert got["cfg"].tensor._is_view_of(got["w"])  # one storage, as saved
    assert got["set"] == {1, 2} and got["c"] == 1 + 2j
    # sets and complex numbers are safe by default, as in torch
    assert roundtrip({"set": {1, 2}, "c": 1 + 2j}) == {"set": {1, 2}, "c": 1 + 2j}


class Exploit:
    def __reduce__(self):
        return (os.system, ("touch /tmp/monoflow-pwned-by-test",))


def test_weights_only_never_runs_a_refused_global(tmp_path):
    marker = "/tmp/monoflow-pwned-by-test"
    if os.path.exists(marker):
        os.unlink(marker)
    data = saved_bytes({"x": Exploit()})
    with pytest.raises(WeightsOnlyError, match="GLOBAL posix.system"):
        flow.load(io.BytesIO(data))
    assert not os.path.exists(marker)


def test_unpicklable_objects_still_fail_at_save(tmp_path):
    path = tmp_path / "ckpt"
    with pytest.raises(TypeError, match=r"function.*obj\['f'\].*pickling it failed"):
        flow.save({"f": lambda: 0}, path)
    assert not os.listdir(tmp_path)
