#!/usr/bin/env bash
# The complex order-8191 eigenproblem (drv.c of 2026-11-24-h100host-eigen-threads)
# with eigen/ of commit BASE (default 2550de3, base) against BASE plus
# diag-gram.diff (diag), alternating; then perf samples per thread and
# function for each. Usage: run.sh OUTDIR (from the repo root; needs a
# configured build/ for pscr_config.h, and perf for the second part).
set -euo pipefail
out=$1
base=${BASE:-2550de3}
D=$(cd "$(dirname "$0")" && pwd)
drv=bench/results/2026-11-24-h100host-eigen-threads/drv.c
w=$(mktemp -d)
# Worktrees and binaries go on any exit, also when a build step fails.
trap 'for d in "$w"/*/; do git worktree remove --force "$d" 2> /dev/null || true; done; rm -rf "$w"; git worktree prune' EXIT
git worktree add -q --detach "$w/base" "$base"
git worktree add -q --detach "$w/diag" "$base"
git -C "$w/diag" apply "$D/diag-gram.diff"
F="-O3 -DNDEBUG -march=native -fopenmp -Wall -Wextra -Wno-psabi -Isrc -Iinclude -Ibuild/include"
for t in base diag; do
  gcc $F -I"$w/$t/eigen" -o "$w/$t.bin" $drv "$w/$t/eigen/eigen.c" src/error.c src/env.c -lm
done
{
  echo "# $(date -u +%F) $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), base $base"
  for r in 1 2 3; do
    for b in base.bin diag.bin; do
      echo -n "$b: "
      "$w/$b" c 8191 7
    done
  done
} | tee "$out/timing.txt"
if command -v perf > /dev/null; then
  for b in base.bin diag.bin; do
    perf record -q -o "$w/$b.data" "$w/$b" c 8191 5 > /dev/null 2>&1
    echo "# $b: perf samples per thread (pid:comm) and function, 6 calls" 
    perf report -i "$w/$b.data" --no-children --sort pid,symbol --stdio -g none 2> /dev/null |
      grep -v '^#' | grep -v "^$" | sed -n 1,16p
  done | tee "$out/perf.txt"
fi
