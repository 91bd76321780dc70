#!/usr/bin/env python3
"""The Python binding's cost on the GPU: pscr.Plan.solve on CuPy device
arrays against the C device API (pscr_solve_device called in a C loop, on
the same plan, arrays and stream), per call, timed with CUDA events.

    python3 time_device.py [--n 1023] [--dtype float64] [--calls 200] [--check]

For each dtype it times, in alternating rounds (the median of 5):
  c          pscr_solve_device, `calls` times in one C loop;
  py out=    plan.solve(f, out=u), `calls` times from Python;
  py new     plan.solve(f), a new result array from CuPy's pool per call;
and the host time per Python call (how long the call takes to return).
--check exits 1 unless both Python times are within 10% + 20 us of the C
loop's (issue 46). Needs a CUDA build of pscr, CuPy and a device.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import cupy as cp

import pscr
from pscr import _arrays


def events_ms(stream, work, calls):
    """Milliseconds per call of work(), between CUDA events on stream."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record(stream)
    work()
    end.record(stream)
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / calls


def time_dtype(n, dtype, calls, rounds):
    problem = pscr.Problem.poisson((n, n))
    b, _ = problem.manufactured()
    plan = problem.plan(backend="cuda", dtype=dtype)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        f = cp.asarray(b.astype(dtype))
        u = cp.empty_like(f)
        s = stream.ptr

        def c_loop():
            plan._core.repeat_device(_arrays.export(f, s), _arrays.export(u, s), s, calls)

        def py_out():
            for _ in range(calls):
                plan.solve(f, out=u)

        def py_new():
            for _ in range(calls):
                plan.solve(f)

        host = []

        def py_host():
            begin = time.perf_counter()
            for _ in range(calls):
                plan.solve(f, out=u)
            host.append((time.perf_counter() - begin) / calls * 1e3)

        for work in (c_loop, py_out, py_new):  # first use: kernels, pool
            events_ms(stream, work, calls)
        times = {"c": [], "py out=": [], "py new": []}
        for _ in range(rounds):
            times["c"].append(events_ms(stream, c_loop, calls))
            times["py out="].append(events_ms(stream, py_out, calls))
            times["py new"].append(events_ms(stream, py_new, calls))
            events_ms(stream, py_host, calls)
        stream.synchronize()
    plan.close()
    result = {k: statistics.median(v) for k, v in times.items()}
    result["host"] = statistics.median(host)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--n", type=int, default=1023)
    parser.add_argument("--dtype", action="append", help="float64 (default), float32, ...")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="fail beyond 10%% + 20 us")
    args = parser.parse_args(argv)
    dtypes = args.dtype or ["float64"]

    device = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()
    print(f"device {device}, pscr {pscr.__version__}, 2D Poisson {args.n}^2, {args.calls} calls x {args.rounds} rounds")
    print(f"{'dtype':10} {'C ms':>9} {'py out= ms':>11} {'py new ms':>10} {'limit ms':>9} {'host ms/call':>13}")
    ok = True
    for dtype in dtypes:
        t = time_dtype(args.n, dtype, args.calls, args.rounds)
        limit = 1.10 * t["c"] + 0.020
        within = t["py out="] <= limit and t["py new"] <= limit
        ok &= within
        print(
            f"{dtype:10} {t['c']:9.4f} {t['py out=']:11.4f} {t['py new']:10.4f} {limit:9.4f} "
            f"{t['host']:13.4f}  {'ok' if within else 'OVER THE LIMIT'}"
        )
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
