#!/usr/bin/env bash
# Eigen timings by thread count, the tree's eigen/ (new) against the one in
# OLD_TAR (old), alternating. Usage: run.sh OUTDIR [OLD_TAR] (from the repo root).
set -euo pipefail
out=$1; old=${2:-.carry/eigen_old.tar}
D=$(dirname "$0")
w=$(mktemp -d)
mkdir -p "$w/old" "$w/inc" && tar -xf "$old" -C "$w/old"
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
gcc $F -I"$w/old/eigen" -o "$w/oldb" "$D/drv.c" "$w/old/eigen/eigen.c" src/error.c -lm
{
  echo "# $(date -u +%F) $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  for k in c r; do
    for t in 1 2 4 8 16; do
      [ "$t" -le "$(nproc)" ] || continue
      for b in oldb new; do
        echo -n "$b threads=$t: "
        OMP_NUM_THREADS=$t OMP_PROC_BIND=close "$w/$b" $k 8191 5
      done
    done
  done
} | tee "$out/timing.txt"
