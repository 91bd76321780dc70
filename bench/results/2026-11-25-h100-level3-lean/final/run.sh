#!/usr/bin/env bash
# Final check of the committed level-3 change: test_cuda, sanitizers, precision table with stages.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF"
cmake -S . -B /tmp/bd $F -DPSCR_BUILD_BENCH=ON -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target pscr test_cuda pscr-precision >> /tmp/bd.log 2>&1 || { tail -30 /tmp/bd.log; exit 1; }
echo "build done $(( $(date +%s) - T0 )) s"
gcc -O2 -o /tmp/p3bd .carry/p3time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bd
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
(cd /tmp/bd && timeout 200 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
{ echo "== memcheck, 3D 63^3 R32"; P3_ONLY=32 timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 3 63 once 2>&1 | tail -2
  echo "== racecheck, 3D Helmholtz 31^3"; P3_HELM=1 timeout 60 compute-sanitizer --tool racecheck /tmp/p3bd 3 31 once 2>&1 | tail -2
  echo "== racecheck, 2D 255^2"; timeout 60 compute-sanitizer --tool racecheck /tmp/p3bd 2 255 once 2>&1 | tail -2; } > $OUT/sanitizer.txt
echo "sanitizers done $(( $(date +%s) - T0 )) s"
timeout $(( 560 - ($(date +%s) - T0) )) /tmp/bd/bench/pscr-precision --max-n2 4095 --max-n3 255 --profile --repeat 10 > $OUT/precision.txt 2>&1
echo "precision rc=$? at $(( $(date +%s) - T0 )) s"
