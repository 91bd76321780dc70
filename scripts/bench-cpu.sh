#!/usr/bin/env bash
# CPU benchmark at the paper's Tables 1-4 sizes; results go to
# bench/results/DATE-cpu-HOST/ (table, CSV, machine description).
# Run it on an otherwise idle machine: OpenMP barriers stall when another
# process holds a core.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh -DPSCR_ENABLE_CUDA=OFF >/dev/null
out=bench/results/$(date -u +%F)-cpu-$(hostname -s)
mkdir -p "$out"
{
  date -u
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz|L2|L3"
  free -g | head -2
  gcc --version | head -1
} > "$out/machine.txt"
build=${PSCR_BUILD_DIR:-build}
"$build/bench/pscr-bench" --backend cpu --repeat "${REPEAT:-5}" --csv "$out/cpu.csv" "$@" | tee "$out/cpu.txt"
