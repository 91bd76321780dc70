#!/usr/bin/env python3
"""Strict command-line parsing of pscr's programs (issue 42).

Usage: test_cli.py --prog NAME=PATH [--prog NAME=PATH ...]
       test_cli.py --self-test

For each program given (those of the build: pscr-solve, the examples, the
benchmark tools), feed every option each kind of bad input -- not a number,
trailing garbage ("12x"), out of range (0, -5, 3000000000 for the
integers), NaN and infinity where a finite double is needed, a word that is
not one of the option's words, a missing value, an unknown option, a stray
argument -- and check that the program
  - exits with status 2 (a usage error),
  - says so on stderr in one line "NAME: ..." that names the option and
    the bad value (and the kind of error), followed by one hint line that
    points to --help,
  - solved nothing: stdout is empty;
that --help exits 0 with its usage on stdout; and that one small good run
exits 0 (GPU programs without a CUDA device: 1, or 77 with --test, after
"NAME: no CUDA device (cudaGetDeviceCount: ...)" on stderr).

--self-test runs the same checks against two planted lenient programs (one
that ignores bad values and solves, one that exits 2 without naming the
value) and passes only when the checks catch both.

Exit status 0 when every check passes, 1 otherwise (each failure printed).
"""
import os
import stat
import subprocess
import sys
import tempfile

BIG = "3000000000"  # past INT_MAX: must not wrap to a negative int

# The kinds of options and the bad values each gets, with the phrase the
# message must contain (cli_common.h's wording).
NOT_INT = [("abc", "is not an integer"), ("12x", "is not an integer"),
           ("1.5", "is not an integer"), ("", "is not an integer")]
NOT_NUM = [("abc", "is not a number"), ("12x", "is not a number"),
           ("nan", "is not a finite number"), ("inf", "is not a finite number"),
           ("-inf", "is not a finite number")]
OUT = "is out of range"
NOT_WORD = "is not one of"


def ints(lo, hi):
    """Bad values of an int option whose range is lo..hi."""
    bad = list(NOT_INT) + [(str(lo - 1), OUT)]
    if lo - 1 != -5 and lo > -5:
        bad.append(("-5", OUT))
    bad.append((str(hi + 1) if hi < 2**31 - 1 else BIG, OUT))
    return bad


def doubles(*out_of_range):
    """Bad values of a double option; out_of_range: values outside its range."""
    return list(NOT_NUM) + [(v, OUT) for v in out_of_range]


def words(*bad):
    return [(w, NOT_WORD) for w in bad]


INT_MAX = 2**31 - 1
PCG = {
    "-n": [("127,x", "is not an integer"), ("12x", "is not an integer"), ("0", OUT),
           ("-5", OUT), (BIG, OUT), ("127,,255", "empty entry")],
    "--kappa": words("bogus", ""),
    "--contrast": doubles("0.5", "-5"),
    "--graded": doubles("1", "-0.1"),
    "--tol": doubles("0", "1", "-5"),
    "--maxit": ints(1, INT_MAX),
}
GMRES = {
    "-n": [("127,x", "is not an integer"), ("1", OUT), ("-5", OUT), (BIG, OUT)],
    "--omega": doubles("0", "-5"),
    "--nmax": doubles("0.5"),
    "--graded": doubles("1"),
    "--tol": doubles("0", "1"),
    "--restart": ints(1, 10000),
    "--maxit": ints(1, INT_MAX),
    "--threads": ints(1, 4096),
}

