#!/usr/bin/env bash
# Experiment: float k_part at 8 rows per thread bound to 4 blocks per SM
# (64 registers, spills) against 3 (80): two builds of the work tree.
set -u
mkdir -p $OUT
T0=$(date +%s)
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_TESTS=OFF"
( cmake -S . -B /tmp/b3 $F > /tmp/b3.log 2>&1 && cmake --build /tmp/b3 -j8 --target pscr >> /tmp/b3.log 2>&1 || echo "b3 build failed" ) &
cmake -S . -B /tmp/b4 $F -DCMAKE_CUDA_FLAGS="-DPSCR_X_F8_BLOCKS=4" > /tmp/b4.log 2>&1 && cmake --build /tmp/b4 -j8 --target pscr >> /tmp/b4.log 2>&1 || { tail -20 /tmp/b4.log; exit 1; }
wait
echo "builds done $(( $(date +%s) - T0 )) s"
for b in b3 b4; do
  gcc -O2 -o /tmp/p3-$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b
done
for r in 1 2 3; do
  for c in "3 255" "3 127" "3 63"; do
    for b in b3 b4; do echo -n "$b "; P3_ONLY=32 /tmp/p3-$b $c | tr '\n' ' '; echo; done
  done
done 2>&1 | tee $OUT/timing-ab.txt
echo "done $(( $(date +%s) - T0 )) s"
