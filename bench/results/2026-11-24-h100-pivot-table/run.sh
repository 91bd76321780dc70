#!/usr/bin/env bash
source .carry/dev.sh || exit 1
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
( cd /tmp/bd && timeout 200 ctest -L gpu 2>&1 | tail -4; timeout 300 ./tests/test_cuda 2>&1 | grep -E "pivot table case|Checks|:F:|:E:" | tail -60 ) | tee $OUT/test_cuda.txt
G=/tmp/bd/bench/pscr-gpu-once
CS=compute-sanitizer
( PSCR_ONCE=1 timeout 150 $CS --tool memcheck $G p2 1100 8 2>&1 | tail -3
  PSCR_ONCE=1 PSCR_CUDA_FUSE=1 timeout 150 $CS --tool memcheck $G p2 1025 16 --nrhs 2 2>&1 | tail -3 ) > $OUT/sanitizer.txt 2>&1
cat $OUT/sanitizer.txt
P=/tmp/bd/bench/pscr-precision
for r in 1 2; do
  for m in auto 0; do
    echo "== pivtab $m"
    if [ $m = auto ]; then $P --profile --max-n2 4095 --max-n3 63 --repeat 20 2>&1; else PSCR_CUDA_PIVTAB=0 $P --profile --max-n2 4095 --max-n3 63 --repeat 20 2>&1; fi
  done
done > $OUT/precision-pivtab-vs-none.txt
grep -E "^==|(4095|2047)  R" -A1 $OUT/precision-pivtab-vs-none.txt | grep -v "^--" | head -40
