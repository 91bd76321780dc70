#!/usr/bin/env bash
# k_reduce_sum with lanes (flat tiles, half the resident threads, one-lane instantiation): tests, sanitizers, per-kernel ncu, A/B against HEAD (.carry/old.tar) alternated twice.
rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j6 --target pscr-precision >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
source .carry/dev.sh || exit 1
wait
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
cd /tmp/bd
( timeout 300 ctest -L gpu 2>&1 | grep -E "tests passed|Failed"
  timeout 300 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:" | tail -20 ) | tee $OUT/test_cuda.txt
( for t in memcheck racecheck synccheck; do echo "== $t p2 1023 16"; PSCR_ONCE=1 timeout 120 compute-sanitizer --tool $t ./bench/pscr-gpu-once p2 1023 16 2>&1 | tail -2; done
  echo "== memcheck p3 63 8"; PSCR_ONCE=1 timeout 120 compute-sanitizer --tool memcheck ./bench/pscr-gpu-once p3 63 8 2>&1 | tail -2 ) | tee $OUT/sanitizer.txt
gcc -O2 -o /tmp/f32 $OLDPWD/.carry/f32once.c -I$OLDPWD/include -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib -lcudart -Wl,-rpath,/tmp/bd
for t in 32 64; do
  A=""; [ $t = 64 ] && A=1
  ncu --csv --metrics gpu__time_duration.sum /tmp/f32 4095 $A 2>/dev/null > /tmp/k$t.csv
  python3 - /tmp/k$t.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki, vi, ui = h.index('Kernel Name'), h.index('Metric Value'), h.index('Metric Unit')
gi = h.index('Grid Size'); bi = h.index('Block Size')
sc = {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1, 'usecond': 1, 'ms': 1e3, 'msecond': 1e3}
tot = 0
for r in rows[1:]:
    v = float(r[vi].replace(',', '')) * sc.get(r[ui], 1); tot += v
    name = r[ki].split('(')[0].replace('void ', '').replace('pscr_cuda::', '')[:70]
    print(f"{v:8.1f} us  {r[gi]} {r[bi]}  {name}")
print(f"{tot:8.1f} us total")
PY
done 2>&1 | tee $OUT/kernels.txt | grep -E "reduce_sum|total"
cd $OLDPWD
for r in 1 2; do for v in new old; do
  echo "== $v run $r"
  B=/tmp/bd/bench; [ $v != new ] && B=/tmp/$v/b/bench
  $B/pscr-precision --profile --max-n2 4095 --max-n3 127 --repeat 20 2>&1
done; done > $OUT/precision-ab.txt
grep -E "==|poisson2d +4095" -A1 $OUT/precision-ab.txt | grep -E "==|4095"