# name -> (value options, switches, good run arguments, gpu)
SPECS = {
    "pscr-solve": ({
        "-n": ints(1, INT_MAX),
        "--dim": ints(2, 3),
        "--problem": words("bogus", "Poisson"),
        "--graded": doubles("1", "-0.5"),
        "--omega": doubles("0", "-5"),
        "--dtype": words("half", "single"),
        "--backend": words("gpu", ""),
        "--threads": ints(1, 4096),
        "--repeat": ints(1, 1000000),
        "--batch": ints(1, INT_MAX),
        "--flags": [("bogus", "is not a flag"), ("no-merge-top,x", "is not a flag")],
        "--method": [("bogus", NOT_WORD), ("transform,x", NOT_WORD),
                     ("transform,reduction", "reduced dimension"),
                     ("auto,auto,auto", "more than 2 entries")],
        "--planner": words("exhaustive", ""),
        "--refine": ints(0, 8),
    }, ["--refine-single"], ["-n", "31", "--repeat", "1", "--backend", "cpu", "--threads", "1", "--batch", "2",
            "--dtype", "float", "--refine", "1"], False),
    "pscr-pcg": (dict(PCG, **{"--threads": ints(1, 4096)}), ["--no-cg", "--test"],
                 ["-n", "15", "--threads", "1"], False),
    "pscr-pcg3d": (dict(PCG, **{"--threads": ints(1, 4096)}), ["--no-cg", "--test"],
                   ["-n", "7", "--threads", "1"], False),
    "pscr-gmres": (GMRES, ["--baseline", "--no-baseline", "--test"],
                   ["-n", "17", "--threads", "1"], False),
    "pscr-bench": ({
        "--tables": words("bogus", "poisson2d,bogus"),
        "--problem": words("bogus"),
        "--min-n": ints(0, INT_MAX),
        "--max-n": ints(0, INT_MAX),
        "--repeat": ints(1, 1000000),
        "--threads": ints(1, 4096),
        "--device": ints(0, INT_MAX),
        "--backend": words("gpu"),
    }, [], ["--tables", "poisson2d", "--max-n", "64", "--repeat", "1", "--backend", "cpu"],
        False),
    "pscr-precision": ({
        "--backend": words("gpu", "auto"),
        "--max-n2": ints(1, INT_MAX),
        "--max-n3": ints(1, INT_MAX),
        "--repeat": ints(1, 1000000),
        "--rows": words("3", "x", "-2"),
    }, ["--profile"], ["--backend", "cpu", "--max-n2", "255", "--max-n3", "1", "--repeat", "1"],
        False),
    "pscr-baselines": ({
        "--2d": [("0", OUT), ("12x", "is not an integer"), ("63,,127", "empty entry"),
                 (BIG, OUT)],
        "--3d": [("-5", OUT), ("abc", "is not an integer")],
        "--repeat": ints(1, 1000000),
        "--gpu-repeat": ints(1, 1000000),
        "--threads": ints(1, 4096),
        "--device": ints(0, INT_MAX),
        "--planner": words("exhaustive", ""),
    }, ["--estimate", "--no-cpu", "--no-gpu", "--no-dense", "--no-gtsv"],
        ["--2d", "31", "--3d", "none", "--no-gpu", "--estimate", "--repeat", "1"], False),
    "pscr-baselines-check": ({}, [], [], False),
    "pscr-dist-bench": ({
        "--2d": [("1", OUT), ("12x", "is not an integer"), ("63,,127", "empty entry")],
        "--3d": [("-5", OUT), ("abc", "is not an integer")],
        "--repeat": ints(1, 1000000),
        "--threads": ints(1, 4096),
        "--devices": ints(1, 1024),
        "--backend": words("gpu", ""),
        "--planner": words("exhaustive", ""),
        "--flags": [("bogus", "is not a flag"), ("mpi-local-plans,x", "is not a flag")],
    }, ["--weak", "--device-arrays", "--baseline"], ["--2d", "15", "--3d", "none", "--repeat", "1", "--threads",
                                       "1"], False),
    "pscr-pcg-gpu": (dict(PCG, **{"--device": ints(0, INT_MAX)}), ["--no-cg", "--test", "--cpu"],
                     ["-n", "15", "--no-cg"], True),
    "pscr-pcg3d-gpu": (dict(PCG, **{"--device": ints(0, INT_MAX)}),
                       ["--no-cg", "--test", "--cpu"], ["-n", "7", "--no-cg"], True),
    "pscr-gmres-gpu": (dict(GMRES, **{"--device": ints(0, INT_MAX)}),
                       ["--baseline", "--no-baseline", "--test", "--cpu"],
                       ["-n", "17", "--no-baseline"], True),
    "pscr-roofline": ({
        "--cases": [("p2:0", OUT), ("x2:10", "is not a case"), ("p2:10,,p3:5", "is not a case"),
                    ("p2:12x", "is not an integer"), ("p2:" + BIG, OUT)],
        "--repeat": ints(10, 1000000),
        "--device": ints(0, INT_MAX),
        "--copy-mib": ints(1, 65536),
        "--planner": words("exhaustive", ""),
        "--refine": ints(1, 8),
        "--flags": [("bogus", "is not a flag"), ("cuda-pcr-refine-all,x", "is not a flag")],
        "--method": [("bogus", NOT_WORD), ("transform,x", NOT_WORD),
                     ("transform,reduction,auto", "more than 2 entries")],
    }, ["--no-baselines", "--refine-single"], ["--cases", "p2:31", "--repeat", "10", "--no-baselines",
                            "--copy-mib", "1"], True),
}

