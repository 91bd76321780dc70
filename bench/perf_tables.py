#!/usr/bin/env python3
"""Performance tables and plots made from the current benchmark runs.

bench/results/<device>/ holds the latest full run of each benchmark tool on
one kind of machine (h100/, h200/, cpu-2core/, ...): the tool's CSV, its
text output, a plot, and a README.md whose "runs" table says for each run
the files, the tool, the exact command, the commit, the date and the
device. This script turns those files into the markdown tables of the docs,
so that a table can always be regenerated and checked against its CSV.

  python3 bench/perf_tables.py [FILE...]          regenerate the marked tables
  python3 bench/perf_tables.py --check [FILE...]  exit 1 if a table differs
  python3 bench/perf_tables.py --list             the table names
  python3 bench/perf_tables.py --show NAME        print one table
  python3 bench/perf_tables.py plot DIR...        draw DIR's plots (matplotlib)
  python3 bench/perf_tables.py record DIR FILE... --tool T --command C
          --commit X --date D --device V [--note N]
                                                  add or replace DIR's row for
                                                  the run whose files are FILE...

A table sits in a file between `<!-- perf:NAME -->` and `<!-- /perf:NAME -->`
(each marker alone on its line); any file may hold any of them. The default
FILEs are docs/performance.md, docs/distributed.md and README.md, those that exist. A marker naming no known table is an error, so a typo
cannot hide a table from --check. --root DIR takes the repository root
(default: this file's parent's parent), for tests on a copy.

Table names: for every folder D of bench/results/ and every file of it that
a table reads,
  D-bench      pscr-bench CSV (bench.csv): the paper's Tables 1-4, GPU or CPU
  D-roofline   pscr-roofline CSV (roofline.csv): rates against the ceilings
  D-peers      the same CSV's baselines: cuFFT DST-I, dense MD, cuSPARSE
  D-precision  pscr-precision CSV (precision.csv): float against double
  D-baselines  pscr-baselines CSV (baselines.csv): pscr CPU against FFTW
  D-gpu-once   pscr-gpu-once results (gpu-once.csv): float against double
  D-threads    bench-threads.sh (threads.csv): one thread against the default
               team, idle and loaded
  D-dist       pscr-dist-bench on GPUs (dist-gpu.csv): pscr against the
               transpose baseline per case and GPU count, stages, bytes
  D-dist-cpu   the same on CPU ranks (dist-cpu.csv, with dist-cpu-weak.csv's
               rows where it exists)
and also
  runs         every current run: folder, files, tool, commit, date
  readme       the README's one table: pscr (double, float) against its
               peers (cuFFT DST-I, dense MD) on the H200 (else the H100)
Every table opens with a line naming its device, tool, commit, date and CSV.
"""
import argparse
import csv
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILES = ("docs/performance.md", "docs/distributed.md", "README.md")
MARK = re.compile(r"^<!-- (/?)perf:([A-Za-z0-9_.-]+) -->\s*$")
RUNS_BEGIN, RUNS_END = "<!-- runs -->", "<!-- /runs -->"
RUNS_HEAD = ("files", "tool", "command", "commit", "date (UTC)", "device", "notes")
RUNS_KEYS = ("files", "tool", "command", "commit", "date", "device", "notes")
# The device folders of the README's table (pscr against its peers), by
# preference: the first one that holds a roofline run.
README_GPUS = ("h200", "h100")
PROBLEM_NAMES = {"poisson2d": "Poisson 2D", "helmholtz2d": "Helmholtz 2D",
                 "poisson3d": "Poisson 3D", "helmholtz3d": "Helmholtz 3D"}


class PerfError(Exception):
    """A missing or malformed input; the message says which."""


# ---------------------------------------------------------------- formatting

