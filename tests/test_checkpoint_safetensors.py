"""safetensors files: monoflow's own reader and writer against the
reference implementation (the `safetensors` package), both ways."""
import numpy as np
import pytest

import monoflow as flow
from monoflow.serialization import safetensors as flow_st
from helpers import to_np, torch_of
from test_checkpoint_torch import TORCH_DTYPES, assert_matches_torch

torch = pytest.importorskip("torch")
safetensors = pytest.importorskip("safetensors")
st_torch = pytest.importorskip("safetensors.torch")
st_numpy = pytest.importorskip("safetensors.numpy")

@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_safetensors_written_by_the_reference_load(tmp_path, dtype):
    g = torch.Generator().manual_seed(1)
    tensors = {"a": (torch.randn(4, 3, generator=g) * 9).to(getattr(torch, dtype)),
               "empty": torch.zeros(0, 2, dtype=getattr(torch, dtype)), "scalar": torch.tensor(3).to(
                   getattr(torch, dtype))}
    path = tmp_path / "m.safetensors"
    st_torch.save_file(tensors, str(path), metadata={"format": "pt"})
    for got in (flow.load(path), flow_st.load_file(path), flow_st.load(path.read_bytes())):
        assert set(got) == set(tensors)
        for k in tensors:
            assert_matches_torch(got[k], tensors[k])


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_safetensors_written_by_monoflow_load_in_the_reference(tmp_path, dtype):
    src = {"w": flow.tensor(np.arange(12).reshape(3, 4) % 5).to(getattr(flow, dtype)),
           "t": flow.arange(6).reshape(2, 3).to(getattr(flow, dtype)).t()}  # non-contiguous
    path = tmp_path / "f.safetensors"
    flow_st.save_file(src, path, metadata={"epoch": "3"})
    ref = st_torch.load_file(str(path))
    for k in src:
        assert_matches_torch(src[k], ref[k])
    with safetensors.safe_open(str(path), "pt") as f:
        assert f.metadata() == {"epoch": "3"}
    assert flow_st.save(src, metadata={"epoch": "3"}) == path.read_bytes()
    mixed = {"b": src["w"], "a": flow.ones(3, dtype=flow.float64), "c": flow.ones(2, dtype=flow.int8)}
    assert flow_st.save(mixed, {"k": "v"}) == st_torch.save({k: torch_of(v) for k, v in mixed.items()}, {"k": "v"})
    if dtype != "bfloat16":
        np.testing.assert_array_equal(st_numpy.load(path.read_bytes())["w"], to_np(src["w"]))


def test_safetensors_bad_arguments():
    with pytest.raises(TypeError, match="save_file.*Tensor"):
        flow_st.save_file({"a": np.zeros(2)}, "/tmp/x.safetensors")
    with pytest.raises(TypeError, match="names must be str"):
        flow_st.save({1: flow.ones(1)})
    with pytest.raises(ValueError, match="__metadata__"):
        flow_st.save({"__metadata__": flow.ones(1)})
    with pytest.raises(TypeError, match="metadata"):
        flow_st.save({"a": flow.ones(1)}, metadata={"a": 1})
