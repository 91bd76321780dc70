#!/usr/bin/env bash
# 4096^2 / 4095^2 Poisson R32/R64: the automatic choices against each environment switch, alternated twice (tree: 1393fef + State::sm_threads). knobs.c expected in .carry/.
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF"
cmake -S . -B /tmp/bk $F > /tmp/bk.log 2>&1 && cmake --build /tmp/bk -j16 --target pscr >> /tmp/bk.log 2>&1 || { tail /tmp/bk.log; exit 1; }
gcc -O2 -o /tmp/kn .carry/knobs.c -Iinclude -I/tmp/bk/include -I/usr/local/cuda/include -L/tmp/bk -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bk || exit 1
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
for r in 1 2; do
  for k in "X=0" "PSCR_CUDA_PAIR=0" "PSCR_CUDA_PAIR=1" "PSCR_CUDA_PIVTAB=0" "PSCR_CUDA_FUSE=1" "PSCR_CUDA_PDL=0" "ROWS=8"; do
    echo "== $k run $r"; env $k /tmp/kn 4096 4095
  done
done 2>&1 | tee $OUT/knobs.txt | grep -E "==|R32"
