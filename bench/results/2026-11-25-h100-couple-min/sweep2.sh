#!/bin/bash
# couple_grid threshold, 2D and 255^3: XMIN blocks per SM.
set -u
T0=$(date +%s)
cmake -S . -B build-x -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_TESTS=OFF > /tmp/bx.log 2>&1 && cmake --build build-x -j16 --target pscr-gpu-once >> /tmp/bx.log 2>&1 || { tail -30 /tmp/bx.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
G=build-x/bench/pscr-gpu-once
for r in 1 2; do for c in "p2 127" "p2 127 --float" "p2 255" "p2 255 --float" "p2 511" "p2 511 --float" "p2 1023" "p2 1023 --float" "p2 2047" "p2 2047 --float" "p2 4095" "p2 4095 --float" "h2 1023" "h2 1023 --float" "h2 4095 --float" "p3 255" "p3 255 --float" "h3 63 --float"; do for m in 16 4 2; do echo "== r$r $c XMIN=$m $(XMIN=$m $G $c | grep -o 'median [0-9.]* ms')"; done; done; done
echo "sweep $(( $(date +%s) - T0 )) s"
