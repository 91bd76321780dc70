#!/usr/bin/env bash
# Order-8191 eigen timings on this machine: the tree's eigen/ (new) against
# the eigen/ of commit OLD (old), built alike, alternating ROUNDS times,
# 1 and 2 threads, complex Helmholtz (c) and real Poisson (r); the driver
# is ../2026-11-24-h100host-eigen-threads/drv.c (median of 7 after a
# warm-up). Usage (from the repo root): run.sh OUTFILE [OLD] [ROUNDS]
set -euo pipefail
out=$1; old=${2:-f2589d1}; rounds=${3:-3}
D=bench/results/2026-11-24-h100host-eigen-threads
w=$(mktemp -d)
mkdir -p "$w/old" "$w/inc"
git archive "$old" eigen | tar -xf - -C "$w/old"
cat > "$w/inc/pscr_config.h" <<'H'
#ifndef PSCR_CONFIG_H
#define PSCR_CONFIG_H
#define PSCR_VERSION_MAJOR 0
#define PSCR_VERSION_MINOR 1
#define PSCR_VERSION_PATCH 0
#define PSCR_VERSION_STRING "0.1.0"
#define PSCR_HAVE_CUDA 0
#endif
H
F="-O3 -DNDEBUG -march=native -fopenmp -Wno-psabi -Isrc -Iinclude -I$w/inc"
gcc $F -Ieigen -o "$w/new" "$D/drv.c" eigen/eigen.c src/error.c -lm
gcc $F -I"$w/old/eigen" -o "$w/old_b" "$D/drv.c" "$w/old/eigen/eigen.c" src/error.c -lm
{
  echo "# $(date -u +%F) $(nproc) cores:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); old = $old, new = $(git rev-parse --short HEAD)"
  for r in $(seq "$rounds"); do
    for k in c r; do
      for t in 1 2; do
        for b in old_b new; do
          echo -n "round $r $b threads=$t: "
          OMP_NUM_THREADS=$t "$w/$b" $k 8191 7
        done
      done
    done
  done
} | tee "$out"
