#!/usr/bin/env python3
"""pscr on the GPU with CuPy: device arrays in, device arrays out.

Solves 2D Poisson on the unit square (a manufactured smooth solution) with
CuPy arrays on a CUDA stream of its own, one right-hand side and then a
batch, and checks the discretization error on the device.

    python3 cupy_poisson.py [--n 1023] [--float32]

Needs pscr built with CUDA (pscr.HAS_CUDA), CuPy and a device.
"""

from __future__ import annotations

import argparse
import sys

import cupy as cp
import numpy as np

import pscr


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--n", type=int, default=1023, help="unknowns per dimension")
    parser.add_argument("--float32", action="store_true", help="solve in single precision")
    args = parser.parse_args(argv)
    if not pscr.HAS_CUDA:
        print("this pscr build has no CUDA backend")
        return 1
    dtype = np.float32 if args.float32 else np.float64

    problem = pscr.Problem.poisson((args.n, args.n))
    b, exact = problem.manufactured()  # host (NumPy) arrays
    with problem.plan(backend="cuda", dtype=dtype) as plan:
        stream = cp.cuda.Stream(non_blocking=True)
        with stream:  # the solve runs on CuPy's current stream
            f = cp.asarray(b, dtype=dtype)
            u = plan.solve(f)  # a CuPy array; only enqueued
            error = float(cp.abs(u - cp.asarray(exact, dtype=dtype)).max()) / np.abs(exact).max()
            # Four right-hand sides at once: a leading batch axis.
            batch = cp.stack([f, 2 * f, 3 * f, 4 * f])
            ub = plan.solve(batch)
            scale_ok = bool(cp.allclose(ub[3], 4 * u, rtol=1e-4 if args.float32 else 1e-12))
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            for _ in range(20):
                plan.solve(f, out=u)
            end.record()
            end.synchronize()
        ms = cp.cuda.get_elapsed_time(start, end) / 20
        print(f"{args.n} x {args.n} {np.dtype(dtype).name} on {plan.backend}: {ms:.3f} ms per solve")
        print(f"relative error against the exact solution {error:.2e}; batch consistent: {scale_ok}")
    bound = 1e-2 if args.float32 else 1e-3  # O(h^2) for double; float's own rounding beyond
    return 0 if error < bound and scale_ok else 1


if __name__ == "__main__":
    sys.exit(main())
