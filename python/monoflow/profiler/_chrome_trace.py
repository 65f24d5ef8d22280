"""A profile as a Chrome Trace Event file (the JSON chrome://tracing, Perfetto and TensorBoard read).

Lanes: the process is this rank (named "rank R" when a process group is up); each host thread is a lane
(its OS thread id), and each device stream gets its own lane, named "<device> stream <k>", with ids above
any thread id's range. Times are microseconds of CLOCK_MONOTONIC, so the files of ranks on one host line up.
An op's launch and the kernel it ran are joined by a flow arrow (the correlation id)."""
import json
import os

_STREAM_LANE_BASE = 1 << 40  # above every OS thread id

_CATEGORY = {"op": "cpu_op", "kernel": "kernel", "memcpy": "gpu_memcpy", "backward": "autograd",
             "collective": "collective", "actor": "graph_actor", "fallback": "cpu_fallback",
             "user_annotation": "user_annotation"}


def _rank():
    try:
        from monoflow import distributed as dist
        if dist.is_initialized():
            return dist.get_rank()
    except Exception:  # noqa: BLE001 - a trace is written even when the group is broken
        pass
    return None


def build(events, memory, t0_ns):
    """The trace dict for a profile's rows (FunctionEvents, times relative to t0_ns)."""
    pid = os.getpid()
    base_us = t0_ns / 1000.0
    rank = _rank()
    out = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
            "args": {"name": f"rank {rank}" if rank is not None else f"monoflow {pid}"}}]
    if rank is not None:
        out.append({"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0, "args": {"sort_index": rank}})
    lanes = {}  # (device, stream handle) -> lane id

    def lane(e):
        key = (e.device, e.stream)
        if key not in lanes:
            lanes[key] = _STREAM_LANE_BASE + len(lanes)
            out.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": lanes[key],
                        "args": {"name": f"{e.device} stream {len([k for k in lanes if k[0] == e.device]) - 1}"}})
        return lanes[key]

    threads = set()
    for e in events:
        on_stream = e.kind in ("kernel", "memcpy")
        tid = lane(e) if on_stream else e.thread
        if not on_stream:
            threads.add(e.thread)
        args = {}
        if e.device:
            args["device"] = e.device
        if e.correlation:
            args["correlation"] = e.correlation
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.kind in ("memcpy", "collective"):
            args["bytes"] = e.bytes
        if e.kind == "collective":
            args["peer"] = "all" if e.extra < 0 else e.extra
        if e.kind == "actor":
            args["iteration"] = e.extra
        out.append({"name": e.name, "cat": _CATEGORY.get(e.kind, e.kind), "ph": "X", "pid": pid, "tid": tid,
                    "ts": base_us + e.start_us, "dur": max(e.end_us - e.start_us, 0.0), "args": args})
    for e in events:  # flow arrows: launch -> kernel
        if e.kind == "op":
            for k in e.kernels:
                common = {"name": "launch", "cat": "ac2g", "id": e.correlation, "pid": pid}
                out.append(dict(common, ph="s", tid=e.thread, ts=base_us + e.start_us))
                out.append(dict(common, ph="f", bp="e", tid=lanes[(k.device, k.stream)], ts=base_us + k.start_us))
    for t in sorted(threads):
        out.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": t, "args": {"name": f"thread {t}"}})
    for m in memory:
        ts = base_us + m.start_us
        out.append({"name": "[memory]", "cat": "cpu_instant_event", "ph": "i", "s": "t", "pid": pid, "tid": m.thread,
                    "ts": ts, "args": {"Device": m.device, "Bytes": m.bytes, "Total Allocated": m.allocated,
                                       "Total Reserved": m.reserved}})
        out.append({"name": f"Memory {m.device}", "ph": "C", "pid": pid, "ts": ts,
                    "args": {"allocated": m.allocated, "reserved": m.reserved}})
    return {"traceEvents": out, "displayTimeUnit": "ms", "deviceProperties": [],
            "distributedInfo": {"rank": rank} if rank is not None else {}}


def write(path, events, memory, t0_ns):
    with open(path, "w") as f:
        json.dump(build(events, memory, t0_ns), f)
