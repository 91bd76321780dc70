import sys, re, subprocess
lines = open(sys.argv[1]).read().split('\n')
cur = None; out = {}
for l in lines:
    m = re.search(r"Function properties for (\S+)", l)
    if m: cur = m.group(1); continue
    m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", l)
    if m and cur: out.setdefault(cur, {})['spill'] = f"{m.group(1)}/{m.group(2)}"
    m = re.search(r"Used (\d+) registers", l)
    if m and cur: out.setdefault(cur, {})['regs'] = m.group(1)
names = list(out)
dm = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True).stdout.split('\n')
for n, d in zip(names, dm):
    if True:
        d = re.sub(r'pscr_cuda::', '', d); d = re.sub(r'\(LevelArgs.*', '', d)
        print(f"{out[n].get('regs','?'):>4} {out[n].get('spill','?'):>10}  {d[:120]}")
