#!/bin/bash
# couple_grid threshold sweep: XMIN blocks per SM (0 = always COUPLE_PER).
set -u
T0=$(date +%s)
cmake -S . -B build-x -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_TESTS=OFF > /tmp/bx.log 2>&1 && cmake --build build-x -j16 --target pscr-gpu-once >> /tmp/bx.log 2>&1 || { tail -30 /tmp/bx.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
G=build-x/bench/pscr-gpu-once
for r in 1 2; do for c in "p3 63" "p3 63 --float" "p3 95" "p3 95 --float" "p3 127" "p3 127 --float" "p3 159" "p3 159 --float" "p3 191" "p3 191 --float" "p3 223" "p3 223 --float" "h3 127" "h3 127 --float"; do for m in 16 8 4 2 0; do echo "== r$r $c XMIN=$m $(XMIN=$m $G $c | grep -o 'median [0-9.]* ms')"; done; done; done
echo "sweep $(( $(date +%s) - T0 )) s"
