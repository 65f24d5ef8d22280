"""monoflow.cpu (torch.cpu's basics), monoflow.cpu.amp.autocast and monoflow.utils.hooks.RemovableHandle,
each against torch's answers."""
import warnings

import pytest
import torch

import monoflow as flow


def test_cpu_basics_match_torch():
    assert flow.cpu.is_available() is torch.cpu.is_available() is True
    assert flow.cpu.device_count() == torch.cpu.device_count()
    assert flow.cpu.current_device() == torch.cpu.current_device()
    assert flow.cpu.synchronize() is None and torch.cpu.synchronize() is None
    flow.cpu.synchronize("cpu")
    flow.cpu.synchronize(flow.device("cpu"))
    with pytest.raises(ValueError):
        flow.cpu.synchronize("cuda:0")
    s = flow.cpu.current_stream()
    with flow.cpu.stream(s) as got:
        assert got is s
    assert s.query() is True


def test_cpu_amp_autocast():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.cpu.amp.autocast()
        m = flow.cpu.amp.autocast()
    assert m.device == t.device == "cpu"
    assert str(m.fast_dtype).split(".")[-1] == str(t.fast_dtype).split(".")[-1] == "bfloat16"
    assert isinstance(m, flow.amp.autocast)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with flow.cpu.amp.autocast(dtype=flow.float16) as a:
            assert a.fast_dtype == flow.float16
            y = flow.ones(2) + 1
    assert y.tolist() == [2.0, 2.0]


def test_removable_handle_from_utils_hooks():
    from monoflow.utils.hooks import RemovableHandle

    m = flow.nn.Linear(2, 2)
    calls = []
    for reg in (m.register_forward_hook, m.register_forward_pre_hook):
        h = reg(lambda *a: calls.append(1))
        assert isinstance(h, RemovableHandle)
        m(flow.ones(1, 2))
        h.remove()
        m(flow.ones(1, 2))
    assert calls == [1, 1]
    with m.register_forward_hook(lambda *a: calls.append(2)):
        m(flow.ones(1, 2))
    m(flow.ones(1, 2))
    assert calls == [1, 1, 2]
    assert hasattr(torch.utils.hooks, "RemovableHandle")
