#!/usr/bin/env bash
# k_reduce_items with two entries per thread: test_cuda, then A/B timings
# (PSCR_CUDA_REDUCE_TP=1 against the rule / =2), alternated.
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
for r in 1 2 3; do
  for c in "3 255" "3 127" "2 4095" "2 1023"; do
    for tp in 1 rule 2; do
      echo -n "round $r tp=$tp: "
      if [ $tp = rule ]; then /tmp/p3 $c; else PSCR_CUDA_REDUCE_TP=$tp /tmp/p3 $c; fi | tr '\n' ' '; echo
    done
  done
done > $OUT/timing-ab.txt 2>&1
echo "timing done $(( $(date +%s) - T0 )) s"
(cd /tmp/bd && timeout 200 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
{ echo "== memcheck, 3D 63^3 R32"; P3_ONLY=32 timeout 60 compute-sanitizer --tool memcheck /tmp/p3 3 63 once 2>&1 | tail -3
  echo "== memcheck, 2D 255^2 R32 unfused"; PSCR_CUDA_FUSE=0 P3_ONLY=32 timeout 60 compute-sanitizer --tool memcheck /tmp/p3 2 255 once 2>&1 | tail -3; } > $OUT/sanitizer.txt
echo "done $(( $(date +%s) - T0 )) s"
