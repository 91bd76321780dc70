#!/usr/bin/env bash
# pscr-dist-bench on the GPUs of one host, the run behind a results folder's
# dist-gpu.csv (bench/results/h200-x2/, h200-x4/): device arrays, one rank
# per GPU, NCCL between them, the planner's local plans, the transpose
# baseline beside pscr. Cases, for P = 1 .. GPUS (powers of two):
#   strong  3D N^3 for N in STRONG (default 511,1023), with the baseline;
#   weak    3D (N P) x N^2 for N = WEAK (default 1023) and P >= 2, with the
#           baseline (its P = 1 point is the strong N^3 row);
#   large   3D LARGE^3 on GPUS ranks, pscr only (default 1535; LARGE=none
#           skips it).
# Each case's rows go to OUT/<case>.csv, then all into OUT/dist-gpu.csv.
# Ranks are not bound (Open MPI binds each of two ranks or fewer to one
# core, which starves the host stages) and share the host's cores.
#
#   bash scripts/bench-dist-gpu.sh BUILD GPUS OUT
#
# Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT=1 and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the environment.
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: bench-dist-gpu.sh BUILD GPUS OUT" >&2; exit 2; }
build=$1 gpus=$2 out=$3
tool=$build/bench/pscr-dist-bench
[ -x "$tool" ] || { echo "bench-dist-gpu: $tool not built (PSCR_ENABLE_MPI, CUDA)" >&2; exit 2; }
[[ $gpus =~ ^[1-9][0-9]*$ ]] || { echo "bench-dist-gpu: GPUS is '$gpus', want a count" >&2; exit 2; }
mkdir -p "$out" || exit 2
threads=$(( $(nproc) / gpus )); [ "$threads" -ge 1 ] || threads=1
status=0
run() { # name ranks args...
  local name=$1 np=$2; shift 2
  echo "bench-dist-gpu: $name: mpiexec -n $np $tool $*" >&2
  OPENBLAS_NUM_THREADS=$threads mpiexec -n "$np" --oversubscribe --bind-to none \
    -x OPENBLAS_NUM_THREADS "$tool" --backend cuda --devices "$gpus" --device-arrays \
    --planner estimate --threads "$threads" --2d none --csv "$out/$name.csv" "$@" || status=1
}
ranks=()
for ((p = 1; p <= gpus; p *= 2)); do ranks+=("$p"); done
for p in "${ranks[@]}"; do
  run "strong-p$p" "$p" --3d "${STRONG:-511,1023}" --baseline --repeat 5
done
if [ "${WEAK:-1023}" != none ]; then
  for p in "${ranks[@]}"; do
    [ "$p" -ge 2 ] && run "weak-p$p" "$p" --3d "${WEAK:-1023}" --weak --baseline --repeat 3
  done
fi
[ "${LARGE:-1535}" != none ] && run "large-p$gpus" "$gpus" --3d "${LARGE:-1535}" --repeat 3
# One CSV: the header once, then every case's rows.
first=1
for f in "$out"/strong-p*.csv "$out"/weak-p*.csv "$out"/large-p*.csv; do
  [ -s "$f" ] || continue
  if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
done > "$out/dist-gpu.csv"
echo "bench-dist-gpu: $out/dist-gpu.csv ($(($(wc -l < "$out/dist-gpu.csv") - 1)) rows)" >&2
exit $status
