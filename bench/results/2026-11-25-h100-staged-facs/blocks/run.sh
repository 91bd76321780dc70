#!/usr/bin/env bash
# StagedFacs follow-up: float staged k_part at 4 blocks per SM (v4: 64 registers)
# against 3 (new) and HEAD (old); per-kernel times at 3D 63^3 float (new slower there).
set -u
mkdir -p $OUT
T0=$(date +%s)
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
rm -rf /tmp/v4 && mkdir -p /tmp/v4 && tar -cf - --exclude=./.carry --exclude='./build*' . | tar -xf - -C /tmp/v4
sed -i "s/(part_ysmem<T>() \&\& sizeof(T) == 4 ? 3 : 2)/(part_ysmem<T>() \&\& sizeof(T) == 4 ? 4 : 2)/" /tmp/v4/gpu/partition.cuh
grep -c "== 4 ? 4 : 2" /tmp/v4/gpu/partition.cuh
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_TESTS=OFF"
for v in old:bo .:bd /tmp/v4:b4; do
  s=${v%%:*}; b=${v##*:}; [ $s = old ] && s=/tmp/old
  ( cmake -S $s -B /tmp/$b $F > /tmp/$b.log 2>&1 && cmake --build /tmp/$b -j6 --target pscr >> /tmp/$b.log 2>&1 || { echo "$b build failed"; tail -20 /tmp/$b.log; } ) &
done
wait
echo "builds done $(( $(date +%s) - T0 )) s"
for b in bd bo b4; do
  gcc -O2 -o /tmp/p3$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b
done
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
for r in 1 2 3; do
  for c in "3 255" "3 127" "3 63" "2 1023"; do
    for b in bo bd b4; do
      echo -n "round $r $b $c: "; P3_ONLY=32 /tmp/p3$b $c | tr '\n' ' '; echo
    done
  done
done > $OUT/timing-abc.txt 2>&1
echo "timing done $(( $(date +%s) - T0 )) s"
for b in bo bd b4; do
  P3_ONLY=32 timeout 60 ncu --csv --metrics gpu__time_duration.sum /tmp/p3$b 3 63 once > /tmp/k$b.csv 2>/dev/null
  { echo "== $b 3D 63^3 R32"; python3 .carry/ksum.py /tmp/k$b.csv; } >> $OUT/kernels-63.txt 2>&1
  P3_ONLY=32 timeout 60 ncu --csv --metrics gpu__time_duration.sum -k regex:k_part /tmp/p3$b 3 255 once > /tmp/q$b.csv 2>/dev/null
  { echo "== $b 3D 255^3 R32"; python3 .carry/ksum.py /tmp/q$b.csv; } >> $OUT/kernels-255.txt 2>&1
done
echo "done $(( $(date +%s) - T0 )) s"
