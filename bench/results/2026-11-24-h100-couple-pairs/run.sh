#!/usr/bin/env bash
# Couplings with shared stencil loads (couple_two, S1 kernels): GPU tests, A/B against -DPSCR_WHATIF_OLD_COUPLE, ncu of the new couplings.
rm -rf /tmp/old && mkdir -p /tmp/old && cp -r CMakeLists.txt cmake include src gpu eigen problems bench examples tests /tmp/old/
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF -DCMAKE_CUDA_FLAGS=-DPSCR_WHATIF_OLD_COUPLE > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j6 --target pscr-precision >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
source .carry/dev.sh || exit 1
wait
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
( cd /tmp/bd && timeout 200 ctest -L gpu 2>&1 | grep -E "tests passed|Failed"; timeout 300 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:" | tail -30 ) | tee $OUT/test_cuda.txt
( echo "== memcheck p3 63 (3D: both coupling kernels)"; PSCR_ONCE=1 timeout 200 compute-sanitizer --tool memcheck /tmp/bd/bench/pscr-gpu-once p3 63 2>&1 | tail -2 ) | tee $OUT/sanitizer.txt
for r in 1 2; do for v in new old; do
  echo "== $v run $r"
  B=/tmp/bd/bench; [ $v = old ] && B=/tmp/old/b/bench
  $B/pscr-precision --profile --max-n2 4095 --max-n3 127 --repeat 20 2>&1
done; done | tee $OUT/precision-couple.txt | grep -A1 -E "== |poisson2d +(2047|4095)|helm2d +4095|3d +127"
PSCR_ONCE=1 ncu --kernel-name regex:k_couple --launch-count 2 --section SpeedOfLight --section Occupancy /tmp/bd/bench/pscr-gpu-once p2 4095 16 2>&1 | grep -E "k_couple|Duration|DRAM Throughput|Achieved Occupancy|Compute \(SM\)" | tee $OUT/ncu-couple.txt
