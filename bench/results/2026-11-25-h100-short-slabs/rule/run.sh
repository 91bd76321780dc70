#!/usr/bin/env bash
# couple_grid's rule at small 3D sizes: the default against PSCR_CUDA_COUPLE_PER=1 (always COUPLE_PER) and =0.
set -u
mkdir -p $OUT
T0=$(date +%s)
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_TESTS=OFF"
cmake -S . -B /tmp/bd $F > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target pscr pscr-gpu-once >> /tmp/bd.log 2>&1 || { tail -30 /tmp/bd.log; exit 1; }
echo "build done $(( $(date +%s) - T0 )) s"
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
G=/tmp/bd/bench/pscr-gpu-once
for r in 1 2 3; do for m in default 1 0; do echo "== COUPLE_PER $m round $r"; for k in "p3 127" "p3 127 --float" "p3 63" "p3 63 --float" "h3 127 --float" "p3 191 --float" "p3 255 --float"; do if [ $m = default ]; then $G $k 2>&1 | tail -1; else PSCR_CUDA_COUPLE_PER=$m $G $k 2>&1 | tail -1; fi; done; done; done > $OUT/timing-rule.txt
echo "all done $(( $(date +%s) - T0 )) s"
