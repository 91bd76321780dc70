#!/usr/bin/env python3
"""bench/perf_tables.py: the docs' tables match the CSVs, and --check fails
when they do not.

  python3 bench/test_perf_tables.py

1. --check passes on the repository as committed (every marked table in
   docs/performance.md and README.md equals what bench/results/ gives).
2. On a fixture (bench/testdata/results: earlier runs' CSVs and READMEs,
   fixed, so that refreshing bench/results/ never touches this test) and a
   document with every table of it: a number changed inside a table makes
   --check exit 1 and name that table; regenerating restores the text
   exactly; a marker naming no table and an unclosed marker make it exit 2.
3. The generators agree with hand-read values of the fixture's CSVs (one
   row each), so a formatting slip cannot pass by matching itself.
4. record adds a run's row and replaces it on a second run of the same
   files, keeping the other rows.
5. A baseline that pscr-roofline rejected (row "rejected") reads
   "rejected" in the peers' tables, not a dash.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURE = os.path.join(HERE, "testdata", "results")
SCRIPT = os.path.join(HERE, "perf_tables.py")
sys.path.insert(0, HERE)
import perf_tables  # noqa: E402


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class PerfTables(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.tmp, "bench"))
        os.makedirs(os.path.join(self.tmp, "docs"))
        shutil.copytree(FIXTURE, os.path.join(self.tmp, "bench", "results"))
        self.doc = os.path.join(self.tmp, "docs", "performance.md")
        names = sorted(perf_tables.generators(os.path.join(self.tmp, "bench", "results")))
        with open(self.doc, "w") as f:
            f.write("".join(f"<!-- perf:{n} -->\n<!-- /perf:{n} -->\n\n" for n in names))
        rc, out = run("--root", self.tmp)
        self.assertEqual(rc, 0, out)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_committed_tables_are_current(self):
        rc, out = run("--check", "--root", ROOT)
        self.assertEqual(rc, 0, out)

    def test_changed_number_is_caught_and_regenerated(self):
        with open(self.doc) as f:
            text = f.read()
        # The H100 4096^2 Poisson row: 2.60 ms in bench.csv (2.60288).
        h100 = text[text.index("<!-- perf:h100-bench -->"):]
        row = next(x for x in h100.split("\n") if x.startswith("| poisson2d | 4096 |"))
        self.assertIn("| 2.60 |", row)
        with open(self.doc, "w") as f:
            f.write(text.replace(row, row.replace("| 2.60 |", "| 2.50 |"), 1))
        rc, out = run("--check", "--root", self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn("perf:h100-bench", out)
        self.assertNotIn("perf:cpu-2core-bench", out)
        rc, out = run("--root", self.tmp)
        self.assertEqual(rc, 0, out)
        with open(self.doc) as f:
            self.assertEqual(f.read(), text)
        self.assertEqual(run("--check", "--root", self.tmp)[0], 0)

    def test_bad_markers(self):
        with open(self.doc) as f:
            text = f.read()
        for extra, message in (
                ("<!-- perf:h100-nosuch -->\n<!-- /perf:h100-nosuch -->", "is no known table"),
                ("<!-- perf:runs -->", "perf:runs is never closed")):
            with open(self.doc, "w") as f:
                f.write(text + "\n" + extra + "\n")
            rc, out = run("--check", "--root", self.tmp)
            self.assertEqual(rc, 2, out)
            self.assertIn(message, out)

    def test_values_read_by_hand(self):
        res = FIXTURE
        # h100/bench.csv, helmholtz3d 255: solve 34.278721 ms, backward error 4.048e-12.
        self.assertIn("| helmholtz3d | 255 | 16581375 | 0.0130 | 34.3 |",
                      perf_tables.bench_table(res, "h100"))
        # h100/precision.csv, poisson 3D 255: R64 14.231 ms, R32 8.372 ms, ratio 0.59.
        self.assertIn("| Poisson 3D | 255 | R64 / R32 | 14.2 | 8.37 | 0.59 |",
                      perf_tables.precision_table(res, "h100"))
        # h100/roofline.csv, p2:4095: pscr 4.64592 ms, cuFFT ratio 0.998709.
        self.assertIn("| p2:4095 | R64 | 4.65 | 4.64 (1.00x) |",
                      perf_tables.peers_table(res, "h100"))
        # cpu-16core/baselines.csv, 3D 127: pscr 257.524 ms, FFTW 11.587 ms.
        self.assertIn("| Poisson 3D | 127 | 16 | 258 | 11.6 | 22.23 |",
                      perf_tables.baselines_table(res, "cpu-16core"))
        # h200-x2/dist-gpu.csv, 1023^3 on 2 GPUs: pscr 113.1553 ms (local 111.8370,
        # exchange 1.3727: 1.2%), transpose 124.5053 ms (1.10x), 16744456 and
        # 4282392576 bytes sent, plan 4357779512 bytes.
        self.assertIn("| 3D 1023^3 | 2 | 113 | 125 (1.10x) | 112 / 1.37 (1.2%) | 16.7 / 4280 "
                      "| 4.36 | 4.8e-15 |", perf_tables.dist_table(res, "h200-x2"))
        # h200-x2/dist-cpu.csv, 3D 255^3 on 2 ranks: pscr 64.4432 ms (local 63.5044,
        # exchange 0.5972 + separator 6.1421 = 6.7393: 10.5%), transpose 121.4796 ms
        # (1.89x), 1040392 and 66324480 bytes sent, plan 16952740 bytes; and
        # dist-cpu-weak.csv's 2D row on 2 ranks (2046 x 1023: no exponent).
        cpu = perf_tables.dist_cpu_table(res, "h200-x2")
        self.assertIn("| 3D 255^3 | 2 | 64.4 | 121 (1.89x) | 63.5 / 6.74 (10.5%) | 1.04 / 66.3 "
                      "| 0.0170 | 4.2e-16 |", cpu)
        self.assertIn("| 2D 2046 x 1023 (weak) | 2 | 6.50 | 44.7 (6.88x) |", cpu)

    def test_rejected_peer(self):
        res = os.path.join(self.tmp, "bench", "results")
        path = os.path.join(res, "h100", "roofline.csv")
        with open(path) as f:
            lines = f.read().splitlines(keepends=True)
        out = []
        for line in lines:
            if line.startswith("p2:4095,") and ",baseline,cufft," in line:
                line = line.replace(",baseline,cufft,", ",rejected,cufft,")
            out.append(line)
        with open(path, "w") as f:
            f.writelines(out)
        self.assertIn("| p2:4095 | R64 | 4.65 | rejected |", perf_tables.peers_table(res, "h100"))
        self.assertIn("| p2:2047 | R64 |", perf_tables.peers_table(res, "h100"))
        self.assertNotIn("| p2:2047 | R64 | 0.89 | rejected", perf_tables.peers_table(res, "h100"))

    def test_record_replaces_its_row(self):
        d = os.path.join(self.tmp, "bench", "results", "h100")
        args = ["record", d, "bench.csv", "bench.txt", "--tool", "pscr-bench", "--command",
                "pscr-bench --csv a|b", "--commit", "abc1234", "--date", "2030-01-01 00:00",
                "--device", "a GPU"]
        for commit in ("abc1234", "def5678"):
            args[args.index("--commit") + 1] = commit
            self.assertEqual(run(*args)[0], 0)
        runs = perf_tables.read_runs(d)
        benches = [r for r in runs if "bench.csv" in r["files"]]
        self.assertEqual(len(benches), 1)
        self.assertEqual(benches[0]["commit"], "def5678")
        self.assertEqual(benches[0]["command"], "pscr-bench --csv a|b")
        self.assertTrue(any("roofline.csv" in r["files"] for r in runs))


if __name__ == "__main__":
    unittest.main()
