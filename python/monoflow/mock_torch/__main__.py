"""``eval $(python -m monoflow.mock_torch [enable|disable] [--lazy] [--verbose])``: prints the shell
commands that make every Python started from the shell see monoflow as ``torch`` (a directory
with a ``torch`` package that enables the mock, first on PYTHONPATH), or undo that."""
import argparse
import os
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m monoflow.mock_torch")
    parser.add_argument("mock", choices=["enable", "disable"], nargs="?", default="enable",
                        help="enable/disable mocking 'import torch' (default: enable)")
    parser.add_argument("--lazy", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != _HERE]
    if args.mock == "enable":
        print(f"export MONOFLOW_MOCK_TORCH_LAZY={int(args.lazy)}; export MONOFLOW_MOCK_TORCH_VERBOSE="
              f"{int(args.verbose)}; export PYTHONPATH={os.pathsep.join([_HERE] + paths)}")
    else:
        print(f"export PYTHONPATH={os.pathsep.join(paths)}; unset MONOFLOW_MOCK_TORCH_LAZY; "
              "unset MONOFLOW_MOCK_TORCH_VERBOSE")


if __name__ == "__main__":
    main()
