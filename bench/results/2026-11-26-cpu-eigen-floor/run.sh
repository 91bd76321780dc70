#!/usr/bin/env bash
# How fast the complex order-8191 eigenproblem (drv.c of
# 2026-11-24-h100host-eigen-threads) could get with less Gram-Schmidt:
# eigen/ of commit BASE (default 45f8eaf) as is (base), without the window
# update and the batch's V products (no-update-no-v.diff: wrong vectors,
# timing only), with no window at all (no-window.diff: timing only), and
# with the window scaled by min(1, 4 / sqrt(n)) (window-scale.diff),
# alternating. With ORTH=1, test_eigen is then built and run for base and
# window-scale (its per-pencil residual and orthogonality lines).
# Usage: run.sh OUTDIR (from the repo root; needs a configured build/ for
# pscr_config.h, and Check for the ORTH part).
set -euo pipefail
out=$1
base=${BASE:-45f8eaf}
D=$(cd "$(dirname "$0")" && pwd)
drv=bench/results/2026-11-24-h100host-eigen-threads/drv.c
w=$(mktemp -d)
# Worktrees and binaries go on any exit, also when a build step fails.
trap 'for d in "$w"/*/; do git worktree remove --force "$d" 2> /dev/null || true; done; rm -rf "$w"; git worktree prune' EXIT
F="-O3 -DNDEBUG -march=native -fopenmp -Wall -Wextra -Wno-psabi -Isrc -Iinclude -Ibuild/include"
for t in base no-update-no-v no-window window-scale; do
  git worktree add -q --detach "$w/$t" "$base"
  [ "$t" = base ] || git -C "$w/$t" apply "$D/$t.diff"
  gcc $F -I"$w/$t/eigen" -o "$w/$t.bin" $drv "$w/$t/eigen/eigen.c" src/error.c src/env.c -lm
done
{
  echo "# $(date -u +%F) $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), base $base"
  for r in 1 2 3; do
    for t in base no-update-no-v no-window window-scale; do
      echo -n "$t: "
      "$w/$t.bin" c 8191 7
    done
  done
} | tee "$out/timing.txt"
if [ "${ORTH:-0}" = 1 ]; then
  for t in base window-scale; do
    cmake -S "$w/$t" -B "$w/$t/build" -DPSCR_ENABLE_CUDA=OFF > /dev/null
    cmake --build "$w/$t/build" -j2 --target test_eigen > /dev/null
    echo "# $t"
    "$w/$t/build/tests/test_eigen" 2>&1 | grep -E "orthogonality [0-9.]+ |timing|Checks|:F:" || true
  done | tee "$out/eigen-orth.txt"
fi
