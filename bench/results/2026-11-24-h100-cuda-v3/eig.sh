#!/usr/bin/env bash
# Helmholtz 2D n=4095 plan failure (bench-gpu cuda-v3): CPU-only builds, native and not, thread counts.
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-300
gcc --version | head -1
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=OFF -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF"
(cmake -S . -B /tmp/e1 $F > /tmp/e1.log 2>&1 && cmake --build /tmp/e1 -j8 --target pscr-bench >> /tmp/e1.log 2>&1 && echo "native ok" || tail -5 /tmp/e1.log) &
(cmake -S . -B /tmp/e2 $F -DPSCR_NATIVE=OFF > /tmp/e2.log 2>&1 && cmake --build /tmp/e2 -j8 --target pscr-bench >> /tmp/e2.log 2>&1 && echo "generic ok" || tail -5 /tmp/e2.log) &
wait
for b in e1 e2; do for t in 16 2 1; do
  echo "== $b OMP_NUM_THREADS=$t"
  OMP_NUM_THREADS=$t timeout 120 /tmp/$b/bench/pscr-bench --backend cpu --problem helmholtz2d --min-n 2047 --max-n 4095 --repeat 1 2>&1 | grep -E "^helm|error|ERROR" | cut -c1-400
done; done
