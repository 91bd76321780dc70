#!/usr/bin/env bash
# 3D 255^3 float vs double: timings at rows 4/8/16, per-kernel durations, and
# ncu detail of one k_part launch in each precision.
set -u
mkdir -p $OUT
T0=$(date +%s)
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_TESTS=OFF"
cmake -S . -B /tmp/bd $F > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target pscr >> /tmp/bd.log 2>&1 && echo "build ok $(( $(date +%s) - T0 )) s" || { tail -30 /tmp/bd.log; exit 1; }
gcc -O2 -o /tmp/p3 .carry/p3time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bd
{
/tmp/p3 3 255; P3_ROWS=4 /tmp/p3 3 255; P3_ROWS=16 /tmp/p3 3 255; /tmp/p3 3 127
} 2>&1 | tee $OUT/timing.txt
for t in 32 64; do
  P3_ONLY=$t ncu --csv --metrics gpu__time_duration.sum /tmp/p3 3 255 once > /tmp/k$t.csv 2>/dev/null
  python3 - /tmp/k$t.csv <<'PY' > $OUT/kernels-$t.txt
import csv, collections, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]
ki, vi, ui = h.index('Kernel Name'), h.index('Metric Value'), h.index('Metric Unit')
scale = {'ns': 1e-6, 'us': 1e-3, 'usecond': 1e-3, 'nsecond': 1e-6, 'ms': 1.0, 'msecond': 1.0}
tot, cnt = collections.defaultdict(float), collections.Counter()
for r in rows[1:]:
    name = r[ki].split('(')[0].replace('void ', '').replace('pscr_cuda::', '')[:90]
    tot[name] += float(r[vi].replace(',', '')) * scale.get(r[ui], 1.0)
    cnt[name] += 1
for k, v in sorted(tot.items(), key=lambda x: -x[1]):
    print(f"{v:9.3f} ms {cnt[k]:5d}x  {k}")
print(f"{sum(tot.values()):9.3f} ms total (kernels only)")
PY
  echo "kernels $t done at $(( $(date +%s) - T0 )) s"
  P3_ONLY=$t timeout 120 ncu -k regex:k_part --launch-skip 12 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats /tmp/p3 3 255 once > $OUT/ncu-kpart-$t.txt 2>&1
  echo "ncu $t done at $(( $(date +%s) - T0 )) s"
done
