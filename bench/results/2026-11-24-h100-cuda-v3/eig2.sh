#!/usr/bin/env bash
# The complex inverse-iteration retry (invit_one): Helmholtz 2D 4095 plan with the native build on this machine.
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=OFF -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF"
cmake -S . -B /tmp/e1 $F > /tmp/e1.log 2>&1 && cmake --build /tmp/e1 -j16 --target pscr-bench >> /tmp/e1.log 2>&1 && echo "native ok" || tail -5 /tmp/e1.log
for t in 16 1; do
  echo "== native OMP_NUM_THREADS=$t"
  OMP_NUM_THREADS=$t timeout 120 /tmp/e1/bench/pscr-bench --backend cpu --problem helmholtz2d --min-n 2047 --max-n 4095 --repeat 1 2>&1 | grep -E "^helm|error|ERROR" | cut -c1-400
done
