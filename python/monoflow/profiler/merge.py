"""``python -m monoflow.profiler.merge OUT IN...``: joins the Chrome traces that ranks wrote into one file.

Each input keeps its own process lane (named by its rank); process ids that collide (ranks on different
hosts) are renumbered. Times stay as written: ranks on one host share CLOCK_MONOTONIC, so their lanes line
up; across hosts they are only as aligned as the hosts' clocks."""
import argparse
import json
import sys


def merge(paths):
    """The merged trace dict of the given trace files."""
    events, used = [], set()
    for index, path in enumerate(paths):
        with open(path) as f:
            trace = json.load(f)
        items = trace["traceEvents"] if isinstance(trace, dict) else trace
        pids = {e.get("pid") for e in items if "pid" in e}
        remap = {}
        for pid in sorted(pids, key=str):
            new = pid
            while new in used:
                new = (new if isinstance(new, int) else 0) + 1_000_000 * (index + 1)
            remap[pid] = new
            used.add(new)
        for e in items:
            if "pid" in e:
                e = dict(e, pid=remap[e["pid"]])
            events.append(e)
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m monoflow.profiler.merge",
                                     description="Join the Chrome trace files of several ranks into one.")
    parser.add_argument("out", help="the merged trace to write")
    parser.add_argument("inputs", nargs="+", help="the ranks' trace files")
    args = parser.parse_args(argv)
    merged = merge(args.inputs)
    with open(args.out, "w") as f:
        json.dump(merged, f)
    print(f"merged {len(args.inputs)} traces ({len(merged['traceEvents'])} events) into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
