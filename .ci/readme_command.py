"""Prints one of the README's two set-up commands: `main` (install and run the
main job) or `test` (install the test extras and run the suite).

They are the two lines of the first fenced block under "## Set-up", each
`pip install ".[EXTRA]" && ...`; CI and tests/readme/check_readme.sh run them
from here, so what the README says is what is checked."""
import os
import re
import sys

EXTRA = {"main": "examples", "test": "test"}


def setup_commands(readme_text):
    section = readme_text.split("## Set-up", 1)[1]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", section, re.S).group(1)
    commands = {}
    for line in block.splitlines():
        line = line.split("  #", 1)[0].strip()  # a trailing comment is for the reader
        m = re.match(r'pip install "\.\[(\w+)\]"', line)
        if m:
            commands[m.group(1)] = line
    return commands


def main(which):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        commands = setup_commands(f.read())
    extra = EXTRA[which]
    if extra not in commands:
        sys.exit(f"README.md's set-up block has no `pip install \".[{extra}]\" && ...` line")
    print(commands[extra])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "test")
