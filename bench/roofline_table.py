#!/usr/bin/env python3
"""Markdown summary of a pscr-roofline CSV (bench/roofline.c), for README.md.

    python3 bench/roofline_table.py roofline.csv

One row per case: pscr's device-only solve, its rate against the cost
model, the fraction of the roofline bound, the share of the copy bandwidth
reached by the level-3, sums and coupling stages, and each baseline's time
as a multiple of pscr's (above 1: pscr is faster). gtsv2 compares level 3
only: cuSPARSE on the same launches against pscr's level-3 stage.
"""
import csv
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        f.readline()
        rows = list(csv.DictReader(f))
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])

    def get(case, row, what, key):
        for r in rows:
            if r["case"] == case and r["row"] == row and r["what"] == what and r[key]:
                return float(r[key])
        return None

    def fmt(v, spec):
        return "-" if v is None else format(v, spec)

    print("| case | type | solve ms | GFLOP/s | GB/s | roofline | level 3 / sums / coupling "
          "(% of copy BW) | cuFFT | dense MD | gtsv2 (level 3) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        dtype = next(r["dtype"] for r in rows if r["case"] == c)
        ms = get(c, "run", "pscr", "solve_ms")
        if ms is None:
            continue
        stages = "/".join(fmt(None if get(c, "stage", s, "bw_frac") is None
                              else 100 * get(c, "stage", s, "bw_frac"), ".0f")
                          for s in ("level3", "sums", "coupling"))
        ratios = []
        for what, row in (("cufft", "baseline"), ("dense", "baseline"),
                          ("gtsv2", "baseline-level3")):
            v = get(c, row, what, "ratio_to_pscr")
            ratios.append("-" if v is None else f"{v:.2f}x")
        print(f"| {c} | {dtype} | {ms:.3f} | {get(c, 'run', 'pscr', 'gflops'):.0f} | "
              f"{get(c, 'run', 'pscr', 'gbs'):.0f} | "
              f"{100 * get(c, 'run', 'pscr', 'roof_frac'):.0f}% | {stages} | "
              + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
