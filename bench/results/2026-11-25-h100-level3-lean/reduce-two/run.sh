#!/usr/bin/env bash
# Float sums by pairs of entries (padded solution stride): test_cuda, memcheck, REDUCE_TWO=0/1 timings.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target pscr test_cuda >> /tmp/bd.log 2>&1 || { tail -30 /tmp/bd.log; exit 1; }
echo "build done $(( $(date +%s) - T0 )) s"
gcc -O2 -o /tmp/p3bd .carry/p3time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bd
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
(cd /tmp/bd && timeout 200 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
for r in 1 2; do
  for c in "3 255" "3 127" "3 63" "2 4095" "2 1023"; do
    for m in 0 1; do echo -n "round $r REDUCE_TWO=$m poisson $c: "; PSCR_CUDA_REDUCE_TWO=$m /tmp/p3bd $c | tr '\n' ' '; echo; done
  done
done > $OUT/timing-ab.txt 2>&1
echo "timing done $(( $(date +%s) - T0 )) s"
{ echo "== memcheck, 3D 63^3 R32"; P3_ONLY=32 timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 3 63 once 2>&1 | tail -2
  echo "== memcheck, 2D 1023^2 R32"; P3_ONLY=32 timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 2 1023 once 2>&1 | tail -2
  echo "== memcheck, 3D 63^3 Helmholtz"; P3_HELM=1 timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 3 63 once 2>&1 | tail -2; } > $OUT/sanitizer.txt
echo "sanitizers done $(( $(date +%s) - T0 )) s"
for m in 0 1; do echo "== REDUCE_TWO=$m R32"; PSCR_CUDA_REDUCE_TWO=$m P3_ONLY=32 timeout 60 ncu --csv --metrics gpu__time_duration.sum /tmp/p3bd 3 255 once > /tmp/k.csv 2>/dev/null; python3 .carry/ksum.py /tmp/k.csv 2>&1 | head -4; done > $OUT/kernels.txt
echo "ncu done $(( $(date +%s) - T0 )) s"
