#!/usr/bin/python3
"""Roofline picture of a pscr-roofline CSV (bench/roofline.c).

    /usr/bin/python3 bench/roofline_plot.py roofline.csv roofline.png

Both roofs come from the ceilings measured in the same run (the CSV's first
line): the copy bandwidth and the FP64 FMA rate (FP32 dashed). One point per
pscr run (its whole solve, the cost model's flops and bytes over the
device-only median) and one per stage kind of each run (the profiled stage
time). Needs Debian's python3-matplotlib.
"""
import csv
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STAGE_MARKERS = {"level3": "s", "sums": "^", "coupling": "v", "gather": "D", "other": "x"}


def read(path):
    with open(path) as f:
        head = f.readline()
        rows = list(csv.DictReader(f))
    ceil = {k: float(v) for k, v in re.findall(r"(\w+_g[a-z]+s) ([0-9.]+)", head)}
    device = head.split(";")[0].replace("# device:", "").strip()
    return device, ceil, rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    device, ceil, rows = read(sys.argv[1])
    bw, fp64, fp32 = ceil["roof_gbs"], ceil["fp64_gflops"], ceil["fp32_gflops"]
    fig, ax = plt.subplots(figsize=(11.5, 6.5))
    xs = [10 ** (k / 20) for k in range(-30, 51)]
    ax.plot(xs, [min(fp64, bw * x) for x in xs], "k-", lw=2,
            label=f"roof: copy {bw:.0f} GB/s, FP64 FMA {fp64 / 1e3:.1f} TFLOP/s")
    ax.plot(xs, [min(fp32, bw * x) for x in xs], "k--", lw=1,
            label=f"FP32 FMA {fp32 / 1e3:.1f} TFLOP/s")
    cases = sorted({r["case"] for r in rows if r["row"] == "run"},
                   key=lambda c: (c[1], c[0], int(c.split(":")[1])))
    colors = plt.cm.tab20.colors
    for i, case in enumerate(cases):
        col = colors[i % len(colors)]
        for r in rows:
            if r["case"] != case or not r["intensity"] or not r["gflops"]:
                continue
            x, y = float(r["intensity"]), float(r["gflops"])
            if r["row"] == "run" and r["what"] == "pscr":
                ax.plot(x, y, "o", color=col, ms=10, mec="k",
                        label=f"{case} {r['dtype']} solve")
            elif r["row"] == "stage":
                ax.plot(x, y, STAGE_MARKERS.get(r["what"], "+"), color=col, ms=6, mfc="none")
    for stage, m in STAGE_MARKERS.items():
        ax.plot([], [], m, color="gray", mfc="none", label=f"stage: {stage}")
    ax.set_ylim(bottom=50)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop / byte, cost model)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(f"pscr solves on {device.split('(')[0].strip()}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
