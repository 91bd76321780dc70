import csv, gzip, sys, collections, re
f = gzip.open(sys.argv[1], 'rt')
r = csv.reader(f)
next(r); h = next(r)
ii = h.index("Instructions Executed"); si = h.index("Warp Stall Sampling (All Samples)"); src = h.index("Source")
ops = collections.Counter(); st = collections.Counter(); tot = 0; stt = 0
rows = []
for row in r:
    if len(row) <= ii: continue
    s = row[src].strip()
    m = re.match(r'(@!?U?P\w+\s+)?([A-Z0-9_]+)(\.[A-Z0-9_.]+)?', s)
    op = m.group(2) if m else s
    full = op + (m.group(3) or '') if m else s
    n = int(row[ii].replace(',', '') or 0); sm = int(row[si].replace(',', '') or 0)
    ops[op] += n; st[op] += sm; tot += n; stt += sm
    rows.append((row[0], s, n, sm))
print(f"total executed {tot/1e6:.2f} M warp-instr, stall samples {stt}")
for op, n in ops.most_common(40):
    print(f"{op:10s} {n/1e6:8.2f} M {100*n/tot:5.1f}%   stalls {100*st[op]/stt:5.1f}%")
