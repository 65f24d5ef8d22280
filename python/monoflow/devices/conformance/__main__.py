"""python -m monoflow.devices.conformance TARGET [--json OUT] [--suite contract|ops] [-v]"""
import argparse
import sys

from monoflow.devices.conformance import run


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m monoflow.devices.conformance",
                                     description="Checks a monoflow device plugin against the ABI contract "
                                                 "and the CPU's results.")
    parser.add_argument("target", help="a registered device type (cpu, testdev, opencl...) or a plugin library path")
    parser.add_argument("--json", metavar="OUT", help="also write the report as JSON to OUT")
    parser.add_argument("--suite", action="append", choices=["contract", "ops"],
                        help="run only this suite (repeatable; default: both)")
    parser.add_argument("--examples", type=int, default=None,
                        help="random cases per (op, dtype) (default 6)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random cases (default 0)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds a single check may run before it counts as hung (default 300)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every check with its detail")
    args = parser.parse_args(argv)
    try:
        report = run(args.target, suites=tuple(args.suite or ("contract", "ops")), examples=args.examples,
                     seed=args.seed, timeout=args.timeout)
    except ValueError as exc:
        parser.error(str(exc))
    report.print(verbose=args.verbose)
    if args.json:
        report.write_json(args.json)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
