#!/usr/bin/env python3
"""pscr as a preconditioner for SciPy's conjugate gradients.

Solves the variable-coefficient problem -div(k grad u) = 1 on the unit
square (Dirichlet conditions, piecewise-linear finite elements with lumped
mass on a graded mesh), k(x, y) = exp(sin(2 pi x) cos(2 pi y)), whose
coefficient varies by a factor e^2. Its operator is not separable, so
pscr cannot solve it directly; but pscr solves the constant-coefficient
operator (k = 1) on the same mesh exactly and fast, and as a
preconditioner that operator bounds the condition number by max k / min k
whatever the mesh size: CG then takes a fixed number of iterations.

    python3 precondition_cg.py [--n 255] [--float32]

--float32 preconditions with a single-precision plan (half the memory
traffic; enough for a preconditioner). Exit status 0 when preconditioned
CG converged.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import cg

import pscr


def coefficient(x, y):
    return np.exp(np.sin(2 * np.pi * x) * np.cos(2 * np.pi * y))


def assemble(problem, k):
    """The finite-element matrix of -div(k grad u) on the problem's mesh (a
    2D Poisson pscr.Problem), k evaluated at edge midpoints. With k = 1 it
    is exactly pscr's A1 (x) M2 + M1 (x) A2."""
    (x, y), (hx, hy) = problem.x, problem.h
    (lx, ly), (n1, n2) = problem.length, problem.shape
    m1, m2 = problem.pencils[0].m_diag, problem.pencils[1].m_diag
    xs, ys = np.concatenate(([0.0], x, [lx])), np.concatenate(([0.0], y, [ly]))
    # Weight of each edge: k at its midpoint times the mass across it over
    # its length. wx[e, j]: the edge e of row j along x (n1 + 1 per row).
    wx = k((xs[:-1, None] + xs[1:, None]) / 2, y[None, :]) * m2[None, :] / hx[:, None]
    wy = k(x[:, None], (ys[None, :-1] + ys[None, 1:]) / 2) * m1[:, None] / hy[None, :]
    diag = (wx[:-1] + wx[1:] + wy[:, :-1] + wy[:, 1:]).reshape(-1)
    # Neighbours along y (index +-1; none across the end of a row) and
    # along x (index +-n2).
    off_y = -wy[:, 1:]
    off_y[:, -1] = 0.0
    off_y = off_y.reshape(-1)[:-1]
    off_x = -wx[1:-1].reshape(-1)
    n = n1 * n2
    return sp.diags([diag, off_y, off_y, off_x, off_x], [0, 1, -1, n2, -n2], shape=(n, n), format="csr")


def run_cg(a, b, m=None, maxiter=None):
    """CG to a relative residual of 1e-8; (solution, iterations, converged)."""
    iterations = 0

    def count(_):
        nonlocal iterations
        iterations += 1

    x, info = cg(a, b, rtol=1e-8, atol=0.0, M=m, maxiter=maxiter, callback=count)
    return x, iterations, info == 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--n", type=int, default=255, help="unknowns per dimension (default 255)")
    parser.add_argument("--float32", action="store_true", help="a single-precision preconditioner")
    args = parser.parse_args(argv)

    problem = pscr.Problem.poisson((args.n, args.n), grading=0.3)
    a = assemble(problem, coefficient)
    b = problem.load(1.0).reshape(-1)

    start = time.perf_counter()
    plan = problem.plan(dtype=np.float32 if args.float32 else np.float64)
    m = pscr.as_linear_operator(plan, dtype=np.float64)
    plan_time = time.perf_counter() - start

    start = time.perf_counter()
    u, its, ok = run_cg(a, b, m)
    pcg_time = time.perf_counter() - start
    _, plain_its, plain_ok = run_cg(a, b, maxiter=20 * its)

    residual = np.linalg.norm(a @ u - b) / np.linalg.norm(b)
    print(f"problem     -div(k grad u) = 1, {args.n} x {args.n} graded mesh, k from {np.exp(-1):.2f} to {np.exp(1):.2f}")
    print(f"pscr        {plan.dtype} plan on {plan.backend}, built in {plan_time:.3f} s")
    print(f"PCG         {its} iterations, {pcg_time:.3f} s, relative residual {residual:.1e}")
    print(f"plain CG    {plain_its} iterations{'' if plain_ok else ' (stopped, not converged)'}")
    plan.close()
    return 0 if ok and residual <= 1e-7 else 1


if __name__ == "__main__":
    sys.exit(main())
