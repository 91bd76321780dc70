#!/usr/bin/env bash
# Where the device time of one solve goes: Nsight Compute's kernel durations,
# summed per kernel over one pscr_solve_device (pscr-gpu-once, PSCR_ONCE=1
# runs one host-API solve and one device solve; the sum is halved).
#   scripts/gpu-profile.sh BUILD_DIR "p2 4096" "h2 4095 16" "p3 255 --float" ...
set -u
build=$1
shift
for spec in "$@"; do
  echo "== $spec (kernel, ms per solve, launches per solve)"
  # shellcheck disable=SC2086
  PSCR_ONCE=1 ncu --csv --metrics gpu__time_duration.sum "$build/bench/pscr-gpu-once" $spec \
    2>/dev/null > /tmp/pscr-ncu.csv || { echo "ncu failed"; continue; }
  python3 - <<'PY'
import csv, collections
rows = [r for r in csv.reader(open('/tmp/pscr-ncu.csv')) if len(r) > 10]
h = rows[0]
ki, vi, ui = h.index('Kernel Name'), h.index('Metric Value'), h.index('Metric Unit')
scale = {'ns': 1e-6, 'us': 1e-3, 'usecond': 1e-3, 'nsecond': 1e-6, 'ms': 1.0, 'msecond': 1.0}
tot, cnt = collections.defaultdict(float), collections.Counter()
for r in rows[1:]:
    name = r[ki].split('(')[0].replace('void ', '').replace('pscr_cuda::', '')
    tot[name] += float(r[vi].replace(',', '')) * scale.get(r[ui], 1.0)
    cnt[name] += 1
for k, v in sorted(tot.items(), key=lambda x: -x[1]):
    print(f"{v / 2:9.3f} ms {cnt[k] // 2:5d}x  {k}")
print(f"{sum(tot.values()) / 2:9.3f} ms total (kernels only)")
PY
done
