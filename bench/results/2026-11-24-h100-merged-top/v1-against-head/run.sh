#!/usr/bin/env bash
# This tree (/tmp/bd, built by merge1.sh) against HEAD (.carry/old.tar): 2D Poisson 4095/4096, alternated.
rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF"
(cmake -S /tmp/old -B /tmp/old/b $F > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j16 --target pscr >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log)
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
for v in bd old/b; do
  gcc -O2 -o /tmp/t-${v%%/*} .carry/f32time.c -Iinclude -I/tmp/$v/include -I/usr/local/cuda/include -L/tmp/$v -lpscr -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib -lcudart -Wl,-rpath,/tmp/$v
done
for r in 1 2; do for v in bd old; do
  echo "== $v run $r"; /tmp/t-$v 2047 4095 4096
done; done 2>&1 | tee $OUT/ab.txt
