#!/usr/bin/env bash
# Where the device time of one solve goes: Nsight Compute's metrics of every
# kernel of one pscr_solve_device, summed per kernel (scripts/ncu-sum.py).
# pscr-gpu-once --once brackets its one device solve with
# cudaProfilerStart / cudaProfilerStop, and ncu profiles only that range: the
# plan's probe solve and the host-API solve are left out. Prints to stdout
# (nothing is written into the tree).
#   scripts/gpu-profile.sh [-M METRICS] BUILD_DIR "p2 4096" "h2 4095 16" "p3 255 --float" ...
# -M METRICS (comma-separated ncu metrics) adds to the kernel durations, e.g.
#   scripts/gpu-profile.sh -M sm__inst_executed.sum,dram__bytes.sum build-gpu "p3 255"
# With --nrhs K in a case, the profiled solve is one batch of K.
set -u
here=$(dirname "$0")
extra=""
while getopts "M:" opt; do
  case $opt in
  M) extra=$OPTARG ;;
  *) sed -n '2,11p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n '2,11p' "$0"; exit 2; }
build=$1
shift
metrics=gpu__time_duration.sum${extra:+,$extra}
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
for spec in "$@"; do
  echo "== $spec (kernel, ms per solve, launches per solve)"
  # shellcheck disable=SC2086
  ncu --csv --profile-from-start off --metrics "$metrics" \
    "$build/bench/pscr-gpu-once" $spec --once 2>/dev/null > "$csv" || { echo "ncu failed"; continue; }
  python3 "$here/ncu-sum.py" "$csv"
done
