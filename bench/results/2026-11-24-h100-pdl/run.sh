#!/usr/bin/env bash
# PDL: tests with it (default) and without, sanitizers, A/B of PSCR_CUDA_PDL in one build.
source .carry/dev.sh || exit 1
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
cd /tmp/bd
( timeout 300 ctest -L gpu 2>&1 | grep -E "tests passed|Failed"
  echo "== test_cuda (PDL on)"; timeout 200 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:" | tail -20
  echo "== test_cuda (PSCR_CUDA_PDL=0)"; PSCR_CUDA_PDL=0 timeout 200 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:" | tail -20 ) | tee $OUT/test_cuda.txt
( for t in memcheck racecheck synccheck; do echo "== $t p2 1023 16"; PSCR_ONCE=1 timeout 120 compute-sanitizer --tool $t ./bench/pscr-gpu-once p2 1023 16 2>&1 | tail -2; done
  echo "== memcheck p3 63 8"; PSCR_ONCE=1 timeout 120 compute-sanitizer --tool memcheck ./bench/pscr-gpu-once p3 63 8 2>&1 | tail -2 ) | tee $OUT/sanitizer.txt
for r in 1 2; do for v in pdl nopdl; do
  echo "== $v run $r"
  if [ $v = pdl ]; then ./bench/pscr-precision --profile --max-n2 4095 --max-n3 127 --repeat 20 2>&1
  else PSCR_CUDA_PDL=0 ./bench/pscr-precision --profile --max-n2 4095 --max-n3 127 --repeat 20 2>&1; fi
done; done > $OUT/precision-ab.txt
grep -E "==|poisson2d +4095" -A1 $OUT/precision-ab.txt | grep -E "==|4095" | head -30