# Programs whose command lines are not option/value pairs: explicit cases
# (arguments, phrases the message must contain).
EXPLICIT = {
    "pscr-own-pencils": ([
        (["x", "20"], ["N1", "'x'", "not an integer"]),
        (["20", "12x"], ["N2", "'12x'", "not an integer"]),
        (["0", "20"], ["N1", "'0'", "out of range"]),
        (["-5", "20"], ["N1", "'-5'", "out of range"]),
        ([BIG, "20"], ["N1", BIG, "out of range"]),
        (["20"], ["N2 missing"]),
        (["20", "20", "20"], ["unexpected argument", "'20'"]),
        (["--fo"], ["unknown option", "'--fo'"]),
    ], ["16", "20"], False),
    "pscr-poisson-fortran": ([
        (["extra"], ["unexpected argument", "'extra'"]),
        (["--fo"], ["unknown option", "'--fo'"]),
    ], [], False),
    "pscr-gpu-once": ([
        (["p4", "31"], ["KIND", "'p4'", NOT_WORD]),
        (["p2", "abc"], ["N", "'abc'", "is not an integer"]),
        (["p2", "12x"], ["N", "'12x'", "is not an integer"]),
        (["p2", "0"], ["N", "0", OUT]),
        (["p2", BIG], ["N", BIG, OUT]),
        (["p2", "31", "3"], ["ROWS", "'3'", NOT_WORD]),
        (["p2", "31", "--nrhs", "0"], ["--nrhs", "0", OUT]),
        (["p2", "31", "--nrhs", "x"], ["--nrhs", "'x'", "is not an integer"]),
        (["p2", "31", "--nrhs"], ["--nrhs", "missing value"]),
        (["p2", "31", "--float=1"], ["--float", "takes no value"]),
        (["p2", "31", "--fo"], ["unknown option", "'--fo'"]),
        (["p2", "31", "--graded", "1"], ["--graded", "1", OUT]),
        (["p2", "31", "--graded", "nan"], ["--graded", "'nan'", "is not a finite number"]),
        (["p2", "31", "--graded"], ["--graded", "missing value"]),
        (["p2"], ["missing", "N"]),
    ], ["p2", "31"], True),
    "pscr-petsc": ([
        (["-n", "abc"], ["-n", "'abc'", "is not an integer"]),
        (["-n", "12x"], ["-n", "'12x'", "is not an integer"]),
        (["-n", "0"], ["-n", "0", OUT]),
        (["-n", BIG], ["-n", BIG, OUT]),
        (["-maxit", BIG], ["-maxit", BIG, OUT]),
        (["-maxit", "-5"], ["-maxit", "-5", OUT]),
        (["-maxit"], ["-maxit", "''", "is not an integer"]),
        (["-contrast", "nan"], ["-contrast", "'nan'", "is not a finite number"]),
        (["-contrast", "inf"], ["-contrast", "'inf'", "is not a finite number"]),
        (["-contrast", "0.5"], ["-contrast", "0.5", OUT]),
        (["-graded", "1"], ["-graded", "1", OUT]),
        (["-tol", "abc"], ["-tol", "'abc'", "is not a number"]),
        (["-reps", "16"], ["-reps", "16", OUT]),
        (["-kappa", "bogus"], ["-kappa", "'bogus'", NOT_WORD]),
        (["-methods", "pscr1,bogus"], ["-methods", "'bogus'", NOT_WORD]),
        (["-test", "maybe"], ["-test", "'maybe'", "not a boolean"]),
    ], ["-n", "15", "-methods", "pscr1,jacobi", "-reps", "0"], False),
}


