#!/usr/bin/env bash
# Tests (early-launch test added), per-kernel ncu durations of one 4095^2 solve, couple-grid threshold A/B.
source .carry/dev.sh || exit 1
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
cd /tmp/bd
( timeout 300 ctest -L gpu 2>&1 | grep -E "tests passed|Failed"
  timeout 300 ./tests/test_cuda 2>&1 | grep -E "Checks|:F:|:E:|early launch" | tail -20 ) | tee $OUT/test_cuda.txt
gcc -O2 -o /tmp/f32 $OLDPWD/.carry/f32once.c -I$OLDPWD/include -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib -lcudart -Wl,-rpath,/tmp/bd || ls /tmp/bd
for t in 32 64; do
  A=""; [ $t = 64 ] && A=1
  /tmp/f32 4095 $A
  ncu --csv --metrics gpu__time_duration.sum /tmp/f32 4095 $A 2>/dev/null > /tmp/k$t.csv
  python3 - /tmp/k$t.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki, vi, ui = h.index('Kernel Name'), h.index('Metric Value'), h.index('Metric Unit')
gi = h.index('Grid Size') if 'Grid Size' in h else None
bi = h.index('Block Size') if 'Block Size' in h else None
sc = {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1, 'usecond': 1, 'ms': 1e3, 'msecond': 1e3}
tot = 0
for r in rows[1:]:
    v = float(r[vi].replace(',', '')) * sc.get(r[ui], 1); tot += v
    name = r[ki].split('(')[0].replace('void ', '').replace('pscr_cuda::', '')[:70]
    print(f"{v:8.1f} us  {r[gi] if gi else ''} {r[bi] if bi else ''}  {name}")
print(f"{tot:8.1f} us total")
PY
done 2>&1 | tee $OUT/kernels.txt
for r in 1 2; do for m in 16 8 4; do
  echo "== couple_min $m run $r"
  PSCR_X_COUPLE_MIN=$m ./bench/pscr-precision --max-n2 4095 --max-n3 63 --repeat 20 2>&1 | grep -E "^poisson2d +(1023|2047|4095)"
done; done | tee $OUT/couple-min.txt
