"""torch's device type names without their plugins: flow.device("cuda"/"meta"/...) can be named and
compared, as torch names CUDA on a CPU-only build; using one for a tensor raises a clear error."""
import pickle

import pytest
import torch

import monoflow as flow


@pytest.mark.parametrize("spec", ["ipu", "cuda", "cuda:1", "mps", "xpu:0", "xla", "hpu"])
def test_absent_device_types_can_be_named_and_compared(spec):
    if spec.split(":")[0] in flow._C.device_types():
        pytest.skip(f"a {spec} plugin is loaded here")
    d, t = flow.device(spec), torch.device(spec)
    assert d.type == t.type and d.index == (t.index or 0)
    assert d == flow.device(spec) and d == spec and d != flow.device("cpu") and flow.device("cpu") != d
    assert hash(d) == hash(flow.device(spec))
    assert pickle.loads(pickle.dumps(d)) == d
    assert flow.device(d) == d
    with pytest.raises(RuntimeError, match=f"Unknown device type '{d.type}'"):
        flow.ones(2, device=d)
    with pytest.raises(RuntimeError, match=d.type):
        flow.ones(2).to(d)
    with pytest.raises(RuntimeError, match=d.type):
        flow.ones(2, device=spec)


def test_unknown_names_and_bad_indices_still_raise():
    with pytest.raises(RuntimeError, match="Unknown device type 'gpu'"):
        flow.device("gpu")
    with pytest.raises(RuntimeError, match="Invalid device 'testdev:99'"):
        flow.device("testdev:99")
    with pytest.raises(RuntimeError):
        flow.device("cuda:x")


def test_cpu_with_an_index_is_the_host():
    # torch.device("cpu", 3) and OneFlow's flow.device("cpu", rank) in each process name the one host device
    assert flow.device("cpu", 3) == flow.device("cpu:7") == flow.device("cpu")
    assert flow.zeros(2, device="cpu:1").device == flow.device("cpu")
    assert flow.ones(2).to(flow.device("cpu", 5)).device.type == "cpu"


def test_the_meta_comparison_libraries_make():
    x = flow.ones(2)
    assert x.device != flow.device("meta")  # safetensors.torch's test before reading storages
    assert not (x.device == flow.device("meta"))


def test_oneflow_generator_device_forms():
    auto = flow.Generator(device="auto")
    accelerators = [n for n in flow._C.device_types() if n != "cpu" and flow._C.device_count(n) > 0
                    and not all(d["runs_on_host_cpu"] for d in flow._C.device_info(n)["devices"])]
    assert auto.device.type == (accelerators[0] if accelerators else "cpu")
    assert auto.initial_seed() == flow.Generator(device="cpu").initial_seed()
    assert flow.Generator(device="cpu:1000").device == flow.device("cpu")  # one CPU device per host
    with pytest.raises(RuntimeError):
        flow.Generator(device="invalid")
    assert auto.manual_seed(3).initial_seed() == 3
