"""pscr.as_linear_operator: A^-1 as a SciPy LinearOperator, and as the
preconditioner of SciPy's CG on the variable-coefficient example."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from dense import dense_operator, random_pencil, random_rhs

import pscr

scipy = pytest.importorskip("scipy")
from scipy.sparse.linalg import LinearOperator  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
sys.path.insert(0, EXAMPLES)
import precondition_cg  # noqa: E402


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_operator_is_the_inverse(rng, dtype):
    complex_ = dtype == "complex128"
    pencils = [random_pencil(rng, n, complex_) for n in (7, 6)]
    shift = 0.3 + 0.2j if complex_ else 0.5
    inverse = np.linalg.inv(dense_operator(pencils, shift))
    plan = pscr.Plan(pencils, shift)
    op = pscr.as_linear_operator(plan)
    assert isinstance(op, LinearOperator) and op.shape == (42, 42) and op.dtype == dtype
    x = random_rhs(rng, (42,), dtype)
    assert np.allclose(op.matvec(x), inverse @ x, rtol=1e-12, atol=1e-14)
    # The adjoint: A is (complex) symmetric, so (A^-1)^H = conj(A^-1).
    assert np.allclose(op.rmatvec(x), inverse.conj().T @ x, rtol=1e-12, atol=1e-14)
    block = random_rhs(rng, (42, 3), dtype)
    assert np.allclose(op.matmat(block), inverse @ block, rtol=1e-12, atol=1e-14)
    assert np.allclose(op @ x.reshape(42, 1), (inverse @ x).reshape(42, 1), rtol=1e-12)


def test_float_plan_as_double_operator(rng):
    pencils = [random_pencil(rng, n) for n in (9, 8)]
    op = pscr.as_linear_operator(pscr.Plan(pencils, 0.5, dtype="float32"), dtype=np.float64)
    x = rng.standard_normal(72)
    y = op.matvec(x)
    assert y.dtype == np.float64
    ref = np.linalg.solve(dense_operator(pencils, 0.5), x)
    assert np.allclose(y, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


def test_example_assembly_is_pscr_operator_for_k_one():
    # The example's variable-coefficient matrix with k = 1 is exactly the
    # operator pscr solves, so the preconditioner is the right one.
    problem = pscr.Problem.poisson((9, 7), grading=0.4)
    a = precondition_cg.assemble(problem, lambda x, y: np.ones(np.broadcast(x, y).shape))
    assert np.allclose(a.toarray(), dense_operator(problem.pencils, 0.0), rtol=1e-13, atol=1e-12)


def test_preconditioned_cg_converges_fast():
    problem = pscr.Problem.poisson((63, 63), grading=0.3)
    a = precondition_cg.assemble(problem, precondition_cg.coefficient)
    b = problem.load(1.0).reshape(-1)
    with problem.plan() as plan:
        u, its, ok = precondition_cg.run_cg(a, b, pscr.as_linear_operator(plan))
    assert ok and np.linalg.norm(a @ u - b) <= 1e-8 * np.linalg.norm(b)
    # The bound max k / min k = e^2 keeps PCG near 30 iterations at any n;
    # plain CG needs far more.
    assert its <= 40
    _, plain, _ = precondition_cg.run_cg(a, b, maxiter=4 * its)
    assert plain == 4 * its


def test_example_runs():
    script = os.path.join(EXAMPLES, "precondition_cg.py")
    done = subprocess.run(
        [sys.executable, script, "--n", "63", "--float32"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PCG" in done.stdout and "float32 plan" in done.stdout
