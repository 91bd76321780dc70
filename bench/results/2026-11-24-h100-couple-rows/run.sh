#!/usr/bin/env bash
# Final couplings (couple_grid rule): tree (full, tests) against HEAD fbe3b85 (.carry/old.tar), alternated twice.
rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j6 --target pscr-precision >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
source .carry/dev.sh || exit 1
wait
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
( cd /tmp/bd && timeout 200 ctest -L gpu 2>&1 | grep -E "tests passed|Failed"; timeout 300 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:" | tail -30 ) | tee $OUT/test_cuda.txt
( echo "== memcheck p2 4095 16 (level-1 couplings at 4 entries per thread)"; PSCR_ONCE=1 timeout 200 compute-sanitizer --tool memcheck /tmp/bd/bench/pscr-gpu-once p2 4095 16 2>&1 | tail -2 ) | tee $OUT/sanitizer.txt
for r in 1 2; do for v in new old; do
  echo "== $v run $r"
  B=/tmp/bd/bench; [ $v != new ] && B=/tmp/$v/b/bench
  $B/pscr-precision --profile --max-n2 4095 --max-n3 127 --repeat 20 2>&1
done; done | tee $OUT/precision-final.txt | grep -A1 -E "== |poisson2d +4095" | grep -E "==|4095"
