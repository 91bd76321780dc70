#!/usr/bin/env bash
# GPU benchmark at the paper's Tables 1-4 sizes, for a machine with a CUDA
# device (an H100: sm_90). Builds pscr-bench with CUDA (Release) into
# ${PSCR_BUILD_DIR:-build-gpu-bench} and runs all four tables with
# --backend cuda: plan time, device-only solve time (CUDA events, median and
# min of REPEAT), pinned H2D/D2H transfer times, host-API time, the paper's
# GTX 1080 Ti columns and the speedup, every size verified first.
# Results go to bench/results/DATE-h100-LABEL/: bench.txt (table and any
# per-size errors), bench.csv, device.txt. About 3-6 minutes on an H100.
#
#   bash scripts/bench-gpu.sh LABEL [more pscr-bench options, e.g. --max-n 1024]
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: bash scripts/bench-gpu.sh LABEL [pscr-bench options]}
shift
build=${PSCR_BUILD_DIR:-build-gpu-bench}
out=bench/results/$(date -u +%F)-h100-$label
mkdir -p "$out" "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF \
  > "$build/bench-gpu-build.log" 2>&1 || { tail -30 "$build/bench-gpu-build.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target pscr-bench >> "$build/bench-gpu-build.log" 2>&1 ||
  { tail -30 "$build/bench-gpu-build.log"; exit 1; }
{
  date -u
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  git status --short 2>/dev/null | head -20 || true
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  lscpu | grep -E "Model name|^CPU\(s\)" || true
} > "$out/device.txt" 2>&1 || true
set +e
"$build/bench/pscr-bench" --backend cuda --repeat "${REPEAT:-10}" --csv "$out/bench.csv" "$@" 2>&1 |
  tee "$out/bench.txt"
rc=${PIPESTATUS[0]}
set -e
echo "pscr-bench rc=$rc; results in $out"
exit "$rc"
