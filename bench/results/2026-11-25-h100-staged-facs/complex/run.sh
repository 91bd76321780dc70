#!/usr/bin/env bash
# Complex plans: old (HEAD) against new (StagedFacs) and nz (new, but complex
# double never staged), alternated.
set -u
mkdir -p $OUT
T0=$(date +%s)
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
rm -rf /tmp/nz && mkdir -p /tmp/nz && tar -cf - --exclude=./.carry --exclude='./build*' . | tar -xf - -C /tmp/nz
sed -i 's/(size_t)PART_STAGE_BYTES \&\& P <= THREADS;/(size_t)PART_STAGE_BYTES \&\& P <= THREADS \&\& es < 16;/' /tmp/nz/gpu/partition.cuh
grep -c "es < 16" /tmp/nz/gpu/partition.cuh
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_TESTS=OFF"
for v in /tmp/old:bo .:bd /tmp/nz:bz; do
  s=${v%%:*}; b=${v##*:}
  ( cmake -S $s -B /tmp/$b $F > /tmp/$b.log 2>&1 && cmake --build /tmp/$b -j6 --target pscr >> /tmp/$b.log 2>&1 || { echo "$b build failed"; tail -20 /tmp/$b.log; } ) &
done
wait
echo "builds done $(( $(date +%s) - T0 )) s"
for b in bd bo bz; do
  gcc -O2 -o /tmp/p3$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b
done
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
for r in 1 2 3; do
  for c in "3 127" "3 63" "2 4095" "2 1023" "2 255"; do
    for b in bo bd bz; do
      echo -n "round $r $b $c: "; P3_HELM=1 /tmp/p3$b $c | tr '\n' ' '; echo
    done
  done
done > $OUT/timing-helm.txt 2>&1
echo "done $(( $(date +%s) - T0 )) s"
