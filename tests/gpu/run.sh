#!/usr/bin/env bash
# The CUDA checks, on a machine with an NVIDIA GPU. One script, a few minutes:
#   1. build monoflow (with devices/cuda) into the current Python,
#   2. the CUDA plugin's own tests,
#   3. NCCL with a world of 1, the CUDA-with-Gloo path on 2 ranks,
#   4. a short benchmark beside a CUDA PyTorch when one is installed,
#   5. the cross-backend suite on "cuda".
# Every step runs even when an earlier one failed; results (logs, junit
# files, the summary) go to $OUT when it is set, else to ./gpu-results.
# It needs nothing from the network beyond what is already installed: the
# pip step is tried and its failure only logged. The whole run keeps within
# $BUDGET seconds (default 560, under a 10-minute device command): each step
# gets the smaller of its own limit and what is left, and is skipped when
# less than 20 s remain.
#
#   bash tests/gpu/run.sh            # from the repository root
set -u
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/gpu-results}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
BUDGET="${BUDGET:-560}"
START=$(date +%s)
step() {  # step NAME TIMEOUT_S CMD...: runs CMD, logs it, records its status and time
  local name=$1 limit=$2; shift 2
  local left=$(( BUDGET - ($(date +%s) - START) ))
  if [ "$left" -lt 20 ]; then note "$(printf '%-14s skipped: out of time' "$name")"; return 0; fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  note "$(printf '%-14s rc=%-3s %4ss  (%s)' "$name" "$rc" "$(( $(date +%s) - t0 ))" "$OUT/$name.log")"
  tail -3 "$OUT/$name.log" | sed 's/^/    /' | tee -a "$SUMMARY"
  return 0
}

note "== $(date -u) on $(hostname)"
(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "nvidia-smi: none") 2>&1 | tee -a "$SUMMARY"
(command -v nvcc && nvcc --version | tail -1 || echo "nvcc: not on PATH (the plugin will not be built)") 2>&1 | tee -a "$SUMMARY"
"$PY" --version 2>&1 | tee -a "$SUMMARY"

# 1. Build, for this card's architecture only (nvidia-smi's compute_cap, e.g. 9.0 -> 90).
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
step deps 60 "$PY" -m pip install --quiet "scikit-build-core>=0.10" "cython>=3.0" scipy-openblas32 numpy pytest hypothesis ninja cmake
ARCHS="${MONOFLOW_CUDA_ARCHS:-${CAP:-80;90}}"
note "CUDA archs: $ARCHS"
step build 300 "$PY" -m pip install --no-build-isolation -e . -Ccmake.define.MONOFLOW_CUDA_ARCHS="$ARCHS" -Cbuild-dir=build/gpu
step import 30 "$PY" -c "
import monoflow as flow
from monoflow import _plugins
print('cuda available:', flow.cuda.is_available(), 'devices:', flow.cuda.device_count())
print('skipped:', _plugins.skipped(), 'failed:', _plugins.failed())
print(flow.cuda.get_device_name(0) if flow.cuda.is_available() else 'no cuda device')
"

# 2. The plugin's own tests (every kernel family against the CPU).
step plugin_tests 120 "$PY" -m pytest -q -p no:cacheprovider tests/test_cuda_plugin.py --junitxml="$OUT/plugin_tests.xml"

# 3. Collectives: NCCL, world of 1; CUDA tensors through Gloo on 2 ranks.
step nccl_world1 45 "$PY" tests/gpu/collectives.py nccl
step gloo_2ranks 60 "$PY" -m monoflow.distributed.launch --nproc-per-node 2 tests/gpu/collectives.py gloo

# 4. Benchmarks: the CUDA plugin beside CUDA PyTorch (when installed).
step bench 60 "$PY" tests/gpu/bench_cuda.py

# 5. The cross-backend suite on "cuda" last: it gets whatever time is left.
step cross_backend 180 "$PY" -m pytest -q -p no:cacheprovider tests -k cuda --maxfail=20 \
  --ignore=tests/test_cuda_plugin.py --junitxml="$OUT/cross_backend.xml"


note "== done $(date -u)"
