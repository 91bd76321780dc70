#!/usr/bin/env bash
# Pair sums in one pass: full build + GPU tests (tree), and an A/B of pscr-precision against -DPSCR_WHATIF_OLD_SUMS.
rm -rf /tmp/old && mkdir -p /tmp/old && cp -r CMakeLists.txt cmake include src gpu eigen problems bench examples tests /tmp/old/
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF -DCMAKE_CUDA_FLAGS=-DPSCR_WHATIF_OLD_SUMS > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j6 --target pscr-precision >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
source .carry/dev.sh || exit 1
wait
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
( cd /tmp/bd && timeout 200 ctest -L gpu 2>&1 | grep -E "tests passed|Failed"; timeout 300 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:|fused case (0|7|14|21|28|35|42|49|56|63|70|77) " | tail -30 ) | tee $OUT/test_cuda.txt
( echo "== racecheck PSCR_CUDA_FUSE=1 p2 1100 16"; PSCR_ONCE=1 PSCR_CUDA_FUSE=1 timeout 200 compute-sanitizer --tool racecheck /tmp/bd/bench/pscr-gpu-once p2 1100 16 2>&1 | tail -2 ) | tee $OUT/sanitizer.txt
for r in 1 2; do for v in new old; do
  echo "== $v run $r"
  B=/tmp/bd/bench; [ $v = old ] && B=/tmp/old/b/bench
  $B/pscr-precision --profile --max-n2 4095 --max-n3 63 --repeat 20 2>&1
done; done | tee $OUT/precision-pair-sums.txt | grep -A1 -E "== |poisson2d +(2047|4095)|helm2d +4095"
