#!/usr/bin/env python3
"""Sum Nsight Compute metrics per kernel.

Reads the CSV that `ncu --csv --metrics a,b,... PROGRAM` prints (one row per
launch and metric) and prints, per kernel (template arguments kept,
parameter list dropped), slowest first:

  - the summed duration (gpu__time_duration.sum) in ms and the launch count,
    both divided by --solves (for a program that ran several solves);
  - every other metric: byte counts summed (GB, and GB/s over the kernel's
    time), percentages averaged weighted by each launch's duration, other
    counts summed (millions), all divided by --solves where they are sums.

and a last line with the total time. Rows that are not metric rows (ncu's
==PROF== lines, program output) are skipped.

  ncu --csv --metrics gpu__time_duration.sum,sm__inst_executed.sum \\
      build/bench/pscr-gpu-once p3 63 > run.csv
  scripts/ncu-sum.py run.csv --solves 3
"""
import argparse
import collections
import csv
import re
import sys

TIME = "gpu__time_duration.sum"
# Unit -> factor to ms (times), bytes (sizes), or 1.
SCALE = {
    "ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0,
    "s": 1e3, "second": 1e3,
    "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
}


def short_name(name):
    """'void pscr_cuda::k_part<float, 8>(LevelArgs<float>, ...)' -> 'k_part<float, 8>'."""
    depth, cut = 0, len(name)
    for i, c in enumerate(name):  # the first '(' outside template brackets
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            cut = i
            break
    name = name[:cut].strip()
    name = re.sub(r"^void ", "", name)
    return name.replace("pscr_cuda::", "")


def value(text, unit):
    text = text.replace(",", "").strip()
    if text in ("", "n/a"):
        return None
    return float(text) * SCALE.get(unit, 1.0)


def read(path):
    """{launch id: (kernel, {metric: value})}, in the order of the file."""
    launches = {}
    with open(path, newline="") as fh:
        rows = csv.reader(fh)
        head = None
        for r in rows:
            if head is None:
                if "Kernel Name" in r and "Metric Name" in r:
                    head = {k: i for i, k in enumerate(r)}
                continue
            if len(r) != len(head):
                continue
            lid = r[head["ID"]]
            kernel = short_name(r[head["Kernel Name"]])
            v = value(r[head["Metric Value"]], r[head["Metric Unit"]])
            launches.setdefault(lid, (kernel, {}))[1][r[head["Metric Name"]]] = v
    if head is None:
        sys.exit(f"{path}: no ncu CSV header (ID, Kernel Name, Metric Name, ...)")
    return launches


def summarize(launches, solves):
    per = collections.OrderedDict()
    for kernel, metrics in launches.values():
        k = per.setdefault(kernel, {"ms": 0.0, "n": 0, "sum": collections.defaultdict(float),
                                    "wsum": collections.defaultdict(float),
                                    "wt": collections.defaultdict(float)})
        t = metrics.get(TIME) or 0.0
        k["ms"] += t
        k["n"] += 1
        for name, v in metrics.items():
            if name == TIME or v is None:
                continue
            if "pct" in name:
                k["wsum"][name] += v * t
                k["wt"][name] += t
            else:
                k["sum"][name] += v
    lines = []
    total = 0.0
    for kernel, k in sorted(per.items(), key=lambda kv: -kv[1]["ms"]):
        ms = k["ms"] / solves
        total += ms
        lines.append(f"{ms:9.3f} ms {k['n'] / solves:7.2f}x  {kernel}")
        for name in sorted(set(k["sum"]) | set(k["wsum"])):
            if name in k["wsum"]:
                w = k["wt"][name]
                lines.append(f"            {name} {k['wsum'][name] / w if w else 0.0:.1f}")
            elif "bytes" in name:
                gb = k["sum"][name] / solves / 1e9
                rate = gb / (ms * 1e-3) if ms else 0.0
                lines.append(f"            {name} {gb:.4f} GB ({rate:.0f} GB/s)")
            else:
                lines.append(f"            {name} {k['sum'][name] / solves / 1e6:.3f} M")
    lines.append(f"{total:9.3f} ms total (kernels only)")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="ncu --csv output")
    ap.add_argument("--solves", type=float, default=1.0,
                    help="divide sums and launch counts by this (default 1)")
    a = ap.parse_args()
    if not a.solves > 0:
        sys.exit("--solves must be positive")
    print("\n".join(summarize(read(a.csv), a.solves)))


if __name__ == "__main__":
    main()
