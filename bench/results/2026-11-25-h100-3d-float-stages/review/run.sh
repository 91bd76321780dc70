#!/usr/bin/env bash
# Review: PSCR_CUDA_COUPLE_PER (forced entries per thread) and its test; test_cuda; sanitizer on the forced path.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target pscr test_cuda >> /tmp/bd.log 2>&1 || { tail -30 /tmp/bd.log; exit 1; }
echo "build done $(( $(date +%s) - T0 )) s"
gcc -O2 -o /tmp/p3 .carry/p3time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bd
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
(cd /tmp/bd && timeout 220 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
{ for t in 32 64; do echo "== memcheck, 3D 63^3 R$t, PSCR_CUDA_COUPLE_PER=1"; PSCR_CUDA_COUPLE_PER=1 P3_ONLY=$t timeout 60 compute-sanitizer --tool memcheck /tmp/p3 3 63 once 2>&1 | tail -3; done
  echo "== memcheck, 2D 1023^2, PSCR_CUDA_COUPLE_PER=1"; PSCR_CUDA_COUPLE_PER=1 timeout 60 compute-sanitizer --tool memcheck /tmp/p3 2 1023 once 2>&1 | tail -3; } > $OUT/sanitizer.txt
for c in "3 255" "2 4095"; do /tmp/p3 $c; done > $OUT/timing.txt 2>&1
echo "done $(( $(date +%s) - T0 )) s"