class Checker:
    def __init__(self):
        self.failures = 0
        self.runs = 0
        self.usage_checks = 0
        self.usage_failures = 0

    def fail(self, what):
        self.failures += 1
        print("FAIL: " + what)

    def run(self, path, args, timeout=300):
        self.runs += 1
        try:
            p = subprocess.run([path] + args, capture_output=True, text=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None
        return p

    def usage_error(self, name, path, args, phrases):
        """args must be refused: status 2, the message names phrases, nothing solved."""
        shown = " ".join(repr(a) if (not a or " " in a) else a for a in args)
        self.usage_checks += 1
        p = self.run(path, args, timeout=60)
        if p is None:
            self.usage_failures += 1
            self.fail(f"{name} {shown}: did not finish in 60 s (a usage error must not run)")
            return
        lines = p.stderr.splitlines()
        first = lines[0] if lines else ""
        problems = []
        if p.returncode != 2:
            problems.append(f"exit status {p.returncode}, not 2")
        if not first.startswith(name + ": "):
            problems.append(f"stderr does not begin with '{name}: '")
        missing = [ph for ph in phrases if ph not in first]
        if missing:
            problems.append("the message lacks " + ", ".join(repr(m) for m in missing))
        if len(lines) != 2 or "--help" not in lines[1]:
            problems.append("not one message line and one hint line naming --help")
        if p.stdout:
            problems.append("it wrote to stdout (solved something?): "
                            + p.stdout.splitlines()[0][:80])
        if problems:
            self.usage_failures += 1
            self.fail(f"{name} {shown}: " + "; ".join(problems)
                      + f"\n      stderr: {p.stderr.strip()[:300]!r}")

    def help_ok(self, name, path):
        p = self.run(path, ["--help"], timeout=60)
        if p is None or p.returncode != 0 or not p.stdout.strip() or p.stderr:
            self.fail(f"{name} --help: status {p.returncode if p else 'timeout'}, want 0 with "
                      "the usage on stdout and nothing on stderr")

    def good_run(self, name, path, args, gpu):
        p = self.run(path, args)
        if p is None:
            self.fail(f"{name} {' '.join(args)}: timed out")
            return
        nodev = name + ": no CUDA device (cudaGetDeviceCount: "
        if p.returncode == 0 and p.stdout:
            return
        if gpu and p.returncode in (1, 77) and p.stderr.startswith(nodev):
            # No device here: the program must say so first, and its --test
            # mode must exit 77 (ctest's skip) with the same line.
            if name in ("pscr-pcg-gpu", "pscr-pcg3d-gpu", "pscr-gmres-gpu"):
                want = 1
                t = self.run(path, ["--test"], timeout=60)
                if t is None or t.returncode != 77 or not t.stderr.startswith(nodev):
                    self.fail(f"{name} --test without a device: status "
                              f"{t.returncode if t else 'timeout'}, want 77 after '{nodev}...'")
            else:
                want = 77  # the benchmark tools: 77 (pscr-bench's convention)
            if p.returncode != want:
                self.fail(f"{name} {' '.join(args)} without a device: status {p.returncode}, "
                          f"want {want}")
            return
        self.fail(f"{name} {' '.join(args)}: status {p.returncode}, want 0 with output"
                  + (" (or, GPU, 'no CUDA device')" if gpu else "")
                  + f"\n      stderr: {p.stderr.strip()[:300]!r}")

    def check_program(self, name, path):
        if name in EXPLICIT:
            cases, good, gpu = EXPLICIT[name]
            for args, phrases in cases:
                self.usage_error(name, path, args, phrases)
            self.help_ok(name, path)
            self.good_run(name, path, good, gpu)
            return
        options, switches, good, gpu = SPECS[name]
        for opt, bad in options.items():
            for value, phrase in bad:
                shown_value = f"'{value}'" if phrase != OUT else value
                self.usage_error(name, path, [opt, value], [opt, shown_value, phrase])
            # the value missing: the option last
            self.usage_error(name, path, [opt], [opt, "missing value"])
            if opt.startswith("--"):  # --name=value is the same option
                value, phrase = bad[0]
                if value:
                    self.usage_error(name, path, [opt + "=" + value],
                                     [opt, f"'{value}'" if phrase != OUT else value, phrase])
        for sw in switches:
            self.usage_error(name, path, [sw + "=1"], [sw, "takes no value"])
        self.usage_error(name, path, ["--fo"], ["unknown option", "'--fo'"])
        self.usage_error(name, path, ["-x"], ["unknown option", "'-x'"])
        self.usage_error(name, path, ["extra"], ["unexpected argument", "'extra'"])
        self.help_ok(name, path)
        if good or name == "pscr-baselines-check":
            self.good_run(name, path, good, gpu)
        if name == "pscr-bench":  # --backend cuda: 0 with a device, else 77 and why
            p = self.run(path, ["--backend", "cuda", "--tables", "poisson2d", "--max-n", "64"])
            why = p is not None and p.returncode == 77 and (
                "no CUDA device" in p.stderr or "no CUDA backend" in p.stderr)
            if p is None or not (p.returncode == 0 or why):
                self.fail(f"pscr-bench --backend cuda: status {p.returncode if p else 'timeout'},"
                          " want 0, or 77 with the reason")
        if name == "pscr-solve":  # the thread count's grammar
            p = self.run(path, ["-n", "15", "--backend", "cpu", "--threads", "1", "--repeat", "1"])
            if p is None or "(1 thread)" not in p.stdout:
                self.fail("pscr-solve --threads 1: its output does not say '(1 thread)'")


def self_test():
    """The checks must catch lenient programs."""
    ok = True
    with tempfile.TemporaryDirectory() as d:
        lenient = os.path.join(d, "lenient")
        with open(lenient, "w") as f:  # takes anything, solves, exits 0 (pre-issue-42 style)
            f.write("#!/bin/sh\necho 'backward error 1e-15'\nexit 0\n")
        vague = os.path.join(d, "vague")
        with open(vague, "w") as f:  # refuses everything, but names nothing
            f.write("#!/bin/sh\necho 'usage: prog [options]' >&2\nexit 2\n")
        for p in (lenient, vague):
            os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR)
        for path, what in ((lenient, "a program that ignores bad values"),
                           (vague, "a program that exits 2 without naming the value")):
            c = Checker()
            with open(os.devnull, "w") as quiet:  # the expected FAIL lines
                out, sys.stdout = sys.stdout, quiet
                try:
                    c.check_program("pscr-solve", path)
                finally:
                    sys.stdout = out
            caught = c.usage_checks > 0 and c.usage_failures == c.usage_checks
            print(f"self-test: {what}: {c.usage_failures} of {c.usage_checks} bad command "
                  f"lines caught: " + ("ok" if caught else "NOT CAUGHT"))
            ok &= caught
    print("passed" if ok else "FAILED")
    return 0 if ok else 1


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    progs = []
    it = iter(argv)
    for a in it:
        if a != "--prog":
            print(f"test_cli.py: unexpected argument {a!r} (usage: --prog NAME=PATH ...)")
            return 2
        name, _, path = next(it, "").partition("=")
        if name not in SPECS and name not in EXPLICIT:
            print(f"test_cli.py: no cases for {name!r}")
            return 2
        progs.append((name, path))
    if not progs:
        print("test_cli.py: no program given (usage: --prog NAME=PATH ...)")
        return 2
    c = Checker()
    for name, path in progs:
        before = c.failures
        c.check_program(name, path)
        print(f"{name}: {'ok' if c.failures == before else 'FAILED'}")
    print(f"{c.runs} runs, {c.failures} failures: {'passed' if not c.failures else 'FAILED'}")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
