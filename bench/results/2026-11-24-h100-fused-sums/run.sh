#!/usr/bin/env bash
source .carry/dev.sh || exit 1
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
( cd /tmp/bd && timeout 300 ./tests/test_cuda 2>&1 | grep -E "fused case|Checks|fail|Fail" | tail -30 ) | tee $OUT/test_cuda.txt
G=/tmp/bd/bench/pscr-gpu-once
CS=compute-sanitizer
( PSCR_ONCE=1 PSCR_CUDA_FUSE=1 timeout 200 $CS --tool racecheck $G p2 300 8 2>&1 | tail -3
  PSCR_ONCE=1 PSCR_CUDA_FUSE=1 timeout 200 $CS --tool racecheck $G p2 255 16 2>&1 | tail -3
  PSCR_ONCE=1 PSCR_CUDA_FUSE=1 timeout 200 $CS --tool memcheck $G h2 300 4 2>&1 | tail -3
  PSCR_ONCE=1 PSCR_CUDA_FUSE=1 timeout 200 $CS --tool memcheck $G p2 700 16 --nrhs 3 2>&1 | tail -3 ) > $OUT/sanitizer.txt 2>&1
cat $OUT/sanitizer.txt
P=/tmp/bd/bench/pscr-precision
for r in 1 2; do
  for m in auto 0; do
    echo "== fuse $m"
    if [ $m = auto ]; then $P --profile --max-n2 4095 --max-n3 63 --repeat 20 2>&1; else PSCR_CUDA_FUSE=0 $P --profile --max-n2 4095 --max-n3 63 --repeat 20 2>&1; fi
  done
done > $OUT/precision-auto-vs-unfused.txt
grep -E "^==|(4095|2047|1023)  [RC]" -A1 $OUT/precision-auto-vs-unfused.txt | grep -v "^--" | head -70
