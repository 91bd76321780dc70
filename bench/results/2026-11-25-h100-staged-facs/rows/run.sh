#!/usr/bin/env bash
# Complex double 3D after StagedFacs: rows per thread 4 against 8 (old, new),
# and b1 (new with one block per SM for staged complex double: no spills).
set -u
mkdir -p $OUT
T0=$(date +%s)
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
rm -rf /tmp/b1s && mkdir -p /tmp/b1s && tar -cf - --exclude=./.carry --exclude='./build*' . | tar -xf - -C /tmp/b1s
sed -i 's/  if (NT > 256)$/  if (NT > 256 || (is_staged<F>::value \&\& sizeof(T) == 16))/' /tmp/b1s/gpu/partition.cuh
grep -c "sizeof(T) == 16))" /tmp/b1s/gpu/partition.cuh
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_TESTS=OFF"
for v in /tmp/old:bo .:bd /tmp/b1s:b1; do
  s=${v%%:*}; b=${v##*:}
  ( cmake -S $s -B /tmp/$b $F > /tmp/$b.log 2>&1 && cmake --build /tmp/$b -j6 --target pscr >> /tmp/$b.log 2>&1 || { echo "$b build failed"; tail -20 /tmp/$b.log; } ) &
done
wait
echo "builds done $(( $(date +%s) - T0 )) s"
for b in bd bo b1; do
  gcc -O2 -o /tmp/p3$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b
done
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
for r in 1 2; do
  for c in "3 127" "3 63"; do
    for b in bo bd b1; do
      for m in 8 4; do
        echo -n "round $r $b rows $m $c: "; P3_ONLY=64 P3_ROWS=$m P3_HELM=1 /tmp/p3$b $c | tr '\n' ' '; echo
      done
    done
  done
  for b in bo bd; do
    for m in 8 4; do
      echo -n "round $r $b rows $m R 3 255: "; P3_ROWS=$m /tmp/p3$b 3 255 | tr '\n' ' '; echo
    done
  done
done > $OUT/timing-rows.txt 2>&1
echo "done $(( $(date +%s) - T0 )) s"
