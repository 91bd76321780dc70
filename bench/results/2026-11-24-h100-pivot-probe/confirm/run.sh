#!/usr/bin/env bash
# Confirmation of the 4096^2 targets on the committed tree: library build only, f32time, 5 rounds.
mkdir -p $OUT
{ date -u; git log --oneline -1 2>/dev/null; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
cmake -S . -B /tmp/bc $F > /tmp/bc.log 2>&1 && cmake --build /tmp/bc -j16 --target pscr >> /tmp/bc.log 2>&1 || { tail -20 /tmp/bc.log; exit 1; }
gcc -O2 -o /tmp/t-c .carry/f32time.c -Iinclude -I/tmp/bc/include -I/usr/local/cuda/include -L/tmp/bc -lpscr -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib -lcudart -Wl,-rpath,/tmp/bc
for r in 1 2 3 4 5; do echo "== round $r"; /tmp/t-c 4096; done 2>&1 | tee $OUT/timing.txt
