#!/usr/bin/env bash
# The README's set-up, as a new user walks it: a fresh clone of this checkout's
# HEAD, a clean virtual environment, then the README's two commands (read from
# README.md by .ci/readme_command.py), main job first. Slow (two builds' worth
# of pip install): run by hand or in a CI stage, not inside the test suite.
#   bash tests/readme/check_readme.sh [WORKDIR]
#   CHECK_README_LINES=main bash tests/readme/check_readme.sh   # one line only
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${1:-$(mktemp -d)}"
git clone -q "$SRC" "$WORK/clone"
python3 -m venv "$WORK/venv"
# shellcheck disable=SC1091
. "$WORK/venv/bin/activate"
cd "$WORK/clone"
python -m pip install --quiet --upgrade pip
for which in ${CHECK_README_LINES:-main test}; do
  cmd="$(python .ci/readme_command.py "$which")"
  echo "+ $cmd"
  start=$SECONDS
  bash -c "$cmd"
  echo "README '$which' command: ok in $((SECONDS - start)) s"
done
