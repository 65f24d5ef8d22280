"""python -m tests.fuzz [--minutes N] [--per-target K] [--seed S] [--workers W] [--only NAME ...] [--unnamed [G]]"""
import argparse
import sys

from .cases import PREAMBLE
from .runner import campaign


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    ap.add_argument("--minutes", type=float, default=None, help="keep drawing new rounds for this long")
    ap.add_argument("--per-target", type=int, default=2, help="cases per target and round")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds before a case counts as a hang")
    ap.add_argument("--only", nargs="*", help="substrings of the targets to fuzz (default: all)")
    ap.add_argument("--findings", type=int, default=200, help="how many findings to print")
    ap.add_argument("--unnamed", type=int, nargs="?", const=50, default=0, metavar="G",
                    help="print the G largest groups of messages that do not name the op (default 50)")
    args = ap.parse_args(argv)
    report = campaign(per_target=args.per_target, seed=args.seed, workers=args.workers, timeout=args.timeout,
                      minutes=args.minutes, only=args.only)
    print(report.summary())
    if report.failures():
        print(f"\nReproducers (each after this preamble):\n{PREAMBLE}")
        print(report.format_findings(args.findings))
    if args.unnamed:
        print(f"\nMessages that do not name the op, by pattern ({len(report.unnamed_groups())} patterns):")
        print(report.format_unnamed(args.unnamed))
    return 1 if report.failures(("crash", "hang")) else 0


if __name__ == "__main__":
    sys.exit(main())
