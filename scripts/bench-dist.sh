#!/usr/bin/env bash
# pscr-dist-bench on 1, 2, ... MAXRANKS ranks (mpiexec), the threads of the
# machine shared out (THREADS / ranks each, at least 1: pscr's through
# --threads, OpenBLAS's through OPENBLAS_NUM_THREADS, whose default is every
# core in every rank: their workers, spinning after each product, then
# crowd the other ranks' threads), every run's rows into one CSV. Run it on
# an otherwise idle machine.
#
#   bash scripts/bench-dist.sh BUILD MAXRANKS THREADS CSV [pscr-dist-bench options...]
#
# e.g. bash scripts/bench-dist.sh build 4 16 dist.csv --2d 1023,4095 --3d 127,255
# Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT=1 and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the environment.
set -uo pipefail
[ $# -ge 4 ] || { echo "usage: bench-dist.sh BUILD MAXRANKS THREADS CSV [options...]" >&2; exit 2; }
build=$1 maxranks=$2 threads=$3 csv=$4
shift 4
tool=$build/bench/pscr-dist-bench
[ -x "$tool" ] || { echo "bench-dist: $tool not built (PSCR_ENABLE_MPI)" >&2; exit 2; }
status=0 tmp=$(mktemp)
: >"$csv"
for ((np = 1; np <= maxranks; np++)); do
  t=$((threads / np)); [ "$t" -ge 1 ] || t=1
  echo "bench-dist: $np rank(s), $t thread(s) each: mpiexec -n $np $tool --threads $t $*" >&2
  OPENBLAS_NUM_THREADS=$t mpiexec -n "$np" --oversubscribe --bind-to none -x OPENBLAS_NUM_THREADS "$tool" --threads "$t" --csv "$tmp" "$@" || status=1
  if [ -s "$tmp" ]; then
    if [ -s "$csv" ]; then tail -n +2 "$tmp" >>"$csv"; else cat "$tmp" >"$csv"; fi
  fi
done
rm -f "$tmp"
exit $status
