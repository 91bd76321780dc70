# Sum ncu --csv --metrics output per kernel: time, DRAM bytes, L2 bytes, instructions,
# and time-weighted averages of the percentage metrics.
import csv, collections, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]
ki, ii, mi, vi, ui = (h.index(x) for x in ('Kernel Name', 'ID', 'Metric Name', 'Metric Value', 'Metric Unit'))
per = collections.defaultdict(dict)
names = {}
for r in rows[1:]:
    names[r[ii]] = r[ki].split('(')[0].replace('void ', '').replace('pscr_cuda::', '')[:70]
    v = float(r[vi].replace(',', '')) if r[vi] not in ('', 'n/a') else 0.0
    u = r[ui]
    if u in ('ns', 'nsecond'): v *= 1e-6
    elif u in ('us', 'usecond'): v *= 1e-3
    elif u in ('Kbyte',): v *= 1e3
    elif u in ('Mbyte',): v *= 1e6
    elif u in ('Gbyte',): v *= 1e9
    per[r[ii]][r[mi]] = v
agg = collections.defaultdict(lambda: collections.defaultdict(float))
cnt = collections.Counter()
for i, m in per.items():
    k = names[i]; t = m.get('gpu__time_duration.sum', 0.0)
    cnt[k] += 1
    a = agg[k]
    a['ms'] += t
    for name, v in m.items():
        if name == 'gpu__time_duration.sum': continue
        if 'pct' in name: a[name] += v * t
        else: a[name] += v
for k, a in sorted(agg.items(), key=lambda x: -x[1]['ms']):
    t = a['ms']
    parts = [f"{t:8.3f} ms {cnt[k]:4d}x {k}"]
    for name, v in sorted(a.items()):
        if name == 'ms': continue
        if 'pct' in name: parts.append(f"  {name} {v / t if t else 0:.1f}")
        elif 'bytes' in name: parts.append(f"  {name} {v / 1e9:.3f} GB ({v / 1e9 / (t * 1e-3) if t else 0:.0f} GB/s)")
        else: parts.append(f"  {name} {v / 1e6:.2f} M")
    print("\n".join(parts))
