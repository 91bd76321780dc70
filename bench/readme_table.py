#!/usr/bin/env python3
"""Markdown table for README.md from a CPU and a CUDA pscr-bench CSV.

   bench/readme_table.py CPU.csv CUDA.csv
Also prints, per row, the GPU backward error over the CPU one (issue target: <= 10).
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return {(r['problem'], int(r['n'])): r for r in csv.DictReader(l for l in f if not l.startswith('#'))}


cpu, gpu = rows(sys.argv[1]), rows(sys.argv[2])
print('| problem | n | unknowns | CPU solve s | paper i5 s | CPU speedup | H100 solve ms | '
      'H100 host-API ms | paper GTX 1080 Ti ms (+ transfer) | GPU speedup | H100 bwd err | CPU bwd err |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|')
worst = 0.0
for key, c in cpu.items():
    g = gpu.get(key)
    if not g:
        continue
    ratio = float(g['backward_error']) / float(c['backward_error'])
    worst = max(worst, ratio)
    print(f"| {key[0]} | {key[1]} | {int(float(c['dofs']))} | {float(c['solve_s']):.3g} | "
          f"{float(c['paper_i5_s']):.3g} | {float(c['ratio_i5']):.2f} | "
          f"{float(g['solve_ms_median']):.3f} | {float(g['host_api_ms']):.2f} | "
          f"{float(g['paper_gtx_ms']):.1f} + {float(g['paper_transfer_ms']):.1f} | "
          f"{float(g['speedup']):.1f} | {float(g['backward_error']):.1e} | "
          f"{float(c['backward_error']):.1e} |")
print(f"\nworst GPU/CPU backward error ratio: {worst:.2f}", file=sys.stderr)
