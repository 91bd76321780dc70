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
print(f"{sum(tot.values()):9.3f} ms total (kernels only; the plan's pivot probe solve included)")
