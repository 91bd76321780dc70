#!/usr/bin/env bash
# Fused forward-only (double 16 rows) + no-yb layout + sums unroll 4: tests, sanitizers, A/B bench.
source .carry/dev.sh || exit 1
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
( cd /tmp/bd && timeout 200 ctest -L gpu 2>&1 | grep -E "tests passed|Failed"; timeout 300 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:|fused case (0|7|14|21|28|35|42|49|56|63|70|77) " | tail -30 ) | tee $OUT/test_cuda.txt
B=/tmp/bd/bench
( echo "== memcheck p2 4095 16 (double, forward levels fused)"; PSCR_ONCE=1 timeout 200 compute-sanitizer --tool memcheck $B/pscr-gpu-once p2 4095 16 2>&1 | tail -3
  echo "== racecheck PSCR_CUDA_FUSE=1 p2 1100 16 (pivot table, fused)"; PSCR_ONCE=1 PSCR_CUDA_FUSE=1 timeout 200 compute-sanitizer --tool racecheck $B/pscr-gpu-once p2 1100 16 2>&1 | tail -3 ) | tee $OUT/sanitizer.txt
for r in 1 2; do for m in auto 0; do
  echo "== fuse $m run $r"
  if [ $m = 0 ]; then PSCR_CUDA_FUSE=0 $B/pscr-precision --profile --max-n2 4095 --max-n3 63 --repeat 20; else $B/pscr-precision --profile --max-n2 4095 --max-n3 63 --repeat 20; fi 2>&1
done; done | tee $OUT/precision-auto-vs-unfused.txt | grep -A1 -E "== |poisson2d +(2047|4095)|helm2d +4095"
