#!/usr/bin/env python3
"""scripts/ncu-sum.py against ncu-sample.csv, whose sums are derived by hand:

  k_part (launches 0, 1): 10 us + 30,000 ns = 40 us; DRAM 3 Mbyte + 1,000
    Kbyte = 4e6 bytes; throughput (50 % x 10 us + 90 % x 30 us) / 40 us = 80 %.
  k_gather (launch 2): 0.02 ms; DRAM 500000 bytes; throughput n/a (dropped).
  Per solve (--solves 2): k_part 0.020 ms, 1 launch, 2e6 bytes = 100 GB/s;
  k_gather 0.010 ms, 0.5 launches, 2.5e5 bytes = 25 GB/s; total 0.030 ms.
"""
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "ncu_sum", os.path.join(HERE, "..", "..", "scripts", "ncu-sum.py"))
ncu_sum = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ncu_sum)
SAMPLE = os.path.join(HERE, "ncu-sample.csv")
PART = "k_part<float, (int)8, StagedFacs<float>>"


class NcuSum(unittest.TestCase):
    def test_short_name(self):
        # The parameter list goes, template arguments stay (a '(' inside them too).
        self.assertEqual(ncu_sum.short_name(
            "void pscr_cuda::k_part<float, (int)8, pscr_cuda::StagedFacs<float>>("
            "pscr_cuda::LevelArgs<float>, int)"), PART)
        self.assertEqual(ncu_sum.short_name("k_plain(int)"), "k_plain")

    def test_read(self):
        launches = ncu_sum.read(SAMPLE)
        self.assertEqual(sorted(launches), ["0", "1", "2"])
        kernel, m = launches["1"]
        self.assertEqual(kernel, PART)
        self.assertAlmostEqual(m["gpu__time_duration.sum"], 0.030)  # 30,000 ns in ms
        self.assertAlmostEqual(m["dram__bytes.sum"], 1e6)  # 1,000 Kbyte
        self.assertIsNone(launches["2"][1]["sm__throughput.avg.pct_of_peak_sustained_elapsed"])

    def test_summary_per_solve(self):
        lines = ncu_sum.summarize(ncu_sum.read(SAMPLE), 2)
        self.assertEqual(lines[0], f"    0.020 ms    1.00x  {PART}")
        self.assertEqual(lines[1].split(), ["dram__bytes.sum", "0.0020", "GB", "(100", "GB/s)"])
        self.assertEqual(lines[2].split(),
                         ["sm__throughput.avg.pct_of_peak_sustained_elapsed", "80.0"])
        self.assertEqual(lines[3], "    0.010 ms    0.50x  k_gather<double>")
        self.assertEqual(lines[4].split()[-2:], ["(25", "GB/s)"])
        self.assertEqual(lines[5], "    0.030 ms total (kernels only)")
        self.assertEqual(len(lines), 6)  # no throughput line for k_gather (n/a)

    def test_no_header(self):
        path = os.path.join(HERE, "ncu-sample.csv")
        with open(path) as fh:
            body = "".join(l for l in fh if '"Kernel Name"' not in l)
        tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"ncu-noheader-{os.getpid()}.csv")
        with open(tmp, "w") as fh:
            fh.write(body)
        try:
            with self.assertRaises(SystemExit):
                ncu_sum.read(tmp)
        finally:
            os.remove(tmp)


if __name__ == "__main__":
    unittest.main()
