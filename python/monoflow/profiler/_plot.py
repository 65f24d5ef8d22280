"""``profile.plot(path)``: one picture of a recorded step, host threads and streams as lanes over time, with
the allocator's curve below when memory was recorded (matplotlib, optional)."""


def plot(path, events, memory, step=None):
    """Draws the rows between the start and end of ProfilerStep#`step` (the last recorded step when None;
    the whole profile when no step was marked) and saves the figure to `path`."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("profile.plot() needs matplotlib: pip install matplotlib") from e
    steps = [e for e in events if e.kind == "user_annotation" and e.name.startswith("ProfilerStep#")]
    if step is not None:
        steps = [e for e in steps if e.name == f"ProfilerStep#{step}"]
        if not steps:
            raise ValueError(f"profile.plot(): no ProfilerStep#{step} was recorded")
    if steps:
        lo, hi = steps[-1].start_us, steps[-1].end_us
    else:
        rows = [e for e in events if e.kind != "memory"] or [None]
        lo = min((e.start_us for e in rows if e), default=0.0)
        hi = max((e.end_us for e in rows if e), default=1.0)
    shown = [e for e in events if e.end_us >= lo and e.start_us <= hi]
    lanes, streams = {}, {}
    for e in shown:
        if e.kind in ("kernel", "memcpy"):
            k = streams.setdefault((e.device, e.stream), sum(d == e.device for d, _ in streams))
            name = f"{e.device} stream {k}"
        else:
            name = f"thread {e.thread}"
        lanes.setdefault(name, []).append(e)
    mem = [m for m in memory if lo <= m.start_us <= hi]
    fig, axes = plt.subplots(2 if mem else 1, 1, figsize=(12, 2 + 0.6 * len(lanes) + (2 if mem else 0)),
                             squeeze=False, sharex=True)
    ax = axes[0][0]
    colors = {"op": "tab:blue", "kernel": "tab:orange", "memcpy": "tab:red", "backward": "tab:purple",
              "collective": "tab:green", "actor": "tab:brown", "fallback": "tab:pink", "user_annotation": "tab:gray"}
    def depth(e):
        d, p = 0, e.cpu_parent
        while p is not None:
            d, p = d + 1, p.cpu_parent
        return d

    for row, (name, rows) in enumerate(sorted(lanes.items())):
        for e in sorted(rows, key=depth):  # enclosing rows first, nested ones drawn over them, thinner
            height = 0.8 / (1 + depth(e) * 0.5)
            ax.broken_barh([((e.start_us - lo) / 1000.0, max(e.end_us - e.start_us, 0.5) / 1000.0)],
                           (row - height / 2, height), facecolors=colors.get(e.kind, "tab:olive"), alpha=0.8)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels(sorted(lanes))
    ax.set_title("monoflow profile" + (f": {steps[-1].name}" if steps else ""), loc="left")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors.values()]
    ax.legend(handles, list(colors), loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize="small", ncol=8,
              frameon=False)
    if mem:
        mx = axes[1][0]
        for device in sorted({m.device for m in mem}):
            pts = [m for m in mem if m.device == device]
            xs = [(m.start_us - lo) / 1000.0 for m in pts] + [(hi - lo) / 1000.0]  # held to the step's end
            alloc = [m.allocated / 2 ** 20 for m in pts]
            reserved = [m.reserved / 2 ** 20 for m in pts]
            mx.step(xs, alloc + alloc[-1:], where="post", label=f"{device} allocated")
            mx.step(xs, reserved + reserved[-1:], where="post", label=f"{device} reserved", linestyle="--")
        mx.set_ylabel("MiB")
        mx.legend(loc="upper right", fontsize="small")
    axes[-1][0].set_xlabel("ms")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
