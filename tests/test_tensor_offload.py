"""OneFlow's Tensor.offload() / load() / is_offloaded(): the memory of a tensor
(and of every view of it) moves to host memory and back in place, on every
registered device. A tensor already in host memory warns and stays put."""
import numpy as np
import pytest

import monoflow as flow


def _in_host_memory(device):
    return flow._C.device_info(device.split(":")[0])["host_memory"]


def test_offload_moves_memory_to_the_host_and_load_moves_it_back(device):
    a = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    x = flow.tensor(a, device=device)
    view = x[1:3, ::2]  # made before the move: it follows the storage
    before = id(x)
    if _in_host_memory(device):
        with pytest.warns(UserWarning, match="offload\\(\\): the tensor is in host memory already"):
            x.offload()
        assert not x.is_offloaded() and x.device == flow.device(device)
        with pytest.warns(UserWarning, match="load\\(\\): the tensor is not offloaded"):
            x.load()
        return
    x.offload()
    assert id(x) == before and x.is_offloaded() and view.is_offloaded()
    assert x.device.type == "cpu" and view.device.type == "cpu"
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(view.numpy(), a[1:3, ::2])
    x.load()
    assert not x.is_offloaded() and x.device == flow.device(device) and view.device == flow.device(device)
    np.testing.assert_array_equal((view * 2).numpy(), a[1:3, ::2] * 2)
    x.add_(1)  # the device memory is writable again, and the view sees the write
    np.testing.assert_array_equal(view.numpy(), a[1:3, ::2] + 1)


def test_offloading_parameters_through_data_keeps_training(device):
    # OneFlow's idiom: `param.data.offload()` between steps frees device memory for the parameters
    flow.manual_seed(0)
    model = flow.nn.Linear(3, 2).to(device)
    opt = flow.optim.SGD(model.parameters(), lr=0.1)
    x = flow.randn(5, 3, device=device)
    weights = [p.numpy().copy() for p in model.parameters()]
    host = _in_host_memory(device)
    for p in model.parameters():
        if host:
            with pytest.warns(UserWarning):
                p.data.offload()
        else:
            p.data.offload()
        assert p.is_offloaded() is not host
    for p, w in zip(model.parameters(), weights):
        np.testing.assert_array_equal(p.numpy(), w)
    for p in model.parameters():
        if p.is_offloaded():
            p.data.load()
        assert p.device == flow.device(device)
    model(x).sum().backward()
    opt.step()
    assert all(not np.array_equal(p.numpy(), w) for p, w in zip(model.parameters(), weights))
