#!/usr/bin/env bash
# Where the device time of one solve goes: Nsight Compute's metrics of every
# kernel of one pscr_solve_device, summed per kernel (scripts/ncu-sum.py).
# pscr-gpu-once with PSCR_ONCE=1 brackets its one device solve with
# cudaProfilerStart / cudaProfilerStop, and ncu profiles only that range: the
# plan's probe solve and the host-API solve are left out.
#   scripts/gpu-profile.sh BUILD_DIR "p2 4096" "h2 4095 16" "p3 255 --float" ...
# METRICS (comma-separated ncu metrics) adds to the kernel durations, e.g.
#   METRICS=sm__inst_executed.sum,dram__bytes.sum scripts/gpu-profile.sh ...
# With --nrhs K in a case, the profiled solve is one batch of K.
set -u
here=$(dirname "$0")
build=$1
shift
metrics=gpu__time_duration.sum${METRICS:+,$METRICS}
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
for spec in "$@"; do
  echo "== $spec (kernel, ms per solve, launches per solve)"
  # shellcheck disable=SC2086
  PSCR_ONCE=1 ncu --csv --profile-from-start off --metrics "$metrics" \
    "$build/bench/pscr-gpu-once" $spec 2>/dev/null > "$csv" || { echo "ncu failed"; continue; }
  python3 "$here/ncu-sum.py" "$csv"
done
