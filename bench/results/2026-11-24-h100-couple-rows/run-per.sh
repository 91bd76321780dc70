#!/usr/bin/env bash
# Couplings: row set-up once per row, COUPLE_PER entries per thread. Builds: tree (full, tests), tree with
# -DPSCR_COUPLE_PER=1, and HEAD (.carry/old.tar); then GPU tests and pscr-precision of all three, alternated twice.
rm -rf /tmp/old /tmp/per1 && mkdir -p /tmp/old /tmp/per1 && tar -xf .carry/old.tar -C /tmp/old && cp -r CMakeLists.txt cmake include src gpu eigen problems bench examples tests /tmp/per1/
for v in old per1; do
  F=""; [ $v = per1 ] && F="-DCMAKE_CUDA_FLAGS=-DPSCR_COUPLE_PER=1"
  (cmake -S /tmp/$v -B /tmp/$v/b -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF $F > /tmp/$v.log 2>&1 && cmake --build /tmp/$v/b -j5 --target pscr-precision >> /tmp/$v.log 2>&1 && echo "$v build ok" || tail /tmp/$v.log) &
done
source .carry/dev.sh || exit 1
wait
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
( cd /tmp/bd && timeout 200 ctest -L gpu 2>&1 | grep -E "tests passed|Failed"; timeout 300 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:" | tail -30 ) | tee $OUT/test_cuda.txt
( echo "== memcheck p3 63 (3D: both coupling kernels)"; PSCR_ONCE=1 timeout 200 compute-sanitizer --tool memcheck /tmp/bd/bench/pscr-gpu-once p3 63 2>&1 | tail -2 ) | tee $OUT/sanitizer.txt
for r in 1 2; do for v in new per1 old; do
  echo "== $v run $r"
  B=/tmp/bd/bench; [ $v != new ] && B=/tmp/$v/b/bench
  $B/pscr-precision --profile --max-n2 4095 --max-n3 127 --repeat 20 2>&1
done; done | tee $OUT/precision-couple-rows.txt | grep -A1 -E "== |poisson2d +4095" | grep -E "==|4095"
PSCR_ONCE=1 ncu --kernel-name regex:k_couple --launch-count 2 --section SpeedOfLight --section Occupancy /tmp/bd/bench/pscr-gpu-once p2 4095 16 2>&1 | grep -E "k_couple|Duration|DRAM Throughput|Achieved Occupancy|Compute \(SM\)" | tee $OUT/ncu-couple.txt
