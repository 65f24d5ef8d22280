"""monoflow.profiler.events: OneFlow's profiler records (CustomEvent, KernelEvent, Events.key_averages),
checked against sums and means computed with numpy (OneFlow's test_events cases included)."""
import json

import numpy as np
import pytest

from monoflow.profiler.events import CustomEvent, CustomEventType, EventType, Events, KernelEvent


def test_oneflow_event_cases():
    # OneFlow's python/oneflow/test/profiler/test_events.py, restated
    classes = [CustomEvent, KernelEvent]
    d = {"name": "custom", "time": 1234, "custom_type": 0, "type": 0}
    assert CustomEvent("custom", 1234, CustomEventType.Default) == classes[d["type"]].from_dict(d)
    d = {"name": "kernel", "time": 1234, "memory_size": 1024, "type": 1, "input_shapes": "-"}
    assert KernelEvent("kernel", 1234, 1024, "-") == classes[d["type"]].from_dict(d)
    e = CustomEvent("custom", 1234, CustomEventType.Default)
    e.update(CustomEvent("custom", 3346, CustomEventType.Default))
    assert (e.count, e.cpu_time, e.cpu_time_total) == (2, 2290, 4580)


def test_key_averages_sums_and_means():
    rng = np.random.default_rng(0)
    times = rng.uniform(1, 100, size=(3, 5))
    entries = [{"name": f"r{i}", "time": float(t), "custom_type": 0, "type": 0}
               for j in range(5) for i, t in enumerate(times[:, j])]
    ev = Events(json.dumps(entries))
    assert len(ev) == 15 and all(isinstance(e, CustomEvent) for e in ev)
    avg = ev.key_averages()
    assert [e.name for e in avg] == ["r0", "r1", "r2"]
    for i, e in enumerate(avg):
        assert e.count == 5
        np.testing.assert_allclose(e.cpu_time_total, times[i].sum())
        np.testing.assert_allclose(e.cpu_time, times[i].mean())
        assert e.cuda_time is None and not e.has_cuda_time()
    assert len(ev) == 15 and ev[0].count == 1  # the list itself is left as it was


def test_kernel_grouping_and_children():
    shapes = ["(2,3)", "(2,3)", "(4,3)"]
    ev = Events()
    for i, s in enumerate(shapes):
        k = KernelEvent("conv2d", 10.0 * (i + 1), 4096, {"input_shapes": s, "attrs": "groups=1"})
        k.add_child(CustomEvent("conv_kernel", 2.0 * (i + 1), CustomEventType.CudaKernel))
        ev.append(k)
    assert ev[0].cuda_time_total == 2.0 and ev[0].bandwidth == f"{4096 / 2 ** 30 / 2e-6:.3f}GB/s"
    by_shape = Events()
    by_shape.extend(KernelEvent(k.name, k.cpu_time_total, k.memory_size, k.description) for k in ev)
    grouped = by_shape.key_averages(group_by_input_shape=True)
    assert [(e.input_shapes, e.count, e.cpu_time_total) for e in grouped] == [("(2,3)", 2, 30.0), ("(4,3)", 1, 30.0)]
    assert [e.count for e in by_shape.key_averages()] == [3]
    avg = ev.key_averages()  # children become records of their own
    kinds = {type(e).__name__: e for e in avg}
    assert kinds["CustomEvent"].count == 3 and kinds["CustomEvent"].cuda_time_total == pytest.approx(12.0)
    assert kinds["KernelEvent"].count == 3 and kinds["KernelEvent"].cpu_time == pytest.approx(20.0)
    assert EventType(kinds["KernelEvent"].event_type.value) is EventType.Kernel


def test_table_and_errors():
    ev = Events()
    ev.append(CustomEvent("forward", 1500.0, CustomEventType.Default))
    ev.append(KernelEvent("relu", 4.0, -1, {"input_shapes": "(2,6)"}))
    text = str(ev)
    assert "forward" in text and "1.500ms" in text and "Input shapes" in text and "(2,6)" in text
    with pytest.raises(TypeError, match="update"):
        CustomEvent("a", 1.0, 0).update(KernelEvent("a", 1.0, -1, {}))
    with pytest.raises(ValueError, match="records differ"):
        KernelEvent("a", 1.0, -1, {}).update(KernelEvent("b", 1.0, -1, {}))
    with pytest.raises(ValueError):
        Events('[{"name": "x", "time": 1, "type": 7}]')