def sig(v, digits=3):
    """v with `digits` significant digits, no exponent (times, rates)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v == 0:
        return "0"
    dec = digits - 1 - int(math.floor(math.log10(abs(v))))
    return f"{v:.{dec}f}" if dec > 0 else f"{round(v, dec):.0f}"


def sci(v):
    """Errors: one decimal, exponent."""
    return "-" if v is None else f"{v:.1e}"


def ratio(v):
    return "-" if v is None else f"{v:.2f}"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def num(s):
    """A CSV field as a float, None when empty."""
    s = (s or "").strip()
    return float(s) if s else None


# ------------------------------------------------------------------ the runs

def split_row(line):
    """Cells of one markdown table row; `\\|` stays inside a cell."""
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip().replace("\\|", "|") for c in cells[1:-1]]


def read_runs(folder):
    """The runs table of folder/README.md: a list of dicts keyed by RUNS_KEYS."""
    path = os.path.join(folder, "README.md")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = f.read().splitlines()
    try:
        a, b = lines.index(RUNS_BEGIN), lines.index(RUNS_END)
    except ValueError:
        raise PerfError(f"{path}: no {RUNS_BEGIN} ... {RUNS_END} table")
    runs = []
    for line in lines[a + 3:b]:
        cells = split_row(line)
        if len(cells) != len(RUNS_HEAD):
            raise PerfError(f"{path}: runs row with {len(cells)} cells, "
                            f"want {len(RUNS_HEAD)}: {line}")
        run = dict(zip(RUNS_KEYS, cells))
        run["files"] = [x.strip().strip("`") for x in run["files"].split(",") if x.strip()]
        run["command"] = run["command"].strip("`")
        runs.append(run)
    return runs


def run_of(results, dev, name):
    for run in read_runs(os.path.join(results, dev)):
        if name in run["files"]:
            return run
    raise PerfError(f"bench/results/{dev}/README.md: no run lists {name}")


def caption(results, dev, name):
    r = run_of(results, dev, name)
    return (f"{r['device']}; `{r['tool']}` at commit {r['commit']}, {r['date']} UTC "
            f"(`bench/results/{dev}/{name}`).")


def read_csv(path):
    """Rows of a CSV whose comment lines start with '#', and those comments."""
    with open(path) as f:
        lines = f.read().splitlines()
    notes = [x for x in lines if x.startswith("#")]
    return list(csv.DictReader(x for x in lines if not x.startswith("#"))), notes


# -------------------------------------------------------------------- tables

def bench_table(results, dev):
    rows, _ = read_csv(os.path.join(results, dev, "bench.csv"))
    if not rows:
        raise PerfError(f"bench/results/{dev}/bench.csv: no rows")
    body = []
    if rows[0]["backend"] == "cuda":
        head = ("problem", "n", "unknowns", "plan s", "solve ms", "H2D + D2H ms", "host-API ms",
                "paper GTX 1080 Ti ms", "speed-up", "backward error")
        for r in rows:
            body.append((r["problem"], r["n"], int(float(r["dofs"])), sig(num(r["plan_s"])),
                         sig(num(r["solve_ms_median"])),
                         sig(num(r["h2d_ms"]) + num(r["d2h_ms"])), sig(num(r["host_api_ms"])),
                         sig(num(r["paper_gtx_ms"])), f"{num(r['speedup']):.1f}",
                         sci(num(r["backward_error"]))))
        note = ("solve: `pscr_solve_device` on device arrays, median of the run's repetitions "
                "(CUDA events); host-API: `pscr_solve` on host arrays, transfers included; "
                "speed-up: the paper's GTX 1080 Ti time (transfers excluded) over the solve.")
    else:
        head = ("problem", "n", "unknowns", "plan s", "solve ms", "paper i5-6600 ms", "speed-up",
                "backward error", "error vs exact")
        for r in rows:
            body.append((r["problem"], r["n"], int(float(r["dofs"])), sig(num(r["plan_s"])),
                         sig(1e3 * num(r["solve_s"])), sig(1e3 * num(r["paper_i5_s"])),
                         f"{num(r['ratio_i5']):.2f}", sci(num(r["backward_error"])),
                         sci(num(r["discretization_error"]))))
        note = ("solve: `pscr_solve`, wall clock, median of the run's repetitions; speed-up: "
                "the paper's one-core i5-6600 time over the solve.")
    return caption(results, dev, "bench.csv") + " " + note + "\n\n" + table(head, body)


def roofline_rows(results, dev):
    path = os.path.join(results, dev, "roofline.csv")
    rows, notes = read_csv(path)
    if not notes:
        raise PerfError(f"bench/results/{dev}/roofline.csv: no '# device' line with the ceilings")
    ceil = {k: float(v) for k, v in re.findall(r"(\w+_g[a-z]+s) ([0-9.]+)", notes[0])}
    sheet = re.search(r"sheet (.*) ([0-9.]+) ([0-9.]+) ([0-9.]+)\s*$", notes[0])
    cases, get = case_getter(rows)
    return rows, ceil, sheet, cases, get


def case_getter(rows):
    """The cases of a pscr-roofline CSV in order, and get(case, row, what, key)."""
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])

    def get(case, row, what, key):
        for r in rows:
            if r["case"] == case and r["row"] == row and r["what"] == what:
                return num(r[key])
        return None

    return cases, get


def roofline_table(results, dev):
    rows, ceil, sheet, cases, get = roofline_rows(results, dev)
    body = []
    for c in cases:
        ms = get(c, "run", "pscr", "solve_ms")
        if ms is None:
            continue
        dtype = next(r["dtype"] for r in rows if r["case"] == c)
        stages = " / ".join("-" if get(c, "stage", s, "bw_frac") is None
                            else f"{100 * get(c, 'stage', s, 'bw_frac'):.0f}"
                            for s in ("level3", "sums", "coupling"))
        body.append((c, dtype, sig(ms), f"{get(c, 'run', 'pscr', 'gflops'):.0f}",
                     f"{get(c, 'run', 'pscr', 'gbs'):.0f}",
                     f"{get(c, 'run', 'pscr', 'intensity'):.2f}",
                     f"{100 * get(c, 'run', 'pscr', 'roof_frac'):.0f}%", stages))
    ceilings = (f"Ceilings measured in the run: copy {ceil['roof_gbs']:.0f} GB/s (bytes read + "
                f"written; copy kernel {ceil['copy_gbs']:.0f}), FP64 FMA "
                f"{ceil['fp64_gflops'] / 1e3:.1f} TFLOP/s, FP32 FMA "
                f"{ceil['fp32_gflops'] / 1e3:.1f} TFLOP/s")
    if sheet:
        ceilings += (f"; datasheet ({sheet.group(1)}) {float(sheet.group(2)):.0f} GB/s, "
                     f"{float(sheet.group(3)) / 1e3:.0f} and {float(sheet.group(4)) / 1e3:.0f} "
                     "TFLOP/s")
    ceilings += (". Cases: p/g/h = Poisson uniform / graded mesh / Helmholtz, then dimensions "
                 "and n. Work from the plan's cost model; roofline = the time the roofline bound "
                 "allows over the time taken.")
    head = ("case", "type", "solve ms", "GFLOP/s", "GB/s", "flop/byte", "roofline",
            "level 3 / sums / coupling, % of copy BW")
    return caption(results, dev, "roofline.csv") + " " + ceilings + "\n\n" + table(head, body)


def peer_cell(ms, base, rejected=False):
    """A peer's time and its ratio to pscr's; "rejected" where its answer
    missed its own bound (pscr-roofline's "rejected" rows), a dash where the
    peer has no row."""
    if ms is None:
        return "rejected" if rejected else "-"
    return f"{sig(ms)} ({ms / base:.2f}x)"


def rejected(rows, case, row, what):
    """Whether pscr-roofline rejected baseline `what` of `case` (row
    "rejected" or "rejected-level3")."""
    return any(r["case"] == case and r["row"] == row and r["what"] == what for r in rows)


def peers_table(results, dev):
    rows, _, _, cases, get = roofline_rows(results, dev)
    cell = peer_cell

    body = []
    for c in cases:
        ms = get(c, "run", "pscr", "solve_ms")
        if ms is None:
            continue
        l3 = get(c, "stage", "level3", "solve_ms")
        dtype = next(r["dtype"] for r in rows if r["case"] == c)
        body.append((c, dtype, sig(ms),
                     *(cell(get(c, "baseline", b, "solve_ms"), ms,
                            rejected(rows, c, "rejected", b)) for b in ("cufft", "dense")),
                     sig(l3),
                     *(cell(get(c, "baseline-level3", b, "solve_ms"), l3,
                            rejected(rows, c, "rejected-level3", b))
                       for b in ("gtsv2", "gtsvI"))))
    note = ("Device-only medians in ms; in parentheses the peer's time over pscr's (above 1: "
            "pscr is faster). cuFFT DST-I and dense MD solve the whole problem; the cuSPARSE "
            "rows solve exactly the plan's level-3 launches and stand against pscr's profiled "
            "level-3 stage. Rejected: the peer's answer missed its own accuracy bound (the "
            "run's roofline.txt says by how much). A dash: the peer does not apply (cuFFT: "
            "uniform Poisson; dense MD: real), or was not recorded.")
    head = ("case", "type", "pscr ms", "cuFFT DST-I ms", "dense MD ms", "pscr level 3 ms",
            "gtsv2StridedBatch ms", "gtsvInterleavedBatch ms")
    return caption(results, dev, "roofline.csv") + " " + note + "\n\n" + table(head, body)


def pairs_by_case(rows, key):
    """{case key: {dtype: [rows]}} in first-seen order."""
    out = {}
    for r in rows:
        out.setdefault(key(r), {}).setdefault(r["dtype"], []).append(r)
    return out


def precision_table(results, dev):
    rows, _ = read_csv(os.path.join(results, dev, "precision.csv"))
    body = []
    for (kind, ndim, n), by in pairs_by_case(
            rows, lambda r: (r["kind"], r["ndim"], r["n"])).items():
        dd = next((v[0] for k, v in by.items() if k in ("R64", "C64")), None)
        ff = next((v[0] for k, v in by.items() if k in ("R32", "C32")), None)
        if not dd or not ff:
            continue
        body.append((f"{kind.capitalize()} {ndim}D", n, f"{dd['dtype']} / {ff['dtype']}",
                     sig(num(dd["solve_ms_median"])), sig(num(ff["solve_ms_median"])),
                     ratio(num(ff["ratio_to_double"])),
                     f"{sci(num(dd['berr']))} ({num(dd['berr_units']):.0f})",
                     f"{sci(num(ff['berr']))} ({num(ff['berr_units']):.0f})",
                     f"{sci(num(dd['derr']))} / {sci(num(ff['derr']))}",
                     "yes" if ff["stable"] == "1" else "**no**"))
    note = ("Both precisions solve the same float-rounded problem; times are device-only "
            "medians; backward errors in parentheses in units of each precision's epsilon; "
            "stable: the float backward error within 10x the double one in those units.")
    head = ("problem", "n", "types", "double ms", "float ms", "float / double",
            "double backward error (eps_d)", "float backward error (eps_f)",
            "error vs exact, double / float", "stable")
    return caption(results, dev, "precision.csv") + " " + note + "\n\n" + table(head, body)


def gpu_once_table(results, dev):
    rows, _ = read_csv(os.path.join(results, dev, "gpu-once.csv"))
    names = {"p2": "Poisson 2D", "h2": "Helmholtz 2D", "p3": "Poisson 3D", "h3": "Helmholtz 3D"}
    body = []
    for (kind, n), by in pairs_by_case(rows, lambda r: (r["kind"], r["n"])).items():
        dd = next((v for k, v in by.items() if k in ("R64", "C64")), None)
        ff = next((v for k, v in by.items() if k in ("R32", "C32")), None)
        if not dd or not ff:
            continue
        ndim = int(kind[1])

        def span(rs):
            v = sorted(num(r["solve_ms_median"]) for r in rs)
            lo, hi = sig(v[0], 4), sig(v[-1], 4)
            return lo if lo == hi else f"{lo}-{hi}"

        def mean(rs):
            return sum(num(r["solve_ms_median"]) for r in rs) / len(rs)

        body.append((names.get(kind, kind), n, f"{int(n) ** ndim / 1e6:.1f} M",
                     f"{dd[0]['dtype']} / {ff[0]['dtype']}", span(dd), span(ff),
                     ratio(mean(ff) / mean(dd)), f"{len(dd)} / {len(ff)}",
                     f"{sci(num(dd[0]['berr']))} / {sci(num(ff[0]['berr']))}"))
    note = ("Each time is one round's device-only median (CUDA events); a range spans the "
            "rounds; float / double is the ratio of the rounds' means.")
    head = ("problem", "n", "unknowns", "types", "double ms", "float ms", "float / double",
            "rounds", "backward error, double / float")
    return caption(results, dev, "gpu-once.csv") + " " + note + "\n\n" + table(head, body)


def baselines_table(results, dev):
    rows, _ = read_csv(os.path.join(results, dev, "baselines.csv"))
    body, seen = [], []
    for r in rows:
        if (r["problem"], r["n"]) not in seen:
            seen.append((r["problem"], r["n"]))
    for prob, n in seen:
        get = {r["solver"]: r for r in rows if (r["problem"], r["n"]) == (prob, n)}
        p, f = get.get("pscr"), get.get("fftw")
        if not p or not f or num(p["solve_ms"]) is None or num(f["solve_ms"]) is None:
            continue
        pm, fm = num(p["solve_ms"]), num(f["solve_ms"])
        failed = [x["solver"] for x in (p, f) if x["note"].startswith("FAIL")]
        body.append((PROBLEM_NAMES.get(prob, prob), n, p["threads"], sig(pm), sig(fm),
                     f"{pm / fm:.2f}" if not failed else "- (" + ", ".join(failed) +
                     " failed its check)", f"{sci(num(p['berr']))} / {sci(num(f['berr']))}"))
    note = ("Wall-clock medians in one process, the same threads; pscr / FFTW above 1: FFTW "
            "is faster.")
    head = ("problem", "n", "threads", "pscr CPU ms", "FFTW DST-I ms", "pscr / FFTW",
            "backward error, pscr / FFTW")
    return caption(results, dev, "baselines.csv") + " " + note + "\n\n" + table(head, body)


def threads_table(results, dev):
    rows, _ = read_csv(os.path.join(results, dev, "threads.csv"))
    get = {(r["n"], r["load"], r["threads"]): r for r in rows}
    body = []
    for n in dict.fromkeys(r["n"] for r in rows):
        t = {(load, th): num(get[(n, load, th)]["median_s"])
             for load in ("idle", "loaded") for th in ("1", "default")
             if (n, load, th) in get}
        if len(t) != 4:
            continue
        its = get[(n, "idle", "1")]["iterations"]
        body.append((f"{n}^2", its, sig(t[("idle", "1")]), sig(t[("idle", "default")]),
                     ratio(t[("idle", "default")] / t[("idle", "1")]),
                     sig(t[("loaded", "1")]), sig(t[("loaded", "default")]),
                     ratio(t[("loaded", "default")] / t[("loaded", "1")])))
    note = ("pscr-pcg --no-cg (one pscr solve per PCG iteration), seconds of the whole PCG "
            "solve, median of the runs; default: the default team (all cores); loaded: one "
            "other process keeps a core busy. default / 1 below 1: the team is faster.")
    head = ("n", "PCG iterations", "idle, 1 thread s", "idle, default s", "default / 1",
            "loaded, 1 thread s", "loaded, default s", "default / 1")
    return caption(results, dev, "threads.csv") + " " + note + "\n\n" + table(head, body)


def runs_table(results):
    body = []
    for dev in devices(results):
        for r in read_runs(os.path.join(results, dev)):
            body.append((f"`{dev}/`", ", ".join(f"`{x}`" for x in r["files"]), r["tool"],
                         r["commit"], r["date"], r["device"]))
    return table(("folder", "files", "tool", "commit", "date (UTC)", "device"), body)


def case_name(case):
    """'p2:1023' -> 'Poisson 2D 1023^2' (g: graded mesh, h: Helmholtz)."""
    kind, n = case.split(":")
    what = {"p": "Poisson", "g": "Poisson", "h": "Helmholtz"}[kind[0]]
    dims = int(kind[1:])
    name = f"{what} {dims}D {n}^{dims}"
    return name + (", graded mesh" if kind[0] == "g" else "")


def readme_table(results):
    """pscr against the peers on one GPU: the roofline run (pscr double,
    cuFFT DST-I, dense MD, one process) and the precision run (float)."""
    dev = next((d for d in README_GPUS
                       if os.path.exists(os.path.join(results, d, "roofline.csv"))),
                      README_GPUS[-1])
    rows, _, _, cases, get = roofline_rows(results, dev)
    prec = {}
    ppath = os.path.join(results, dev, "precision.csv")
    if os.path.exists(ppath):
        for r in read_csv(ppath)[0]:
            if r["dtype"] in ("R32", "C32"):
                prec[(r["kind"][0], r["ndim"], r["n"])] = num(r["solve_ms_median"])
    body = []
    for c in cases:
        ms = get(c, "run", "pscr", "solve_ms")
        if ms is None:
            continue
        kind, n = c.split(":")
        fl = prec.get((kind[0], kind[1:], n)) if kind[0] != "g" else None
        body.append((case_name(c), sig(ms), "-" if fl is None else sig(fl),
                     *(peer_cell(get(c, "baseline", b, "solve_ms"), ms,
                                 rejected(rows, c, "rejected", b)) for b in ("cufft", "dense"))))
    rr = run_of(results, dev, "roofline.csv")
    cap = (f"Device-only solve times in ms, medians after warm-up (CUDA events), each answer "
           f"checked: {rr['device']}, `pscr-roofline` at commit {rr['commit']} "
           f"({rr['date']} UTC), one process for pscr and its peers")
    if prec:
        rp = run_of(results, dev, "precision.csv")
        cap += (f"; float from `pscr-precision` at commit {rp['commit']} "
                f"({rp['date']} UTC)")
    cap += (". Peers: a cuFFT DST-I Poisson solver (uniform meshes only) and a dense "
            "matrix-decomposition solver (eigenvectors of the 1D pencils, cuBLAS DGEMM "
            "transforms, Thomas along the last dimension; real only). In parentheses the "
            "peer's time over pscr's (above 1: pscr is faster); rejected: the peer's answer "
            "missed its own accuracy bound; a dash: not applicable, or not recorded (the text "
            "below says why). From "
            f"`bench/results/{dev}/`.")
    head = ("problem", "pscr double", "pscr float", "cuFFT DST-I", "dense MD")
    if not prec:  # no float run in this folder: no float column
        head = head[:2] + head[3:]
        body = [b[:2] + b[3:] for b in body]
    return cap + "\n\n" + table(head, body)


def planner_rows(results, dev):
    # pscr-roofline's run with --planner measure (the folder README's command).
    rows, _ = read_csv(os.path.join(results, dev, "roofline.csv"))
    cases, get = case_getter(rows)
    return rows, cases, get


def planner_table(results, dev):
    """pscr with PSCR_PLANNER_MEASURE against the same run's peers."""
    rows, cases, get = planner_rows(results, dev)
    cell = peer_cell

    body = []
    for c in cases:
        ms = get(c, "run", "pscr", "solve_ms")
        if ms is None:
            continue
        dtype = next(r["dtype"] for r in rows if r["case"] == c)
        body.append((c, dtype, sig(ms), cell(get(c, "baseline", "dense", "solve_ms"), ms),
                     cell(get(c, "baseline", "cufft", "solve_ms"), ms),
                     f"{get(c, 'run', 'pscr', 'init_ms'):.0f}", sci(get(c, "run", "pscr", "berr"))))
    note = ("pscr planned with `PSCR_PLANNER_MEASURE`; device-only medians in ms, in "
            "parentheses the peer's time over pscr's (above 1: pscr is faster); plan ms: "
            "pscr_plan_create with every candidate's plan and timed solves (the process's "
            "first plan also creates the CUDA context). The method chosen per case, and "
            "every candidate's estimate and time, are in the run's roofline.txt.")
    head = ("case", "type", "pscr ms", "dense MD ms", "cuFFT DST-I ms", "plan ms",
            "pscr backward error")
    return caption(results, dev, "roofline.csv") + " " + note + "\n\n" + table(head, body)


def dist_size(r, per_gpu=False):
    """'1023^3', '2046 x 1023^2', '2046 x 1023' or '9 x 10 x 11' from a pscr-dist-bench row
    (per_gpu: n1 over the ranks, a weak-scaling row's share)."""
    n1 = int(r["n1"]) // (int(r["ranks"]) if per_gpu else 1)
    n = [n1] + [int(r[k]) for k in ("n2", "n3") if int(r[k]) > 1]
    if len(set(n)) == 1:
        return f"{n[0]}^{len(n)}"
    if len(n) == 2:
        return f"{n[0]} x {n[1]}"
    if len(set(n[1:])) == 1:
        return f"{n[0]} x {n[1]}^{len(n) - 1}"
    return " x ".join(map(str, n))


def dist_label(r):
    """'3D 1023^3' or '3D 2046 x 1023^2 (weak)' from a pscr-dist-bench row."""
    dims = 2 if int(r["n3"]) <= 1 else 3
    return f"{dims}D {dist_size(r)}" + (" (weak)" if r["scaling"] == "weak" else "")


def dist_rows(rows):
    """pscr-dist-bench rows -> table rows: pscr against the transpose baseline
    per case (weak cases after strong ones) and rank count."""
    cases = {}
    for r in rows:
        weak = r["scaling"] == "weak"
        cases.setdefault((weak, int(r["n3"]), int(r["n2"]), 0 if weak else int(r["n1"]),
                          int(r["ranks"])), {})[r["method"]] = r
    body = []
    for key in sorted(cases):
        by = cases[key]
        p, t = by.get("pscr") or by.get("pscr-local"), by.get("transpose")
        if p is None:
            continue
        ms = num(p["solve_ms"])
        comm = (num(p["exchange_ms"]) or 0) + (num(p["separator_ms"]) or 0)
        mb = num(p.get("plan_bytes_per_rank"))
        tb = "-" if t is None else sig(num(t["bytes_per_rank"]) / 1e6)
        body.append((dist_label(p), p["ranks"], sig(ms), peer_cell(num(t["solve_ms"]) if t else None, ms),
                     f"{sig(num(p['local_ms']))} / {sig(comm)} ({100 * comm / ms:.1f}%)",
                     f"{sig(num(p['bytes_per_rank']) / 1e6)} / {tb}",
                     "-" if mb is None else sig(mb / 1e9), sci(num(p["berr"]))))
    return body


DIST_NOTE = ("times: the slowest rank, median after a warm-up, ms. Transpose: the baseline in "
             "the same run (in parentheses its time over pscr's; above 1: pscr is faster; a "
             "dash: not run). Local / exchange: pscr's interior solves against its separators' "
             "steps and messages, with that stage's share of the solve (each stage's time is its "
             "slowest rank's, so the two may add up to more than the solve). Bytes: sent per rank "
             "per solve. Plan GB: pscr's plan on the rank holding most (a dash: not in this "
             "CSV).")
DIST_HEAD = ("pscr ms", "transpose ms", "local / exchange ms",
             "MB sent per rank, pscr / transpose", "plan GB", "pscr backward error")


def dist_render(results, dev, name, rows, setting, unit):
    """The table of pscr-dist-bench rows from results/dev/name (its caption):
    setting says where the ranks ran, unit what one rank has ('GPU', 'rank')."""
    note = f"{setting}; {DIST_NOTE} One {unit} is the single-process plan."
    head = ("problem", unit + "s") + DIST_HEAD
    return caption(results, dev, name) + " " + note + "\n\n" + table(head, dist_rows(rows))


def dist_table(results, dev):
    """pscr-dist-bench on GPUs: pscr against the transpose baseline."""
    rows, _ = read_csv(os.path.join(results, dev, "dist-gpu.csv"))
    return dist_render(results, dev, "dist-gpu.csv", rows,
                       "Device arrays, one rank per GPU, NCCL between them", "GPU")


def dist_cpu_table(results, dev):
    """pscr-dist-bench on CPU ranks (dist-cpu.csv, and dist-cpu-weak.csv
    where the folder has it): pscr against the transpose baseline."""
    rows, _ = read_csv(os.path.join(results, dev, "dist-cpu.csv"))
    weak = os.path.join(results, dev, "dist-cpu-weak.csv")
    if os.path.exists(weak):
        rows += read_csv(weak)[0]
    return dist_render(results, dev, "dist-cpu.csv", rows,
                       "Host arrays, the ranks on one host sharing its threads, MPI between them",
                       "rank")


KINDS = (("bench", "bench.csv", bench_table), ("planner", "roofline.csv", planner_table), ("roofline", "roofline.csv", roofline_table),
         ("peers", "roofline.csv", peers_table), ("precision", "precision.csv", precision_table),
         ("baselines", "baselines.csv", baselines_table),
         ("gpu-once", "gpu-once.csv", gpu_once_table), ("threads", "threads.csv", threads_table),
         ("dist", "dist-gpu.csv", dist_table), ("dist-cpu", "dist-cpu.csv", dist_cpu_table))


def devices(results):
    return sorted(d for d in os.listdir(results) if os.path.isdir(os.path.join(results, d)))


def generators(results):
    """{table name: function returning its markdown}."""
    gens = {"runs": lambda: runs_table(results), "readme": lambda: readme_table(results)}
    for dev in devices(results):
        for kind, name, fn in KINDS:
            if os.path.exists(os.path.join(results, dev, name)):
                gens[f"{dev}-{kind}"] = (lambda fn=fn, dev=dev: fn(results, dev))
    return gens


# ------------------------------------------------------------ marked files

def blocks(text, path):
    """[(name, first content line, end line)] of the perf markers in text."""
    lines, out, open_ = text.split("\n"), [], None
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        closing, name = m.group(1) == "/", m.group(2)
        if not closing:
            if open_:
                raise PerfError(f"{path}:{i + 1}: perf:{name} opens inside perf:{open_[0]}")
            open_ = (name, i + 1)
        else:
            if not open_ or open_[0] != name:
                raise PerfError(f"{path}:{i + 1}: /perf:{name} closes nothing")
            out.append((name, open_[1], i))
            open_ = None
    if open_:
        raise PerfError(f"{path}: perf:{open_[0]} is never closed")
    return out


def norm(s):
    return "\n".join(x.rstrip() for x in s.strip("\n").split("\n"))


def process(path, gens, check):
    """Regenerate (or check) the tables of one file. Returns the stale table names."""
    with open(path) as f:
        text = f.read()
    lines, stale = text.split("\n"), []
    for name, a, b in reversed(blocks(text, path)):
        if name not in gens:
            raise PerfError(f"{path}: perf:{name} is no known table (--list names them)")
        want = gens[name]()
        if norm("\n".join(lines[a:b])) != norm(want):
            stale.append(name)
            lines[a:b] = [""] + want.split("\n") + [""]
    if stale and not check:
        with open(path, "w") as f:
            f.write("\n".join(lines))
    return list(reversed(stale))


# -------------------------------------------------------------------- record

def record(argv):
    ap = argparse.ArgumentParser(prog="perf_tables.py record",
                                 description="Add or replace a run in DIR/README.md.")
    ap.add_argument("dir")
    ap.add_argument("files", nargs="+")
    for opt in ("tool", "command", "commit", "date", "device"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--note", default="")
    a = ap.parse_args(argv)
    path = os.path.join(a.dir, "README.md")
    if not os.path.exists(path):
        os.makedirs(a.dir, exist_ok=True)
        with open(path, "w") as f:
            f.write(f"# bench/results/{os.path.basename(os.path.normpath(a.dir))}\n\n"
                    "The latest full run of each benchmark tool on this kind of machine, "
                    "written by scripts/bench-gpu.sh or scripts/bench-cpu.sh. Each row says "
                    "what ran and on which tree; the numbers are that commit's. "
                    "bench/perf_tables.py makes the docs' tables from these files "
                    "(docs/performance.md says how they are measured).\n\n"
                    f"{RUNS_BEGIN}\n| " + " | ".join(RUNS_HEAD) + " |\n|" +
                    "---|" * len(RUNS_HEAD) + f"\n{RUNS_END}\n")
    with open(path) as f:
        lines = f.read().split("\n")
    try:
        a0, b0 = lines.index(RUNS_BEGIN), lines.index(RUNS_END)
    except ValueError:
        raise PerfError(f"{path}: no {RUNS_BEGIN} ... {RUNS_END} table")

    def esc(s):
        return s.replace("|", "\\|")

    row = "| " + " | ".join((", ".join(f"`{x}`" for x in a.files), esc(a.tool),
                             f"`{esc(a.command)}`", esc(a.commit), esc(a.date), esc(a.device),
                             esc(a.note))) + " |"
    keep = [x for x in lines[a0 + 3:b0]
            if not set(a.files) & {y.strip().strip("`") for y in split_row(x)[0].split(",")}]
    lines[a0 + 3:b0] = keep + [row]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return 0


# --------------------------------------------------------------------- plots

def plot_dir(folder):
    try:
        import matplotlib
    except ImportError:
        raise PerfError("plot needs matplotlib (pip install matplotlib, or python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401  (the dist plot's axis labels)
    dev = os.path.basename(os.path.normpath(folder))
    results = os.path.dirname(os.path.normpath(folder))
    made = []

    def title(name, what):
        r = run_of(results, dev, name)
        return f"{what}: {r['device'].split(',')[0]}, commit {r['commit']}, {r['date'][:10]}"

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(folder, name), dpi=110, metadata={"Software": None})
        plt.close(fig)
        made.append(name)

    colors = {"poisson2d": "C0", "helmholtz2d": "C1", "poisson3d": "C2", "helmholtz3d": "C3"}
    if os.path.exists(os.path.join(folder, "bench.csv")):
        rows, _ = read_csv(os.path.join(folder, "bench.csv"))
        gpu = rows[0]["backend"] == "cuda"
        fig, ax = plt.subplots(figsize=(8, 5.5))
        for prob, col in colors.items():
            rs = [r for r in rows if r["problem"] == prob]
            if not rs:
                continue
            x = [num(r["dofs"]) for r in rs]
            y = [num(r["solve_ms_median"]) if gpu else 1e3 * num(r["solve_s"]) for r in rs]
            p = [num(r["paper_gtx_ms"]) if gpu else 1e3 * num(r["paper_i5_s"]) for r in rs]
            ax.plot(x, y, "o-", color=col, label=f"{PROBLEM_NAMES[prob]}: pscr")
            ax.plot(x, p, "x--", color=col, alpha=0.6,
                    label=f"{PROBLEM_NAMES[prob]}: paper {'GTX 1080 Ti' if gpu else 'i5-6600'}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("unknowns")
        ax.set_ylabel("solve ms (median)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title(title("bench.csv", "pscr-bench"), fontsize=10)
        save(fig, "bench.png")
    if os.path.exists(os.path.join(folder, "roofline.csv")):
        rows, ceil, _, cases, _ = roofline_rows(results, dev)
        bw, fp64, fp32 = ceil["roof_gbs"], ceil["fp64_gflops"], ceil["fp32_gflops"]
        fig, ax = plt.subplots(figsize=(11.5, 6.5))
        xs = [10 ** (k / 20) for k in range(-30, 51)]
        ax.plot(xs, [min(fp64, bw * x) for x in xs], "k-", lw=2,
                label=f"roof: copy {bw:.0f} GB/s, FP64 FMA {fp64 / 1e3:.1f} TFLOP/s")
        ax.plot(xs, [min(fp32, bw * x) for x in xs], "k--", lw=1,
                label=f"FP32 FMA {fp32 / 1e3:.1f} TFLOP/s")
        markers = {"level3": "s", "sums": "^", "coupling": "v", "gather": "D", "other": "x"}
        for i, case in enumerate(cases):
            col = plt.cm.tab20.colors[i % 20]
            for r in rows:
                if r["case"] != case or not r["intensity"] or not r["gflops"]:
                    continue
                x, y = float(r["intensity"]), float(r["gflops"])
                if r["row"] == "run" and r["what"] == "pscr":
                    ax.plot(x, y, "o", color=col, ms=10, mec="k",
                            label=f"{case} {r['dtype']} solve")
                elif r["row"] == "stage":
                    ax.plot(x, y, markers.get(r["what"], "+"), color=col, ms=6, mfc="none")
        for stage, m in markers.items():
            ax.plot([], [], m, color="gray", mfc="none", label=f"stage: {stage}")
        ax.set_ylim(bottom=50)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (flop / byte, cost model)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(title("roofline.csv", "pscr-roofline"), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        save(fig, "roofline.png")
    if os.path.exists(os.path.join(folder, "dist-gpu.csv")):
        rows, _ = read_csv(os.path.join(folder, "dist-gpu.csv"))
        fig, ax = plt.subplots(figsize=(8, 5.5))
        series = {}
        for r in rows:
            method = "pscr" if r["method"].startswith("pscr") else r["method"]
            weak = r["scaling"] == "weak"
            size = f"weak, {dist_size(r, True)} per GPU" if weak else dist_label(r)
            series.setdefault((size, method), []).append((int(r["ranks"]), num(r["solve_ms"])))
        # A weak series starts at one GPU: the strong 1-GPU row of the same size.
        for r in rows:
            key = (f"weak, {dist_size(r)} per GPU",
                   "pscr" if r["method"].startswith("pscr") else r["method"])
            if r["ranks"] == "1" and key in series and all(x != 1 for x, _ in series[key]):
                series[key].append((1, num(r["solve_ms"])))
        sizes = sorted({k[0] for k in series}, key=lambda x: (x.startswith("weak"), x))
        for i, size in enumerate(sizes):
            for method, style in (("pscr", "o-"), ("transpose", "x--")):
                pts = sorted(series.get((size, method), []))
                if not pts:
                    continue
                ax.plot([x for x, _ in pts], [y for _, y in pts], style, color=f"C{i}",
                        label=f"{size}: {method}")
        ranks = sorted({int(r["ranks"]) for r in rows})
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks)
        ax.set_xticklabels([str(x) for x in ranks])
        ax.set_yscale("log")
        ax.set_xlabel("GPUs (one rank each)")
        ax.set_ylabel("solve ms (slowest rank, median)")
        for axis in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
            axis(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title(title("dist-gpu.csv", "pscr-dist-bench"), fontsize=10)
        save(fig, "dist-gpu.png")
    for name, tool in (("precision.csv", "pscr-precision"), ("gpu-once.csv", "pscr-gpu-once")):
        if not os.path.exists(os.path.join(folder, name)):
            continue
        rows, _ = read_csv(os.path.join(folder, name))
        if name == "precision.csv":
            def key(r):
                return ("poisson" if r["kind"] == "poisson" else "helmholtz") + r["ndim"] + "d"
            pts = [(key(r), int(r["n"]) ** int(r["ndim"]), num(r["ratio_to_double"]))
                   for r in rows if r["dtype"] in ("R32", "C32")]
        else:
            pts = []
            kinds = {"p": "poisson", "h": "helmholtz"}
            for (kind, n), by in pairs_by_case(rows, lambda r: (r["kind"], r["n"])).items():
                dd = next((v for k, v in by.items() if k in ("R64", "C64")), None)
                ff = next((v for k, v in by.items() if k in ("R32", "C32")), None)
                if dd and ff:
                    m = [sum(num(r["solve_ms_median"]) for r in v) / len(v) for v in (dd, ff)]
                    pts.append((kinds[kind[0]] + kind[1] + "d", int(n) ** int(kind[1]),
                                m[1] / m[0]))
        fig, ax = plt.subplots(figsize=(8, 5))
        for prob, col in colors.items():
            p = sorted((x, y) for k, x, y in pts if k == prob)
            if p:
                ax.plot([x for x, _ in p], [y for _, y in p], "o-", color=col,
                        label=PROBLEM_NAMES[prob])
        ax.axhline(0.5, color="k", lw=0.8, ls="--", label="half the double time")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.1)
        ax.set_xlabel("unknowns")
        ax.set_ylabel("float time / double time")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(title(name, tool), fontsize=10)
        save(fig, name.replace(".csv", ".png"))
    return made


# ---------------------------------------------------------------------- main

def main(argv):
    if argv and argv[0] == "record":
        return record(argv[1:])
    if argv and argv[0] == "plot":
        if len(argv) < 2:
            sys.exit("usage: perf_tables.py plot DIR...")
        for folder in argv[1:]:
            print(f"{folder}: {', '.join(plot_dir(folder)) or 'nothing to plot'}")
        return 0
    ap = argparse.ArgumentParser(prog="perf_tables.py", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 naming every table that differs")
    ap.add_argument("--list", action="store_true", help="print the table names")
    ap.add_argument("--show", metavar="NAME", help="print one table")
    ap.add_argument("--root", default=ROOT, help="repository root (default: %(default)s)")
    ap.add_argument("files", nargs="*", help="files with perf markers (default: %s)"
                    % ", ".join(DEFAULT_FILES))
    a = ap.parse_args(argv)
    results = os.path.join(a.root, "bench", "results")
    gens = generators(results)
    if a.list:
        print("\n".join(sorted(gens)))
        return 0
    if a.show:
        if a.show not in gens:
            raise PerfError(f"no table {a.show} (--list names them)")
        print(gens[a.show]())
        return 0
    files = a.files or [os.path.join(a.root, f) for f in DEFAULT_FILES
                        if os.path.exists(os.path.join(a.root, f))]
    bad = 0
    for path in files:
        stale = process(path, gens, a.check)
        for name in stale:
            if a.check:
                print(f"{path}: table perf:{name} differs from its CSV "
                      "(run python3 bench/perf_tables.py to regenerate it)", file=sys.stderr)
            else:
                print(f"{path}: perf:{name} regenerated")
        bad += len(stale)
    return 1 if a.check and bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except PerfError as e:
        print(f"perf_tables.py: {e}", file=sys.stderr)
        sys.exit(2)
