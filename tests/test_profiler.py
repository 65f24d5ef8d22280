"""The profiler: what the core records (ops and their kernels, copies, backward nodes, memory, collectives,
graph actors), the Chrome trace it writes, key_averages agreeing with the trace, torch's interface."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import monoflow as flow
import monoflow.distributed as dist
from monoflow import profiler
from monoflow.autograd import profiler as autograd_profiler


def _train_step(model, opt, x, y):
    loss = flow.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def _model():
    flow.manual_seed(0)
    model = flow.nn.Sequential(flow.nn.Linear(16, 32), flow.nn.ReLU(), flow.nn.Linear(32, 4))
    return model, flow.optim.SGD(model.parameters(), lr=0.1)


def _check_trace(trace):
    """Chrome Trace Event format: the fields each phase needs, times that make sense, flows that pair up."""
    events = trace["traceEvents"]
    assert events
    flows = {}
    for e in events:
        assert {"name", "ph", "pid"} <= set(e), e
        if e["ph"] == "X":
            assert isinstance(e["ts"], float) and e["dur"] >= 0 and "tid" in e, e
        elif e["ph"] in ("s", "f"):
            flows.setdefault(e["id"], []).append(e)
        elif e["ph"] == "C":
            assert all(isinstance(v, int) and v >= 0 for v in e["args"].values()), e
        else:
            assert e["ph"] in ("M", "i"), e
    for pair in flows.values():
        assert sorted(p["ph"] for p in pair) == ["f", "s"]
        s, f = sorted(pair, key=lambda p: p["ph"], reverse=True)
        assert f["ts"] >= s["ts"]
    return events


def test_ops_kernels_and_backward_are_recorded(tmp_path):
    model, opt = _model()
    x, y = flow.randn(8, 16), flow.randint(0, 4, (8,))
    _train_step(model, opt, x, y)  # warm
    with profiler.profile(record_shapes=True) as prof:
        with profiler.record_function("step"):
            _train_step(model, opt, x, y)
    events = prof.events()
    kinds = {e.kind for e in events}
    assert {"op", "kernel", "backward", "user_annotation"} <= kinds
    ops = [e for e in events if e.kind == "op"]
    kernels = [e for e in events if e.kind == "kernel"]
    # every kernel belongs to a launch, runs after it began, on a stream of the launch's device
    by_corr = {e.correlation: e for e in ops}
    assert kernels and all(k.correlation in by_corr for k in kernels)
    for k in kernels:
        op = by_corr[k.correlation]
        assert k.name == op.name and k.device == op.device == "cpu:0"
        assert k.start_us >= op.start_us and k.end_us >= k.start_us
    assert {"matmul", "relu"} & {e.name for e in ops}
    assert any(e.name.endswith("Backward0") or "Backward" in e.name for e in events if e.kind == "backward")
    # the record_function range encloses the ops launched inside it
    step = next(e for e in events if e.name == "step")
    inner = [e for e in ops if e.cpu_parent is not None]
    assert inner and all(step.start_us <= e.start_us <= e.end_us <= step.end_us for e in inner)
    # (CPU kernels are CPU time: Note [CPU kernels are CPU time]; the range waited for them)
    assert step.cpu_time_total >= sum(k.end_us - k.start_us for k in kernels) * 0.999
    assert step.device_time_total == 0
    # shapes, grouped
    matmuls = [a for a in prof.key_averages(group_by_input_shape=True) if a.key in ("matmul", "addmm", "linear")]
    assert matmuls and all(a.input_shapes.startswith("[[") for a in matmuls)

    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = _check_trace(json.loads(path.read_text()))
    names = [e["args"]["name"] for e in trace if e["ph"] == "M" and e["name"] == "thread_name"]
    assert any(n.startswith("cpu:0 stream") for n in names)
    assert sum(e["ph"] == "s" for e in trace) == len(kernels)


def test_key_averages_agree_with_the_trace(tmp_path):
    a = flow.randn(256, 256)  # (a matmul well above a relu's cost)
    with profiler.profile() as prof:
        for _ in range(5):
            b = (a @ a).relu().sum()
        b.item()
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    table = {e.key: e for e in prof.key_averages()}
    for key in ("matmul", "relu"):
        rows = [e for e in trace if e["ph"] == "X" and e["name"] == key and e["cat"] == "cpu_op"]
        assert table[key].count == len(rows) == 5
        kernel_rows = [e for e in trace if e["ph"] == "X" and e["name"] == key and e["cat"] == "kernel"]
        # a CPU kernel's time is its op's CPU time, as torch's inline CPU kernels (Note [CPU kernels are CPU time])
        assert table[key].cpu_time_total == pytest.approx(sum(r["dur"] for r in rows + kernel_rows), rel=1e-6,
                                                          abs=1e-3)
        assert table[key].self_device_time_total == 0
    text = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    assert "Self Device" not in text and "# of Calls" in text
    # the costliest op first, as torch's CPU table (which op that is depends on the machine's load)
    costliest = max(prof.key_averages(), key=lambda e: e.cpu_time_total).key
    assert text.splitlines()[3].split()[0] == costliest
    assert len([line for line in text.splitlines() if line.strip()]) <= 5 + 5


def test_memory_events_follow_the_allocator():
    flow.randn(4).sum().item()
    with profiler.profile(profile_memory=True) as prof:
        x = flow.randn(256, 256)
        y = x * 2
        del y
        z = x + 1
        z.sum().item()
    mem = prof.memory_events()
    assert mem and {m.device for m in mem} == {"cpu:0"}
    assert any(m.bytes < 0 for m in mem) and any(m.bytes >= 256 * 256 * 4 for m in mem)
    for before, after in zip(mem, mem[1:]):  # the running total moves by each event's bytes
        assert after.allocated == before.allocated + after.bytes
        assert after.reserved >= after.allocated
    stats = flow.cpu.memory_stats() if hasattr(flow.cpu, "memory_stats") else None
    del stats
    table = prof.key_averages().table()
    assert "CPU Mem" in table


def test_graph_actors_and_dataloader_waits():
    model, _ = _model()

    class Infer(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = model

        def build(self, x):
            return self.m(x)

    g = Infer()
    x = flow.randn(8, 16)
    g(x)  # compile outside the profile
    data = flow.utils.data.TensorDataset(flow.randn(12, 16))
    loader = flow.utils.data.DataLoader(data, batch_size=4)
    with profiler.profile() as prof:
        out = g(x)
        for (batch,) in loader:
            batch.sum()
    np.testing.assert_allclose(out.numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)
    actors = [e for e in prof.events() if e.kind == "actor"]
    assert actors and all(e.extra == 0 for e in actors)  # one iteration
    waits = [e for e in prof.events() if e.name.startswith("enumerate(DataLoader)#")]
    assert len(waits) == 4  # three batches and the StopIteration


def test_schedule_steps_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    model, opt = _model()
    x, y = flow.randn(8, 16), flow.randint(0, 4, (8,))
    ready = []
    with profiler.profile(schedule=profiler.schedule(wait=1, warmup=1, active=2), on_trace_ready=ready.append,
                          profile_memory=True) as prof:
        for _ in range(4):
            _train_step(model, opt, x, y)
            prof.step()
    assert ready == [prof]
    steps = [e.name for e in prof.events() if e.name.startswith("ProfilerStep#")]
    assert steps == ["ProfilerStep#2", "ProfilerStep#3"]
    png = tmp_path / "step.png"
    prof.plot(str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="ProfilerStep#9"):
        prof.plot(str(png), step=9)


def test_schedule_step_covers_its_kernels():
    # A step's ops count their kernels' CPU time; the step's range must end after them, or its
    # self time (total minus the ops') is negative, as it was when the range ended at the last enqueue.
    conv, x = flow.nn.Conv2d(3, 16, 3), flow.randn(8, 3, 64, 64)
    rows = []
    def keep(p):
        rows.extend(e for e in p.key_averages() if e.key.startswith("ProfilerStep#"))
    with profiler.profile(schedule=profiler.schedule(wait=1, warmup=1, active=2), on_trace_ready=keep) as prof:
        for _ in range(4):
            conv(x).relu()
            prof.step()
    assert [e.key for e in rows] == ["ProfilerStep#2", "ProfilerStep#3"]
    for e in rows:
        assert e.self_cpu_time_total >= 0, (e.key, e.self_cpu_time_total, e.cpu_time_total)


def test_profiles_do_not_nest_and_off_records_nothing():
    with profiler.profile():
        with pytest.raises(RuntimeError, match="already recording"):
            with autograd_profiler.profile():
                pass
    assert not flow._C._profiler_active()
    assert flow._C._profiler_stop() == []  # nothing was recording
    with autograd_profiler.profile(enabled=False) as off:
        flow.ones(3).sum()
    assert list(off.key_averages()) == []


@pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")
def test_collectives_on_two_ranks_and_merge(tmp_path):
    script = tmp_path / "prof_ranks.py"
    script.write_text(textwrap.dedent(f"""
        import monoflow as flow
        import monoflow.distributed as dist
        from monoflow import profiler
        dist.init_process_group("gloo")
        t = flow.ones(1024) * (dist.get_rank() + 1)
        with profiler.profile() as prof:
            dist.all_reduce(t)
            dist.barrier()
        assert t[0].item() == 3.0
        prof.export_chrome_trace(r"{tmp_path}/rank%d.json" % dist.get_rank())
        dist.destroy_process_group()
    """))
    run = subprocess.run([sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", "2", str(script)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    merged = tmp_path / "merged.json"
    run = subprocess.run([sys.executable, "-m", "monoflow.profiler.merge", str(merged), str(tmp_path / "rank0.json"),
                          str(tmp_path / "rank1.json")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    events = _check_trace(json.loads(merged.read_text()))
    ranks = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert ranks == {"rank 0", "rank 1"}
    colls = [e for e in events if e.get("cat") == "collective"]
    reduces = [e for e in colls if e["name"] == "all_reduce"]
    assert len(reduces) == 2 and all(e["args"]["bytes"] == 4096 and e["args"]["peer"] == "all" for e in reduces)
    assert len({e["pid"] for e in reduces}) == 2
    assert sum(e["name"] == "barrier" for e in colls) == 2


def test_torchs_experimental_config_is_accepted():
    # torch's profiler recipe passes torch._C._profiler._ExperimentalConfig(verbose=True)
    from monoflow.profiler import ProfilerActivity, profile

    config = flow._C._profiler._ExperimentalConfig(verbose=True)
    assert config.kwargs == {"verbose": True}
    with profile(activities=[ProfilerActivity.CPU], experimental_config=config) as prof:
        flow.randn(8).sum()
    assert "sum" in [e.key for e in prof.key_averages()]
