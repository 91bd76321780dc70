#!/bin/bash
# Float / double at the large sizes of issue 6, Deliver 1: pscr-gpu-once,
# double and float alternated, two rounds (each a median of 20 CUDA-event
# timings after warm-up). Writes device.txt and timing.txt under $1.
set -u
out=${1:?out dir}
mkdir -p "$out"
T0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; git rev-parse --short HEAD 2>/dev/null; } > "$out/device.txt" 2>&1
cmake -S . -B build-x -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_TESTS=OFF > /tmp/bx.log 2>&1 &&
  cmake --build build-x -j16 --target pscr-gpu-once >> /tmp/bx.log 2>&1 || { tail -30 /tmp/bx.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
G=build-x/bench/pscr-gpu-once
for r in 1 2; do
  for c in "p2 4095" "p2 8191" "h2 4095" "p3 255" "p3 383" "p3 511" "h3 255" "h3 383"; do
    for f in "" "--float"; do
      echo "== r$r $c $f: $($G $c $f 2>&1 | tail -2 | tr '\n' ' ')"
    done
  done
done | tee "$out/timing.txt"
echo "total $(( $(date +%s) - T0 )) s"
