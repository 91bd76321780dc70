#!/usr/bin/env bash
mkdir -p $OUT
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
t0=$(date +%s)
cmake -S . -B /tmp/bc $F > /tmp/bc.log 2>&1 && cmake --build /tmp/bc -j16 --target pscr >> /tmp/bc.log 2>&1 || { tail -20 /tmp/bc.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
gcc -O2 -o /tmp/t-r .carry/f32rows.c -Iinclude -I/tmp/bc/include -I/usr/local/cuda/include -L/tmp/bc -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bc
for r in 1 2 3; do for rows in 16 32; do for n in ${NS:-4096 4095 2048}; do echo "round $r ROWS=$rows: $(ROWS=$rows /tmp/t-r $n)"; done; done; done 2>&1 | tee $OUT/rows.txt
